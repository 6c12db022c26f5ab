import type { Embedder } from './embedder.ts';
import { HashedEmbedder, type HashedEmbedderOptions } from './hashed/hashed-embedder.ts';

/** The built-in embedder: no key, no downloaded weights (see hashed-embedder.ts for the method). */
export async function createOfflineEmbedder(options: HashedEmbedderOptions = {}): Promise<Embedder> {
  return new HashedEmbedder(options);
}
