import { DossierError } from '../errors/index.ts';
import { sql, type Sql } from './sql/sql.ts';
import type { Filter } from './types.ts';

/**
 * Compiles a Mongo-style filter into a SQL condition. The dialect supplies column and JSON-path
 * expressions and how a compared value is bound, so SQLite and PostgreSQL share this one compiler.
 */
export interface FilterDialect {
  /** SQL expression for a top-level document field, or undefined if there is no such field. */
  field(name: string): Sql | undefined;
  /** SQL expression reading `metadata.<path>`. `path` segments are validated identifiers. */
  metadata(path: string[]): Sql;
  /** A compared value, bound as a parameter. */
  value(value: unknown): Sql;
}

const COMPARISON: Record<string, string> = { $eq: '=', $ne: '!=', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };
const PATH_SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function fail(message: string): never {
  throw new DossierError('bad-input', `filter: ${message}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkScalar(value: unknown, where: string): void {
  const ok = value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (!ok) fail(`${where} needs a string, number, boolean or null, got ${JSON.stringify(value)}`);
}

const ALWAYS = sql`1=1`;
const NEVER = sql`1=0`;

export function compileFilter(filter: Filter | undefined, dialect: FilterDialect): Sql {
  if (filter === undefined) return ALWAYS;
  if (!isPlainObject(filter)) fail('must be an object');
  return compileObject(filter, dialect);
}

function compileObject(filter: Record<string, unknown>, dialect: FilterDialect): Sql {
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) fail(`${key} needs a non-empty array of filters`);
      const inner = value.map((item) => {
        if (!isPlainObject(item)) fail(`${key} items must be objects`);
        return sql`(${compileObject(item, dialect)})`;
      });
      parts.push(sql`(${sql.join(inner, key === '$and' ? sql` AND ` : sql` OR `)})`);
    } else if (key.startsWith('$')) {
      fail(`unknown operator ${key} (known: $eq $ne $in $nin $gt $gte $lt $lte $and $or)`);
    } else {
      parts.push(compileField(key, value, dialect));
    }
  }
  return parts.length ? sql.join(parts, sql` AND `) : ALWAYS;
}

function fieldExpression(name: string, dialect: FilterDialect): Sql {
  if (name.startsWith('metadata.')) {
    const path = name.slice('metadata.'.length).split('.');
    if (!path.every((segment) => PATH_SEGMENT.test(segment))) fail(`bad metadata path "${name}"`);
    return dialect.metadata(path);
  }
  const expression = dialect.field(name);
  if (!expression)
    fail(`unknown field "${name}" (fields: id, title, source, mediaType, collection, createdAt, updatedAt, metadata.<path>)`);
  return expression;
}

function compileField(name: string, condition: unknown, dialect: FilterDialect): Sql {
  const column = fieldExpression(name, dialect);
  const operators = isPlainObject(condition) && Object.keys(condition).some((key) => key.startsWith('$')) ? condition : { $eq: condition };
  const parts: Sql[] = [];
  for (const [operator, operand] of Object.entries(operators)) {
    if (operator === '$in' || operator === '$nin') {
      if (!Array.isArray(operand)) fail(`${name}: ${operator} needs an array`);
      operand.forEach((item) => checkScalar(item, `${name}: ${operator}`));
      if (operand.length === 0) {
        parts.push(operator === '$in' ? NEVER : ALWAYS);
        continue;
      }
      const list = sql.join(operand.map((item) => dialect.value(item)));
      parts.push(operator === '$in' ? sql`${column} IN (${list})` : sql`(${column} IS NULL OR ${column} NOT IN (${list}))`);
    } else if (operator in COMPARISON) {
      checkScalar(operand, `${name}: ${operator}`);
      if (operand === null) {
        if (operator === '$eq') parts.push(sql`${column} IS NULL`);
        else if (operator === '$ne') parts.push(sql`${column} IS NOT NULL`);
        else fail(`${name}: ${operator} cannot compare with null`);
      } else if (operator === '$ne') {
        // Mongo semantics: a document without the field matches $ne.
        parts.push(sql`(${column} IS NULL OR ${column} != ${dialect.value(operand)})`);
      } else {
        parts.push(sql`${column} ${sql.raw(COMPARISON[operator])} ${dialect.value(operand)}`);
      }
    } else {
      fail(`${name}: unknown operator ${operator}`);
    }
  }
  return parts.length ? sql.join(parts, sql` AND `) : ALWAYS;
}
