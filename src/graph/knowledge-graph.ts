import { createHash } from 'node:crypto';
import { DossierError } from '../errors/index.ts';
import type { GraphReader } from '../retrieve/knowledge.ts';
import type { LanguageModel } from 'ai';
import type { GraphBuildReport } from '../protocol/http.ts';
import type { GraphCommunityView, GraphEntityView, GraphRelationshipView } from '../protocol/json-shapes.ts';
import { detectCommunities } from './communities.ts';
import { summarizeCommunitiesWithModel } from './community-summary.ts';
import type { GraphInfo, Scope, ScoredChunkId, Store, StoredChunk } from '../store/types.ts';
import { EntityGraph, type SeedEntity } from './entity-graph.ts';
import type { PprOptions } from './ppr.ts';
import { createOfflineGraphExtractor } from './offline-extractor.ts';
import { entityKey, resolveEntities, type ResolvedEntity, type ResolvedGraph } from './resolve.ts';
import type { ExtractedEntity, ExtractedRelationship, GraphChunk, GraphExtraction, GraphExtractor, Mention } from './types.ts';

export interface GraphBuildOptions {
  /** Collections to build (every collection in scope by default). */
  scope: Scope;
  /** Extract every document again, not only new and changed ones. */
  rebuild?: boolean;
  extractor?: GraphExtractor;
  /** Writes the community summaries (extractive without one). */
  summarizer?: { id: string; model: Exclude<LanguageModel, string> };
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/** What one collection's graph holds in memory: its resolved entities and the entity–chunk graph PPR walks. */
interface LoadedGraph {
  collection: string;
  version: number;
  resolved: ResolvedGraph;
  search: EntityGraph;
  entityIndex: Map<string, number>;
  /** Entity index by id (`entityId`), made once per load: a lookup never hashes every entity. */
  idIndex: Map<string, number>;
  documentOfChunk: Map<number, number>;
}

/** Personalized PageRank damping, tuned on MuSiQue train-100 (docs/benchmarks.md, "Knowledge graph"). */
const DAMPING = 0.5;
/** The push threshold: the latency at 100k chunks against recall on MuSiQue train-100 (docs/benchmarks.md). */
const EPSILON = 1e-5;
/** Documents written per transaction while a graph is built. */
const WRITE_BATCH = 200;
/** Chunks read per query (SQLite takes at most 32,766 parameters). */
const READ_BATCH = 5000;

export function entityId(collection: string, key: string): string {
  return `e${createHash('sha1').update(`${collection}\u0000${key}`).digest('hex').slice(0, 12)}`;
}

/**
 * The knowledge graph of a store: builds it (extraction per document, then resolution), keeps each
 * collection's resolved graph in memory until its version moves, and answers graph searches and
 * the entity views. One graph per collection: entities of two collections never merge, and every
 * read is scoped.
 */
export class KnowledgeGraph implements GraphReader {
  private readonly loaded = new Map<string, LoadedGraph>();

  private readonly ppr: PprOptions;

  /** `ppr`: Personalized PageRank's damping and push threshold (tuned defaults). */
  constructor(
    private readonly store: Store,
    options: { ppr?: PprOptions } = {},
  ) {
    this.ppr = { damping: DAMPING, epsilon: EPSILON, ...options.ppr };
  }

  /** The graphs in scope (none when the store cannot hold one). */
  async graphs(scope: Scope): Promise<GraphInfo[]> {
    return this.store.graphs ? this.store.graphs(scope) : [];
  }

