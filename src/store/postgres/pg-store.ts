import type pg from 'pg';
import { DossierError, oneLine } from '../../errors/index.ts';
import type {
  ChunkInput,
  DocumentInput,
  ExportedDocument,
  Filter,
  IndexExport,
  IndexIdentity,
  IndexInfo,
  IngestOutcome,
  GraphCommunityRecord,
  GraphExtractionRecord,
  GraphInfo,
  Scope,
  ScoredChunkId,
  SearchOptions,
  Store,
  StoreStats,
  StoredChunk,
  StoredDocument,
  UpsertStatus,
} from '../types.ts';
import { unavailableError } from './unavailable.ts';
import { BM25_B as B, BM25_K1 as K1, topKSearch, type TopKStep } from '../full-text-top-k.ts';
import { migratePg, PG_SCHEMA_VERSION, pgNeedsMigration, pgSchemaVersion, pgTooNew, SCHEMA_LOCK } from './schema.ts';
import { loadPg, type PgModule } from './driver.ts';
import {
  toChunk,
  toDocument,
  toExportedChunk,
  toExportedDocument,
  type ChunkRow as SqlChunkRow,
  type DocumentRow,
  type ExportChunkRow,
  type ExportDocumentRow,
} from '../rows.ts';
import { postgres } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import { inRequestedOrder, selectChunkRange, selectChunksById } from '../queries/chunks.ts';
import { insertCollection, selectCollectionId, selectCollections } from '../queries/collections.ts';
import {
  bumpGraphVersion,
  deleteCommunities,
  deleteGraph,
  forgetDocumentGraph,
  insertCommunity,
  selectCommunities,
  selectGraphedCollectionOf,
  selectGraphExtractions,
  selectGraphs,
  selectUnextractedDocuments,
  toCommunity,
  toGraphExtraction,
  toGraphInfo,
  upsertGraph,
  upsertGraphExtraction,
  graphedCollectionOf,
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
  insertMetaIfMissing,
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

type ChunkRow = SqlChunkRow<string[]>;
type Queryable = pg.Pool | pg.PoolClient;

/** Runs a query rendered for PostgreSQL; its rows. */
async function queryRows<Row>(client: Queryable, query: Sql): Promise<Row[]> {
  const { text, params } = postgres.render(query);
  return (await client.query(text, params)).rows as Row[];
}

/** Same cap as the SQLite store: longer queries keep their rarest terms. */
const MAX_QUERY_TERMS = 48;
/** Essential rows a pruned step looks up the rest terms for, at most (one index probe each). */
const REST_LOOKUPS = 1000;
/** pgvector's HNSW on `vector` stops at 2000 dimensions; above that the index is built over halfvec. */
const HNSW_VECTOR_MAX = 2000;

/** The HNSW index over the vectors (cosine, as the SQLite store scores); halfvec past vector's 2,000-dimension limit. */
export function vectorIndexSql(dimensions: number): string {
  return dimensions <= HNSW_VECTOR_MAX
    ? 'CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops)'
    : `CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw ON chunk_vectors USING hnsw ((embedding::halfvec(${dimensions})) halfvec_cosine_ops)`;
}

export interface PgStoreOptions {
  /** BM25 weight of the title/heading column relative to the body (as in the SQLite store). */
  titleWeight?: number;
  /** Open for reading only: no migration, sessions are read-only, writes fail with 'read-only'. */
  readonly?: boolean;
  /** Connections in the pool. */
  maxConnections?: number;
}

/**
 * FTS5's unicode61 tokenizer (remove_diacritics 0) applied to our already stemmed terms: the SQLite
 * store hands the terms string to FTS5, which splits and case-folds it once more. Doing the same split
 * here makes term frequencies and lengths identical, hence the same BM25.
 */
export function indexTokens(terms: string): string[] {
  return terms.toLowerCase().match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
}

/** Term frequencies of the title and body columns, and the row's length (FTS5 counts all columns). */
function termRows(title: string, body: string): { terms: string[]; tfTitle: number[]; tfBody: number[]; length: number } {
  const counts = new Map<string, [number, number]>();
  const titleTokens = indexTokens(title);
  const bodyTokens = indexTokens(body);
  for (const token of titleTokens) (counts.get(token) ?? counts.set(token, [0, 0]).get(token)!)[0]++;
  for (const token of bodyTokens) (counts.get(token) ?? counts.set(token, [0, 0]).get(token)!)[1]++;
  const terms = [...counts.keys()];
  return {
    terms,
    tfTitle: terms.map((t) => counts.get(t)![0]),
    tfBody: terms.map((t) => counts.get(t)![1]),
    length: titleTokens.length + bodyTokens.length,
  };
}

/** A connection string without its password, for messages. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    return `postgres://${user}${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Driver errors become one-line DossierErrors naming the index (never its password). */
function toStoreError(error: unknown, label: string, host: string): unknown {
  if (DossierError.isInstance(error)) return error;
  const err = error as { code?: string; errors?: { code?: string }[] } | undefined;
  const code = err?.code ?? err?.errors?.[0]?.code ?? '';
  // PostgreSQL down, restarting or unreachable: 'store-unavailable' (retry shortly), not a failed query.
  const unavailable = unavailableError(error, host);
  if (unavailable) return unavailable;
  if (code === '28P01' || code === '28000')
    return new DossierError('config', `PostgreSQL at ${host} refused the login for ${label}: ${oneLine(error)}`, { cause: error });
  if (code === '3D000')
    return new DossierError('config', `PostgreSQL at ${host} has no such database (${label}); create it first`, { cause: error });
  if (code === '25006')
    return new DossierError('read-only', `index ${label} is open for reading only: ${oneLine(error)}`, { cause: error });
  return new DossierError('store-failed', `index ${label}: ${oneLine(error)}`, { cause: error });
}

/** pgvector's text form. Float32 → shortest decimal → float32 round-trips exactly. */
function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

function parseVector(text: string): Float32Array {
  return Float32Array.from(text.slice(1, -1).split(','), Number);
}

/**
 * What one write changes in the rows every writer shares (the generation, BM25's totals, the term
 * statistics). Collected while the document's own rows are written and applied last, in one fixed
 * order (generation, totals, terms sorted), just before COMMIT: those row locks are then held for
 * milliseconds rather than the whole transaction, so concurrent writers (workers) barely wait on
 * each other, and the fixed order means they never deadlock.
 */
class SharedCounts {
  private readonly totals = { chunks: { rows: 0, tokens: 0 }, documents: { rows: 0, tokens: 0 } };
  private readonly terms = { chunk_term_stats: new Map<string, number>(), document_term_stats: new Map<string, number>() };

  addRows(kind: 'chunks' | 'documents', rows: number, tokens: number): void {
    this.totals[kind].rows += rows;
    this.totals[kind].tokens += tokens;
  }

  /** One (row, term) pair per entry of `terms`: +1 each when added, −1 when removed. */
  countTerms(table: 'chunk_term_stats' | 'document_term_stats', terms: readonly string[], sign: 1 | -1): void {
    const counts = this.terms[table];
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + sign);
  }

  async apply(client: pg.PoolClient): Promise<void> {
    await queryRows(client, bumpGeneration);
    for (const kind of ['chunks', 'documents'] as const) {
      const { rows, tokens } = this.totals[kind];
      if (rows || tokens)
        await client.query('UPDATE fts_stats SET rows = rows + $2, tokens = tokens + $3 WHERE name = $1', [kind, rows, tokens]);
    }
    for (const table of ['chunk_term_stats', 'document_term_stats'] as const) {
      const changed = [...this.terms[table]].filter(([, delta]) => delta !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (changed.length === 0) continue;
      await client.query(
        `INSERT INTO ${table}(term, rows) SELECT * FROM unnest($1::text[], $2::bigint[]) ORDER BY 1
         ON CONFLICT (term) DO UPDATE SET rows = ${table}.rows + excluded.rows`,
        [changed.map(([term]) => term), changed.map(([, delta]) => delta)],
      );
    }
  }
}

/** int8 (ids, counts) as numbers: ids stay far below 2^53. */
function typeParsers(pg: PgModule): { getTypeParser: typeof pg.types.getTypeParser } {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
  };
}

