/** Backend-neutral store contract. SQLite implements it now; PostgreSQL + pgvector later (same contract suite). */

/** Every read names the collections it may see. '*' is an explicit choice, never a default. */
export interface Scope {
  collections: readonly string[] | '*';
}

/** What a document is, as written and as read back. */
export interface DocumentFields {
  collection: string;
  /** Where the document came from (absolute path or URL); unique within a collection. */
  source: string;
  title: string;
  mediaType: string;
  /** Hash of the raw bytes; upserting the same source with the same hash changes nothing. */
  contentHash: string;
  metadata: Record<string, unknown>;
  bytes: number;
}

export interface DocumentInput extends DocumentFields {
  /** Full extracted text; chunk char ranges point into it. */
  text: string;
  /** Short description of the whole document (title, headings, central sentences, or a model's summary). */
  description?: string;
  /**
   * Index terms (tokenized and stemmed, as for chunks) of the title and the description, for
   * `searchDescriptions`. Without them a store indexes the raw words, which match unstemmed only.
   */
  titleTerms?: string;
  descriptionTerms?: string;
}

/** A chunk's text and the exact place it came from (heading path, pages, char range in the document text). */
export interface ChunkFields {
  ordinal: number;
  text: string;
  tokenCount: number;
  headingPath: string[];
  page?: number;
  pageEnd?: number;
  charStart: number;
  charEnd: number;
}

export interface ChunkInput extends ChunkFields {
  /** Index terms (already tokenized and stemmed) for the full-text index. */
  terms: string;
  /** Terms of the title and heading path, weighted separately by BM25. */
  titleTerms: string;
}

export interface StoredDocument extends DocumentFields {
  id: number;
  /** '' for documents stored before descriptions existed. */
  description: string;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface StoredChunk extends ChunkFields {
  id: number;
  documentId: number;
  collection: string;
  /** Of its document. */
  title: string;
  source: string;
}

export interface ScoredChunkId {
  chunkId: number;
  documentId: number;
  score: number;
}

export type UpsertStatus = 'inserted' | 'updated' | 'unchanged';

export interface IndexInfo {
  embedderId: string;
  dimensions: number;
}

export interface StoreStats {
  documents: number;
  chunks: number;
  collections: number;
  bytes: number;
  embedder: IndexInfo | null;
}

/**
 * What became of a file that was read but gave no document: it failed, or was skipped with a reason
 * (an image without text). Kept with the file's content hash, so an unchanged file is not parsed or
 * OCR'd again on the next run.
 */
export interface IngestOutcome {
  collection: string;
  source: string;
  contentHash: string;
  outcome: 'failed' | 'skipped';
  /** The one-line error or skip reason, as the ingest report gave it. */
  reason: string;
}

/**
 * One document's knowledge-graph extraction, as the graph layer wrote it. Its entities and
 * relationships (with their provenance) are the graph layer's shapes, kept by the store as JSON.
 */
export interface GraphExtractionRecord {
  documentId: number;
  collection: string;
  /** The extractor's id (`offline`, `model:…`). */
  extractor: string;
  entities: unknown[];
  relationships: unknown[];
  /** Chunks the extractor could not read, with why. */
  failures: { chunkIds: number[]; message: string }[];
}

/** A collection that has a knowledge graph. */
export interface GraphInfo {
  collection: string;
  extractor: string;
  builtAt: string;
  /** Moves on with every change of the collection's extractions. */
  version: number;
  /** Documents extracted, and how many of them had chunks that failed. */
  documents: number;
  failedDocuments: number;
  communities: number;
  /** The graph version the communities were detected on; older than `version` means stale. */
  communitiesVersion: number | null;
}

/** A community of a collection's graph, with its summary and the chunks the summary was read from. */
export interface GraphCommunityRecord {
  collection: string;
  id: string;
  level: number;
  parentId?: string;
  title: string;
  summary: string;
  /** Keys of its member entities, most central first. */
  entityKeys: string[];
  chunkIds: number[];
  size: number;
  /** `extractive`, or the model that wrote the summary. */
  summarizedBy: string;
  graphVersion: number;
}

/** Mongo-style filter over document fields (id, title, source, mediaType, collection, createdAt, updatedAt) and `metadata.<path>`. */
export type Filter = Record<string, unknown>;

export interface SearchOptions {
  k: number;
  filter?: Filter;
}

/**
 * Where the data lives. Every method is async so that a networked backend (PostgreSQL) can
 * implement it; the SQLite store resolves synchronously inside. Every read takes a scope.
 * Failures are DossierErrors ('store-failed', 'not-found', 'bad-input', …), never driver errors.
 */
export interface Store {
  /** Stable identity of this index (made once when it is created) and how far it has changed. */
  identity(): Promise<IndexIdentity>;
  /** Which embedder built the vectors, if any were written yet. */
  indexInfo(): Promise<IndexInfo | null>;
  /** Records the embedder on first use; throws 'embedder-mismatch' if the index was built by another. */
  assertEmbedder(info: IndexInfo): Promise<void>;
  /**
   * Records an index-wide setting on first use (e.g. the tokenizer language the full-text terms were
   * made with); a different value later is a 'config' error naming both. A read-only store only checks.
   */
  assertSetting(key: string, value: string): Promise<void>;

