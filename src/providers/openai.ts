import { createOpenAI } from '@ai-sdk/openai';
import { AiSdkEmbedder } from '../embed/ai-sdk-embedder.ts';
import { DossierError } from '../errors/index.ts';
import type { Provider, ProviderContext } from './types.ts';

/** Known vector lengths, so resolving these models costs no probe request. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

function client({ env, spec }: ProviderContext) {
  const apiKey = env.OPENAI_API_KEY;
  if (!apiKey) throw new DossierError('config', `OPENAI_API_KEY is not set (needed for ${spec})`);
  // Defaults are spelled out so the client never falls back to process.env behind an explicit `env`.
  return createOpenAI({ apiKey, baseURL: env.OPENAI_BASE_URL || 'https://api.openai.com/v1' });
}

/** OPENAI_API_KEY, optional OPENAI_BASE_URL. */
export const openaiProvider: Provider = {
  name: 'openai',
  // Chat completions rather than the Responses API: it is what OPENAI_BASE_URL proxies and compatible gateways implement.
  languageModel: (context) => client(context).chat(context.modelId),
  embedder: (context, settings) =>
    AiSdkEmbedder.create(client(context).embedding(context.modelId), {
      ...settings,
      provider: 'openai',
      dimensions: settings.dimensions ?? KNOWN_DIMENSIONS[context.modelId],
    }),
};
