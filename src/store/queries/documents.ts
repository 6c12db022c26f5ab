import { DossierError } from '../../errors/index.ts';
import type { Dialect } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { ChunkInput, DocumentInput, Filter, IndexInfo, Scope } from '../types.ts';
import { documentWhere } from './scope.ts';

/** The columns a StoredDocument is made of (rows.ts DocumentRow): everything but the text. */
const DOCUMENT_SELECT = sql`SELECT d.id, d.source, d.title, d.media_type, d.content_hash, d.metadata, d.bytes, d.description, d.created_at, d.updated_at,
    col.name AS collection, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunk_count
  FROM documents d JOIN collections col ON col.id = d.collection_id`;

/** One document (a DocumentRow) when it is in scope. */
export function selectDocument(dialect: Dialect, scope: Scope, id: number): Sql {
  return sql`${DOCUMENT_SELECT} WHERE d.id = ${id} AND ${documentWhere(dialect, scope)}`;
}

export function selectDocumentText(dialect: Dialect, scope: Scope, id: number): Sql {
  return sql`SELECT d.text FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id = ${id} AND ${documentWhere(dialect, scope)}`;
}

/** DocumentRows in id order; no limit when `limit` is undefined or negative. */
export function selectDocuments(dialect: Dialect, scope: Scope, options: { filter?: Filter; limit?: number; offset?: number }): Sql {
  return sql`${DOCUMENT_SELECT} WHERE ${documentWhere(dialect, scope, options.filter)} ORDER BY d.id ${dialect.limit(options.limit)} OFFSET ${options.offset ?? 0}`;
}

/**
 * The document about to be patched or deleted, when it is in scope: `{ id, metadata }`. Its row is
 * locked where the database can, so concurrent patches merge instead of one losing the other's keys.
 */
export function selectDocumentForWrite(dialect: Dialect, scope: Scope, id: number): Sql {
  return sql`SELECT d.id, d.metadata FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id = ${id} AND ${documentWhere(dialect, scope)} ${dialect.lockRows('d')}`;
}

/** `{ content_hash }` of a source, or no row. */
export function selectContentHash(collection: string, source: string): Sql {
  return sql`SELECT d.content_hash FROM documents d JOIN collections col ON col.id = d.collection_id WHERE col.name = ${collection} AND d.source = ${source}`;
}

/** `{ id, content_hash }` of the document an upsert replaces, locked (as selectDocumentForWrite). */
export function selectExistingDocument(dialect: Dialect, collectionId: number, source: string): Sql {
  return sql`SELECT d.id, d.content_hash FROM documents d WHERE d.collection_id = ${collectionId} AND d.source = ${source} ${dialect.lockRows('d')}`;
}

/** A metadata patch: null removes a key, any other value sets it. */
export function patchMetadata(metadata: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const patched: Record<string, unknown> = { ...metadata };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete patched[key];
    else patched[key] = value;
  }
  return patched;
}

export function updateDocumentMetadata(id: number, metadata: Record<string, unknown>, now: string): Sql {
  return sql`UPDATE documents SET metadata = ${JSON.stringify(metadata)}, updated_at = ${now} WHERE id = ${id}`;
}

/** The checks every upsert makes before writing: one vector per chunk, of the index's dimensions. */
export function checkDocumentWrite(
  document: DocumentInput,
  chunks: readonly ChunkInput[],
  vectors: readonly Float32Array[],
  info: IndexInfo | null,
): void {
  if (vectors.length !== chunks.length) {
    throw new DossierError('bad-input', `upsert of ${document.source}: ${chunks.length} chunks but ${vectors.length} vectors`);
  }
  for (const vector of vectors) {
    if (info && vector.length !== info.dimensions) {
      throw new DossierError('embedder-mismatch', `vector has ${vector.length} dimensions, the index has ${info.dimensions}`);
    }
  }
}

/** Documents to export: a page of 100 after id `after`, in id order (rows.ts ExportDocumentRow). */
export function selectExportPage(after: number): Sql {
  return sql`SELECT d.id, d.source, d.title, d.media_type, d.content_hash, d.metadata, d.text, d.bytes, d.description, d.created_at, d.updated_at, col.name AS collection
    FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id > ${after} ORDER BY d.id LIMIT 100`;
}
