import type { Embedder } from '../embed/embedder.ts';
import { DossierError } from '../errors/index.ts';
import type { Reranker } from '../retrieve/reranker.ts';
import type { EmbedderSettings, Env, LanguageModelObject, Provider, ProviderContext, RerankerSettings } from './types.ts';

export type { EmbedderSettings, Env, LanguageModelObject, Provider, ProviderContext, RerankerSettings } from './types.ts';

/**
 * The one provider registry: "provider:model" is parsed here, once, for language models,
 * embedders and rerankers alike. Providers load on first use, so a command that needs none pays for none.
 * Adding a provider is one file in this folder and one line here.
 */
const PROVIDERS: Record<string, () => Promise<Provider>> = {
  offline: async () => (await import('./offline.ts')).offlineProvider,
  openai: async () => (await import('./openai.ts')).openaiProvider,
  anthropic: async () => (await import('./anthropic.ts')).anthropicProvider,
  ollama: async () => (await import('./ollama.ts')).ollamaProvider,
  'openai-compatible': async () => (await import('./openai-compatible.ts')).openaiCompatibleProvider,
  cohere: async () => (await import('./cohere.ts')).cohereProvider,
  'cohere-compatible': async () => (await import('./cohere.ts')).cohereCompatibleProvider,
};

/** The providers with reranking models (offline has none). */
export const RERANKER_PROVIDERS = ['cohere', 'cohere-compatible'];

export const PROVIDER_NAMES = Object.keys(PROVIDERS);

const TEXT_TOOLS_SUFFIX = '#text-tools';

export interface ParsedSpec {
  provider: string;
  modelId: string;
  /** `#text-tools`: the model gets the text tool protocol (JSON actions in plain text). */
  textTools: boolean;
}

/** "provider:model[#text-tools]"; split at the first colon only, since model names may contain colons ("llama3:8b"). */
export function parseSpec(spec: string): ParsedSpec {
  let trimmed = spec.trim();
  const textTools = trimmed.endsWith(TEXT_TOOLS_SUFFIX);
  if (textTools) trimmed = trimmed.slice(0, -TEXT_TOOLS_SUFFIX.length).trim();
  const colon = trimmed.indexOf(':');
  return {
    provider: colon === -1 ? trimmed : trimmed.slice(0, colon),
    modelId: colon === -1 ? '' : trimmed.slice(colon + 1).trim(),
    textTools,
  };
}

export interface ResolveOptions {
  /** Where keys and base URLs come from (default `process.env`). */
  env?: Env;
  /** Stemming language for the offline model and embedder (default "english"). */
  language?: string;
}

async function provide(
  spec: string,
  kind: 'model' | 'embedder' | 'reranker',
  options: ResolveOptions,
): Promise<{ provider: Provider; context: ProviderContext; parsed: ParsedSpec }> {
  const parsed = parseSpec(spec);
  const name = parsed.provider || 'offline';
  const load = PROVIDERS[name];
  if (!load)
    throw new DossierError('config', `unknown ${kind} provider "${name}" in "${spec}" (expected one of: ${PROVIDER_NAMES.join(', ')})`);
  const provider = await load();
  if (provider.needsModelId !== false && parsed.modelId === '') {
    throw new DossierError('config', `${kind} "${spec}" names no model (expected ${name}:<model>)`);
  }
  const context = {
    spec: `${kind} ${spec}`,
    modelId: parsed.modelId,
    env: options.env ?? process.env,
    language: options.language ?? 'english',
  };
  return { provider, context, parsed: { ...parsed, provider: name } };
}

export interface ResolvedModel {
  model: LanguageModelObject;
  /** `provider:model` as given, without the `#text-tools` suffix; `provider:modelId` for objects; `offline`. */
  id: string;
  /** False selects the text tool protocol (JSON actions in plain text) for models without native tool calls. */
  supportsTools: boolean;
}

/** A model spec (`offline`, `openai:gpt-4o-mini`, `ollama:llama3#text-tools`, …) or any AI SDK model object. */
export async function resolveModel(spec: string | LanguageModelObject = 'offline', options: ResolveOptions = {}): Promise<ResolvedModel> {
  if (typeof spec !== 'string') return { model: spec, id: `${spec.provider}:${spec.modelId}`, supportsTools: true };
  const { provider, context, parsed } = await provide(spec, 'model', options);
  if (!provider.languageModel) throw new DossierError('config', `provider "${provider.name}" has no language models (in "${spec}")`);
  return {
    model: provider.languageModel(context),
    id: provider.needsModelId === false ? provider.name : `${parsed.provider}:${parsed.modelId}`,
    supportsTools: !parsed.textTools,
  };
}

/** An embedder spec (`offline`, `openai:text-embedding-3-small`, …). Remote embedders of unknown size embed one probe text. */
export async function resolveEmbedder(spec: string, options: ResolveOptions & { settings?: EmbedderSettings } = {}): Promise<Embedder> {
  const { provider, context } = await provide(spec, 'embedder', options);
  if (!provider.embedder) throw new DossierError('config', `provider "${provider.name}" has no embedders (in "${spec}")`);
  return provider.embedder(context, options.settings ?? {});
}

/**
 * A reranker spec (`cohere:rerank-v3.5`, `cohere-compatible:<model>`), or `none` for no reranker.
 * Offline there is no reranker: `offline` is refused with a message saying so.
 */
export async function resolveReranker(
  spec: string,
  options: ResolveOptions & { settings?: RerankerSettings } = {},
): Promise<Reranker | undefined> {
  const trimmed = spec.trim();
  if (trimmed === 'none') return undefined;
  const expected = `expected ${RERANKER_PROVIDERS.map((name) => `${name}:<model>`).join(' or ')}, or none`;
  if (trimmed === '' || trimmed === 'offline') {
    throw new DossierError('config', `there is no offline reranker (reranker "${spec}"): without one the fused order stands; ${expected}`);
  }
  const { provider, context } = await provide(trimmed, 'reranker', options);
  if (!provider.reranker) throw new DossierError('config', `provider "${provider.name}" has no rerankers (in "${spec}"; ${expected})`);
  return provider.reranker(context, options.settings ?? {});
}
