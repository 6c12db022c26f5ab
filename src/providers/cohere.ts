import { createCohere } from '@ai-sdk/cohere';
import { DossierError } from '../errors/index.ts';
import { AiSdkReranker } from '../retrieve/ai-sdk-reranker.ts';
import type { Provider } from './types.ts';

/** Cohere's hosted API: COHERE_API_KEY, optional COHERE_BASE_URL (default https://api.cohere.com/v2). Rerankers only. */
export const cohereProvider: Provider = {
  name: 'cohere',
  reranker: ({ env, spec, modelId }, settings) => {
    const apiKey = env.COHERE_API_KEY;
    if (!apiKey) throw new DossierError('config', `COHERE_API_KEY is not set (needed for ${spec})`);
    // The base URL is spelled out so the client never falls back to process.env behind an explicit `env`.
    const cohere = createCohere({ apiKey, baseURL: env.COHERE_BASE_URL || 'https://api.cohere.com/v2' });
    return new AiSdkReranker(cohere.reranking(modelId), { ...settings, provider: 'cohere' });
  },
};

/**
 * Any server speaking Cohere's rerank API (vLLM, LiteLLM, OpenVINO Model Server, a gateway in front of
 * Amazon Bedrock, …): DOSSIER_RERANKER_BASE_URL required (the URL that `/rerank` is appended to, e.g.
 * http://localhost:8000/v1), DOSSIER_RERANKER_API_KEY optional.
 */
export const cohereCompatibleProvider: Provider = {
  name: 'cohere-compatible',
  reranker: ({ env, spec, modelId }, settings) => {
    const baseURL = env.DOSSIER_RERANKER_BASE_URL;
    if (!baseURL)
      throw new DossierError('config', `DOSSIER_RERANKER_BASE_URL is not set (needed for ${spec}; the URL that /rerank is appended to)`);
    const apiKey = env.DOSSIER_RERANKER_API_KEY || undefined;
    // Without a key no Authorization header is sent (the SDK would otherwise insist on COHERE_API_KEY).
    const cohere = createCohere({
      baseURL,
      apiKey: apiKey ?? 'unused',
      headers: apiKey ? undefined : { Authorization: undefined as unknown as string },
    });
    return new AiSdkReranker(cohere.reranking(modelId), { ...settings, provider: 'cohere-compatible' });
  },
};