  /** Content hash stored for a source, to skip unchanged files before parsing them. */
  contentHashOf(collection: string, source: string): Promise<string | undefined>;
  /**
   * Optional capability (both stores have it): the recorded outcome of a file that gave no document,
   * if one is recorded. Outcomes are bookkeeping of ingestion, not content: writing them does not
   * move the index's write generation.
   */
  ingestOutcomeOf?(collection: string, source: string): Promise<IngestOutcome | undefined>;
  /** Optional capability: records (or replaces) the outcome of a source. */
  recordIngestOutcome?(outcome: IngestOutcome): Promise<void>;
  /** Optional capability: forgets a source's outcome (it was ingested, or its file is gone). False if none was recorded. */
  forgetIngestOutcome?(collection: string, source: string): Promise<boolean>;
  /** Optional capability: the sources of a collection with a recorded outcome, for `--sync`. */
  ingestOutcomeSources?(collection: string): Promise<string[]>;
  /**
   * Optional capability (both stores have it): the knowledge graph, one per collection. A document's
   * extraction goes when the document is deleted or its content changes (its graph's version moves),
   * so a graph never holds an orphan. Graph writes move the index's write generation.
   */
  graphs?(scope: Scope): Promise<GraphInfo[]>;
  /** Makes (or re-marks) a collection's graph as built by `extractor`; a different extractor first drops the old extractions. */
  markGraph?(collection: string, extractor: string): Promise<GraphInfo>;
  /** Removes a collection's graph: its extractions and communities. False if it had none. */
  dropGraph?(collection: string): Promise<boolean>;
  /** Writes (or replaces) documents' extractions in one transaction; each document's collection must have a graph. */
  putGraphExtractions?(records: readonly Omit<GraphExtractionRecord, 'collection'>[]): Promise<void>;
  /** Every extraction in scope, by collection and document id. */
  graphExtractions?(scope: Scope): Promise<GraphExtractionRecord[]>;
  /** Documents of a collection with no extraction: new, or changed since they were extracted. */
  unextractedDocuments?(collection: string): Promise<number[]>;
  /** Replaces a collection's communities (one transaction). */
  replaceCommunities?(collection: string, communities: readonly Omit<GraphCommunityRecord, 'collection'>[]): Promise<void>;
  /** Communities in scope: by collection, coarsest level first, larger first. */
  communities?(scope: Scope): Promise<GraphCommunityRecord[]>;
  /** One transaction: inserts, or replaces all chunks of a changed document; unchanged hash → no write. */
  upsertDocument(document: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): Promise<{ id: number; status: UpsertStatus }>;
  /** Removes the document with its chunks, vectors and full-text rows. Returns false if it was not there (or out of scope). */
  deleteDocument(scope: Scope, id: number): Promise<boolean>;
  /** Merges a patch into a document's metadata (a key set to null is removed). Undefined if not there (or out of scope). */
  updateMetadata(scope: Scope, id: number, patch: Record<string, unknown>): Promise<StoredDocument | undefined>;

  getDocument(scope: Scope, id: number): Promise<StoredDocument | undefined>;
  /** Full extracted text of a document. */
  getDocumentText(scope: Scope, id: number): Promise<string | undefined>;
  listDocuments(scope: Scope, options?: { filter?: Filter; limit?: number; offset?: number }): Promise<StoredDocument[]>;
  /** Chunks by id, in the order asked; ids out of scope or gone are left out. */
  getChunks(scope: Scope, ids: readonly number[]): Promise<StoredChunk[]>;
  /** Chunks of one document with ordinals in [from, to]. */
  getChunkRange(scope: Scope, documentId: number, from: number, to: number): Promise<StoredChunk[]>;