const INT4_MAX = 2_147_483_647;

/**
 * PostgreSQL + pgvector behind the same Store contract as SqliteStore. Full text is BM25 computed in
 * SQL from stored term frequencies with FTS5's exact formula (GIN over a tsvector only picks the
 * candidates); vectors live in pgvector with an HNSW cosine index. Open with `PgStore.open(url)`.
 */
export class PgStore implements Store {
  readonly readonly: boolean;
  /** The connection string without its password. */
  readonly label: string;
  /** Migration versions this instance applied when it opened (empty when another node did). */
  migrated: number[] = [];
  private readonly pool: pg.Pool;
  private readonly host: string;
  private readonly titleWeight: number;
  private iterativeScan = false;
  private countedChunks: { generation: string; count: number } | undefined;
  private closed = false;

  private constructor(pg: PgModule, url: string, options: PgStoreOptions) {
    this.readonly = options.readonly ?? false;
    this.titleWeight = options.titleWeight ?? 3; // same default as the SQLite store
    this.label = describeUrl(url);
    let host = 'unknown host';
    try {
      const parsed = new URL(url);
      host = `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
    } catch {
      throw new DossierError('config', `--db ${this.label} is not a valid postgres:// connection string`);
    }
    this.host = host;
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      types: typeParsers(pg),
      connectionTimeoutMillis: 10_000,
      application_name: 'dossier',
      // A read-only store cannot write even by mistake: the server refuses it.
      ...(this.readonly ? { options: '-c default_transaction_read_only=on' } : {}),
    });
    // An idle client losing its connection must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
    // Nor a checked-out one between two queries (PostgreSQL restarting mid-transaction): pg emits
    // 'error' on the client, which the pool does not listen to then. Its next query fails instead
    // (store-unavailable) and the pool drops it on release.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** Connects, migrates (under an advisory lock; not when read-only) and checks the schema version. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const store = new PgStore(await loadPg(), url, options);
    try {
      if (store.readonly) {
        const version = await pgSchemaVersion(store.pool);
        if (version === 0)
          throw new DossierError('not-found', `${store.label} holds no Dossier index; create it with "dossier ingest <files…> --db <url>"`);
        if (version > PG_SCHEMA_VERSION) throw pgTooNew(store.label, version);
        if (version < PG_SCHEMA_VERSION) throw pgNeedsMigration(store.label, version);
      } else {
        store.migrated = await migratePg(store.pool, store.label);
      }
      const ext = await store.pool.query("SELECT extversion FROM pg_extension WHERE extname = 'vector'");
      const [major, minor] = String(ext.rows[0]?.extversion ?? '0.0')
        .split('.')
        .map(Number);
      store.iterativeScan = major > 0 || minor >= 8; // hnsw.iterative_scan arrived in pgvector 0.8
    } catch (error) {
      await store.pool.end().catch(() => undefined);
      throw toStoreError(error, store.label, store.host);
    }
    return store;
  }

  private async run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) throw new DossierError('store-failed', `index ${this.label} is closed`);
    try {
      return await operation();
    } catch (error) {
      throw toStoreError(error, this.label, this.host);
    }
  }

  /** One transaction on one connection; rolled back on any error. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private assertWritable(): void {
    if (this.readonly) throw new DossierError('read-only', `index ${this.label} is open for reading only`);
  }

  private async getMeta(key: string): Promise<string | undefined> {
    return (await queryRows<{ value: string }>(this.pool, selectMeta(key)))[0]?.value;
  }

  identity(): Promise<IndexIdentity> {
    return this.run(async () => toIdentity((await queryRows<IdentityRow>(this.pool, selectIdentity))[0]));
  }

  private async readIndexInfo(client: Queryable = this.pool): Promise<IndexInfo | null> {
    return toIndexInfo(await queryRows(client, selectIndexInfo));
  }

  indexInfo(): Promise<IndexInfo | null> {
    return this.run(() => this.readIndexInfo());
  }

  assertEmbedder(info: IndexInfo): Promise<void> {
    return this.run(async () => {
      const current = await this.readIndexInfo();
      if (current) {
        if (!sameEmbedder(current, info)) throw embedderMismatch(this.label, current, info);
        return;
      }
      if (this.readonly) return; // nothing indexed yet, nothing to compare
      if (!Number.isInteger(info.dimensions) || info.dimensions < 1)
        throw new DossierError('bad-input', `embedder ${info.embedderId} has ${info.dimensions} dimensions`);
      await this.transaction(async (client) => {
        // The schema lock again: two nodes recording the first embedder must not both alter the column.
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
        const raced = await this.readIndexInfo(client);
        if (raced) {
          if (!sameEmbedder(raced, info)) throw embedderMismatch(this.label, raced, info);
          return;
        }
        await queryRows(client, upsertMeta('embedder_id', info.embedderId));
        await queryRows(client, upsertMeta('embedder_dimensions', String(info.dimensions)));
        const d = info.dimensions;
        // The dimensions are known only now; HNSW needs them fixed (cosine distance, as the SQLite store scores).
        await client.query(`ALTER TABLE chunk_vectors ALTER COLUMN embedding TYPE vector(${d})`);
        await client.query(vectorIndexSql(d));
      });
    });
  }

  assertSetting(key: string, value: string): Promise<void> {
    return this.run(async () => {
      const stored = await this.getMeta(settingKey(key));
      if (stored === undefined) {
        if (!this.readonly) {
          // First writer wins; a concurrent different value is caught by the re-read below.
          await queryRows(this.pool, insertMetaIfMissing(settingKey(key), value));
          const now = await this.getMeta(settingKey(key));
          if (now !== value) throw settingMismatch(this.label, key, now!, value);
        }
        return;
      }
      if (stored !== value) throw settingMismatch(this.label, key, stored, value);
    });
  }

  contentHashOf(collection: string, source: string): Promise<string | undefined> {
    return this.run(
      async () => (await queryRows<{ content_hash: string }>(this.pool, selectContentHash(collection, source)))[0]?.content_hash,
    );
  }

  ingestOutcomeOf(collection: string, source: string): Promise<IngestOutcome | undefined> {
    return this.run(async () => {
      const [row] = await queryRows<{ content_hash: string; outcome: IngestOutcome['outcome']; reason: string }>(
        this.pool,
        selectIngestOutcome(collection, source),
      );
      return row && { collection, source, contentHash: row.content_hash, outcome: row.outcome, reason: row.reason };
    });
  }

  recordIngestOutcome(outcome: IngestOutcome): Promise<void> {
    return this.run(async () => {
      this.assertWritable();
      await queryRows(this.pool, upsertIngestOutcome(outcome, new Date().toISOString()));
    });
  }

  forgetIngestOutcome(collection: string, source: string): Promise<boolean> {
    return this.run(async () => {
      this.assertWritable();
      const { text, params } = postgres.render(deleteIngestOutcome(collection, source));
      return ((await this.pool.query(text, params)).rowCount ?? 0) > 0;
    });
  }

  ingestOutcomeSources(collection: string): Promise<string[]> {
    return this.run(async () =>
      (await queryRows<{ source: string }>(this.pool, selectIngestOutcomeSources(collection))).map((row) => row.source),
    );
  }

  graphs(scope: Scope): Promise<GraphInfo[]> {
    return this.run(async () => (await queryRows<GraphRow>(this.pool, selectGraphs(postgres, scope))).map(toGraphInfo));
  }

  markGraph(collection: string, extractor: string): Promise<GraphInfo> {
    return this.run(async () => {
      this.assertWritable();
      await this.transaction(async (client) => {
        // The row lock orders two builds of one collection; the first of all takes the insert's conflict.
        const [known] = await queryRows<{ extractor: string }>(
          client,
          sql`SELECT extractor FROM graphs WHERE collection = ${collection} FOR UPDATE`,
        );
        if (known && known.extractor !== extractor) for (const query of deleteGraph(collection)) await queryRows(client, query);
        await queryRows(client, bumpGeneration);
        await queryRows(client, upsertGraph(collection, extractor, new Date().toISOString()));
      });
      return (await queryRows<GraphRow>(this.pool, selectGraphs(postgres, { collections: [collection] }))).map(toGraphInfo)[0];
    });
  }

  dropGraph(collection: string): Promise<boolean> {
    return this.run(async () => {
      this.assertWritable();
      return this.transaction(async (client) => {
        let dropped = 0;
        for (const query of deleteGraph(collection)) {
          const { text, params } = postgres.render(query);
          dropped = (await client.query(text, params)).rowCount ?? 0;
        }
        if (dropped > 0) await queryRows(client, bumpGeneration);
        return dropped > 0;
      });
    });
  }

  putGraphExtractions(records: readonly Omit<GraphExtractionRecord, 'collection'>[]): Promise<void> {
    return this.run(async () => {
      this.assertWritable();
      if (records.length === 0) return;
      await this.transaction(async (client) => {
        const now = new Date().toISOString();
        const collections = new Set<string>();
        for (const record of records) {
          const collection = graphedCollectionOf(
            await queryRows<{ name: string; graphed: number | null }>(client, selectGraphedCollectionOf(record.documentId)),
            record.documentId,
            this.label,
          );
          await queryRows(client, upsertGraphExtraction({ ...record, collection }, now));
          collections.add(collection);
        }
        await queryRows(client, bumpGeneration);
        for (const collection of collections) await queryRows(client, bumpGraphVersion(collection));
      });
    });
  }

  graphExtractions(scope: Scope): Promise<GraphExtractionRecord[]> {
    return this.run(async () =>
      (await queryRows<GraphExtractionRow>(this.pool, selectGraphExtractions(postgres, scope))).map(toGraphExtraction),
    );
  }

  unextractedDocuments(collection: string): Promise<number[]> {
    return this.run(async () =>
      (await queryRows<{ id: number | string }>(this.pool, selectUnextractedDocuments(collection))).map((row) => Number(row.id)),
    );
  }

  replaceCommunities(collection: string, communities: readonly Omit<GraphCommunityRecord, 'collection'>[]): Promise<void> {
    return this.run(async () => {
      this.assertWritable();
      await this.transaction(async (client) => {
        await queryRows(client, bumpGeneration);
        await queryRows(client, deleteCommunities(collection));
        for (const community of communities) await queryRows(client, insertCommunity({ ...community, collection }));
      });
    });
  }

  communities(scope: Scope): Promise<GraphCommunityRecord[]> {
    return this.run(async () => (await queryRows<CommunityRow>(this.pool, selectCommunities(postgres, scope))).map(toCommunity));
  }

  private async checkWrite(document: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): Promise<void> {
    this.assertWritable();
    checkDocumentWrite(document, chunks, vectors, await this.readIndexInfo());
  }

  upsertDocument(document: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): Promise<{ id: number; status: UpsertStatus }> {
    return this.run(async () => {
      await this.checkWrite(document, chunks, vectors);
      // Two nodes inserting the same new source race on the unique key; the loser retries and sees the winner's row.
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.transaction((client) => this.writeDocument(client, document, chunks, vectors));
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (attempt < 2 && (code === '23505' || code === '40P01')) continue;
          throw error;
        }
      }
    });
  }

  /** With `imported`, a document moved from another index: its timestamps kept, never over an existing one. */
  private async writeDocument(
    client: pg.PoolClient,
    document: DocumentInput,
    chunks: ChunkInput[],
    vectors: Float32Array[],
    imported?: { createdAt: string; updatedAt: string },
  ): Promise<{ id: number; status: UpsertStatus }> {
    const now = new Date().toISOString();
    await queryRows(client, insertCollection(document.collection, now));
    const collectionId = (await queryRows<{ id: number }>(client, selectCollectionId(document.collection)))[0].id;
    const existing = (
      await queryRows<{ id: number; content_hash: string }>(client, selectExistingDocument(postgres, collectionId, document.source))
    )[0];
    if (existing && imported)
      throw new DossierError('bad-input', `index ${this.label} already holds ${document.source} in collection ${document.collection}`);
    if (existing && existing.content_hash === document.contentHash) return { id: existing.id, status: 'unchanged' };
    const shared = new SharedCounts();

    const description = document.description ?? '';
    // As in SQLite: without index terms the raw title/description are indexed (unstemmed).
    const docTerms = termRows(document.titleTerms ?? document.title, document.descriptionTerms ?? description);
    let id: number;
    if (existing) {
      id = existing.id;
      await this.deleteChunksOf(client, id, shared);
      await this.deleteDocumentTerms(client, id, shared);
      for (const query of forgetDocumentGraph(id)) await queryRows(client, query);
      await client.query(
        `UPDATE documents SET title=$1, media_type=$2, content_hash=$3, metadata=$4, text=$5, bytes=$6, description=$7, updated_at=$8,
           fts = array_to_tsvector($9::text[]), fts_length = $10 WHERE id = $11`,
        [
          document.title,
          document.mediaType,
          document.contentHash,
          JSON.stringify(document.metadata),
          document.text,
          document.bytes,
          description,
          now,
          docTerms.terms,
          docTerms.length,
          id,
        ],
      );
    } else {
      id = (
        await client.query(
          `INSERT INTO documents(collection_id, source, title, media_type, content_hash, metadata, text, bytes, description, created_at, updated_at, fts, fts_length)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$13, array_to_tsvector($11::text[]), $12) RETURNING id`,
          [
            collectionId,
            document.source,
            document.title,
            document.mediaType,
            document.contentHash,
            JSON.stringify(document.metadata),
            document.text,
            document.bytes,
            description,
            imported?.createdAt ?? now,
            docTerms.terms,
            docTerms.length,
            imported?.updatedAt ?? now,
          ],
        )
      ).rows[0].id as number;
    }
    if (docTerms.terms.length) {
      await client.query(
        'INSERT INTO document_terms(document_id, term, tf_title, tf_body, length) SELECT $1, u.*, $5 FROM unnest($2::text[], $3::int[], $4::int[]) AS u',
        [id, docTerms.terms, docTerms.tfTitle, docTerms.tfBody, docTerms.length],
      );
      shared.countTerms('document_term_stats', docTerms.terms, 1);
    }
    // A replaced description counts as a new row, as FTS5 counts it (see deleteChunksOf).
    shared.addRows('documents', 1, docTerms.length);

    if (chunks.length) {
      // Ids drawn first, so chunk rows, their terms and vectors are tied without relying on RETURNING order.
      const chunkIds = (
        await client.query("SELECT nextval(pg_get_serial_sequence('chunks', 'id')) AS id FROM generate_series(1, $1)", [chunks.length])
      ).rows.map((row: { id: number }) => row.id);
      const rows = chunks.map((chunk) => termRows(chunk.titleTerms, chunk.terms));
      await client.query(
        `INSERT INTO chunks(id, document_id, ordinal, text, token_count, heading_path, page, page_end, char_start, char_end, fts, fts_length)
         SELECT u.id, $1, u.ordinal, u.text, u.token_count, u.heading_path::jsonb, u.page, u.page_end, u.char_start, u.char_end,
           array_to_tsvector(string_to_array(u.lexemes, ' ')), u.fts_length
         FROM unnest($2::bigint[], $3::int[], $4::text[], $5::int[], $6::text[], $7::int[], $8::int[], $9::int[], $10::int[], $11::text[], $12::int[])
           AS u(id, ordinal, text, token_count, heading_path, page, page_end, char_start, char_end, lexemes, fts_length)`,
        [
          id,
          chunkIds,
          chunks.map((c) => c.ordinal),
          chunks.map((c) => c.text),
          chunks.map((c) => c.tokenCount),
          chunks.map((c) => JSON.stringify(c.headingPath)),
          chunks.map((c) => c.page ?? null),
          chunks.map((c) => c.pageEnd ?? null),
          chunks.map((c) => c.charStart),
          chunks.map((c) => c.charEnd),
          rows.map((r) => r.terms.join(' ')),
          rows.map((r) => r.length),
        ],
      );
      const termChunk: number[] = [];
      const termText: string[] = [];
      const tfTitle: number[] = [];
      const tfBody: number[] = [];
      const termLength: number[] = [];
      rows.forEach((r, i) => {
        r.terms.forEach((term, j) => {
          termChunk.push(chunkIds[i]);
          termText.push(term);
          tfTitle.push(r.tfTitle[j]);
          tfBody.push(r.tfBody[j]);
          termLength.push(r.length);
        });
      });
      if (termText.length) {
        await client.query(
          'INSERT INTO chunk_terms(chunk_id, term, tf_title, tf_body, length) SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[], $5::int[])',
          [termChunk, termText, tfTitle, tfBody, termLength],
        );
        shared.countTerms('chunk_term_stats', termText, 1);
      }
      await client.query(
        'INSERT INTO chunk_vectors(chunk_id, document_id, collection_id, embedding) SELECT u.chunk_id, $1, $2, u.embedding::vector FROM unnest($3::bigint[], $4::text[]) AS u(chunk_id, embedding)',
        [id, collectionId, chunkIds, vectors.map(vectorLiteral)],
      );
      shared.addRows(
        'chunks',
        chunks.length,
        rows.reduce((sum, r) => sum + r.length, 0),
      );
    }
    await shared.apply(client);
    return { id, status: existing ? 'updated' : 'inserted' };
  }

  /**
   * Deletes a document's chunks (terms and vectors cascade). The BM25 statistics are NOT reduced:
   * FTS5's contentless_delete tables (the SQLite store) never take deleted rows out of their row and
   * token totals, and matching its scores exactly matters more than the drift (N and avgdl count every
   * row ever inserted; document frequencies do drop).
   */
  private async deleteChunksOf(client: pg.PoolClient, documentId: number, shared: SharedCounts): Promise<void> {
    const removed = await client.query('SELECT t.term FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id WHERE c.document_id = $1', [
      documentId,
    ]);
    shared.countTerms(
      'chunk_term_stats',
      removed.rows.map((row: { term: string }) => row.term),
      -1,
    );
    await client.query('DELETE FROM chunks WHERE document_id = $1', [documentId]);
  }

  private async deleteDocumentTerms(client: pg.PoolClient, documentId: number, shared: SharedCounts): Promise<void> {
    const removed = await client.query('SELECT term FROM document_terms WHERE document_id = $1', [documentId]);
    shared.countTerms(
      'document_term_stats',
      removed.rows.map((row: { term: string }) => row.term),
      -1,
    );
    await client.query('DELETE FROM document_terms WHERE document_id = $1', [documentId]);
  }

  updateMetadata(scope: Scope, id: number, patch: Record<string, unknown>): Promise<StoredDocument | undefined> {
    return this.run(async () => {
      this.assertWritable();
      const changed = await this.transaction(async (client) => {
        const row = (
          await queryRows<{ id: number; metadata: Record<string, unknown> }>(client, selectDocumentForWrite(postgres, scope, id))
        )[0];
        if (!row) return false;
        await queryRows(client, bumpGeneration);
        await queryRows(client, updateDocumentMetadata(id, patchMetadata(row.metadata, patch), new Date().toISOString()));
        return true;
      });
      return changed ? this.readDocument(scope, id) : undefined;
    });
  }

  deleteDocument(scope: Scope, id: number): Promise<boolean> {
    return this.run(async () => {
      this.assertWritable();
      return this.transaction(async (client) => {
        if ((await queryRows(client, selectDocumentForWrite(postgres, scope, id))).length === 0) return false;
        const shared = new SharedCounts();
        await this.deleteChunksOf(client, id, shared);
        await this.deleteDocumentTerms(client, id, shared);
        for (const query of forgetDocumentGraph(id)) await queryRows(client, query);
        await client.query('DELETE FROM documents WHERE id = $1', [id]); // BM25's totals stay (see deleteChunksOf)
        await shared.apply(client);
        return true;
      });
    });
  }

  private async readDocument(scope: Scope, id: number): Promise<StoredDocument | undefined> {
    const row = (await queryRows<DocumentRow<Record<string, unknown>>>(this.pool, selectDocument(postgres, scope, id)))[0];
    return row ? toDocument(row) : undefined;
  }

  getDocument(scope: Scope, id: number): Promise<StoredDocument | undefined> {
    return this.run(() => this.readDocument(scope, id));
  }

  getDocumentText(scope: Scope, id: number): Promise<string | undefined> {
    return this.run(async () => (await queryRows<{ text: string }>(this.pool, selectDocumentText(postgres, scope, id)))[0]?.text);
  }

  listDocuments(scope: Scope, options: { filter?: Filter; limit?: number; offset?: number } = {}): Promise<StoredDocument[]> {
    return this.run(async () =>
      (await queryRows<DocumentRow<Record<string, unknown>>>(this.pool, selectDocuments(postgres, scope, options))).map(toDocument),
    );
  }

  getChunks(scope: Scope, ids: readonly number[]): Promise<StoredChunk[]> {
    return this.run(async () => {
      if (ids.length === 0) return [];
      return inRequestedOrder(ids, (await queryRows<ChunkRow>(this.pool, selectChunksById(postgres, scope, ids))).map(toChunk));
    });
  }

  getChunkRange(scope: Scope, documentId: number, from: number, to: number): Promise<StoredChunk[]> {
    return this.run(async () => {
      // ordinal is an INTEGER: bounds past its range (getChunks asks up to MAX_SAFE_INTEGER) are clamped, not an error.
      const query = selectChunkRange(postgres, scope, documentId, Math.max(from, -INT4_MAX), Math.min(to, INT4_MAX));
      return (await queryRows<ChunkRow>(this.pool, query)).map(toChunk);
    });
  }

  private async readFrequencies(terms: readonly string[]): Promise<{ chunks: number; frequencies: Map<string, number> }> {
    const unique = [...new Set(terms)];
    const { rows: found, generation } = await this.termStatistics('chunks', unique);
    // count(*) over a million chunks is a scan and the embedder asks on every query: kept per write generation.
    if (this.countedChunks?.generation !== generation) {
      this.countedChunks = { generation, count: Number((await this.pool.query('SELECT count(*) AS n FROM chunks')).rows[0].n) };
    }
    return { chunks: this.countedChunks.count, frequencies: new Map(unique.map((term) => [term, found.get(term) ?? 0])) };
  }

  /** Rows holding each term (term statistics, kept by every write) and the index's write generation. */
  private async termStatistics(
    kind: 'chunks' | 'documents',
    terms: readonly string[],
  ): Promise<{ rows: Map<string, number>; generation: string }> {
    const table = kind === 'chunks' ? 'chunk_term_stats' : 'document_term_stats';
    const result = await this.pool.query(
      `SELECT NULL AS term, value::bigint AS n FROM meta WHERE key = 'generation'
       UNION ALL SELECT term, rows FROM ${table} WHERE term = ANY($1::text[])`,
      [[...terms]],
    );
    const rows = new Map<string, number>();
    let generation = '';
    for (const row of result.rows as { term: string | null; n: string | number }[]) {
      if (row.term === null) generation = String(row.n);
      else rows.set(row.term, Number(row.n));
    }
    return { rows, generation };
  }

  documentFrequencies(terms: readonly string[]): Promise<{ chunks: number; frequencies: Map<string, number> }> {
    return this.run(() => this.readFrequencies(terms));
  }

  /** Query terms as FTS5 would see them (same filter, folding and rare-term cap as the SQLite store). */
  private async queryTerms(terms: readonly string[]): Promise<string[]> {
    let unique = [...new Set(terms.filter((term) => /^[\p{L}\p{N}]+$/u.test(term)).map((term) => term.toLowerCase()))];
    if (unique.length > MAX_QUERY_TERMS) {
      const { frequencies } = await this.readFrequencies(unique);
      unique = unique
        .filter((term) => (frequencies.get(term) ?? 0) > 0)
        .sort((a, b) => frequencies.get(a)! - frequencies.get(b)!)
        .slice(0, MAX_QUERY_TERMS);
    }
    return unique;
  }

  /**
   * FTS5's bm25() (fts5_aux.c), computed in SQL from posting lists (`chunk_terms` / `document_terms`,
   * read through an index that carries each posting's frequencies and row length):
   *   score = Σ_terms idf(t) · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))
   * with f = Σ_columns weight_c · tf_c (the column weights scale frequencies, not per-column scores),
   * D = the row's tokens over all columns, avgdl = all tokens / rows, and
   * idf = ln((N − n + 0.5) / (n + 0.5)), or 1e-6 when that is ≤ 0; N and n are index-wide,
   * so scope and filters never change a row's score (as in FTS5).
   *
   * One step of full-text-top-k.ts: every row holding an `essential` term is scored by those terms
   * from their postings. On the last step (no rest) that is the score. Otherwise a row can enter the
   * top k only if its essential score plus the most the rest can add (`restBound`) reaches the k-th
   * essential score, and only those rows look up their rest terms (one index probe each).
   */
  private bm25Query(
    kind: 'chunks' | 'documents',
    step: TopKStep,
    query: { terms: readonly string[]; frequencies: readonly number[]; k: number },
    condition: Sql | undefined,
  ): Sql {
    const rows = sql.raw(kind === 'chunks' ? "'chunks'" : "'documents'");
    const termTable = sql.raw(kind === 'chunks' ? 'chunk_terms' : 'document_terms');
    const key = sql.raw(kind === 'chunks' ? 'chunk_id' : 'document_id');
    const contribution = sql.raw(
      `idf.w * (f.freq * ${K1 + 1}::float8) / (f.freq + ${K1}::float8 * (${1 - B}::float8 + ${B}::float8 * t.length::float8 / s.avgdl))`,
    );
    const titleWeight = sql.raw(String(this.titleWeight));
    const postings = (terms: readonly string[], only = sql.empty) => sql`SELECT t.${key} AS id, sum(${contribution}) AS score
        FROM ${termTable} t JOIN idf ON idf.term = t.term CROSS JOIN s
          CROSS JOIN LATERAL (SELECT (${titleWeight}::float8 * t.tf_title + t.tf_body)::float8 AS freq) f
        WHERE t.term = ANY(${[...terms]}::text[])${only} GROUP BY t.${key}`;
    const scoped =
      condition === undefined
        ? sql`SELECT id, score FROM essential`
        : kind === 'chunks'
          ? sql`SELECT e.id, e.score FROM essential e JOIN chunks c ON c.id = e.id JOIN documents d ON d.id = c.document_id JOIN collections col ON col.id = d.collection_id WHERE ${condition}`
          : sql`SELECT e.id, e.score FROM essential e JOIN documents d ON d.id = e.id JOIN collections col ON col.id = d.collection_id WHERE ${condition}`;
    // Rest lookups are capped (REST_LOOKUPS): an essential row left out scores at most the best left-out
    // essential score plus restBound, returned as `unscored` for the caller's check. Every CTE is
    // materialised: its size is unknown to the planner, which otherwise loops over them.
    const ranked = step.final
      ? sql`SELECT id, score, NULL::float8 AS unscored FROM scoped ORDER BY score DESC, id LIMIT ${query.k}`
      : sql`WITH ranked AS MATERIALIZED (SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS n FROM scoped),
          kth AS (SELECT score FROM ranked WHERE n = ${query.k}),
          contenders AS MATERIALIZED (SELECT id, score FROM ranked WHERE n <= ${sql.raw(String(REST_LOOKUPS))} AND score + ${step.restBound}::float8 >= coalesce((SELECT score FROM kth), '-Infinity'::float8)),
          rest AS MATERIALIZED (${postings(step.rest, sql` AND t.${key} IN (SELECT id FROM contenders)`)}),
          combined AS (SELECT id, sum(score) AS score FROM (SELECT id, score FROM contenders UNION ALL SELECT id, score FROM rest) x GROUP BY id)
        SELECT id, score, (SELECT score + ${step.restBound}::float8 FROM ranked WHERE n = ${sql.raw(String(REST_LOOKUPS + 1))}) AS unscored FROM combined ORDER BY score DESC, id LIMIT ${query.k}`;
    const documentOf = kind === 'chunks' ? sql`JOIN chunks c ON c.id = top.id` : sql.empty;
    return sql`WITH s AS (
        SELECT greatest(rows, 1)::float8 AS n_rows, greatest(tokens, 1)::float8 / greatest(rows, 1)::float8 AS avgdl FROM fts_stats WHERE name = ${rows}
      ), idf AS (
        SELECT u.term, CASE WHEN x.v <= 0 THEN 1e-6::float8 ELSE x.v END AS w
        FROM unnest(${[...query.terms]}::text[], ${[...query.frequencies]}::float8[]) AS u(term, hits)
        CROSS JOIN s
        CROSS JOIN LATERAL (SELECT ln((s.n_rows - u.hits + 0.5::float8) / (u.hits + 0.5::float8)) AS v) x
      ), essential AS (${postings(step.essential)}),
      scoped AS (${scoped})
      SELECT top.id, ${kind === 'chunks' ? sql`c.document_id` : sql`top.id AS document_id`}, top.score, top.unscored
      FROM (${ranked}) top ${documentOf} ORDER BY top.score DESC, top.id`;
  }

  private async bm25(
    kind: 'chunks' | 'documents',
    scope: Scope,
    terms: readonly string[],
    options: SearchOptions,
  ): Promise<{ id: number; document_id: number; score: number }[]> {
    if (!(options.k > 0)) return [];
    const query = await this.queryTerms(terms);
    if (query.length === 0) return [];
    const [{ rows: frequencies }, rowCount] = await Promise.all([
      this.termStatistics(kind, query),
      this.pool.query('SELECT rows FROM fts_stats WHERE name = $1', [kind]).then((result) => Number(result.rows[0]?.rows ?? 0)),
    ]);
    const present = query.filter((term) => (frequencies.get(term) ?? 0) > 0);
    const restricted = scope.collections !== '*' || options.filter !== undefined;
    const search = topKSearch<{ id: number; document_id: number; score: number }>(
      present.map((term) => ({ term, documentFrequency: frequencies.get(term)! })),
      rowCount,
      options.k,
    );
    for (let next = search.next(); ; ) {
      if (next.done) return next.value;
      const condition = restricted ? documentWhere(postgres, scope, options.filter) : undefined;
      const stepQuery = this.bm25Query(
        kind,
        next.value,
        { terms: present, frequencies: present.map((term) => frequencies.get(term)!), k: options.k },
        condition,
      );
      const result = await queryRows<{ id: string | number; document_id: string | number; score: number; unscored: number | null }>(
        this.pool,
        stepQuery,
      );
      const rows = result.map((row) => ({ id: Number(row.id), document_id: Number(row.document_id), score: row.score }));
      const unscored = result.find((row) => row.unscored !== null)?.unscored ?? undefined;
      next = search.next(unscored === undefined ? rows : { rows, unscoredBound: unscored });
    }
  }

  searchFullText(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<ScoredChunkId[]> {
    return this.run(async () =>
      (await this.bm25('chunks', scope, terms, options)).map((row) => ({ chunkId: row.id, documentId: row.document_id, score: row.score })),
    );
  }

  searchDescriptions(scope: Scope, terms: readonly string[], options: SearchOptions): Promise<{ documentId: number; score: number }[]> {
    return this.run(async () =>
      (await this.bm25('documents', scope, terms, options)).map((row) => ({ documentId: row.id, score: row.score })),
    );
  }

  getVectors(scope: Scope, ids: readonly number[]): Promise<Map<number, Float32Array>> {
    return this.run(async () => {
      const out = new Map<number, Float32Array>();
      if (ids.length === 0) return out;
      const rows = await queryRows<{ chunk_id: number; embedding: string }>(
        this.pool,
        sql`SELECT v.chunk_id, v.embedding::text AS embedding FROM chunk_vectors v JOIN collections col ON col.id = v.collection_id
          WHERE v.chunk_id = ANY(${[...ids]}::bigint[]) AND ${scopeCondition(postgres, scope)}`,
      );
      for (const row of rows) out.set(row.chunk_id, parseVector(row.embedding));
      return out;
    });
  }

  searchVector(scope: Scope, vector: Float32Array, options: SearchOptions): Promise<ScoredChunkId[]> {
    return this.run(async () => {
      const info = await this.readIndexInfo();
      if (!info) return [];
      if (vector.length !== info.dimensions) {
        throw new DossierError(
          'embedder-mismatch',
          `query vector has ${vector.length} dimensions, the index ${this.label} has ${info.dimensions}`,
        );
      }
      if (!(options.k > 0)) return [];
      const d = sql.raw(String(info.dimensions));
      const literal = vectorLiteral(vector);
      // The distance expression must match the index expression for HNSW to be used.
      const distance =
        info.dimensions <= HNSW_VECTOR_MAX
          ? sql`v.embedding <=> ${literal}::vector(${d})`
          : sql`v.embedding::halfvec(${d}) <=> ${literal}::halfvec(${d})`;
      const restricted = scope.collections !== '*' || options.filter !== undefined;
      const where = restricted ? documentWhere(postgres, scope, options.filter) : postgres.always;
      const join = restricted ? sql`JOIN documents d ON d.id = v.document_id JOIN collections col ON col.id = v.collection_id` : sql.empty;
      const k = Math.floor(options.k);
      // relaxed_order may return neighbours slightly out of order: the outer query sorts them exactly.
      const { text, params } = postgres.render(sql`SELECT chunk_id, document_id, 1 - distance AS score FROM (
          SELECT v.chunk_id, v.document_id, (${distance})::float8 AS distance FROM chunk_vectors v ${join}
          WHERE ${where} ORDER BY ${distance} LIMIT ${k}
        ) hits ORDER BY distance, chunk_id`);
      return this.transaction(async (client) => {
        if (this.iterativeScan) {
          // Filtered/scoped HNSW scans keep going until k rows pass the filter, instead of returning fewer.
          await client.query('SET LOCAL hnsw.iterative_scan = relaxed_order');
        }
        // At least 100 candidates and 2k, at most pgvector's 1000 — or more if the operator set a higher
        // hnsw.ef_search (ALTER DATABASE/ROLE … SET, or `options=-c hnsw.ef_search=…` in the URL).
        await client.query(
          "SELECT set_config('hnsw.ef_search', least(1000, greatest($1::int, current_setting('hnsw.ef_search', true)::int))::text, true)",
          [Math.max(100, 2 * k)],
        );
        const rows = (await client.query(text, params)).rows as { chunk_id: number; document_id: number; score: number }[];
        return rows.map((row) => ({ chunkId: row.chunk_id, documentId: row.document_id, score: row.score }));
      });
    });
  }

  collections(scope: Scope): Promise<{ name: string; documents: number }[]> {
    return this.run(() => queryRows<{ name: string; documents: number }>(this.pool, selectCollections(postgres, scope)));
  }

  stats(scope: Scope): Promise<StoreStats> {
    return this.run(async () =>
      toStats((await queryRows<StatsRow>(this.pool, selectStats(postgres, scope)))[0], await this.readIndexInfo()),
    );
  }

  exportIndex(): Promise<IndexExport> {
    return this.run(async () => {
      const settings = toSettings(await queryRows(this.pool, selectSettings));
      const totals = new Map(
        ((await this.pool.query('SELECT name, rows, tokens FROM fts_stats')).rows as { name: string; rows: number; tokens: number }[]).map(
          (row) => [row.name, row],
        ),
      );
      const total = (name: string) => ({ rows: Number(totals.get(name)?.rows ?? 0), tokens: Number(totals.get(name)?.tokens ?? 0) });
      return {
        identity: await this.identity(),
        embedder: await this.readIndexInfo(),
        settings,
        fullTextTotals: { chunks: total('chunks'), documents: total('documents') },
      };
    });
  }

  async *exportDocuments(): AsyncGenerator<ExportedDocument> {
    // Term order is not kept here (only frequencies), and BM25 needs none: each term repeated tf times.
    const repeat = (rows: { term: string; tf_title: number; tf_body: number }[], column: 'tf_title' | 'tf_body') =>
      rows.flatMap((row) => Array<string>(row[column]).fill(row.term)).join(' ');
    for (let after = 0; ; ) {
      const page = await this.run(() => queryRows<ExportDocumentRow>(this.pool, selectExportPage(after)));
      if (page.length === 0) return;
      for (const row of page) {
        after = row.id;
        const [chunks, chunkTerms, documentTerms] = await this.run(() =>
          Promise.all([
            this.pool.query(
              `SELECT c.id, c.ordinal, c.text, c.token_count, c.heading_path, c.page, c.page_end, c.char_start, c.char_end, v.embedding::text AS embedding
               FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.document_id = $1 ORDER BY c.ordinal, c.id`,
              [row.id],
            ),
            this.pool.query(
              'SELECT t.chunk_id, t.term, t.tf_title, t.tf_body FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id WHERE c.document_id = $1 ORDER BY t.term',
              [row.id],
            ),
            this.pool.query('SELECT term, tf_title, tf_body FROM document_terms WHERE document_id = $1 ORDER BY term', [row.id]),
          ]),
        );
        const termsOf = new Map<number, { term: string; tf_title: number; tf_body: number }[]>();
        for (const term of chunkTerms.rows as { chunk_id: number; term: string; tf_title: number; tf_body: number }[]) {
          (termsOf.get(term.chunk_id) ?? termsOf.set(term.chunk_id, []).get(term.chunk_id)!).push(term);
        }
        const rows = chunks.rows as (ExportChunkRow & { id: number; embedding: string | null })[];
        yield {
          document: toExportedDocument(row, {
            titleTerms: repeat(documentTerms.rows, 'tf_title'),
            descriptionTerms: repeat(documentTerms.rows, 'tf_body'),
          }),
          chunks: rows.map((chunk) =>
            toExportedChunk(chunk, {
              terms: repeat(termsOf.get(chunk.id) ?? [], 'tf_body'),
              titleTerms: repeat(termsOf.get(chunk.id) ?? [], 'tf_title'),
            }),
          ),
          vectors: rows.map((chunk) => {
            if (!chunk.embedding)
              throw new DossierError('store-failed', `index ${this.label}: chunk ${chunk.id} of ${row.source} has no vector`);
            return parseVector(chunk.embedding);
          }),
        };
      }
    }
  }

  async importIndex(exported: IndexExport): Promise<void> {
    await this.run(async () => this.assertWritable());
    if (exported.embedder) await this.assertEmbedder(exported.embedder);
    for (const [key, value] of Object.entries(exported.settings)) await this.assertSetting(key, value);
    // Inserting into HNSW searches the graph for every row; building it once after the load is many
    // times faster (pgvector's advice). The target is empty (copyIndex checks), so nothing loses its index
    // for long; finishImport builds it, and until then vector search is exact.
    await this.run(async () => void (await this.pool.query('DROP INDEX IF EXISTS chunk_vectors_hnsw')));
  }

  importDocument(exported: ExportedDocument): Promise<{ id: number }> {
    return this.run(async () => {
      const { createdAt, updatedAt, ...document } = exported.document;
      await this.checkWrite(document, exported.chunks, exported.vectors);
      return {
        id: (
          await this.transaction((client) =>
            this.writeDocument(client, document, exported.chunks, exported.vectors, { createdAt, updatedAt }),
          )
        ).id,
      };
    });
  }

  /**
   * The source's full-text totals replace ours, so BM25 (N, average length) scores as it did there even
   * when the source had deletions. Only right for a target that holds exactly the imported documents.
   */
  finishImport(exported: IndexExport): Promise<void> {
    return this.run(async () => {
      this.assertWritable();
      const totals = exported.fullTextTotals;
      if (totals) {
        await this.transaction(async (client) => {
          for (const [name, total] of [
            ['chunks', totals.chunks],
            ['documents', totals.documents],
          ] as const) {
            await client.query('UPDATE fts_stats SET rows = $2, tokens = $3 WHERE name = $1', [name, total.rows, total.tokens]);
          }
        });
      }
      const info = await this.readIndexInfo();
      if (info) await this.pool.query(vectorIndexSql(info.dimensions));
      await this.pool.query('ANALYZE'); // fresh statistics, so the first queries on the copy are planned well
    });
  }

  /** Rows in the term and vector tables, for tests that prove deletes leave nothing behind. */
  rowCounts(): Promise<{
    documents: number;
    chunks: number;
    vectors: number;
    chunkTerms: number;
    documentTerms: number;
    ftsRows: number;
    ftsTokens: number;
  }> {
    return this.run(async () => {
      const row = (
        await this.pool.query(`SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks,
          (SELECT count(*) FROM chunk_vectors) AS vectors, (SELECT count(*) FROM chunk_terms) AS chunk_terms,
          (SELECT count(*) FROM document_terms) AS document_terms, rows AS fts_rows, tokens AS fts_tokens FROM fts_stats WHERE name = 'chunks'`)
      ).rows[0];
      return {
        documents: row.documents,
        chunks: row.chunks,
        vectors: row.vectors,
        chunkTerms: row.chunk_terms,
        documentTerms: row.document_terms,
        ftsRows: row.fts_rows,
        ftsTokens: row.fts_tokens,
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
