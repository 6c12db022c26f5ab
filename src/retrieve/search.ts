import { DossierError } from '../errors/index.ts';
import { l2normalize, type Embedder } from '../embed/embedder.ts';
import type { Filter, Scope, ScoredChunkId, Store, StoredChunk } from '../store/types.ts';
import type { Tokenizer } from '../text/tokenize.ts';
import { reciprocalRankFusion } from './fuse.ts';
import { rerankCandidates, rerankDocument, RERANK_DEPTH, type Reranker } from './reranker.ts';
import type { SearchHit, SearchMode } from '../protocol/json-shapes.ts';
export type { SearchHit, SearchMode } from '../protocol/json-shapes.ts';

export const SEARCH_MODES: readonly SearchMode[] = ['fulltext', 'vector', 'graph', 'hybrid'];

/**
 * The knowledge graph as search sees it (the graph layer implements it): chunks ranked by
 * Personalized PageRank from the query's entities. Undefined when no collection in scope has a graph;
 * an empty list when the query names none of its entities.
 */
export interface GraphSearcher {
  searchGraph(query: string, scope: Scope, k: number): Promise<ScoredChunkId[] | undefined>;
}

export interface HybridWeights {
  fullText: number;
  vector: number;
  /** The graph list's weight, when a collection in scope has a knowledge graph. */
  graph: number;
  /** RRF constant; larger flattens the rank curve. */
  rrfK: number;
  /** How deep each list is read before fusing. */
  depth: number;
  /** Pseudo-relevance feedback: the vector query moves toward the top `feedbackDocs` full-text hits by `feedbackWeight`. */
  feedbackDocs: number;
  feedbackWeight: number;
}

/** Tuned on SciFact train (see README, "Retrieval quality"). */
export const DEFAULT_HYBRID: HybridWeights = {
  fullText: 1,
  vector: 0.1,
  // Tuned on the agent's Recall@5 over MuSiQue train-100 and HotpotQA dev 0–99 (docs/benchmarks.md, "Knowledge graph").
  graph: 0.25,
  rrfK: 30,
  depth: 100,
  feedbackDocs: 3,
  feedbackWeight: 2,
};

/** Queries longer than this many characters are cut: a pasted document is not a query. */
export const MAX_QUERY_CHARS = 2000;

export interface SearchRequest {
  query: string;
  scope: Scope;
  mode?: SearchMode;
  k?: number;
  filter?: Filter;
  hybrid?: Partial<HybridWeights>;
  /** Cancels the search (the reranker's request with it). */
  signal?: AbortSignal;
  /** False keeps the fused order even when the retriever has a reranker (a warm-up, a comparison). */
  rerank?: boolean;
}

/** A ranked chunk; `rerankScore` is the reranker's score when one reordered the candidates (`score` stays the fused one). */
export interface RankedChunkId extends ScoredChunkId {
  rerankScore?: number;
}

export interface RetrieverOptions {
  /** Reorders the fused candidates before they are cut to k (none by default, and offline there is none). */
  reranker?: Reranker;
  /** At most this many fused candidates are reranked: four per result asked for, up to this (default 100). */
  rerankDepth?: number;
  /** The knowledge graph, for `graph` search and for `hybrid` where a collection in scope has one. */
  graph?: GraphSearcher;
  /** This retriever's hybrid weights, over DEFAULT_HYBRID (a request's own still win). */
  hybrid?: Partial<HybridWeights>;
}

