/**
 * Turns texts into vectors. The index records `id` and `dimensions` of the embedder that built it;
 * a store refuses queries from another embedder (a clear error, not garbage results).
 */
export interface Embedder {
  /** Stable identity including everything that changes the vectors, e.g. "hashed-ngram-v1:256" or "openai:text-embedding-3-small". */
  readonly id: string;
  readonly dimensions: number;
  /** Embeds documents (chunks). Vectors are L2-normalised. */
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** Embeds a search query; may differ from `embed` (asymmetric models, query-side weighting). */
  embedQuery(text: string, options?: { signal?: AbortSignal }): Promise<Float32Array>;

  // Optional capabilities: callers test for them instead of checking concrete classes.
  /** Takes the index's term statistics for query-side weighting (IDF). */
  useFrequencies?(source: FrequencySource | undefined): void;
  /** Embeds already-tokenized, stemmed terms synchronously: the ingest hot path skips a second tokenization. */
  embedTerms?(terms: readonly string[]): Float32Array;
  /** How a worker thread builds an identical embedder, so ingestion embeds off the main thread. */
  readonly workerRecipe?: EmbedderRecipe;
}

/** Index-wide document frequencies of terms (Store.documentFrequencies). */
export type FrequencySource = (terms: readonly string[]) => Promise<{ chunks: number; frequencies: Map<string, number> }>;

/** A serialisable description of an in-process embedder (see `Embedder.workerRecipe`). */
export interface EmbedderRecipe {
  kind: 'offline-hashed';
  options: Record<string, unknown>;
}

export function l2normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum > 0) {
    const inverse = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i] *= inverse;
  }
  return vector;
}
