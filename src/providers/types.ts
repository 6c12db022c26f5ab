import type { LanguageModel } from 'ai';
import type { AiSdkEmbedderOptions } from '../embed/ai-sdk-embedder.ts';
import type { Embedder } from '../embed/embedder.ts';
import type { Reranker } from '../retrieve/reranker.ts';

/** An AI SDK model object (a bare gateway string names no provider we could configure). */
export type LanguageModelObject = Exclude<LanguageModel, string>;

export type Env = Record<string, string | undefined>;

/** What a provider gets to build a model: the parsed spec and where settings come from. */
export interface ProviderContext {
  /** The spec as the user wrote it, for error messages. */
  spec: string;
  modelId: string;
  env: Env;
  /** Stemming language of the index (the offline model and embedder tokenize with it). */
  language: string;
}

/** How a remote reranker calls its server (retrieve/ai-sdk-reranker.ts). */
export interface RerankerSettings {
  /** Retries after the first attempt, on 429, 5xx and network errors, honouring Retry-After (default 2). */
  maxRetries?: number;
  /** For the whole call, retries included (default 30 000). */
  timeoutMs?: number;
}

export type EmbedderSettings = Omit<AiSdkEmbedderOptions, 'provider'> & { signal?: AbortSignal };

/**
 * One provider, one file: it turns "name:modelId" into a language model, an embedder, a reranker, or several.
 * Register it in providers/index.ts.
 */
export interface Provider {
  name: string;
  /** False when the provider needs no model id ("offline"). */
  needsModelId?: boolean;
  languageModel?(context: ProviderContext): LanguageModelObject;
  embedder?(context: ProviderContext, settings: EmbedderSettings): Promise<Embedder>;
  reranker?(context: ProviderContext, settings: RerankerSettings): Reranker;
}