  /**
   * Extracts the documents of each collection in scope that have no extraction yet (all of them with
   * `rebuild` or another extractor), then resolves the graph. Idempotent: building again changes
   * nothing but the build time. A chunk the extractor could not read is reported, never thrown.
   */
  async build(options: GraphBuildOptions): Promise<GraphBuildReport> {
    const started = performance.now();
    const store = this.writableGraphStore();
    const extractor = options.extractor ?? createOfflineGraphExtractor();
    const collections = (await this.store.collections(options.scope)).map((collection) => collection.name);
    const failures: GraphBuildReport['failures'] = [];
    const work: { collection: string; documentId: number }[] = [];
    for (const collection of collections) {
      const [known] = await store.graphs({ collections: [collection] });
      if (options.rebuild && known?.extractor === extractor.id) await store.dropGraph(collection);
      await store.markGraph(collection, extractor.id);
      for (const documentId of await store.unextractedDocuments(collection)) work.push({ collection, documentId });
    }
    options.onProgress?.(0, work.length);
    let done = 0;
    for (const collection of collections) {
      const ids = work.filter((item) => item.collection === collection).map((item) => item.documentId);
      await this.extractDocuments(collection, ids, extractor, options.signal, (documentId, extraction) => {
        failures.push(...extraction.failures.map((failure) => ({ documentId, ...failure })));
        options.onProgress?.(++done, work.length);
      });
    }
    let entities = 0;
    let relationships = 0;
    let communities = 0;
    for (const collection of collections) {
      const graph = await this.load(collection);
      entities += graph?.resolved.entities.length ?? 0;
      relationships += graph?.resolved.relationships.length ?? 0;
      const detected = await this.refreshCommunities(collection, { summarizer: options.summarizer, signal: options.signal });
      communities += detected.communities;
      failures.push(
        ...detected.failures.map((failure) => ({
          documentId: 0,
          chunkIds: [],
          message: `community ${failure.communityId}: ${failure.message}`,
        })),
      );
    }
    return {
      collections,
      extractor: extractor.id,
      documents: work.length,
      entities,
      relationships,
      communities,
      failures,
      seconds: (performance.now() - started) / 1000,
    };
  }

  /**
   * Keeps a collection's graph in step after ingest: extracts its new and changed documents (only
   * `documentIds` when the caller knows them: one ingested record) with the offline extractor when
   * that built it, or with `extractor` when its id is the graph's. A graph built by a model this
   * process does not have is left for `dossier graph build`. Extractive communities are detected
   * again unless `communities` is false (a record at a time: they stay marked stale until the next
   * ingest of files, delete or build, rather than being detected again for every record). Undefined
   * when the collection has no graph.
   */
  async update(
    collection: string,
    options: { extractor?: GraphExtractor; documentIds?: readonly number[]; communities?: boolean } = {},
  ): Promise<{ extracted: number; pending: number } | undefined> {
    const store = this.store;
    if (!store.graphs || !store.unextractedDocuments) return undefined;
    const [graph] = await store.graphs({ collections: [collection] });
    if (!graph) return undefined;
    const pending = options.documentIds ?? (await store.unextractedDocuments(collection));
    const offline = createOfflineGraphExtractor();
    const { extractor } = options;
    const usable = extractor?.id === graph.extractor ? extractor : offline.id === graph.extractor ? offline : undefined;
    if (!usable) return { extracted: 0, pending: pending.length };
    await this.extractDocuments(collection, pending, usable);
    if (options.communities !== false) await this.followChange(collection);
    return { extracted: pending.length, pending: 0 };
  }

  /**
   * After a collection's documents changed: extractive communities are detected again (it is cheap),
   * so none names an entity that is gone; a model's summaries are kept, marked stale, for the next build.
   */
  async followChange(collection: string): Promise<void> {
    const [graph] = await this.graphs({ collections: [collection] });
    if (!graph || !this.store.communities || graph.communitiesVersion === graph.version) return;
    const known = await this.store.communities({ collections: [collection] });
    if (known.some((community) => community.summarizedBy !== 'extractive')) return;
    await this.refreshCommunities(collection, {});
  }

  /** Detects a collection's communities on its current graph and stores them, summarised extractively or by the summarizer. */
  async refreshCommunities(
    collection: string,
    options: { summarizer?: GraphBuildOptions['summarizer']; signal?: AbortSignal },
  ): Promise<{ communities: number; failures: { communityId: string; message: string }[] }> {
    const graph = await this.load(collection);
    if (!graph || !this.store.replaceCommunities) return { communities: 0, failures: [] };
    const chunks = new Map<number, GraphChunk>();
    const wanted = [...new Set(graph.resolved.entities.flatMap((entity) => entity.mentions.map((m) => m.chunkId)))];
    for (let at = 0; at < wanted.length; at += READ_BATCH)
      for (const chunk of await this.store.getChunks({ collections: [collection] }, wanted.slice(at, at + READ_BATCH)))
        chunks.set(chunk.id, toGraphChunk(chunk));
    let communities = detectCommunities(graph.resolved, chunks);
    let failures: { communityId: string; message: string }[] = [];
    if (options.summarizer) {
      ({ communities, failures } = await summarizeCommunitiesWithModel(communities, {
        model: options.summarizer.model,
        chunks,
        signal: options.signal,
      }));
    }
    const failed = new Set(failures.map((failure) => failure.communityId));
    await this.store.replaceCommunities(
      collection,
      communities.map((community) => ({
        id: community.id,
        level: community.level,
        ...(community.parentId ? { parentId: community.parentId } : {}),
        title: community.title,
        summary: community.summary,
        entityKeys: community.entityKeys,
        chunkIds: community.chunkIds,
        size: community.size,
        summarizedBy: options.summarizer && !failed.has(community.id) ? options.summarizer.id : 'extractive',
        graphVersion: graph.version,
      })),
    );
    return { communities: communities.length, failures };
  }

