import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DossierError, oneLine } from '../../errors/index.ts';
import { compileFilter, type FilterDialect } from '../filter.ts';
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
  StoreStats,
  StoredChunk,
  StoredDocument,
  UpsertStatus,
} from '../types.ts';
import { toChunk, toDocument, type ChunkRow, type DocumentRow } from '../rows.ts';

const DOCUMENT_FIELDS: Record<string, string> = {
  id: 'd.id',
  title: 'd.title',
  source: 'd.source',
  mediaType: 'd.media_type',
  collection: 'col.name',
  createdAt: 'd.created_at',
  updatedAt: 'd.updated_at',
};

const sqliteDialect: FilterDialect = {
  field: (name) => DOCUMENT_FIELDS[name],
  metadata: (path) => `json_extract(d.metadata, '$.${path.join('.')}')`,
  param(value, params) {
    params.push(typeof value === 'boolean' ? Number(value) : value);
    return '?';
  },
};

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
        if (version === 0) throw new DossierError('not-found', `${path} is empty, not a Dossier index; create one with "dossier ingest <files…> --db ${path}"`);
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

  private assertWritable(): void {
    if (this.readonly) throw new DossierError('read-only', `index ${this.path} is open for reading only`);
  }

  private getMeta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  private setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** Every write moves the generation on, so a trace can tell that the index changed since it ran. */
  private bumpGeneration(): void {
    this.db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'").run();
  }

  identity(): Promise<IndexIdentity> {
    return this.run(() => ({
      id: this.getMeta('index_id')!,
      generation: Number(this.getMeta('generation') ?? 0),
      documents: (this.db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n,
      chunks: (this.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n,
    }));
  }

  private readIndexInfo(): IndexInfo | null {
    const embedderId = this.getMeta('embedder_id');
    const dimensions = this.getMeta('embedder_dimensions');
    return embedderId && dimensions ? { embedderId, dimensions: Number(dimensions) } : null;
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
          this.setMeta('embedder_id', info.embedderId);
          this.setMeta('embedder_dimensions', String(info.dimensions));
        })();
        return;
      }
      if (current.embedderId !== info.embedderId || current.dimensions !== info.dimensions) {
        throw new DossierError(
          'embedder-mismatch',
          `index ${this.path} was built with embedder ${current.embedderId} (${current.dimensions} dims), not ${info.embedderId} (${info.dimensions} dims); use the same embedder or a new --db`,
        );
      }
    });
  }

  assertSetting(key: string, value: string): Promise<void> {
    return this.run(() => {
      const stored = this.getMeta(`setting:${key}`);
      if (stored === undefined) {
        if (!this.db.readonly) this.setMeta(`setting:${key}`, value);
        return;
      }
      if (stored !== value) {
        throw new DossierError('config', `index ${this.path} was built with ${key} "${stored}", not "${value}"; use the same setting or a new --db`);
      }
    });
  }

  contentHashOf(collection: string, source: string): Promise<string | undefined> {
    return this.run(() => {
      const row = this.db
        .prepare('SELECT d.content_hash FROM documents d JOIN collections col ON col.id = d.collection_id WHERE col.name = ? AND d.source = ?')
        .get(collection, source) as { content_hash: string } | undefined;
      return row?.content_hash;
    });
  }

  upsertDocument(document: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): Promise<{ id: number; status: UpsertStatus }> {
    return this.run(() => this.write(document, chunks, vectors));
  }

  /** upsertDocument; with `imported`, a document moved from another index: its timestamps kept, never over an existing one. */
  private write(document: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[], imported?: { createdAt: string; updatedAt: string }): { id: number; status: UpsertStatus } {
    {
      this.assertWritable();
      if (vectors.length !== chunks.length) {
        throw new DossierError('bad-input', `upsert of ${document.source}: ${chunks.length} chunks but ${vectors.length} vectors`);
      }
      const info = this.readIndexInfo();
      for (const vector of vectors) {
        if (info && vector.length !== info.dimensions) {
          throw new DossierError('embedder-mismatch', `vector has ${vector.length} dimensions, the index has ${info.dimensions}`);
        }
      }
      const now = new Date().toISOString();
      const inserted: { id: number; vector: Float32Array }[] = [];
      let removed: number[] = [];
      let collectionId = 0;
      const result = this.db.transaction((): { id: number; status: UpsertStatus } => {
        collectionId = this.ensureCollection(document.collection, now);
        const existing = this.db
          .prepare('SELECT id, content_hash FROM documents WHERE collection_id = ? AND source = ?')
          .get(collectionId, document.source) as { id: number; content_hash: string } | undefined;
        if (existing && imported) throw new DossierError('bad-input', `index ${this.path} already holds ${document.source} in collection ${document.collection}`);
        if (existing && existing.content_hash === document.contentHash) return { id: existing.id, status: 'unchanged' };
        this.bumpGeneration();
        let id: number;
        if (existing) {
          id = existing.id;
          removed = this.deleteChunksOf(id);
          this.db
            .prepare('UPDATE documents SET title=?, media_type=?, content_hash=?, metadata=?, text=?, bytes=?, description=?, updated_at=? WHERE id=?')
            .run(document.title, document.mediaType, document.contentHash, JSON.stringify(document.metadata), document.text, document.bytes, document.description ?? '', now, id);
          this.db.prepare('DELETE FROM documents_fts WHERE rowid = ?').run(id);
        } else {
          id = Number(
            this.db
              .prepare(
                'INSERT INTO documents(collection_id, source, title, media_type, content_hash, metadata, text, bytes, description, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
              )
              .run(collectionId, document.source, document.title, document.mediaType, document.contentHash, JSON.stringify(document.metadata), document.text, document.bytes, document.description ?? '', imported?.createdAt ?? now, imported?.updatedAt ?? now)
              .lastInsertRowid,
          );
        }
        this.db
          .prepare('INSERT INTO documents_fts(rowid, title, description) VALUES (?, ?, ?)')
          .run(id, document.titleTerms ?? document.title, document.descriptionTerms ?? document.description ?? '');
        const insertChunk = this.db.prepare(
          'INSERT INTO chunks(document_id, ordinal, text, token_count, heading_path, page, page_end, char_start, char_end) VALUES (?,?,?,?,?,?,?,?,?)',
        );
        const insertFts = this.db.prepare('INSERT INTO chunks_fts(rowid, title, body) VALUES (?, ?, ?)');
        const insertVector = this.db.prepare('INSERT INTO chunk_vectors(chunk_id, vector, document_id, collection_id, q8, q8_scale) VALUES (?, ?, ?, ?, ?, ?)');
        chunks.forEach((chunk, i) => {
          const chunkId = Number(
            insertChunk.run(id, chunk.ordinal, chunk.text, chunk.tokenCount, JSON.stringify(chunk.headingPath), chunk.page ?? null, chunk.pageEnd ?? null, chunk.charStart, chunk.charEnd)
              .lastInsertRowid,
          );
          insertFts.run(chunkId, chunk.titleTerms, chunk.terms);
          const vector = vectors[i];
          const q8 = quantize(vector);
          insertVector.run(chunkId, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), id, collectionId, Buffer.from(q8.values.buffer), q8.scale);
          inserted.push({ id: chunkId, vector });
        });
        return { id, status: existing ? 'updated' : 'inserted' };
      })();
      if (result.status !== 'unchanged') this.afterWrite(() => {
        for (const chunkId of removed) this.vectors?.remove(chunkId);
        for (const row of inserted) this.vectors?.upsert(row.id, row.vector, { documentId: result.id, collectionId });
      });
      return result;
    }
  }

  private ensureCollection(name: string, now: string): number {
    this.db.prepare('INSERT INTO collections(name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING').run(name, now);
    return (this.db.prepare('SELECT id FROM collections WHERE name = ?').get(name) as { id: number }).id;
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
      const document = this.readDocument(scope, id);
      if (!document) return undefined;
      const metadata: Record<string, unknown> = { ...document.metadata };
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete metadata[key];
        else metadata[key] = value;
      }
      this.db.transaction(() => {
        this.bumpGeneration();
        this.db.prepare('UPDATE documents SET metadata = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(metadata), new Date().toISOString(), id);
      })();
      return this.readDocument(scope, id);
    });
  }

  deleteDocument(scope: Scope, id: number): Promise<boolean> {
    return this.run(() => {
      this.assertWritable();
      const document = this.readDocument(scope, id);
      if (!document) return false;
      let removed: number[] = [];
      this.db.transaction(() => {
        this.bumpGeneration();
        removed = this.deleteChunksOf(id);
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

  private scopeCondition(scope: Scope, params: unknown[]): string {
    if (scope.collections === '*') return '1=1';
    if (!Array.isArray(scope.collections)) throw new DossierError('bad-input', 'scope.collections must be an array of names or "*"');
    if (scope.collections.length === 0) return '1=0';
    params.push(...scope.collections);
    return `col.name IN (${scope.collections.map(() => '?').join(', ')})`;
  }

  private documentWhere(scope: Scope, filter: Filter | undefined): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const scopeSql = this.scopeCondition(scope, params);
    const compiled = compileFilter(filter, sqliteDialect);
    return { sql: `${scopeSql} AND (${compiled.sql})`, params: [...params, ...compiled.params] };
  }

  private readDocument(scope: Scope, id: number): StoredDocument | undefined {
    const where = this.documentWhere(scope, undefined);
    const row = this.db
      .prepare(
        `SELECT d.*, col.name AS collection, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunk_count
         FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id = ? AND ${where.sql}`,
      )
      .get(id, ...where.params) as DocumentRow | undefined;
    return row ? toDocument(row) : undefined;
  }

  getDocument(scope: Scope, id: number): Promise<StoredDocument | undefined> {
    return this.run(() => this.readDocument(scope, id));
  }

  getDocumentText(scope: Scope, id: number): Promise<string | undefined> {
    return this.run(() => {
      const where = this.documentWhere(scope, undefined);
      const row = this.db
        .prepare(`SELECT d.text FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id = ? AND ${where.sql}`)
        .get(id, ...where.params) as { text: string } | undefined;
      return row?.text;
    });
  }

  listDocuments(scope: Scope, options: { filter?: Filter; limit?: number; offset?: number } = {}): Promise<StoredDocument[]> {
    return this.run(() => {
      const where = this.documentWhere(scope, options.filter);
      const rows = this.db
        .prepare(
          `SELECT d.id, d.source, d.title, d.media_type, d.content_hash, d.metadata, d.bytes, d.description, d.created_at, d.updated_at, col.name AS collection,
             (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunk_count
           FROM documents d JOIN collections col ON col.id = d.collection_id WHERE ${where.sql} ORDER BY d.id LIMIT ? OFFSET ?`,
        )
        .all(...where.params, options.limit ?? -1, options.offset ?? 0) as DocumentRow[];
      return rows.map(toDocument);
    });
  }

  private chunkSelect(condition: string): string {
    return `SELECT c.id, c.document_id, col.name AS collection, d.title, d.source, c.ordinal, c.text, c.token_count, c.heading_path,
              c.page, c.page_end, c.char_start, c.char_end
            FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id
            WHERE ${condition}`;
  }

  getChunks(scope: Scope, ids: readonly number[]): Promise<StoredChunk[]> {
    return this.run(() => {
      if (ids.length === 0) return [];
      const params: unknown[] = [];
      const scopeSql = this.scopeCondition(scope, params);
      const byId = new Map<number, StoredChunk>();
      for (let start = 0; start < ids.length; start += 500) {
        const batch = ids.slice(start, start + 500);
        const rows = this.db
          .prepare(this.chunkSelect(`c.id IN (${batch.map(() => '?').join(',')}) AND ${scopeSql}`))
          .all(...batch, ...params) as ChunkRow[];
        for (const row of rows) byId.set(row.id, toChunk(row));
      }
      return ids.flatMap((id) => byId.get(id) ?? []);
    });
  }

  getChunkRange(scope: Scope, documentId: number, from: number, to: number): Promise<StoredChunk[]> {
    return this.run(() => {
      const params: unknown[] = [];
      const scopeSql = this.scopeCondition(scope, params);
      const rows = this.db
        .prepare(this.chunkSelect(`c.document_id = ? AND c.ordinal BETWEEN ? AND ? AND ${scopeSql}`) + ' ORDER BY c.ordinal')
        .all(documentId, from, to, ...params) as ChunkRow[];
      return rows.map(toChunk);
    });
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
      const where = unrestricted ? { sql: '', params: [] as unknown[] } : this.documentWhere(scope, options.filter);
      const from = unrestricted
        ? 'chunks_fts f'
        : 'chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id';
      const rank = `bm25(chunks_fts, ${this.titleWeight}, 1.0)`;
      const select = (match: string, limit?: number) =>
        (this.db
          .prepare(`SELECT f.rowid AS id, ${rank} AS rank FROM ${from} WHERE chunks_fts MATCH ?${unrestricted ? '' : ` AND ${where.sql}`}${limit === undefined ? '' : ` ORDER BY ${rank} LIMIT ?`}`)
          .all(match, ...where.params, ...(limit === undefined ? [] : [limit])) as { id: number; rank: number }[])
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
        next = search.next(step.final ? select(essential, options.k) : [...select(essential, options.k), ...select(`(${essential}) AND (${anyOf(step.rest)})`)]);
      }
      return this.withDocumentIds(next.value);
    });
  }

  private withDocumentIds(rows: readonly { id: number; score: number }[]): ScoredChunkId[] {
    const documentOf = new Map(
      (this.db.prepare('SELECT id, document_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(rows.map((row) => row.id))) as { id: number; document_id: number }[]).map(
        (row) => [row.id, row.document_id],
      ),
    );
    return rows.filter((row) => documentOf.has(row.id)).map((row) => ({ chunkId: row.id, documentId: documentOf.get(row.id)!, score: row.score }));
  }

  searchDescriptions(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<{ documentId: number; score: number }[]> {
    return this.run(() => {
      // Rarity is judged on the chunk index (documentFrequencies): the same terms, a far larger sample.
      const match = options.k > 0 ? this.matchExpression(terms) : undefined;
      if (match === undefined) return [];
      const where = this.documentWhere(scope, options.filter);
      const unrestricted = scope.collections === '*' && !options.filter;
      const rank = `bm25(documents_fts, ${this.titleWeight}, 1.0)`;
      const sql = unrestricted
        ? `SELECT f.rowid AS document_id, ${rank} AS rank FROM documents_fts f WHERE documents_fts MATCH ? ORDER BY rank LIMIT ?`
        : `SELECT f.rowid AS document_id, ${rank} AS rank FROM documents_fts f JOIN documents d ON d.id = f.rowid
           JOIN collections col ON col.id = d.collection_id
           WHERE documents_fts MATCH ? AND ${where.sql} ORDER BY rank LIMIT ?`;
      const params = unrestricted ? [match, options.k] : [match, ...where.params, options.k];
      const rows = this.db.prepare(sql).all(...params) as { document_id: number; rank: number }[];
      return rows.map((row) => ({ documentId: row.document_id, score: -row.rank }));
    });
  }

  getVectors(scope: Scope, ids: readonly number[]): Promise<Map<number, Float32Array>> {
    return this.run(() => {
      const out = new Map<number, Float32Array>();
      const params: unknown[] = [];
      const scopeSql = this.scopeCondition(scope, params);
      const select = this.db
        .prepare(
          `SELECT v.vector FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id
           JOIN collections col ON col.id = d.collection_id WHERE v.chunk_id = ? AND ${scopeSql}`,
        )
        .pluck();
      for (const id of ids) {
        const blob = select.get(id, ...params) as Buffer | undefined;
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
        throw new DossierError('embedder-mismatch', `query vector has ${vector.length} dimensions, the index ${this.path} has ${info.dimensions}`);
      }
      const index = this.vectorIndex(info.dimensions);
      let accept: ((tag: { documentId: number; collectionId: number }) => boolean) | undefined;
      if (options.filter) {
        const where = this.documentWhere(scope, options.filter);
        const allowed = new Set(
          (this.db.prepare(`SELECT d.id FROM documents d JOIN collections col ON col.id = d.collection_id WHERE ${where.sql}`).all(...where.params) as { id: number }[]).map(
            (row) => row.id,
          ),
        );
        accept = (tag) => allowed.has(tag.documentId);
      } else if (scope.collections !== '*') {
        const names = scope.collections;
        const allowed = new Set(
          (this.db.prepare(`SELECT id FROM collections WHERE name IN (${names.map(() => '?').join(',') || 'NULL'})`).all(...names) as { id: number }[]).map((row) => row.id),
        );
        accept = (tag) => allowed.has(tag.collectionId);
      }
      return index.search(vector, options.k, accept).map((match) => ({ chunkId: match.id, documentId: match.documentId, score: match.score }));
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
      .prepare('SELECT chunk_id, document_id, collection_id, q8, q8_scale, CASE WHEN q8 IS NULL THEN vector END AS vector FROM chunk_vectors')
      .iterate() as Iterable<{ chunk_id: number; document_id: number; collection_id: number; q8: Buffer | null; q8_scale: number | null; vector: Buffer | null }>;
    for (const row of rows) {
      const tag = { documentId: row.document_id, collectionId: row.collection_id };
      if (row.q8 && row.q8_scale !== null) index.upsertQuantized(row.chunk_id, { values: new Int8Array(row.q8.buffer, row.q8.byteOffset, row.q8.byteLength), scale: row.q8_scale }, tag);
      else index.upsert(row.chunk_id, float32View(row.vector!), tag);
    }
    this.vectors = index;
    this.vectorsVersion = version;
    return index;
  }

  collections(scope: Scope): Promise<{ name: string; documents: number }[]> {
    return this.run(() => {
      const params: unknown[] = [];
      const scopeSql = this.scopeCondition(scope, params);
      return this.db
        .prepare(
          `SELECT col.name, count(d.id) AS documents FROM collections col LEFT JOIN documents d ON d.collection_id = col.id
           WHERE ${scopeSql} GROUP BY col.id ORDER BY col.name`,
        )
        .all(...params) as { name: string; documents: number }[];
    });
  }

  stats(scope: Scope): Promise<StoreStats> {
    return this.run(() => {
      const where = this.documentWhere(scope, undefined);
      const documents = this.db
        .prepare(`SELECT count(*) AS n, coalesce(sum(d.bytes), 0) AS bytes, count(DISTINCT d.collection_id) AS collections FROM documents d JOIN collections col ON col.id = d.collection_id WHERE ${where.sql}`)
        .get(...where.params) as { n: number; bytes: number; collections: number };
      const chunks = this.db
        .prepare(`SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id WHERE ${where.sql}`)
        .get(...where.params) as { n: number };
      return { documents: documents.n, chunks: chunks.n, collections: documents.collections, bytes: documents.bytes, embedder: this.readIndexInfo() };
    });
  }

  async exportIndex(): Promise<IndexExport> {
    const identity = await this.identity();
    return this.run(() => {
      const settings: Record<string, string> = {};
      for (const row of this.db.prepare("SELECT key, value FROM meta WHERE key LIKE 'setting:%' ORDER BY key").all() as { key: string; value: string }[]) {
        settings[row.key.slice('setting:'.length)] = row.value;
      }
      return {
        identity,
        embedder: this.readIndexInfo(),
        settings,
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
  private indexedTerms(table: 'chunks_fts' | 'documents_fts', firstColumn: string): { read: (id: number) => [string, string]; drop: () => void } {
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
    const documents = this.db.prepare(
      `SELECT d.id, d.source, d.title, d.media_type, d.content_hash, d.metadata, d.text, d.bytes, d.description, d.created_at, d.updated_at, col.name AS collection
       FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id > ? ORDER BY d.id LIMIT 100`,
    );
    const chunks = this.db.prepare(
      `SELECT c.id, c.ordinal, c.text, c.token_count, c.heading_path, c.page, c.page_end, c.char_start, c.char_end, v.vector
       FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.document_id = ? ORDER BY c.ordinal, c.id`,
    );
    // Pages of documents by id, so a big index is never read whole; every page is a fresh statement run.
    for (let after = 0; ; ) {
      let page: (DocumentRow & { text: string })[];
      try {
        page = documents.all(after) as (DocumentRow & { text: string })[];
      } catch (error) {
        throw toStoreError(error, this.path);
      }
      if (page.length === 0) return;
      for (const row of page) {
        after = row.id;
        const rows = chunks.all(row.id) as (ChunkRow & { vector: Buffer | null })[];
        const [titleTerms, descriptionTerms] = documentTerms.read(row.id);
        yield {
          document: {
            collection: row.collection,
            source: row.source,
            title: row.title,
            mediaType: row.media_type,
            contentHash: row.content_hash,
            metadata: JSON.parse(row.metadata) as Record<string, unknown>,
            text: row.text,
            bytes: row.bytes,
            description: row.description ?? '',
            titleTerms,
            descriptionTerms,
            createdAt: row.created_at,
            updatedAt: row.updated_at,
          },
          chunks: rows.map((chunk) => {
            const [title, body] = chunkTerms.read(chunk.id);
            return {
              ordinal: chunk.ordinal,
              text: chunk.text,
              tokenCount: chunk.token_count,
              headingPath: JSON.parse(chunk.heading_path) as string[],
              ...(chunk.page !== null ? { page: chunk.page } : {}),
              ...(chunk.page_end !== null ? { pageEnd: chunk.page_end } : {}),
              charStart: chunk.char_start,
              charEnd: chunk.char_end,
              terms: body,
              titleTerms: title,
            };
          }),
          vectors: rows.map((chunk) => {
            if (!chunk.vector) throw new DossierError('store-failed', `index ${this.path}: chunk ${chunk.id} of ${row.source} has no vector`);
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
  if (code === 'SQLITE_NOTADB') return new DossierError('not-an-index', `${path} is not a SQLite database, so not a Dossier index`, { cause: error });
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
