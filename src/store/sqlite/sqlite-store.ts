import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DossierError, oneLine } from '../../errors/index.ts';
import { topKSearch } from '../full-text-top-k.ts';
import { Int8VectorIndex, quantize } from '../vector/int8-index.ts';
import { migrate, needsMigration, notAnIndex, SCHEMA_VERSION, schemaVersionOf, tooNew } from './schema.ts';
import type {
  ChunkInput,
  DocumentInput,
  ExportedDocument,
  Filter,
  IndexExport,
  IndexIdentity,
  IndexInfo,
  Scope,
  ScoredChunkId,
  SearchOptions,
  Store,
  IngestOutcome,
  GraphCommunityRecord,
  GraphExtractionRecord,
  GraphInfo,
  StoreStats,
  StoredChunk,
  StoredDocument,
  UpsertStatus,
} from '../types.ts';
import {
  toChunk,
  toDocument,
  toExportedChunk,
  toExportedDocument,
  type ChunkRow,
  type DocumentRow,
  type ExportChunkRow,
  type ExportDocumentRow,
} from '../rows.ts';
import { sqlite } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import { inRequestedOrder, selectChunkRange, selectChunksById } from '../queries/chunks.ts';
import { insertCollection, selectCollectionId, selectCollections } from '../queries/collections.ts';
import {
  deleteCommunities,
  deleteGraph,
  forgetDocumentGraph,
  insertCommunity,
  selectCommunities,
  selectGraphedCollectionOf,
  selectGraphExtractions,
  graphedCollectionOf,
  selectGraphs,
  selectUnextractedDocuments,
  toCommunity,
  toGraphExtraction,
  toGraphInfo,
  upsertGraph,
  upsertGraphExtraction,
  bumpGraphVersion,
  type CommunityRow,
  type GraphExtractionRow,
  type GraphRow,
} from '../queries/graph.ts';
import { deleteIngestOutcome, selectIngestOutcome, selectIngestOutcomeSources, upsertIngestOutcome } from '../queries/ingest-outcomes.ts';
import {
  checkDocumentWrite,
  patchMetadata,
  selectContentHash,
  selectDocument,
  selectDocumentForWrite,
  selectDocuments,
  selectDocumentText,
  selectExistingDocument,
  selectExportPage,
  updateDocumentMetadata,
} from '../queries/documents.ts';
import {
  bumpGeneration,
  embedderMismatch,
  sameEmbedder,
  selectIdentity,
  selectIndexInfo,
  selectMeta,
  selectSettings,
  settingKey,
  settingMismatch,
  toIdentity,
  toIndexInfo,
  toSettings,
  upsertMeta,
  type IdentityRow,
} from '../queries/meta.ts';
import { documentWhere, scopeCondition } from '../queries/scope.ts';
import { selectStats, toStats, type StatsRow } from '../queries/stats.ts';

/** Longest FTS query we build; longer questions keep their rarest terms (see searchFullText). */
const MAX_QUERY_TERMS = 48;

export interface SqliteStoreOptions {
  /** BM25 weight of the title/heading column relative to the body. */
  titleWeight?: number;
  /**
   * Open for reading only: nothing is written to the file (no schema, no WAL switch, no migration),
   * so it works on read-only files and folders; writes fail with 'read-only'.
   */
  readonly?: boolean;
}