  /** Communities in scope, coarsest level first; `level` keeps one level. */
  async communities(scope: Scope, options: { level?: number; limit?: number } = {}): Promise<GraphCommunityView[]> {
    if (!this.store.communities) return [];
    const versions = new Map((await this.graphs(scope)).map((graph) => [graph.collection, graph.version]));
    return (await this.store.communities(scope))
      .filter((community) => options.level === undefined || community.level === options.level)
      .slice(0, options.limit ?? Number.MAX_SAFE_INTEGER)
      .map((community) => ({
        id: community.id,
        collection: community.collection,
        level: community.level,
        ...(community.parentId ? { parentId: community.parentId } : {}),
        title: community.title,
        summary: community.summary,
        entityIds: community.entityKeys.map((key) => entityId(community.collection, key)),
        chunkIds: community.chunkIds,
        size: community.size,
        summarizedBy: community.summarizedBy,
        stale: community.graphVersion !== versions.get(community.collection),
      }));
  }

  /**
   * Extracts documents one by one (a model sees each document's description with its chunks) and
   * writes them in batches, one transaction each: a build is a few commits, not one per document.
   */
  private async extractDocuments(
    collection: string,
    documentIds: readonly number[],
    extractor: GraphExtractor,
    signal?: AbortSignal,
    onDocument?: (documentId: number, extraction: GraphExtraction) => void,
  ): Promise<void> {
    const scope = { collections: [collection] };
    const store = this.writableGraphStore();
    for (let at = 0; at < documentIds.length; at += WRITE_BATCH) {
      const records = [];
      for (const documentId of documentIds.slice(at, at + WRITE_BATCH)) {
        signal?.throwIfAborted();
        const document = await this.store.getDocument(scope, documentId);
        const chunks = (await this.store.getChunkRange(scope, documentId, 0, Number.MAX_SAFE_INTEGER)).map(toGraphChunk);
        const extraction = await extractor.extract(chunks, { documentDescription: document?.description || document?.title, signal });
        records.push({ documentId, extractor: extractor.id, ...extraction });
        onDocument?.(documentId, extraction);
      }
      signal?.throwIfAborted();
      await store.putGraphExtractions(records);
    }
  }

  private writableGraphStore(): Required<
    Pick<Store, 'graphs' | 'markGraph' | 'dropGraph' | 'putGraphExtractions' | 'unextractedDocuments'>
  > {
    const { graphs, markGraph, dropGraph, putGraphExtractions, unextractedDocuments } = this.store;
    if (!graphs || !markGraph || !dropGraph || !putGraphExtractions || !unextractedDocuments)
      throw new DossierError('config', 'this store cannot hold a knowledge graph');
    return {
      graphs: graphs.bind(this.store),
      markGraph: markGraph.bind(this.store),
      dropGraph: dropGraph.bind(this.store),
      putGraphExtractions: putGraphExtractions.bind(this.store),
      unextractedDocuments: unextractedDocuments.bind(this.store),
    };
  }

