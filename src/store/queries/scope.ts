import { DossierError } from '../../errors/index.ts';
import { compileFilter, type FilterDialect } from '../filter.ts';
import type { Dialect } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { Filter, Scope } from '../types.ts';

/** The document fields a filter may name, as columns of `d` (documents) and `col` (collections). */
export const DOCUMENT_FIELDS: Readonly<Record<string, string>> = {
  id: 'd.id',
  title: 'd.title',
  source: 'd.source',
  mediaType: 'd.media_type',
  collection: 'col.name',
  createdAt: 'd.created_at',
  updatedAt: 'd.updated_at',
};

function documentFilter(dialect: Dialect): FilterDialect {
  return {
    field: (name) => (Object.hasOwn(DOCUMENT_FIELDS, name) ? dialect.filter.column(sql.raw(DOCUMENT_FIELDS[name])) : undefined),
    metadata: (path) => dialect.filter.jsonPath(sql`d.metadata`, path),
    value: (value) => dialect.filter.value(value),
  };
}

/** The scope's collections as a condition over `col` (collections). */
export function scopeCondition(dialect: Dialect, scope: Scope): Sql {
  if (scope.collections === '*') return dialect.always;
  if (!Array.isArray(scope.collections)) throw new DossierError('bad-input', 'scope.collections must be an array of names or "*"');
  if (scope.collections.length === 0) return dialect.never;
  return dialect.isOneOf(sql`col.name`, scope.collections, 'text');
}

/** Scope and filter as one condition over `d` (documents) and `col` (collections). */
export function documentWhere(dialect: Dialect, scope: Scope, filter?: Filter): Sql {
  return sql`${scopeCondition(dialect, scope)} AND (${compileFilter(filter, documentFilter(dialect))})`;
}
