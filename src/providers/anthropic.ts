import { createAnthropic } from '@ai-sdk/anthropic';
import { DossierError } from '../errors/index.ts';
import type { Provider } from './types.ts';

/** ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL. Language models only. */
export const anthropicProvider: Provider = {
  name: 'anthropic',
  languageModel({ env, spec, modelId }) {
    const apiKey = env.ANTHROPIC_API_KEY;
    if (!apiKey) throw new DossierError('config', `ANTHROPIC_API_KEY is not set (needed for ${spec})`);
    return createAnthropic({ apiKey, baseURL: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com/v1' })(modelId);
  },
};
