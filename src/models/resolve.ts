import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { DossierError } from '../errors/index.ts';
import { createOfflineModel } from './offline-model.ts';

/** An AI SDK model object (a bare gateway string names no provider we could configure). */
export type LanguageModelObject = Exclude<LanguageModel, string>;

export interface ResolvedModel {
  model: LanguageModelObject;
  /** `provider:model` as given, without the `#text-tools` suffix; `provider:modelId` for objects. */
  id: string;
  /** False selects the text tool protocol (JSON actions in plain text) for models without native tool calls. */
  supportsTools: boolean;
}

export interface ResolveModelOptions {
  /** Where keys and base URLs come from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export const MODEL_PROVIDERS = ['offline', 'openai', 'anthropic', 'ollama', 'openai-compatible'] as const;

const TEXT_TOOLS_SUFFIX = '#text-tools';

/**
 * Turns a model spec into an AI SDK model:
 *   offline (default)            the built-in extractive model, no key
 *   openai:<model>               OPENAI_API_KEY, optional OPENAI_BASE_URL (chat completions API)
 *   anthropic:<model>            ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL
 *   ollama:<model>               OpenAI-compatible API at OLLAMA_BASE_URL (default http://localhost:11434/v1)
 *   openai-compatible:<model>    DOSSIER_BASE_URL required, DOSSIER_API_KEY optional
 * A `#text-tools` suffix (e.g. `ollama:llama3#text-tools`) selects the text tool protocol.
 * Async so that a future provider may probe its endpoint without changing callers.
 */
export async function resolveModel(spec: string | LanguageModelObject = 'offline', options: ResolveModelOptions = {}): Promise<ResolvedModel> {
  if (typeof spec !== 'string') {
    return { model: spec, id: `${spec.provider}:${spec.modelId}`, supportsTools: true };
  }
  const env = options.env ?? process.env;
  let trimmed = spec.trim();
  let supportsTools = true;
  if (trimmed.endsWith(TEXT_TOOLS_SUFFIX)) {
    supportsTools = false;
    trimmed = trimmed.slice(0, -TEXT_TOOLS_SUFFIX.length).trim();
  }
  // Split at the first colon only: model names may contain colons (ollama "llama3:8b").
  const colon = trimmed.indexOf(':');
  const provider = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const modelId = colon === -1 ? '' : trimmed.slice(colon + 1).trim();

  if (provider === 'offline' || provider === '') {
    return { model: createOfflineModel(), id: 'offline', supportsTools };
  }
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new DossierError('config', `unknown model provider "${provider}" in "${spec}" (expected one of: ${MODEL_PROVIDERS.join(', ')})`);
  }
  if (modelId === '') {
    throw new DossierError('config', `model "${spec}" names no model (expected ${provider}:<model>)`);
  }
  const id = `${provider}:${modelId}`;
  return { model: createRemoteModel(provider, modelId, spec, env), id, supportsTools };
}

/** Defaults are spelled out so the clients never fall back to process.env behind an explicit `env`. */
function createRemoteModel(provider: string, modelId: string, spec: string, env: Record<string, string | undefined>): LanguageModelObject {
  switch (provider) {
    case 'openai': {
      const apiKey = env.OPENAI_API_KEY;
      if (!apiKey) throw new DossierError('config', `OPENAI_API_KEY is not set (needed for model ${spec})`);
      // Chat completions rather than the Responses API: it is what OPENAI_BASE_URL proxies and
      // compatible gateways implement.
      return createOpenAI({ apiKey, baseURL: env.OPENAI_BASE_URL || 'https://api.openai.com/v1' }).chat(modelId);
    }
    case 'anthropic': {
      const apiKey = env.ANTHROPIC_API_KEY;
      if (!apiKey) throw new DossierError('config', `ANTHROPIC_API_KEY is not set (needed for model ${spec})`);
      return createAnthropic({ apiKey, baseURL: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com/v1' })(modelId);
    }
    case 'ollama': {
      const baseURL = env.OLLAMA_BASE_URL || 'http://localhost:11434/v1';
      // includeUsage asks for the usage chunk at the end of a stream, which token budgets need.
      return createOpenAICompatible({ name: 'ollama', baseURL, includeUsage: true }).chatModel(modelId);
    }
    default: {
      const baseURL = env.DOSSIER_BASE_URL;
      if (!baseURL) throw new DossierError('config', `DOSSIER_BASE_URL is not set (needed for model ${spec})`);
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        apiKey: env.DOSSIER_API_KEY || undefined,
        includeUsage: true,
      }).chatModel(modelId);
    }
  }
}
