/**
 * The reranking seam: a model that reorders the retriever's fused candidates by how well each one
 * answers the query. Offline there is none (the fused order stands); `cohere:<model>` and
 * `cohere-compatible:<model>` are resolved by the provider registry (providers/), and any object with
 * this shape works (`createDossier({ reranker })`).
 */
export interface Reranker {
  /** `provider:model`, for messages and reports, e.g. "cohere:rerank-v3.5". */
  readonly id: string;
  /**
   * The documents' order by relevance to the query, best first: each entry names a document by its
   * index in `documents` with the model's score. It may leave documents out (the retriever appends
   * them after the ranked ones, in their fused order); an index out of range or repeated is an error.
   * Failures are one-line DossierErrors; an abort by the caller rejects with its reason.
   */
  rerank(query: string, documents: readonly string[], options?: { signal?: AbortSignal }): Promise<RerankedIndex[]>;
}

export interface RerankedIndex {
  index: number;
  score: number;
}

/** How many fused candidates go to the reranker: four per result asked for, at most this many; with k beyond it, the rest follow in fused order. */
export const RERANK_DEPTH = 100;
export const RERANK_CANDIDATES_PER_RESULT = 4;

/** The number of fused candidates reranked for a search of `k` results with a reranking depth of `depth`. */
export function rerankCandidates(k: number, depth = RERANK_DEPTH): number {
  return Math.max(1, Math.min(k * RERANK_CANDIDATES_PER_RESULT, depth));
}

/** What the reranker reads of a chunk: its title and heading path, then its text. */
export function rerankDocument(chunk: { title: string; headingPath: readonly string[]; text: string }): string {
  const heading = [chunk.title, ...chunk.headingPath].filter((part) => part.trim() !== '').join(' › ');
  return heading ? `${heading}\n\n${chunk.text}` : chunk.text;
}
