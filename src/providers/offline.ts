import { HashedEmbedder } from '../embed/hashed/hashed-embedder.ts';
import { createOfflineModel } from '../offline-model/index.ts';
import type { Provider } from './types.ts';

/** The built-in extractive model and hashed embedder: no key, no downloaded weights. */
export const offlineProvider: Provider = {
  name: 'offline',
  needsModelId: false,
  languageModel: ({ language }) => createOfflineModel({ language }),
  embedder: async ({ language }) => new HashedEmbedder({ language }),
};
