import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { DossierError } from '../errors/index.ts';
import { AiSdkEmbedder, type AiSdkEmbedderOptions } from './ai-sdk-embedder.ts';
import type { Embedder } from './embedder.ts';
import { createOfflineEmbedder } from './offline.ts';

type Env = Record<string, string | undefined>;

/** Known vector lengths, so resolving these models costs no probe request. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'openai:text-embedding-3-small': 1536,
  'openai:text-embedding-3-large': 3072,
  'openai:text-embedding-ada-002': 1536,
};

const PROVIDERS = ['offline', 'openai', 'ollama', 'openai-compatible'];

/**
 * Turns an embedder spec into an Embedder:
 *   offline | offline:…          the built-in embedder (no key, no weights)
 *   openai:<model>               OPENAI_API_KEY, optional OPENAI_BASE_URL
 *   ollama:<model>               OLLAMA_BASE_URL (default http://localhost:11434/v1), OpenAI-compatible API
 *   openai-compatible:<model>    DOSSIER_BASE_URL required, DOSSIER_API_KEY optional
 * Remote embedders whose dimensions are unknown embed one probe text here.
 */
export async function resolveEmbedder(
  spec: string,
  env: Env = process.env,
  options: Omit<AiSdkEmbedderOptions, 'provider'> & { signal?: AbortSignal } = {},
): Promise<Embedder> {
  const trimmed = spec.trim();
  // Split at the first colon only: model names may contain colons (ollama "nomic-embed-text:latest").
  const colon = trimmed.indexOf(':');
  const provider = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const modelId = colon === -1 ? '' : trimmed.slice(colon + 1).trim();

  // ── offline ── owned by the offline embedder (src/embed/offline.ts); the part after "offline:" is
  // its parameters, which that module will take once it defines them.
  if (provider === 'offline') {
    return createOfflineEmbedder();
  }

  if (!PROVIDERS.includes(provider)) {
    throw new DossierError('config', `unknown embedder provider "${provider}" in "${spec}" (expected one of: ${PROVIDERS.join(', ')})`);
  }
  if (modelId === '') {
    throw new DossierError('config', `embedder "${spec}" names no model (expected ${provider}:<model>)`);
  }
  const dimensions = options.dimensions ?? KNOWN_DIMENSIONS[`${provider}:${modelId}`];
  const settings = { ...options, provider, dimensions };

  switch (provider) {
    case 'openai': {
      const apiKey = env.OPENAI_API_KEY;
      if (!apiKey) throw new DossierError('config', `OPENAI_API_KEY is not set (needed for embedder ${spec})`);
      const openai = createOpenAI({ apiKey, baseURL: env.OPENAI_BASE_URL || undefined });
      return AiSdkEmbedder.create(openai.embedding(modelId), settings);
    }
    case 'ollama': {
      const baseURL = env.OLLAMA_BASE_URL || 'http://localhost:11434/v1';
      const ollama = createOpenAICompatible({ name: 'ollama', baseURL });
      return AiSdkEmbedder.create(ollama.embeddingModel(modelId), settings);
    }
    default: {
      const baseURL = env.DOSSIER_BASE_URL;
      if (!baseURL) throw new DossierError('config', `DOSSIER_BASE_URL is not set (needed for embedder ${spec})`);
      const compatible = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        apiKey: env.DOSSIER_API_KEY || undefined,
      });
      return AiSdkEmbedder.create(compatible.embeddingModel(modelId), settings);
    }
  }
}