  /** The collection's resolved graph, read again only when its version moved; undefined when it has none. */
  private async load(collection: string, known?: GraphInfo): Promise<LoadedGraph | undefined> {
    const info = known ?? (await this.graphs({ collections: [collection] }))[0];
    if (!info || !this.store.graphExtractions) {
      this.loaded.delete(collection);
      return undefined;
    }
    const cached = this.loaded.get(collection);
    if (cached?.version === info.version) return cached;
    const entities: ExtractedEntity[] = [];
    const relationships: ExtractedRelationship[] = [];
    const documentOfChunk = new Map<number, number>();
    for (const record of await this.store.graphExtractions({ collections: [collection] })) {
      for (const entity of record.entities as ExtractedEntity[]) {
        entities.push(entity);
        for (const mention of entity.mentions) documentOfChunk.set(mention.chunkId, record.documentId);
      }
      relationships.push(...(record.relationships as ExtractedRelationship[]));
    }
    const resolved = resolveEntities(entities, relationships);
    const graph: LoadedGraph = {
      collection,
      version: info.version,
      resolved,
      search: new EntityGraph(resolved),
      entityIndex: new Map(resolved.entities.map((entity, i) => [entity.key, i])),
      idIndex: new Map(resolved.entities.map((entity, i) => [entityId(collection, entity.key), i])),
      documentOfChunk,
    };
    this.loaded.set(collection, graph);
    return graph;
  }

  private async loadAll(scope: Scope): Promise<LoadedGraph[]> {
    const graphs: LoadedGraph[] = [];
    for (const info of await this.graphs(scope)) {
      const graph = await this.load(info.collection, info);
      if (graph) graphs.push(graph);
    }
    return graphs;
  }

  /** GraphSearcher: chunks by Personalized PageRank from the query's entities, over every graph in scope. */
  async searchGraph(query: string, scope: Scope, k: number): Promise<ScoredChunkId[] | undefined> {
    return (await this.searchWithSeeds(query, scope, k))?.hits;
  }

  /** The graph search with the entities the query was seeded from. */
  async searchWithSeeds(query: string, scope: Scope, k: number): Promise<{ hits: ScoredChunkId[]; seeds: GraphEntityView[] } | undefined> {
    const graphs = await this.loadAll(scope);
    if (graphs.length === 0) return undefined;
    const hits: ScoredChunkId[] = [];
    const seeds: GraphEntityView[] = [];
    for (const graph of graphs) {
      const found = graph.search.search(query, k, this.ppr);
      for (const hit of found.hits)
        hits.push({ chunkId: hit.chunkId, documentId: graph.documentOfChunk.get(hit.chunkId) ?? 0, score: hit.score });
      seeds.push(...found.seeds.map((seed: SeedEntity) => this.view(graph, graph.resolved.entities[graph.entityIndex.get(seed.key)!])));
    }
    hits.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
    return { hits: hits.slice(0, k), seeds };
  }

  /** Entities in scope, most mentioned first; with `query`, those whose name or an alias holds its words. */
  async entities(scope: Scope, options: { query?: string; limit?: number; offset?: number } = {}): Promise<GraphEntityView[]> {
    const wanted = options.query ? entityKey(options.query) : '';
    if (options.query !== undefined && !wanted) throw new DossierError('bad-input', 'the entity query has no letters or digits');
    const matches: { graph: LoadedGraph; entity: ResolvedEntity; chunks: number }[] = [];
    for (const graph of await this.loadAll(scope))
      for (const entity of graph.resolved.entities) {
        if (wanted && !entity.variants.some((variant) => containsWords(entityKey(variant), wanted))) continue;
        matches.push({ graph, entity, chunks: new Set(entity.mentions.map((m) => m.chunkId)).size });
      }
    // An exact name first, then the most mentioned.
    matches.sort(
      (a, b) =>
        Number(b.entity.key === wanted) - Number(a.entity.key === wanted) ||
        b.chunks - a.chunks ||
        b.entity.mentions.length - a.entity.mentions.length ||
        (a.entity.key < b.entity.key ? -1 : 1),
    );
    const page = matches.slice(options.offset ?? 0, (options.offset ?? 0) + (options.limit ?? 50));
    return this.described(
      scope,
      page.map(({ graph, entity }) => this.view(graph, entity)),
    );
  }

