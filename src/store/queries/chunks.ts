import type { Dialect } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { Scope, StoredChunk } from '../types.ts';
import { scopeCondition } from './scope.ts';

/** The columns a StoredChunk is made of (rows.ts ChunkRow). */
const CHUNK_SELECT = sql`SELECT c.id, c.document_id, col.name AS collection, d.title, d.source, c.ordinal, c.text, c.token_count, c.heading_path,
    c.page, c.page_end, c.char_start, c.char_end
  FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id`;

/** ChunkRows of `ids` (not empty) that are in scope, in no particular order (see inRequestedOrder). */
export function selectChunksById(dialect: Dialect, scope: Scope, ids: readonly number[]): Sql {
  return sql`${CHUNK_SELECT} WHERE ${dialect.isOneOf(sql`c.id`, ids, 'bigint')} AND ${scopeCondition(dialect, scope)}`;
}

/** A document's ChunkRows with ordinals from..to, in ordinal order, when it is in scope. */
export function selectChunkRange(dialect: Dialect, scope: Scope, documentId: number, from: number, to: number): Sql {
  return sql`${CHUNK_SELECT} WHERE c.document_id = ${documentId} AND c.ordinal BETWEEN ${from} AND ${to} AND ${scopeCondition(dialect, scope)} ORDER BY c.ordinal`;
}

/** The chunks found, in the order `ids` asked for them; ids not found are left out. */
export function inRequestedOrder(ids: readonly number[], found: Iterable<StoredChunk>): StoredChunk[] {
  const byId = new Map<number, StoredChunk>();
  for (const chunk of found) byId.set(chunk.id, chunk);
  return ids.flatMap((id) => byId.get(id) ?? []);
}
