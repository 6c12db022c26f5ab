import type { Dialect } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { Scope } from '../types.ts';
import { scopeCondition } from './scope.ts';

/** `{ name, documents }` of every collection in scope, by name in code point order. */
export function selectCollections(dialect: Dialect, scope: Scope): Sql {
  return sql`SELECT col.name, count(d.id) AS documents FROM collections col LEFT JOIN documents d ON d.collection_id = col.id
    WHERE ${scopeCondition(dialect, scope)} GROUP BY col.id, col.name ORDER BY ${dialect.inCodePointOrder(sql`col.name`)}`;
}

/** Makes the collection unless it exists (then read its id with selectCollectionId). */
export function insertCollection(name: string, now: string): Sql {
  return sql`INSERT INTO collections(name, created_at) VALUES (${name}, ${now}) ON CONFLICT (name) DO NOTHING`;
}

/** `{ id }` of a collection. */
export function selectCollectionId(name: string): Sql {
  return sql`SELECT id FROM collections WHERE name = ${name}`;
}