export class Retriever {
  readonly reranker: Reranker | undefined;
  private readonly rerankDepth: number;
  private readonly graph: GraphSearcher | undefined;
  private readonly hybrid: HybridWeights;

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly tokenizer: Tokenizer,
    options: RetrieverOptions = {},
  ) {
    this.reranker = options.reranker;
    this.rerankDepth = options.rerankDepth ?? RERANK_DEPTH;
    this.graph = options.graph;
    this.hybrid = { ...DEFAULT_HYBRID, ...options.hybrid };
    if (!Number.isInteger(this.rerankDepth) || this.rerankDepth < 1)
      throw new DossierError('config', `rerankDepth must be a positive integer, got ${options.rerankDepth}`);
  }

  /**
   * Ranked chunk ids: what evaluation and fusion need. Without a reranker no chunk text is loaded;
   * with one, the top fused candidates are read, reordered by it, and then cut to k.
   */
  async rank(request: SearchRequest): Promise<RankedChunkId[]> {
    const mode = request.mode ?? 'hybrid';
    if (!SEARCH_MODES.includes(mode))
      throw new DossierError('bad-input', `unknown search mode "${mode}" (expected fulltext, vector, graph or hybrid)`);
    const k = request.k ?? 10;
    if (!Number.isInteger(k) || k < 1 || k > 1000) throw new DossierError('bad-input', `k must be an integer from 1 to 1000, got ${k}`);
    const query = request.query.slice(0, MAX_QUERY_CHARS);
    if (!query.trim()) throw new DossierError('bad-input', 'the query is empty');
    const weights = { ...this.hybrid, ...request.hybrid };
    const candidates = this.reranker && request.rerank !== false ? rerankCandidates(k, this.rerankDepth) : k;
    const listed = Math.max(k, candidates);
    const depth = mode === 'hybrid' ? Math.max(listed, weights.depth) : listed;
    const fullText = () => this.store.searchFullText(request.scope, this.tokenizer.terms(query), { k: depth, filter: request.filter });
    const vector = async (feedback: readonly ScoredChunkId[] = []) => {
      await this.store.assertEmbedder({ embedderId: this.embedder.id, dimensions: this.embedder.dimensions });
      let queryVector = await this.embedder.embedQuery(query);
      if (feedback.length > 0 && weights.feedbackWeight > 0)
        queryVector = await this.withFeedback(request.scope, queryVector, feedback, weights.feedbackWeight);
      return this.store.searchVector(request.scope, queryVector, { k: depth, filter: request.filter });
    };
    if (mode === 'graph') {
      const ranked = await this.graphList(request, query, listed);
      if (!ranked)
        throw new DossierError('not-found', 'no collection in scope has a knowledge graph; build one with "dossier graph build"');
      return this.reranked(request, query, ranked, candidates, k);
    }
    if (mode !== 'hybrid') {
      const ranked = mode === 'fulltext' ? await fullText() : await vector();
      return this.reranked(request, query, ranked, candidates, k);
    }
    const lexical = await fullText();
    const graphed = weights.graph > 0 ? await this.graphList(request, query, depth) : undefined;
    const fused = reciprocalRankFusion(
      [
        { items: lexical, weight: weights.fullText },
        { items: await vector(lexical.slice(0, weights.feedbackDocs)), weight: weights.vector },
        ...(graphed?.length ? [{ items: graphed, weight: weights.graph }] : []),
      ],
      (hit) => hit.chunkId,
      weights.rrfK,
    );
    const ranked = fused
      .slice(0, Math.max(k, candidates))
      .map(({ item, score }) => ({ chunkId: item.chunkId, documentId: item.documentId, score }));
    return this.reranked(request, query, ranked, candidates, k);
  }

  /** The graph's ranking, kept to the filter's documents; undefined when no collection in scope has a graph. */
  private async graphList(request: SearchRequest, query: string, depth: number): Promise<ScoredChunkId[] | undefined> {
    if (!this.graph) return undefined;
    const ranked = await this.graph.searchGraph(query, request.scope, depth);
    if (!ranked?.length || !request.filter || Object.keys(request.filter).length === 0) return ranked;
    const documentIds = [...new Set(ranked.map((hit) => hit.documentId))];
    const allowed = new Set(
      (
        await this.store.listDocuments(request.scope, {
          filter: { $and: [request.filter, { id: { $in: documentIds } }] },
          limit: documentIds.length,
        })
      ).map((document) => document.id),
    );
    return ranked.filter((hit) => allowed.has(hit.documentId));
  }

  /**
   * The first `candidates` of `ranked` in the reranker's order (those it left out after them, in
   * fused order), then the rest, cut to k. Without a reranker, the first k as they are. A reranker
   * that fails fails the search: its error names it, and nothing falls back silently.
   */
  private async reranked(
    request: SearchRequest,
    query: string,
    ranked: RankedChunkId[],
    candidates: number,
    k: number,
  ): Promise<RankedChunkId[]> {
    if (!this.reranker || request.rerank === false || ranked.length === 0) return ranked.slice(0, k);
    const head = ranked.slice(0, candidates);
    const chunks = new Map(
      (
        await this.store.getChunks(
          request.scope,
          head.map((hit) => hit.chunkId),
        )
      ).map((chunk) => [chunk.id, chunk]),
    );
    const readable = head.filter((hit) => chunks.has(hit.chunkId));
    const order = await this.reranker.rerank(
      query,
      readable.map((hit) => rerankDocument(chunks.get(hit.chunkId)!)),
      { signal: request.signal },
    );
    const chosen = new Set(order.map(({ index }) => index));
    const reordered = [
      ...order.map(({ index, score }) => ({ ...readable[index], rerankScore: score })),
      ...readable.filter((_, index) => !chosen.has(index)),
    ];
    return [...reordered, ...ranked.slice(candidates)].slice(0, k);
  }

  /** Rocchio-style feedback: query + weight × centroid of the feedback chunks' vectors, renormalised. */
  private async withFeedback(scope: Scope, query: Float32Array, feedback: readonly ScoredChunkId[], weight: number): Promise<Float32Array> {
    const vectors = [
      ...(
        await this.store.getVectors(
          scope,
          feedback.map((hit) => hit.chunkId),
        )
      ).values(),
    ];
    if (vectors.length === 0) return query;
    const out = Float32Array.from(query);
    for (const vector of vectors) for (let i = 0; i < out.length; i++) out[i] += (weight * vector[i]) / vectors.length;
    return l2normalize(out);
  }

  /** Ranked stored chunks with their scores: what the agent's ledger takes. */
  async searchChunks(request: SearchRequest): Promise<{ chunk: StoredChunk; score: number; rerankScore?: number }[]> {
    const ranked = await this.rank(request);
    const chunks = new Map(
      (
        await this.store.getChunks(
          request.scope,
          ranked.map((hit) => hit.chunkId),
        )
      ).map((chunk) => [chunk.id, chunk]),
    );
    return ranked.flatMap((hit) => {
      const chunk = chunks.get(hit.chunkId);
      return chunk ? [{ chunk, score: hit.score, ...(hit.rerankScore !== undefined ? { rerankScore: hit.rerankScore } : {}) }] : [];
    });
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    return (await this.searchChunks(request)).map(({ chunk, score, rerankScore }) => toHit(chunk, score, rerankScore));
  }
}

function toHit(chunk: StoredChunk, score: number, rerankScore: number | undefined): SearchHit {
  return {
    chunkId: chunk.id,
    documentId: chunk.documentId,
    title: chunk.title,
    source: chunk.source,
    text: chunk.text,
    score,
    headingPath: chunk.headingPath,
    ...(chunk.page !== undefined ? { page: chunk.page } : {}),
    charStart: chunk.charStart,
    charEnd: chunk.charEnd,
    collection: chunk.collection,
    ordinal: chunk.ordinal,
    tokenCount: chunk.tokenCount,
    ...(rerankScore !== undefined ? { rerankScore } : {}),
  };
}