  /** One entity by id or name, with its relationships (strongest first) and the chunks that state them. */
  async entity(
    scope: Scope,
    idOrName: string,
    options: { limit?: number } = {},
  ): Promise<{ entity: GraphEntityView; relationships: GraphRelationshipView[] }> {
    const graphs = await this.loadAll(scope);
    if (graphs.length === 0) throw noGraph();
    const key = entityKey(idOrName);
    let found: { graph: LoadedGraph; entity: ResolvedEntity } | undefined;
    for (const graph of graphs) {
      const index = graph.idIndex.get(idOrName) ?? graph.entityIndex.get(key);
      const entity = index === undefined ? undefined : graph.resolved.entities[index];
      if (entity && (!found || entity.mentions.length > found.entity.mentions.length)) found = { graph, entity };
    }
    if (!found)
      throw new DossierError(
        'not-found',
        `no entity "${idOrName}" in the knowledge graph; list them with "dossier graph entities --query …"`,
      );
    const { graph, entity } = found;
    const name = (k: string) => graph.resolved.entities[graph.entityIndex.get(k)!]?.name ?? k;
    const relationships = graph.resolved.relationships
      .filter((r) => r.source === entity.key || r.target === entity.key)
      .sort((a, b) => b.weight - a.weight || (a.source + a.target < b.source + b.target ? -1 : 1))
      .slice(0, options.limit ?? 50)
      .map((r) => ({
        subject: name(r.source),
        subjectId: entityId(graph.collection, r.source),
        predicate: r.predicate,
        object: name(r.target),
        objectId: entityId(graph.collection, r.target),
        weight: r.weight,
        chunkIds: chunkIdsOf(r.mentions),
      }));
    const [view] = await this.described(scope, [this.view(graph, entity)]);
    return { entity: view, relationships };
  }

  /** The loaded graphs in scope (for communities and the agent's graph tool). */
  async resolvedGraphs(scope: Scope): Promise<{ collection: string; version: number; resolved: ResolvedGraph }[]> {
    return (await this.loadAll(scope)).map(({ collection, version, resolved }) => ({ collection, version, resolved }));
  }

  private view(graph: LoadedGraph, entity: ResolvedEntity): GraphEntityView {
    return {
      id: entityId(graph.collection, entity.key),
      collection: graph.collection,
      name: entity.name,
      type: entity.type,
      description: entity.description ?? '',
      aliases: entity.variants.slice(1),
      chunkIds: chunkIdsOf(entity.mentions),
      mentions: entity.mentions.length,
    };
  }

  /** Fills each view's description: the sentence around its first mention in a chunk's text. */
  private async described(scope: Scope, views: GraphEntityView[]): Promise<GraphEntityView[]> {
    const firstMention = new Map<string, Mention>();
    for (const view of views) {
      const graph = this.loaded.get(view.collection);
      const index = graph?.idIndex.get(view.id);
      const entity = index === undefined ? undefined : graph?.resolved.entities[index];
      const mention = entity?.mentions.find((m) => m.field === 'text');
      // A model's description stands; offline, the sentence of the first mention is the description.
      if (mention && !view.description) firstMention.set(view.id, mention);
    }
    const chunks = new Map(
      (await this.store.getChunks(scope, [...new Set([...firstMention.values()].map((m) => m.chunkId))])).map((c) => [c.id, c]),
    );
    return views.map((view) => {
      const mention = firstMention.get(view.id);
      const chunk = mention && chunks.get(mention.chunkId);
      return chunk ? { ...view, description: sentenceAround(chunk.text, mention.start, mention.end) } : view;
    });
  }
}

export function noGraph(): DossierError {
  return new DossierError('not-found', 'no collection in scope has a knowledge graph; build one with "dossier graph build"');
}

function toGraphChunk(chunk: StoredChunk): GraphChunk {
  return {
    id: chunk.id,
    documentId: chunk.documentId,
    collection: chunk.collection,
    title: chunk.title,
    headingPath: chunk.headingPath,
    text: chunk.text,
  };
}

function chunkIdsOf(mentions: readonly Mention[]): number[] {
  return [...new Set(mentions.map((mention) => mention.chunkId))].sort((a, b) => a - b);
}

function containsWords(haystack: string, words: string): boolean {
  return ` ${haystack} `.includes(` ${words} `);
}

/** The sentence (or line) of a text that holds [start, end), at most about 300 characters. */
export function sentenceAround(text: string, start: number, end: number): string {
  let from = start;
  while (from > 0 && !/[.!?]\s$|\n$/.test(text.slice(Math.max(0, from - 2), from)) && start - from < 200) from--;
  let to = end;
  while (to < text.length && !/^[.!?](\s|$)|^\n/.test(text.slice(to, to + 2)) && to - end < 200) to++;
  if (to < text.length && /[.!?]/.test(text[to])) to++;
  return text.slice(from, to).replace(/\s+/g, ' ').trim();
}