  /** BM25 over pre-tokenized terms; higher score is better. */
  searchFullText(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<ScoredChunkId[]>;
  /**
   * BM25 over document titles and descriptions (one row per document, not per chunk), scoped and
   * filtered like searchFullText; higher score is better. For picking documents before reading them.
   */
  searchDescriptions(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<{ documentId: number; score: number }[]>;
  /** Stored vectors of chunks (missing ids left out), e.g. for pseudo-relevance feedback. */
  getVectors(scope: Scope, ids: readonly number[]): Promise<Map<number, Float32Array>>;
  /** Cosine similarity; higher is better. */
  searchVector(scope: Scope, vector: Float32Array, options: SearchOptions): Promise<ScoredChunkId[]>;
  /**
   * Number of chunks whose full-text terms contain each term (for query-side IDF). Index-wide
   * aggregate counts, not content: the one read that takes no scope.
   */
  documentFrequencies(terms: readonly string[]): Promise<{ chunks: number; frequencies: Map<string, number> }>;

  /** Collections with their document counts, those in scope only. */
  collections(scope: Scope): Promise<{ name: string; documents: number }[]>;
  stats(scope: Scope): Promise<StoreStats>;
  close(): Promise<void>;

  /**
   * Optional capability: files on disk that make up this store (the SQLite file and its -wal/-shm
   * companions), so ingesting a folder never swallows its own index.
   */
  readonly files?: readonly string[];
  /** Optional capability: true when this store was opened for reading only (writes are refused). */
  readonly readonly?: boolean;

  /**
   * Optional capability (moving an index to another backend, `dossier migrate --from … --to …`):
   * what the index is, apart from its documents: identity, embedder, settings, full-text totals.
   */
  exportIndex?(): Promise<IndexExport>;
  /** Optional capability: every document with its chunks, vectors and index terms exactly as stored, by document id. */
  exportDocuments?(): AsyncIterable<ExportedDocument>;
  /** Optional capability, before importDocument: records the embedder and settings (refusing different ones, as assertEmbedder/assertSetting do). */
  importIndex?(exported: IndexExport): Promise<void>;
  /**
   * Optional capability: writes an exported document as it is (text, chunk boundaries, terms, vectors,
   * description, timestamps) in one transaction; ids are assigned here. Refuses a source already stored.
   */
  importDocument?(exported: ExportedDocument): Promise<{ id: number }>;
  /** Optional capability, after the last importDocument: takes over the source's full-text totals where it can (exact BM25). */
  finishImport?(exported: IndexExport): Promise<void>;
}

/**
 * Rows and tokens a full-text index has counted (BM25's N and average length). FTS5 never takes a
 * deleted row out of them, so an index with deletions scores by totals its live rows do not give.
 */
export interface FullTextTotals {
  chunks: { rows: number; tokens: number };
  documents: { rows: number; tokens: number };
}

export interface IndexExport {
  /** The source's identity; the target keeps its own (its chunk ids differ, so traces do not carry over). */
  identity: IndexIdentity;
  embedder: IndexInfo | null;
  /** Index-wide settings (assertSetting), e.g. tokenizer → english. */
  settings: Record<string, string>;
  fullTextTotals?: FullTextTotals;
}

export interface ExportedDocument {
  document: DocumentInput & { description: string; titleTerms: string; descriptionTerms: string; createdAt: string; updatedAt: string };
  /** By ordinal; vectors[i] belongs to chunks[i]. */
  chunks: ChunkInput[];
  vectors: Float32Array[];
}

/** Which index a run used: a trace records it, and replay refuses another. */
export interface IndexIdentity {
  /** Made once when the index is created; never changes. */
  id: string;
  /** Moves on with every write or delete. */
  generation: number;
  documents: number;
  chunks: number;
}

/** How a caller names what it may read: collections by name, or a scope it already decided. */
export interface ScopeOptions {
  /** Collections to read; every collection when absent. Unknown names are an error listing the existing ones. */
  collections?: readonly string[];
  /** A scope decided by the caller (the server's permissions); wins over `collections`. */
  scope?: Scope;
}
