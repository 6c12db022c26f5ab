import { DossierError } from '../errors/index.ts';
import type { Filter } from './types.ts';

/**
 * Compiles a Mongo-style filter into a SQL condition. The dialect supplies column and JSON-path
 * expressions and parameter placeholders, so SQLite and PostgreSQL share this one compiler.
 */
export interface FilterDialect {
  /** SQL expression for a top-level document field, or undefined if there is no such field. */
  field(name: string): string | undefined;
  /** SQL expression reading `metadata.<path>`. `path` segments are validated identifiers. */
  metadata(path: string[]): string;
  /** Placeholder for the next parameter (e.g. "?" or "$3"); records the value. */
  param(value: unknown, params: unknown[]): string;
}

export interface CompiledFilter {
  sql: string;
  params: unknown[];
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

export function compileFilter(filter: Filter | undefined, dialect: FilterDialect): CompiledFilter {
  const params: unknown[] = [];
  if (filter === undefined) return { sql: '1=1', params };
  if (!isPlainObject(filter)) fail('must be an object');
  const sql = compileObject(filter, dialect, params);
  return { sql, params };
}

function compileObject(filter: Record<string, unknown>, dialect: FilterDialect, params: unknown[]): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) fail(`${key} needs a non-empty array of filters`);
      const inner = value.map((item) => {
        if (!isPlainObject(item)) fail(`${key} items must be objects`);
        return `(${compileObject(item, dialect, params)})`;
      });
      parts.push(`(${inner.join(key === '$and' ? ' AND ' : ' OR ')})`);
    } else if (key.startsWith('$')) {
      fail(`unknown operator ${key} (known: $eq $ne $in $nin $gt $gte $lt $lte $and $or)`);
    } else {
      parts.push(compileField(key, value, dialect, params));
    }
  }
  return parts.length ? parts.join(' AND ') : '1=1';
}

function fieldExpression(name: string, dialect: FilterDialect): string {
  if (name.startsWith('metadata.')) {
    const path = name.slice('metadata.'.length).split('.');
    if (!path.every((segment) => PATH_SEGMENT.test(segment))) fail(`bad metadata path "${name}"`);
    return dialect.metadata(path);
  }
  const expression = dialect.field(name);
  if (!expression) fail(`unknown field "${name}" (fields: id, title, source, mediaType, collection, createdAt, updatedAt, metadata.<path>)`);
  return expression;
}

function compileField(name: string, condition: unknown, dialect: FilterDialect, params: unknown[]): string {
  const column = fieldExpression(name, dialect);
  const operators = isPlainObject(condition) && Object.keys(condition).some((key) => key.startsWith('$'))
    ? condition
    : { $eq: condition };
  const parts: string[] = [];
  for (const [operator, operand] of Object.entries(operators)) {
    if (operator === '$in' || operator === '$nin') {
      if (!Array.isArray(operand)) fail(`${name}: ${operator} needs an array`);
      operand.forEach((item) => checkScalar(item, `${name}: ${operator}`));
      if (operand.length === 0) {
        parts.push(operator === '$in' ? '1=0' : '1=1');
        continue;
      }
      const list = operand.map((item) => dialect.param(item, params)).join(', ');
      parts.push(operator === '$in' ? `${column} IN (${list})` : `(${column} IS NULL OR ${column} NOT IN (${list}))`);
    } else if (operator in COMPARISON) {
      checkScalar(operand, `${name}: ${operator}`);
      if (operand === null) {
        if (operator === '$eq') parts.push(`${column} IS NULL`);
        else if (operator === '$ne') parts.push(`${column} IS NOT NULL`);
        else fail(`${name}: ${operator} cannot compare with null`);
      } else if (operator === '$ne') {
        // Mongo semantics: a document without the field matches $ne.
        parts.push(`(${column} IS NULL OR ${column} != ${dialect.param(operand, params)})`);
      } else {
        parts.push(`${column} ${COMPARISON[operator]} ${dialect.param(operand, params)}`);
      }
    } else {
      fail(`${name}: unknown operator ${operator}`);
    }
  }
  return parts.length ? parts.join(' AND ') : '1=1';
}
