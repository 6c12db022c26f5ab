import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { embedderContract } from '../contract.ts';
import { HashedEmbedder } from './hashed-embedder.ts';

embedderContract('offline HashedEmbedder', async () => new HashedEmbedder());

describe('HashedEmbedder', () => {
  const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

  it('puts morphological variants closer than unrelated words', async () => {
    const embedder = new HashedEmbedder();
    const [query, variant, unrelated] = await embedder.embed(['vaccination campaigns', 'vaccines campaign', 'tectonic plates']);
    assert.ok(cosine(query, variant) > 0.5, 'shared stems and character n-grams');
    assert.ok(cosine(query, unrelated) < 0.2);
  });

  it('weights rare query terms by the live document frequencies', async () => {
    const embedder = new HashedEmbedder();
    const [rareDoc, commonDoc] = await embedder.embed(['zygomatic arch', 'patient study']);
    const plain = await embedder.embedQuery('zygomatic patient');
    embedder.useFrequencies(async (terms) => ({ chunks: 1000, frequencies: new Map(terms.map((t) => [t, t === 'patient' ? 900 : 2])) }));
    const weighted = await embedder.embedQuery('zygomatic patient');
    assert.ok(cosine(weighted, rareDoc) - cosine(weighted, commonDoc) > cosine(plain, rareDoc) - cosine(plain, commonDoc));
    assert.ok(cosine(weighted, rareDoc) > cosine(weighted, commonDoc));
  });

  it('names everything that changes its vectors in its id', () => {
    assert.notEqual(new HashedEmbedder({ dimensions: 256 }).id, new HashedEmbedder({ dimensions: 512 }).id);
    assert.notEqual(new HashedEmbedder({ language: 'german' }).id, new HashedEmbedder().id);
  });
});
