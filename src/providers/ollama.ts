import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkEmbedder } from '../embed/ai-sdk-embedder.ts';
import type { Provider, ProviderContext } from './types.ts';

// includeUsage asks for the usage chunk at the end of a stream, which token budgets need.
const client = ({ env }: ProviderContext) =>
  createOpenAICompatible({ name: 'ollama', baseURL: env.OLLAMA_BASE_URL || 'http://localhost:11434/v1', includeUsage: true });

/** Ollama's OpenAI-compatible API at OLLAMA_BASE_URL (default http://localhost:11434/v1). */
export const ollamaProvider: Provider = {
  name: 'ollama',
  languageModel: (context) => client(context).chatModel(context.modelId),
  embedder: (context, settings) =>
    AiSdkEmbedder.create(client(context).embeddingModel(context.modelId), { ...settings, provider: 'ollama' }),
};
