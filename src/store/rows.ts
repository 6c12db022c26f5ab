import type { ChunkInput, ExportedDocument, StoredChunk, StoredDocument } from './types.ts';

/**
 * The rows both SQL stores select for documents and chunks, and how they become the Store's
 * objects and an export's. The column names are the same in SQLite and PostgreSQL; only how JSON
 * columns arrive differs (text in SQLite, parsed in PostgreSQL), so `J` is that column's type.
 */
export interface DocumentRow<J = string> {
  id: number;
  collection: string;
  source: string;
  title: string;
  media_type: string;
  content_hash: string;
  metadata: J;
  bytes: number;
  description: string;
  chunk_count: number;
  created_at: string;
  updated_at: string;
}

export interface ChunkRow<J = string> {
  id: number;
  document_id: number;
  collection: string;
  title: string;
  source: string;
  ordinal: number;
  text: string;
  token_count: number;
  heading_path: J;
  page: number | null;
  page_end: number | null;
  char_start: number;
  char_end: number;
}

/** A JSON column's value: parsed when it is text (SQLite), as it is when the driver parsed it (PostgreSQL). */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function toDocument(row: DocumentRow<unknown>): StoredDocument {
  return {
    id: row.id,
    ...documentBody(row),
    bytes: row.bytes,
    description: row.description ?? '',
    chunkCount: row.chunk_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toChunk(row: ChunkRow<unknown>): StoredChunk {
  return { id: row.id, documentId: row.document_id, collection: row.collection, title: row.title, source: row.source, ...chunkBody(row) };
}

/** The columns of a document an export reads: a DocumentRow with its text, without the chunk count. */
export type ExportDocumentRow = Omit<DocumentRow<unknown>, 'chunk_count'> & { text: string };

/** The columns of a chunk an export reads (the document's are known). */
export type ExportChunkRow = Omit<ChunkRow<unknown>, 'document_id' | 'collection' | 'title' | 'source'>;

export function toExportedDocument(
  row: ExportDocumentRow,
  terms: { titleTerms: string; descriptionTerms: string },
): ExportedDocument['document'] {
  return {
    ...documentBody(row),
    text: row.text,
    bytes: row.bytes,
    description: row.description ?? '',
    titleTerms: terms.titleTerms,
    descriptionTerms: terms.descriptionTerms,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toExportedChunk(row: ExportChunkRow, terms: { terms: string; titleTerms: string }): ChunkInput {
  return { ...chunkBody(row), terms: terms.terms, titleTerms: terms.titleTerms };
}

/** What a stored and an exported document share. */
function documentBody(
  row: ExportDocumentRow | DocumentRow<unknown>,
): Pick<StoredDocument, 'collection' | 'source' | 'title' | 'mediaType' | 'contentHash' | 'metadata'> {
  return {
    collection: row.collection,
    source: row.source,
    title: row.title,
    mediaType: row.media_type,
    contentHash: row.content_hash,
    metadata: json<Record<string, unknown>>(row.metadata),
  };
}

/** What a stored and an exported chunk share. */
function chunkBody(row: ExportChunkRow): Omit<StoredChunk, 'id' | 'documentId' | 'collection' | 'title' | 'source'> {
  return {
    ordinal: row.ordinal,
    text: row.text,
    tokenCount: row.token_count,
    headingPath: json<string[]>(row.heading_path),
    ...(row.page !== null ? { page: row.page } : {}),
    ...(row.page_end !== null ? { pageEnd: row.page_end } : {}),
    charStart: row.char_start,
    charEnd: row.char_end,
  };
}
