import { configFromEnv } from './config/index.ts';
import type { Embedder } from './embed/embedder.ts';
import { DossierError } from './errors/index.ts';
import type { ChunkOptions } from './ingest/chunk.ts';
import type { Describer } from './ingest/describe.ts';
import {
  KnowledgeGraph,
  type GraphBuildOptions,
  type GraphBuildReport,
  type GraphExtractor,
  type GraphEntityView,
  type GraphRelationshipView,
} from './graph/index.ts';
import { IngestPipeline, type DocumentRecord, type IngestOptions, type IngestReport } from './ingest/pipeline.ts';
import { resolveEmbedder } from './providers/index.ts';
import type { Reranker } from './retrieve/reranker.ts';
import { Retriever, type HybridWeights, type SearchHit, type SearchRequest } from './retrieve/search.ts';
import type { Filter, GraphInfo, Scope, ScopeOptions, Store, StoreStats, StoredChunk, StoredDocument } from './store/types.ts';
import { Tokenizer } from './text/tokenize.ts';
import type { ApproveOptions, ApproveResult, AskOptions, AskResult, ReplayResult } from './ask/ask.ts';
import type { DocumentSummary, GraphCommunityView } from './protocol/json-shapes.ts';
export type { DocumentSummary } from './protocol/json-shapes.ts';

export interface DossierOptions {
  /** SQLite file (default ./dossier.db or $DOSSIER_DB). */
  db?: string;
  /** Open for reading only: nothing is written to the index (read commands do this). */
  readonly?: boolean;
  /** An Embedder, or a spec string: "offline" (default, or $DOSSIER_EMBEDDER), "openai:<model>", … */
  embedder?: Embedder | string;
  /**
   * Reorders the fused candidates of every search (the CLI's, the HTTP API's, the agent's) with a
   * reranking model: a Reranker, or a spec string "cohere:<model>" (COHERE_API_KEY),
   * "cohere-compatible:<model>" (DOSSIER_RERANKER_BASE_URL), or "none". Default $DOSSIER_RERANKER,
   * else none: offline there is no reranker, and the fused order stands.
   */
  reranker?: Reranker | string;
  /** Snowball stemmer language for full text, the offline embedder and the offline model (default "english"). */
  language?: string;
  /** BM25 weight of title and headings relative to body text. */
  titleWeight?: number;
  /** Use this store instead of opening `db`. */
  store?: Store;
  /** Hybrid search's weights for every search (e.g. `{ graph: 0.5 }`), over the tuned defaults. */
  hybrid?: Partial<HybridWeights>;
  /** Where settings and provider keys come from (default process.env). */
  env?: Record<string, string | undefined>;
}

export type { ScopeOptions } from './store/types.ts';

export interface DossierIngestOptions extends Omit<IngestOptions, 'describer' | 'exclude'> {
  /** With a real model ("provider:model"), the model writes document descriptions; offline otherwise. */
  model?: string;
  describer?: Describer;
  /** Recognise text in images and scanned PDF pages (default true; `dossier ingest --no-ocr` sets false). */
  ocr?: boolean;
}

