import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkEmbedder } from '../embed/ai-sdk-embedder.ts';
import { DossierError } from '../errors/index.ts';
import type { Provider, ProviderContext } from './types.ts';

function client({ env, spec }: ProviderContext) {
  const baseURL = env.DOSSIER_BASE_URL;
  if (!baseURL) throw new DossierError('config', `DOSSIER_BASE_URL is not set (needed for ${spec})`);
  return createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey: env.DOSSIER_API_KEY || undefined, includeUsage: true });
}

/** Any OpenAI-compatible server: DOSSIER_BASE_URL required, DOSSIER_API_KEY optional. */
export const openaiCompatibleProvider: Provider = {
  name: 'openai-compatible',
  languageModel: (context) => client(context).chatModel(context.modelId),
  embedder: (context, settings) =>
    AiSdkEmbedder.create(client(context).embeddingModel(context.modelId), { ...settings, provider: 'openai-compatible' }),
};
