import { resolve } from 'node:path';
import { configFromEnv } from './config/index.ts';
import { resolveEmbedder } from './embed/resolve.ts';
import type { Embedder } from './embed/embedder.ts';
import { HashedEmbedder } from './embed/hashed/hashed-embedder.ts';
import { IngestPipeline, type DocumentRecord, type IngestOptions, type IngestReport } from './ingest/pipeline.ts';
import type { ChunkOptions } from './ingest/chunk.ts';
import type { Describer } from './ingest/describe.ts';
import { Retriever, type SearchHit, type SearchRequest } from './retrieve/search.ts';
import { SqliteStore } from './store/sqlite/sqlite-store.ts';
import type { Scope, Store, StoreStats } from './store/types.ts';
import { Tokenizer } from './text/tokenize.ts';

export interface DossierOptions {
  /** SQLite file (default ./dossier.db or $DOSSIER_DB). */
  db?: string;
  /** An Embedder, or a spec string: "offline" (default, or $DOSSIER_EMBEDDER), "openai:<model>", … */
  embedder?: Embedder | string;
  /** Snowball stemmer language for full text and the offline embedder (default "english"). */
  language?: string;
  /** BM25 weight of title and headings relative to body text. */
  titleWeight?: number;
  store?: Store;
}

/** The engine: one store, one embedder, one tokenizer shared by ingestion and search. */
export class Dossier {
  readonly pipeline: IngestPipeline;
  readonly retriever: Retriever;

  constructor(
    readonly store: Store,
    readonly embedder: Embedder,
    readonly tokenizer: Tokenizer,
  ) {
    this.pipeline = new IngestPipeline(store, embedder, tokenizer);
    this.retriever = new Retriever(store, embedder, tokenizer);
    if (embedder instanceof HashedEmbedder) embedder.useFrequencies((terms) => store.documentFrequencies(terms));
  }

  ingest(paths: readonly string[], options: IngestOptions = {}): Promise<IngestReport> {
    // `dossier ingest .` must not swallow its own index.
    const db = this.store instanceof SqliteStore && this.store.path !== ':memory:' ? resolve(this.store.path) : undefined;
    const own = db ? ['', '-wal', '-shm', '-journal'].map((suffix) => db + suffix) : [];
    return this.pipeline.ingestPaths(paths, { ...options, exclude: [...(options.exclude ?? []), ...own] });
  }

  ingestRecord(record: DocumentRecord, options?: { collection?: string; chunking?: ChunkOptions; describer?: Describer }) {
    return this.pipeline.ingestRecord(record, options);
  }

  search(request: Omit<SearchRequest, 'scope'> & { scope?: Scope }): Promise<SearchHit[]> {
    return this.retriever.search({ ...request, scope: request.scope ?? { collections: '*' } });
  }

  stats(scope: Scope = { collections: '*' }): StoreStats {
    return this.store.stats(scope);
  }

  deleteDocument(id: number, scope: Scope = { collections: '*' }): boolean {
    return this.store.deleteDocument(scope, id);
  }

  close(): void {
    this.store.close();
  }
}

export async function createDossier(options: DossierOptions = {}): Promise<Dossier> {
  const config = configFromEnv();
  const language = options.language ?? config.language;
  const tokenizer = new Tokenizer({ language });
  const store = options.store ?? new SqliteStore(options.db ?? config.db, { titleWeight: options.titleWeight });
  try {
    // Full-text terms are stemmed at ingest: querying with another language's stemmer would silently miss.
    store.assertSetting('tokenizer', language);
    const spec = options.embedder ?? config.embedder;
    const embedder =
      typeof spec !== 'string' ? spec : spec === 'offline' ? new HashedEmbedder({ language }) : await resolveEmbedder(spec);
    return new Dossier(store, embedder, tokenizer);
  } catch (error) {
    store.close();
    throw error;
  }
}