/** Collection names: what a URL path, a file name and a shell accept without quoting. */
const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function assertCollectionName(name: string): void {
  if (!COLLECTION_NAME.test(name)) {
    throw new DossierError(
      'bad-input',
      `collection name "${name}" is not allowed: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
}

/**
 * The service layer every surface uses (the CLI now; HTTP and MCP later): one store, one embedder
 * and one tokenizer shared by ingestion, search and the agent. Results have the documented shapes.
 */
export class Dossier {
  readonly pipeline: IngestPipeline;
  readonly retriever: Retriever;
  /** The knowledge graph of the store's collections (`graph` search, hybrid fusion, the graph views). */
  readonly knowledgeGraph: KnowledgeGraph;
  readonly env: Record<string, string | undefined>;

  constructor(
    readonly store: Store,
    readonly embedder: Embedder,
    readonly tokenizer: Tokenizer,
    options: { env?: Record<string, string | undefined>; reranker?: Reranker; hybrid?: Partial<HybridWeights> } = {},
  ) {
    this.env = options.env ?? process.env;
    this.pipeline = new IngestPipeline(store, embedder, tokenizer);
    this.knowledgeGraph = new KnowledgeGraph(store);
    this.retriever = new Retriever(store, embedder, tokenizer, {
      reranker: options.reranker,
      graph: this.knowledgeGraph,
      hybrid: options.hybrid,
    });
    embedder.useFrequencies?.((terms) => store.documentFrequencies(terms));
  }

  get language(): string {
    return this.tokenizer.language;
  }

  /** Files, folders and globs into one collection; a bad file is a line in `failed`, never an abort. */
  async ingest(paths: readonly string[], options: DossierIngestOptions = {}): Promise<IngestReport> {
    const collection = options.collection ?? 'default';
    assertCollectionName(collection);
    const describer = options.describer ?? (options.model ? await this.describerFor(options.model) : undefined);
    // `dossier ingest .` must not swallow its own index.
    const report = await this.pipeline.ingestPaths(paths, { ...options, collection, describer, exclude: this.store.files ?? [] });
    const graph = await this.updateGraph(collection, options.model);
    return graph ? { ...report, graph } : report;
  }

  async ingestRecord(record: DocumentRecord, options: { collection?: string; chunking?: ChunkOptions; describer?: Describer } = {}) {
    const collection = options.collection ?? 'default';
    assertCollectionName(collection);
    const result = await this.pipeline.ingestRecord(record, options);
    if (result.status !== 'unchanged' && !this.store.readonly)
      await this.knowledgeGraph.update(collection, { documentIds: [result.id], communities: false });
    return result;
  }

  /** The extractor and community summarizer a model spec names; none (offline: extractive) for none or "offline". */
  private async graphModelFor(
    spec: string | undefined,
  ): Promise<{ extractor: GraphExtractor; summarizer: NonNullable<GraphBuildOptions['summarizer']> } | undefined> {
    if (!spec || spec === 'offline') return undefined;
    const { resolveModel } = await import('./providers/index.ts');
    const resolved = await resolveModel(spec, { env: this.env, language: this.language });
    // The offline language model writes no extraction JSON: the offline extractor reads the text itself.
    if (resolved.id === 'offline') return undefined;
    const { createModelGraphExtractor } = await import('./graph/index.ts');
    return { extractor: createModelGraphExtractor({ model: resolved.model }), summarizer: { id: resolved.id, model: resolved.model } };
  }

  /** A collection with a knowledge graph takes in its new and changed documents; undefined when it has none. */
  private async updateGraph(collection: string, model?: string): Promise<{ extracted: number; pending: number } | undefined> {
    if (this.store.readonly) return undefined;
    return this.knowledgeGraph.update(collection, { extractor: (await this.graphModelFor(model))?.extractor });
  }

  /** The knowledge graph: build it, and read its entities, relationships and communities (DESIGN §4, `dossier graph`). */
  readonly graph = {
    build: async (
      options: ScopeOptions & {
        rebuild?: boolean;
        /** "offline" (default) or a real model ("provider:model") that extracts the entities and relationships. */
        model?: string;
        onProgress?: (done: number, total: number) => void;
        signal?: AbortSignal;
      } = {},
    ): Promise<GraphBuildReport> => {
      const { collections, scope, model, ...rest } = options;
      const resolved = await this.scope({ collections, scope });
      const byModel = await this.graphModelFor(model);
      return this.knowledgeGraph.build({ ...rest, scope: resolved, extractor: byModel?.extractor, summarizer: byModel?.summarizer });
    },
    communities: async (options: ScopeOptions & { level?: number; limit?: number } = {}): Promise<GraphCommunityView[]> => {
      const { collections, scope, ...rest } = options;
      return this.knowledgeGraph.communities(await this.scope({ collections, scope }), rest);
    },
    status: async (options: ScopeOptions = {}): Promise<GraphInfo[]> => this.knowledgeGraph.graphs(await this.scope(options)),
    entities: async (options: ScopeOptions & { query?: string; limit?: number; offset?: number } = {}): Promise<GraphEntityView[]> => {
      const { collections, scope, ...rest } = options;
      return this.knowledgeGraph.entities(await this.scope({ collections, scope }), rest);
    },
    entity: async (
      idOrName: string,
      options: ScopeOptions & { limit?: number } = {},
    ): Promise<{ entity: GraphEntityView; relationships: GraphRelationshipView[] }> => {
      const { collections, scope, ...rest } = options;
      return this.knowledgeGraph.entity(await this.scope({ collections, scope }), idOrName, rest);
    },
  };

  private async describerFor(spec: string): Promise<Describer | undefined> {
    const { resolveModel } = await import('./providers/index.ts');
    const model = await resolveModel(spec, { env: this.env, language: this.language });
    if (model.id === 'offline') return undefined;
    const [{ callModel }, { modelDescriber }] = await Promise.all([import('./providers/call-model.ts'), import('./ingest/describe.ts')]);
    return modelDescriber(
      async (prompt) =>
        (await callModel({ model: model.model, messages: [{ role: 'user', content: prompt }], maxRetries: 2, timeoutMs: 60_000 })).text,
      { tokenizer: this.tokenizer },
    );
  }

  /** The scope a request may read: the caller's, or the named collections (which must exist). */
  async scope(options: ScopeOptions = {}): Promise<Scope> {
    if (options.scope) return options.scope;
    const names = options.collections?.filter(Boolean) ?? [];
    if (names.length === 0) return { collections: '*' };
    const existing = (await this.store.collections({ collections: '*' })).map((collection) => collection.name);
    const unknown = names.filter((name) => !existing.includes(name));
    if (unknown.length > 0) {
      const list = existing.length ? existing.join(', ') : 'none yet';
      throw new DossierError(
        'not-found',
        `unknown collection${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; existing: ${list}`,
      );
    }
    return { collections: [...new Set(names)] };
  }

  async search(request: Omit<SearchRequest, 'scope'> & ScopeOptions): Promise<SearchHit[]> {
    const { collections, scope, ...rest } = request;
    return this.retriever.search({ ...rest, scope: await this.scope({ collections, scope }) });
  }

  async listDocuments(options: ScopeOptions & { filter?: Filter; limit?: number; offset?: number } = {}): Promise<DocumentSummary[]> {
    const documents = await this.store.listDocuments(await this.scope(options), {
      filter: options.filter,
      limit: options.limit,
      offset: options.offset,
    });
    return documents.map((document) => ({
      id: document.id,
      collection: document.collection,
      title: document.title,
      source: document.source,
      mediaType: document.mediaType,
      chunks: document.chunkCount,
      updatedAt: document.updatedAt,
      metadata: document.metadata,
    }));
  }

  async getDocument(id: number, options: ScopeOptions = {}): Promise<StoredDocument> {
    return this.documentIn(await this.scope(options), id);
  }

  /** Every chunk of a document, in order. */
  async getChunks(documentId: number, options: ScopeOptions = {}): Promise<StoredChunk[]> {
    const scope = await this.scope(options);
    const document = await this.documentIn(scope, documentId);
    return this.store.getChunkRange(scope, document.id, 0, Number.MAX_SAFE_INTEGER);
  }

  private async documentIn(scope: Scope, id: number): Promise<StoredDocument> {
    const document = await this.store.getDocument(scope, id);
    if (!document) throw new DossierError('not-found', `no document ${id}`);
    return document;
  }

  /** Merges a patch into a document's metadata (null removes a key); not-found when out of scope. */
  async updateMetadata(id: number, patch: Record<string, unknown>, options: ScopeOptions = {}): Promise<StoredDocument> {
    const document = await this.store.updateMetadata(await this.scope(options), id, patch);
    if (!document) throw new DossierError('not-found', `no document ${id}`);
    return document;
  }

  /** False when there was no such document (in scope). */
  async deleteDocument(id: number, options: ScopeOptions = {}): Promise<boolean> {
    const scope = await this.scope(options);
    const document = await this.store.getDocument(scope, id);
    const deleted = await this.store.deleteDocument(scope, id);
    // Its entities went with it: the collection's communities follow.
    if (deleted && document) await this.knowledgeGraph.followChange(document.collection);
    return deleted;
  }

  async stats(options: ScopeOptions = {}): Promise<StoreStats> {
    return this.store.stats(await this.scope(options));
  }

  async collections(options: ScopeOptions = {}): Promise<{ name: string; documents: number }[]> {
    return this.store.collections(await this.scope(options));
  }

  /** A question answered by the agent, in the documented `ask --json` shape (DESIGN §4). */
  async ask(options: AskOptions): Promise<AskResult> {
    const { ask } = await import('./ask/ask.ts');
    return ask(this, options);
  }

  /** Reruns a trace from its recorded model outputs; refuses another index or a truncated trace. */
  async replay(trace: string, options: Pick<AskOptions, 'onEvent'> = {}): Promise<ReplayResult> {
    const { replay } = await import('./ask/ask.ts');
    return replay(this, trace, options);
  }

  /** Decides a run paused for approval (finish reason `needs-approval`): releases its answer or ends it. */
  async approve(runId: string, options: ApproveOptions): Promise<ApproveResult> {
    const { approve } = await import('./ask/ask.ts');
    return approve(this, runId, options);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

export async function createDossier(options: DossierOptions = {}): Promise<Dossier> {
  const env = options.env ?? process.env;
  const config = configFromEnv(env);
  const language = options.language ?? config.language;
  const tokenizer = new Tokenizer({ language });
  const store =
    options.store ?? (await openStore(options.db ?? config.db, { readonly: options.readonly, titleWeight: options.titleWeight }));
  try {
    // Full-text terms are stemmed at ingest: querying with another language's stemmer would silently miss.
    await store.assertSetting('tokenizer', language);
    const spec = options.embedder ?? config.embedder;
    const embedder = typeof spec !== 'string' ? spec : await resolveEmbedder(spec, { env, language });
    return new Dossier(store, embedder, tokenizer, {
      env,
      reranker: await rerankerFor(options.reranker ?? config.reranker, env),
      hybrid: options.hybrid,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A reranker object as it is, a spec resolved (loading the provider only then), none when unset. */
async function rerankerFor(spec: Reranker | string | undefined, env: Record<string, string | undefined>): Promise<Reranker | undefined> {
  if (spec === undefined) return undefined;
  if (typeof spec !== 'string') return spec;
  const { resolveReranker } = await import('./providers/index.ts');
  return resolveReranker(spec, { env });
}

/** The store for a `--db` value. */
async function openStore(db: string, options: { readonly?: boolean; titleWeight?: number }): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(db)) {
    // Loaded only when asked for, so SQLite users never load the pg driver.
    const { PgStore } = await import('./store/postgres/pg-store.ts');
    return PgStore.open(db, options);
  }
  const { SqliteStore } = await import('./store/sqlite/sqlite-store.ts');
  return new SqliteStore(db, options);
}
