import type { Dialect } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { IndexInfo, Scope, StoreStats } from '../types.ts';
import { documentWhere } from './scope.ts';

export type StatsRow = Omit<StoreStats, 'embedder'>;

/** One StatsRow for the documents in scope. */
export function selectStats(dialect: Dialect, scope: Scope): Sql {
  const where = documentWhere(dialect, scope);
  // The sum is cast back to an integer: PostgreSQL sums BIGINTs as NUMERIC.
  return sql`SELECT count(*) AS documents, CAST(coalesce(sum(d.bytes), 0) AS BIGINT) AS bytes, count(DISTINCT d.collection_id) AS collections,
      (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id WHERE ${where}) AS chunks
    FROM documents d JOIN collections col ON col.id = d.collection_id WHERE ${where}`;
}

export function toStats(row: StatsRow, embedder: IndexInfo | null): StoreStats {
  return { documents: row.documents, chunks: row.chunks, collections: row.collections, bytes: row.bytes, embedder };
}
