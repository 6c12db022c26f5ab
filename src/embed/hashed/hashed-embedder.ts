import { Tokenizer } from '../../text/tokenize.ts';
import { l2normalize, type Embedder, type EmbedderRecipe, type FrequencySource } from '../embedder.ts';

/**
 * The offline embedder: signed feature hashing (Weinberger et al., 2009) of stemmed words, word
 * bigrams and character n-grams into a dense vector; no downloaded weights.
 *
 * Documents get sublinear term frequencies only, so a stored vector never depends on the rest of
 * the corpus and stays valid as documents are added and removed. Queries carry the corpus weighting:
 * each feature is scaled by the live inverse document frequency of its word (read from the full-text
 * index when a `frequencies` source is attached), and character n-grams inherit their word's weight.
 * Character n-grams let "vaccination" meet "vaccines" and "IL-6" meet "IL6", which the word index
 * cannot; that is what this vector adds to BM25 in hybrid search.
 */
export interface HashedEmbedderOptions {
  dimensions?: number;
  language?: string;
  /** Relative weight of the feature groups; tuned on SciFact train. */
  wordWeight?: number;
  bigramWeight?: number;
  charWeight?: number;
  /** Character n-gram sizes taken from each word (with boundary markers). */
  charGrams?: readonly number[];
}

interface TermFeatures {
  /** Hash of the word itself; bigram features are mixed from two of these without building strings. */
  wordHash: number;
  buckets: Int32Array;
  values: Float32Array;
}

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // Final avalanche so nearby strings spread over buckets and signs.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

export class HashedEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly tokenizer: Tokenizer;
  private readonly wordWeight: number;
  private readonly bigramWeight: number;
  private readonly charWeight: number;
  private readonly charGrams: readonly number[];
  private readonly wordFeatures = new Map<string, TermFeatures>();
  private frequencies: FrequencySource | undefined;

  /** The options this embedder was built with, so a worker thread can build an identical one. */
  readonly options: HashedEmbedderOptions;
  readonly workerRecipe: EmbedderRecipe;

  constructor(options: HashedEmbedderOptions = {}) {
    this.options = { ...options };
    this.workerRecipe = { kind: 'offline-hashed', options: { ...options } };
    this.dimensions = options.dimensions ?? 256;
    this.tokenizer = new Tokenizer({ language: options.language ?? 'english' });
    this.wordWeight = options.wordWeight ?? 1;
    this.bigramWeight = options.bigramWeight ?? 0.5;
    this.charWeight = options.charWeight ?? 0.5;
    this.charGrams = options.charGrams ?? [3, 4, 5];
    this.id = `offline-hashed-v1:${this.dimensions}:${this.tokenizer.language}:w${this.wordWeight}b${this.bigramWeight}c${this.charWeight}g${this.charGrams.join('')}`;
  }

  /** Attach the corpus's document frequencies for query-side IDF weighting. */
  useFrequencies(source: FrequencySource | undefined): void {
    this.frequencies = source;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedTerms(this.tokenizer.terms(text)));
  }

  /** Synchronous form used by the ingest pipeline on already-tokenized text. */
  embedTerms(terms: readonly string[], weightOf?: (term: string) => number): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const features = terms.map((term) => this.featuresOf(term)); // one cache lookup per token
    const counts = new Map<TermFeatures, number>();
    for (const feature of features) counts.set(feature, (counts.get(feature) ?? 0) + 1);
    const termWeights = weightOf ? new Map(terms.map((term, i) => [features[i], weightOf(term)])) : undefined;
    for (const [feature, count] of counts) {
      const weight = (1 + Math.log(count)) * (termWeights ? termWeights.get(feature)! : 1);
      const { buckets, values } = feature;
      for (let i = 0; i < buckets.length; i++) vector[buckets[i]] += values[i] * weight;
    }
    if (this.bigramWeight > 0) {
      for (let i = 1; i < features.length; i++) {
        const hash = mix(Math.imul(features[i - 1].wordHash, 0x9e3779b1) ^ features[i].wordHash);
        const weight = termWeights ? Math.min(termWeights.get(features[i - 1])!, termWeights.get(features[i])!) : 1;
        vector[hash % this.dimensions] += (hash & 0x80000000 ? -1 : 1) * this.bigramWeight * weight;
      }
    }
    return l2normalize(vector);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const terms = this.tokenizer.terms(text);
    if (!this.frequencies || terms.length === 0) return this.embedTerms(terms);
    const { chunks, frequencies } = await this.frequencies(terms);
    const idf = (term: string) => {
      const df = frequencies.get(term) ?? 0;
      return Math.log(1 + (chunks - df + 0.5) / (df + 0.5));
    };
    return this.embedTerms(terms, idf);
  }

  private featuresOf(term: string): TermFeatures {
    let features = this.wordFeatures.get(term);
    if (features) return features;
    const buckets: number[] = [];
    const values: number[] = [];
    const add = (hash: number, weight: number) => {
      buckets.push(hash % this.dimensions);
      values.push(hash & 0x80000000 ? -weight : weight);
    };
    const wordHash = fnv1a(term, 0x811c9dc5);
    add(wordHash, this.wordWeight);
    if (this.charWeight > 0) {
      const marked = `<${term}>`;
      let grams = 0;
      for (const n of this.charGrams) grams += Math.max(0, marked.length - n + 1);
      // Spread the group weight over the word's grams so long words do not dominate the vector.
      const each = grams ? this.charWeight / Math.sqrt(grams) : 0;
      for (const n of this.charGrams) for (let i = 0; i + n <= marked.length; i++) add(fnv1a(marked.slice(i, i + n), 0x3c6ef372), each);
    }
    features = { wordHash, buckets: Int32Array.from(buckets), values: Float32Array.from(values) };
    if (this.wordFeatures.size > 500_000) this.wordFeatures.clear();
    this.wordFeatures.set(term, features);
    return features;
  }
}

function mix(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