export class SqliteStore implements Store {
  readonly path: string;
  readonly readonly: boolean;
  readonly files: readonly string[];
  private readonly db: Database.Database;
  private readonly titleWeight: number;
  private vectors: Int8VectorIndex | undefined;
  private vectorsVersion = -1;
  private countedChunks: { generation: string; count: number } | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.readonly = options.readonly ?? false;
    this.titleWeight = options.titleWeight ?? 3; // tuned on SciFact train
    const absolute = path === ':memory:' ? undefined : resolve(path);
    this.files = absolute ? ['', '-wal', '-shm', '-journal'].map((suffix) => absolute + suffix) : [];
    if (this.readonly && path !== ':memory:' && !existsSync(path)) {
      throw new DossierError('not-found', `no index at ${path}; create it with "dossier ingest <files…> --db ${path}"`);
    }
    try {
      this.db = new Database(path, { readonly: this.readonly, fileMustExist: this.readonly });
    } catch (error) {
      throw new DossierError('store-failed', `cannot open database ${path}: ${oneLine(error)}`, { cause: error });
    }
    try {
      this.db.pragma('busy_timeout = 10000');
      const version = schemaVersionOf(this.db);
      if (version === undefined) throw notAnIndex(path);
      if (version > SCHEMA_VERSION) throw tooNew(path, version);
      if (this.readonly) {
        if (version === 0)
          throw new DossierError(
            'not-found',
            `${path} is empty, not a Dossier index; create one with "dossier ingest <files…> --db ${path}"`,
          );
        if (version < SCHEMA_VERSION) throw needsMigration(path, version);
      } else {
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('synchronous = NORMAL');
        migrate(this.db, path);
      }
    } catch (error) {
      this.db.close();
      throw toStoreError(error, path);
    }
  }

  /** Runs a store operation, turning driver errors into one-line DossierErrors naming the index. */
  private run<T>(operation: () => T): Promise<T> {
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(toStoreError(error, this.path));
    }
  }

  // A shared query, rendered for SQLite and run at once (better-sqlite3 is synchronous), so it may stand inside a transaction.
  private all<Row>(query: Sql): Row[] {
    const { text, params } = sqlite.render(query);
    return this.db.prepare(text).all(...params) as Row[];
  }

  private get<Row>(query: Sql): Row | undefined {
    const { text, params } = sqlite.render(query);
    return this.db.prepare(text).get(...params) as Row | undefined;
  }

  private execute(query: Sql): Database.RunResult {
    const { text, params } = sqlite.render(query);
    return this.db.prepare(text).run(...params);
  }

  private assertWritable(): void {
    if (this.readonly) throw new DossierError('read-only', `index ${this.path} is open for reading only`);
  }

  private getMeta(key: string): string | undefined {
    return this.get<{ value: string }>(selectMeta(key))?.value;
  }

  identity(): Promise<IndexIdentity> {
    return this.run(() => toIdentity(this.get<IdentityRow>(selectIdentity)!));
  }

  private readIndexInfo(): IndexInfo | null {
    return toIndexInfo(this.all(selectIndexInfo));
  }

  indexInfo(): Promise<IndexInfo | null> {
    return this.run(() => this.readIndexInfo());
  }

  assertEmbedder(info: IndexInfo): Promise<void> {
    return this.run(() => {
      const current = this.readIndexInfo();
      if (!current) {
        if (this.readonly) return; // nothing indexed yet, nothing to compare
        this.db.transaction(() => {
          this.execute(upsertMeta('embedder_id', info.embedderId));
          this.execute(upsertMeta('embedder_dimensions', String(info.dimensions)));
        })();
        return;
      }
      if (!sameEmbedder(current, info)) throw embedderMismatch(this.path, current, info);
    });
  }

  assertSetting(key: string, value: string): Promise<void> {
    return this.run(() => {
      const stored = this.getMeta(settingKey(key));
      if (stored === undefined) {
        if (!this.db.readonly) this.execute(upsertMeta(settingKey(key), value));
        return;
      }
      if (stored !== value) throw settingMismatch(this.path, key, stored, value);
    });
  }

  contentHashOf(collection: string, source: string): Promise<string | undefined> {
    return this.run(() => this.get<{ content_hash: string }>(selectContentHash(collection, source))?.content_hash);
  }

  ingestOutcomeOf(collection: string, source: string): Promise<IngestOutcome | undefined> {
    return this.run(() => {
      const row = this.get<{ content_hash: string; outcome: IngestOutcome['outcome']; reason: string }>(
        selectIngestOutcome(collection, source),
      );
      return row && { collection, source, contentHash: row.content_hash, outcome: row.outcome, reason: row.reason };
    });
  }

  recordIngestOutcome(outcome: IngestOutcome): Promise<void> {
    return this.run(() => {
      this.assertWritable();
      this.execute(upsertIngestOutcome(outcome, new Date().toISOString()));
    });
  }

  forgetIngestOutcome(collection: string, source: string): Promise<boolean> {
    return this.run(() => {
      this.assertWritable();
      return this.execute(deleteIngestOutcome(collection, source)).changes > 0;
    });
  }

  ingestOutcomeSources(collection: string): Promise<string[]> {
    return this.run(() => this.all<{ source: string }>(selectIngestOutcomeSources(collection)).map((row) => row.source));
  }

  graphs(scope: Scope): Promise<GraphInfo[]> {
    return this.run(() => this.all<GraphRow>(selectGraphs(sqlite, scope)).map(toGraphInfo));
  }

  markGraph(collection: string, extractor: string): Promise<GraphInfo> {
    return this.run(() => {
      this.assertWritable();
      this.db
        .transaction(() => {
          const known = this.all<GraphRow>(selectGraphs(sqlite, { collections: [collection] }))[0];
          if (known && known.extractor !== extractor) for (const query of deleteGraph(collection)) this.execute(query);
          this.execute(bumpGeneration);
          this.execute(upsertGraph(collection, extractor, new Date().toISOString()));
        })
        .immediate();
      return this.all<GraphRow>(selectGraphs(sqlite, { collections: [collection] })).map(toGraphInfo)[0];
    });
  }

  dropGraph(collection: string): Promise<boolean> {
    return this.run(() => {
      this.assertWritable();
      return this.db.transaction(() => {
        const queries = deleteGraph(collection);
        const dropped = queries.map((query) => this.execute(query).changes);
        if (dropped[dropped.length - 1] > 0) this.execute(bumpGeneration);
        return dropped[dropped.length - 1] > 0;
      })();
    });
  }

  putGraphExtractions(records: readonly Omit<GraphExtractionRecord, 'collection'>[]): Promise<void> {
    return this.run(() => {
      this.assertWritable();
      if (records.length === 0) return;
      this.db
        .transaction(() => {
          const now = new Date().toISOString();
          const collections = new Set<string>();
          for (const record of records) {
            const collection = graphedCollectionOf(this.all(selectGraphedCollectionOf(record.documentId)), record.documentId, this.path);
            this.execute(upsertGraphExtraction({ ...record, collection }, now));
            collections.add(collection);
          }
          this.execute(bumpGeneration);
          for (const collection of collections) this.execute(bumpGraphVersion(collection));
        })
        .immediate();
    });
  }

  graphExtractions(scope: Scope): Promise<GraphExtractionRecord[]> {
    return this.run(() => this.all<GraphExtractionRow>(selectGraphExtractions(sqlite, scope)).map(toGraphExtraction));
  }

  unextractedDocuments(collection: string): Promise<number[]> {
    return this.run(() => this.all<{ id: number }>(selectUnextractedDocuments(collection)).map((row) => row.id));
  }

  replaceCommunities(collection: string, communities: readonly Omit<GraphCommunityRecord, 'collection'>[]): Promise<void> {
    return this.run(() => {
      this.assertWritable();
      this.db
        .transaction(() => {
          this.execute(bumpGeneration);
          this.execute(deleteCommunities(collection));
          for (const community of communities) this.execute(insertCommunity({ ...community, collection }));
        })
        .immediate();
    });
  }

  communities(scope: Scope): Promise<GraphCommunityRecord[]> {
    return this.run(() => this.all<CommunityRow>(selectCommunities(sqlite, scope)).map(toCommunity));
  }

  upsertDocument(document: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): Promise<{ id: number; status: UpsertStatus }> {
    return this.run(() => this.write(document, chunks, vectors));
  }

  /** upsertDocument; with `imported`, a document moved from another index: its timestamps kept, never over an existing one. */
  private write(
    document: DocumentInput,
    chunks: ChunkInput[],
    vectors: Float32Array[],
    imported?: { createdAt: string; updatedAt: string },
  ): { id: number; status: UpsertStatus } {
    {
      this.assertWritable();
      checkDocumentWrite(document, chunks, vectors, this.readIndexInfo());
      const now = new Date().toISOString();
      const inserted: { id: number; vector: Float32Array }[] = [];
      let removed: number[] = [];
      let collectionId = 0;
      const result = this.db.transaction((): { id: number; status: UpsertStatus } => {
        collectionId = this.ensureCollection(document.collection, now);
        const existing = this.get<{ id: number; content_hash: string }>(selectExistingDocument(sqlite, collectionId, document.source));
        if (existing && imported)
          throw new DossierError('bad-input', `index ${this.path} already holds ${document.source} in collection ${document.collection}`);
        if (existing && existing.content_hash === document.contentHash) return { id: existing.id, status: 'unchanged' };
        this.execute(bumpGeneration);
        let id: number;
        if (existing) {
          id = existing.id;
          removed = this.deleteChunksOf(id);
          for (const query of forgetDocumentGraph(id)) this.execute(query);
          this.db
            .prepare(
              'UPDATE documents SET title=?, media_type=?, content_hash=?, metadata=?, text=?, bytes=?, description=?, updated_at=? WHERE id=?',
            )
            .run(
              document.title,
              document.mediaType,
              document.contentHash,
              JSON.stringify(document.metadata),
              document.text,
              document.bytes,
              document.description ?? '',
              now,
              id,
            );
          this.db.prepare('DELETE FROM documents_fts WHERE rowid = ?').run(id);
        } else {
          id = Number(
            this.db
              .prepare(
                'INSERT INTO documents(collection_id, source, title, media_type, content_hash, metadata, text, bytes, description, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
              )
              .run(
                collectionId,
                document.source,
                document.title,
                document.mediaType,
                document.contentHash,
                JSON.stringify(document.metadata),
                document.text,
                document.bytes,
                document.description ?? '',
                imported?.createdAt ?? now,
                imported?.updatedAt ?? now,
              ).lastInsertRowid,
          );
        }
        this.db
          .prepare('INSERT INTO documents_fts(rowid, title, description) VALUES (?, ?, ?)')
          .run(id, document.titleTerms ?? document.title, document.descriptionTerms ?? document.description ?? '');
        const insertChunk = this.db.prepare(
          'INSERT INTO chunks(document_id, ordinal, text, token_count, heading_path, page, page_end, char_start, char_end) VALUES (?,?,?,?,?,?,?,?,?)',
        );
        const insertFts = this.db.prepare('INSERT INTO chunks_fts(rowid, title, body) VALUES (?, ?, ?)');
        const insertVector = this.db.prepare(
          'INSERT INTO chunk_vectors(chunk_id, vector, document_id, collection_id, q8, q8_scale) VALUES (?, ?, ?, ?, ?, ?)',
        );
        chunks.forEach((chunk, i) => {
          const chunkId = Number(
            insertChunk.run(
              id,
              chunk.ordinal,
              chunk.text,
              chunk.tokenCount,
              JSON.stringify(chunk.headingPath),
              chunk.page ?? null,
              chunk.pageEnd ?? null,
              chunk.charStart,
              chunk.charEnd,
            ).lastInsertRowid,
          );
          insertFts.run(chunkId, chunk.titleTerms, chunk.terms);
          const vector = vectors[i];
          const q8 = quantize(vector);
          insertVector.run(
            chunkId,
            Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
            id,
            collectionId,
            Buffer.from(q8.values.buffer),
            q8.scale,
          );
          inserted.push({ id: chunkId, vector });
        });
        return { id, status: existing ? 'updated' : 'inserted' };
      })();
      if (result.status !== 'unchanged')
        this.afterWrite(() => {
          for (const chunkId of removed) this.vectors?.remove(chunkId);
          for (const row of inserted) this.vectors?.upsert(row.id, row.vector, { documentId: result.id, collectionId });
        });
      return result;
    }
  }

  private ensureCollection(name: string, now: string): number {
    this.execute(insertCollection(name, now));
    return this.get<{ id: number }>(selectCollectionId(name))!.id;
  }

  /** Deletes chunk rows, their vectors and full-text rows; returns the removed chunk ids. */
  private deleteChunksOf(documentId: number): number[] {
    const ids = (this.db.prepare('SELECT id FROM chunks WHERE document_id = ?').all(documentId) as { id: number }[]).map((row) => row.id);
    const deleteFts = this.db.prepare('DELETE FROM chunks_fts WHERE rowid = ?');
    const deleteVector = this.db.prepare('DELETE FROM chunk_vectors WHERE chunk_id = ?');
    for (const id of ids) {
      deleteFts.run(id);
      deleteVector.run(id);
    }
    this.db.prepare('DELETE FROM chunks WHERE document_id = ?').run(documentId);
    return ids;
  }

  updateMetadata(scope: Scope, id: number, patch: Record<string, unknown>): Promise<StoredDocument | undefined> {
    return this.run(() => {
      this.assertWritable();
      const row = this.get<{ id: number; metadata: string }>(selectDocumentForWrite(sqlite, scope, id));
      if (!row) return undefined;
      const metadata = patchMetadata(JSON.parse(row.metadata) as Record<string, unknown>, patch);
      this.db.transaction(() => {
        this.execute(bumpGeneration);
        this.execute(updateDocumentMetadata(id, metadata, new Date().toISOString()));
      })();
      return this.readDocument(scope, id);
    });
  }

  deleteDocument(scope: Scope, id: number): Promise<boolean> {
    return this.run(() => {
      this.assertWritable();
      if (!this.get(selectDocumentForWrite(sqlite, scope, id))) return false;
      let removed: number[] = [];
      this.db.transaction(() => {
        this.execute(bumpGeneration);
        removed = this.deleteChunksOf(id);
        for (const query of forgetDocumentGraph(id)) this.execute(query);
        this.db.prepare('DELETE FROM documents_fts WHERE rowid = ?').run(id);
        this.db.prepare('DELETE FROM documents WHERE id = ?').run(id);
      })();
      this.afterWrite(() => removed.forEach((chunkId) => this.vectors?.remove(chunkId)));
      return true;
    });
  }

  /** Keeps the in-memory vector index in step with our own commits (others' commits trigger a reload). */
  private afterWrite(update: () => void): void {
    if (!this.vectors) return;
    const version = this.dataVersion();
    if (version !== this.vectorsVersion) {
      this.vectors = undefined; // someone else wrote too: rebuild on next search
      return;
    }
    update();
  }

  private dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  private readDocument(scope: Scope, id: number): StoredDocument | undefined {
    const row = this.get<DocumentRow>(selectDocument(sqlite, scope, id));
    return row ? toDocument(row) : undefined;
  }

  getDocument(scope: Scope, id: number): Promise<StoredDocument | undefined> {
    return this.run(() => this.readDocument(scope, id));
  }

  getDocumentText(scope: Scope, id: number): Promise<string | undefined> {
    return this.run(() => this.get<{ text: string }>(selectDocumentText(sqlite, scope, id))?.text);
  }

  listDocuments(scope: Scope, options: { filter?: Filter; limit?: number; offset?: number } = {}): Promise<StoredDocument[]> {
    return this.run(() => this.all<DocumentRow>(selectDocuments(sqlite, scope, options)).map(toDocument));
  }

  getChunks(scope: Scope, ids: readonly number[]): Promise<StoredChunk[]> {
    return this.run(() => {
      if (ids.length === 0) return [];
      const found: StoredChunk[] = [];
      // In batches: every id is a parameter of its own here.
      for (let start = 0; start < ids.length; start += 500) {
        for (const row of this.all<ChunkRow>(selectChunksById(sqlite, scope, ids.slice(start, start + 500)))) found.push(toChunk(row));
      }
      return inRequestedOrder(ids, found);
    });
  }

  getChunkRange(scope: Scope, documentId: number, from: number, to: number): Promise<StoredChunk[]> {
    return this.run(() => this.all<ChunkRow>(selectChunkRange(sqlite, scope, documentId, from, to)).map(toChunk));
  }

  /** Chunks holding each term (FTS5's own counts). */
  private termFrequencies(terms: readonly string[]): Map<string, number> {
    const frequencies = new Map<string, number>();
    const lookup = this.db.prepare('SELECT doc FROM chunks_fts_vocab WHERE term = ?');
    for (const term of new Set(terms)) {
      const row = lookup.get(term) as { doc: number } | undefined;
      frequencies.set(term, row?.doc ?? 0);
    }
    return frequencies;
  }

  private readFrequencies(terms: readonly string[]): { chunks: number; frequencies: Map<string, number> } {
    return { chunks: this.chunkCount(), frequencies: this.termFrequencies(terms) };
  }

  /**
   * count(*) walks a whole index (~15 ms at a million chunks) and the embedder asks on every query, so
   * the count is kept per write generation (every write, from any process, moves it on).
   */
  private chunkCount(): number {
    const generation = this.getMeta('generation');
    if (generation !== undefined && this.countedChunks?.generation === generation) return this.countedChunks.count;
    const count = (this.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    if (generation !== undefined) this.countedChunks = { generation, count };
    return count;
  }

  documentFrequencies(terms: readonly string[]): Promise<{ chunks: number; frequencies: Map<string, number> }> {
    return this.run(() => this.readFrequencies(terms));
  }

  /** Terms as FTS5 MATCH takes them: word characters only, deduplicated, at most MAX_QUERY_TERMS. */
  private matchTerms(terms: readonly string[]): string[] {
    let unique = [...new Set(terms.filter((term) => /^[\p{L}\p{N}]+$/u.test(term)))];
    if (unique.length > MAX_QUERY_TERMS) {
      // Keep the rarest terms: they carry the ranking, and common ones make FTS5 score huge posting lists.
      // Terms absent from the index cannot match, so they never take a place.
      const frequencies = this.termFrequencies(unique);
      unique = unique
        .filter((term) => (frequencies.get(term) ?? 0) > 0)
        .sort((a, b) => frequencies.get(a)! - frequencies.get(b)!)
        .slice(0, MAX_QUERY_TERMS);
    }
    return unique;
  }

  /** FTS5 MATCH expression (OR of quoted terms), or undefined when no term can match. */
  private matchExpression(terms: readonly string[]): string | undefined {
    const unique = this.matchTerms(terms);
    return unique.length ? anyOf(unique) : undefined;
  }

  /**
   * BM25 top k by FTS5's own bm25(), without scoring every row a common term matches (full-text-top-k.ts).
   * A step scores the rows holding a rare ("essential") term with all terms by two MATCHes: the k best
   * by the essential terms alone, and every row of `(essential) AND (rest)`, whose bm25() sums every
   * term; FTS5 drives that AND by the short posting lists and seeks in the long ones. Unscoped, only
   * the full-text table is read while ranking (joining chunks for every candidate costs more than the
   * ranking), and document ids are looked up for the k kept.
   */
  searchFullText(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<ScoredChunkId[]> {
    return this.run(() => {
      const unique = options.k > 0 ? this.matchTerms(terms) : [];
      if (unique.length === 0) return [];
      const unrestricted = scope.collections === '*' && !options.filter;
      const where = unrestricted ? sql.empty : sql` AND ${documentWhere(sqlite, scope, options.filter)}`;
      const from = unrestricted
        ? sql`chunks_fts f`
        : sql`chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id`;
      const rank = sql.raw(`bm25(chunks_fts, ${this.titleWeight}, 1.0)`);
      const select = (match: string, limit?: number) =>
        this.all<{ id: number; rank: number }>(
          sql`SELECT f.rowid AS id, ${rank} AS rank FROM ${from} WHERE chunks_fts MATCH ${match}${where}${limit === undefined ? sql.empty : sql` ORDER BY ${rank} LIMIT ${limit}`}`,
        )
          // FTS5's bm25() is negative (lower is better); flipped so every search returns higher-is-better.
          .map((row) => ({ id: row.id, score: -row.rank }));
      const frequencies = this.termFrequencies(unique);
      const search = topKSearch<{ id: number; score: number }>(
        unique.map((term) => ({ term, documentFrequency: frequencies.get(term) ?? 0 })),
        this.fullTextTotals('chunks_fts').rows,
        options.k,
      );
      let next = search.next();
      while (!next.done) {
        const step = next.value;
        const essential = anyOf(step.essential);
        next = search.next(
          step.final
            ? select(essential, options.k)
            : [...select(essential, options.k), ...select(`(${essential}) AND (${anyOf(step.rest)})`)],
        );
      }
      return this.withDocumentIds(next.value);
    });
  }

  private withDocumentIds(rows: readonly { id: number; score: number }[]): ScoredChunkId[] {
    const documentOf = new Map(
      (
        this.db
          .prepare('SELECT id, document_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))')
          .all(JSON.stringify(rows.map((row) => row.id))) as { id: number; document_id: number }[]
      ).map((row) => [row.id, row.document_id]),
    );
    return rows
      .filter((row) => documentOf.has(row.id))
      .map((row) => ({ chunkId: row.id, documentId: documentOf.get(row.id)!, score: row.score }));
  }

  searchDescriptions(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<{ documentId: number; score: number }[]> {
    return this.run(() => {
      // Rarity is judged on the chunk index (documentFrequencies): the same terms, a far larger sample.
      const match = options.k > 0 ? this.matchExpression(terms) : undefined;
      if (match === undefined) return [];
      const unrestricted = scope.collections === '*' && !options.filter;
      const rank = sql.raw(`bm25(documents_fts, ${this.titleWeight}, 1.0)`);
      const rows = this.all<{ document_id: number; rank: number }>(
        unrestricted
          ? sql`SELECT f.rowid AS document_id, ${rank} AS rank FROM documents_fts f WHERE documents_fts MATCH ${match} ORDER BY rank LIMIT ${options.k}`
          : sql`SELECT f.rowid AS document_id, ${rank} AS rank FROM documents_fts f JOIN documents d ON d.id = f.rowid
              JOIN collections col ON col.id = d.collection_id
              WHERE documents_fts MATCH ${match} AND ${documentWhere(sqlite, scope, options.filter)} ORDER BY rank LIMIT ${options.k}`,
      );
      return rows.map((row) => ({ documentId: row.document_id, score: -row.rank }));
    });
  }

  getVectors(scope: Scope, ids: readonly number[]): Promise<Map<number, Float32Array>> {
    return this.run(() => {
      const out = new Map<number, Float32Array>();
      // One statement run per id: the id's placeholder is written last, after the scope's parameters.
      const { text, params } = sqlite.render(
        sql`SELECT v.vector FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
          JOIN collections col ON col.id = d.collection_id WHERE ${scopeCondition(sqlite, scope)} AND v.chunk_id = ?`,
      );
      const select = this.db.prepare(text).pluck();
      for (const id of ids) {
        const blob = select.get(...params, id) as Buffer | undefined;
        if (blob) out.set(id, Float32Array.from(float32View(blob)));
      }
      return out;
    });
  }

  searchVector(scope: Scope, vector: Float32Array, options: SearchOptions): Promise<ScoredChunkId[]> {
    return this.run(() => {
      const info = this.readIndexInfo();
      if (!info) return [];
      if (vector.length !== info.dimensions) {
        throw new DossierError(
          'embedder-mismatch',
          `query vector has ${vector.length} dimensions, the index ${this.path} has ${info.dimensions}`,
        );
      }
      const index = this.vectorIndex(info.dimensions);
      let accept: ((tag: { documentId: number; collectionId: number }) => boolean) | undefined;
      if (options.filter) {
        const rows = this.all<{ id: number }>(
          sql`SELECT d.id FROM documents d JOIN collections col ON col.id = d.collection_id WHERE ${documentWhere(sqlite, scope, options.filter)}`,
        );
        const allowed = new Set(rows.map((row) => row.id));
        accept = (tag) => allowed.has(tag.documentId);
      } else if (scope.collections !== '*') {
        const rows = this.all<{ id: number }>(sql`SELECT col.id FROM collections col WHERE ${scopeCondition(sqlite, scope)}`);
        const allowed = new Set(rows.map((row) => row.id));
        accept = (tag) => allowed.has(tag.collectionId);
      }
      return index
        .search(vector, options.k, accept)
        .map((match) => ({ chunkId: match.id, documentId: match.documentId, score: match.score }));
    });
  }

  /** The in-memory index, (re)built from stored vectors when missing or when another connection wrote. */
  private vectorIndex(dimensions: number): Int8VectorIndex {
    const version = this.dataVersion();
    if (this.vectors && this.vectorsVersion === version && this.vectors.dimensions === dimensions) return this.vectors;
    const count = (this.db.prepare('SELECT count(*) AS n FROM chunk_vectors').get() as { n: number }).n;
    const index = new Int8VectorIndex(dimensions, Math.ceil(count * 1.25)); // sized once: growing copies everything
    // Migrations guarantee the owner columns; rows from before the int8 form are quantised here.
    const rows = this.db
      .prepare(
        'SELECT chunk_id, document_id, collection_id, q8, q8_scale, CASE WHEN q8 IS NULL THEN vector END AS vector FROM chunk_vectors',
      )
      .iterate() as Iterable<{
      chunk_id: number;
      document_id: number;
      collection_id: number;
      q8: Buffer | null;
      q8_scale: number | null;
      vector: Buffer | null;
    }>;
    for (const row of rows) {
      const tag = { documentId: row.document_id, collectionId: row.collection_id };
      if (row.q8 && row.q8_scale !== null)
        index.upsertQuantized(
          row.chunk_id,
          { values: new Int8Array(row.q8.buffer, row.q8.byteOffset, row.q8.byteLength), scale: row.q8_scale },
          tag,
        );
      else index.upsert(row.chunk_id, float32View(row.vector!), tag);
    }
    this.vectors = index;
    this.vectorsVersion = version;
    return index;
  }

  collections(scope: Scope): Promise<{ name: string; documents: number }[]> {
    return this.run(() => this.all<{ name: string; documents: number }>(selectCollections(sqlite, scope)));
  }

  stats(scope: Scope): Promise<StoreStats> {
    return this.run(() => toStats(this.get<StatsRow>(selectStats(sqlite, scope))!, this.readIndexInfo()));
  }

  async exportIndex(): Promise<IndexExport> {
    const identity = await this.identity();
    return this.run(() => {
      return {
        identity,
        embedder: this.readIndexInfo(),
        settings: toSettings(this.all(selectSettings)),
        fullTextTotals: { chunks: this.fullTextTotals('chunks_fts'), documents: this.fullTextTotals('documents_fts') },
      };
    });
  }

  /**
   * FTS5's own totals: the "averages" record (id 1 of the %_data table) holds the row count and each
   * column's token count as SQLite varints. Read rather than recounted because deletes never lower them.
   */
  private fullTextTotals(table: 'chunks_fts' | 'documents_fts'): { rows: number; tokens: number } {
    const block = this.db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Buffer | undefined;
    if (!block || block.length === 0) return { rows: 0, tokens: 0 };
    const values: number[] = [];
    for (let at = 0; at < block.length; ) {
      let value = 0;
      let i = 0;
      for (; i < 8 && at + i < block.length; i++) {
        value = value * 128 + (block[at + i] & 0x7f);
        if ((block[at + i] & 0x80) === 0) break;
      }
      if (i === 8) value = value * 256 + block[at + 8]; // a ninth byte carries all 8 bits
      at += Math.min(i + 1, 9);
      values.push(value);
    }
    const [rows, ...columns] = values;
    return { rows, tokens: columns.reduce((sum, n) => sum + n, 0) };
  }

  /**
   * The full-text rows are contentless (FTS5 keeps only the index), so the terms as indexed are read
   * back from it: every token instance (fts5vocab 'instance', which lists them term by term). They are
   * copied, inside SQLite, into a temporary table indexed by row, so any row's terms can be read in
   * position order without holding the index in memory (a million chunks hold ~85M instances).
   * Returns a reader: row id → [first column's terms, second column's terms].
   */
  private indexedTerms(
    table: 'chunks_fts' | 'documents_fts',
    firstColumn: string,
  ): { read: (id: number) => [string, string]; drop: () => void } {
    const vocab = `temp.migrate_${table}_instances`;
    const tokens = `temp.migrate_${table}_tokens`;
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(main, ${table}, 'instance')`);
    try {
      this.db.exec(`DROP TABLE IF EXISTS ${tokens}`);
      this.db.exec(`CREATE TABLE ${tokens} AS SELECT doc, col <> '${firstColumn}' AS second, "offset", term FROM ${vocab}`);
      this.db.exec(`CREATE INDEX temp.migrate_${table}_by_row ON migrate_${table}_tokens(doc, second, "offset")`);
    } finally {
      this.db.exec(`DROP TABLE IF EXISTS ${vocab}`);
    }
    const select = this.db.prepare(`SELECT second, term FROM ${tokens} WHERE doc = ? ORDER BY second, "offset"`);
    return {
      read: (id) => {
        const columns: [string[], string[]] = [[], []];
        for (const row of select.iterate(id) as Iterable<{ second: number; term: string }>) columns[row.second ? 1 : 0].push(row.term);
        return [columns[0].join(' '), columns[1].join(' ')];
      },
      drop: () => this.db.exec(`DROP TABLE IF EXISTS ${tokens}`),
    };
  }

  async *exportDocuments(): AsyncGenerator<ExportedDocument> {
    const readers: ReturnType<SqliteStore['indexedTerms']>[] = [];
    try {
      yield* this.exportEachDocument(readers);
    } finally {
      for (const reader of readers) reader.drop();
    }
  }

  private async *exportEachDocument(readers: ReturnType<SqliteStore['indexedTerms']>[]): AsyncGenerator<ExportedDocument> {
    let chunkTerms: ReturnType<SqliteStore['indexedTerms']>;
    let documentTerms: ReturnType<SqliteStore['indexedTerms']>;
    try {
      readers.push((chunkTerms = this.indexedTerms('chunks_fts', 'title')));
      readers.push((documentTerms = this.indexedTerms('documents_fts', 'title')));
    } catch (error) {
      throw toStoreError(error, this.path);
    }
    const chunks = this.db.prepare(
      `SELECT c.id, c.ordinal, c.text, c.token_count, c.heading_path, c.page, c.page_end, c.char_start, c.char_end, v.vector
       FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.document_id = ? ORDER BY c.ordinal, c.id`,
    );
    // Pages of documents by id, so a big index is never read whole; every page is a fresh statement run.
    for (let after = 0; ; ) {
      let page: ExportDocumentRow[];
      try {
        page = this.all<ExportDocumentRow>(selectExportPage(after));
      } catch (error) {
        throw toStoreError(error, this.path);
      }
      if (page.length === 0) return;
      for (const row of page) {
        after = row.id;
        const rows = chunks.all(row.id) as (ExportChunkRow & { id: number; vector: Buffer | null })[];
        const [titleTerms, descriptionTerms] = documentTerms.read(row.id);
        yield {
          document: toExportedDocument(row, { titleTerms, descriptionTerms }),
          chunks: rows.map((chunk) => {
            const [title, body] = chunkTerms.read(chunk.id);
            return toExportedChunk(chunk, { terms: body, titleTerms: title });
          }),
          vectors: rows.map((chunk) => {
            if (!chunk.vector)
              throw new DossierError('store-failed', `index ${this.path}: chunk ${chunk.id} of ${row.source} has no vector`);
            return Float32Array.from(float32View(chunk.vector)); // a copy: the blob's buffer is reused
          }),
        };
      }
    }
  }

  async importIndex(exported: IndexExport): Promise<void> {
    await this.run(() => this.assertWritable());
    if (exported.embedder) await this.assertEmbedder(exported.embedder);
    for (const [key, value] of Object.entries(exported.settings)) await this.assertSetting(key, value);
  }

  importDocument(exported: ExportedDocument): Promise<{ id: number }> {
    return this.run(() => {
      const { createdAt, updatedAt, ...document } = exported.document;
      return { id: this.write(document, exported.chunks, exported.vectors, { createdAt, updatedAt }).id };
    });
  }

  /** Rows in the full-text and vector tables, for tests that prove deletes leave nothing behind. */
  rowCounts(): { documents: number; chunks: number; vectors: number; fullText: number; descriptions: number } {
    const count = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      documents: count('SELECT count(*) AS n FROM documents'),
      chunks: count('SELECT count(*) AS n FROM chunks'),
      vectors: count('SELECT count(*) AS n FROM chunk_vectors'),
      fullText: count('SELECT count(*) AS n FROM (SELECT rowid FROM chunks_fts)'),
      descriptions: count('SELECT count(*) AS n FROM (SELECT rowid FROM documents_fts)'),
    };
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    if (!this.readonly && this.path !== ':memory:') {
      // WAL while writing (readers keep reading), a rollback journal at rest: a WAL file can only be
      // read where its -shm can be created, so a read-only folder could not open it. Another open
      // connection keeps WAL on; that is fine, the last writer to close switches.
      try {
        this.db.pragma('busy_timeout = 0');
        this.db.pragma('journal_mode = DELETE');
      } catch {
        // busy: someone else still has the index open
      }
    }
    this.db.close();
  }
}

/** Driver errors (SqliteError and the like) become one-line 'store-failed' errors naming the index. */
function toStoreError(error: unknown, path: string): unknown {
  if (DossierError.isInstance(error)) return error;
  const code = (error as { code?: string } | undefined)?.code ?? '';
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) {
    return new DossierError('read-only', `index ${path} cannot be written: ${oneLine(error)}`, { cause: error });
  }
  if (code === 'SQLITE_NOTADB')
    return new DossierError('not-an-index', `${path} is not a SQLite database, so not a Dossier index`, { cause: error });
  return new DossierError('store-failed', `index ${path}: ${oneLine(error)}`, { cause: error });
}

/** A blob as float32s, without a copy when it is 4-byte aligned (better-sqlite3 blobs usually are). */
function float32View(blob: Buffer): Float32Array {
  return blob.byteOffset % 4 === 0
    ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)
    : new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** An FTS5 OR of quoted terms (terms are word characters only, so quoting is enough). */
function anyOf(terms: readonly string[]): string {
  return terms.map((term) => `"${term}"`).join(' OR ');
}
