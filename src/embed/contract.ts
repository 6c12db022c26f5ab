/**
 * The behaviour every Embedder must have, as one node:test suite that each implementation runs
 * (offline, AI SDK, …): `embedderContract('offline', () => createOfflineEmbedder())`.
 * `make` is called once per suite; the embedder is shared by its tests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Embedder } from './embedder.ts';

const TEXTS = [
  'The mitochondria is the powerhouse of the cell.',
  'Photosynthesis converts light energy into chemical energy in chloroplasts.',
  'Reciprocal rank fusion combines several ranked lists into one.',
  'SQLite stores the whole database in a single file.',
  'Ein Satz auf Deutsch mit Umlauten: Größe, Übung, Äpfel.',
];

export function embedderContract(
  name: string,
  make: () => Promise<Embedder>,
  options: { cleanup?: () => Promise<void> | void } = {},
): void {
  describe(`embedder contract: ${name}`, () => {
    let embedder: Embedder;
    before(async () => {
      embedder = await make();
    });
    if (options.cleanup) after(options.cleanup);

    test('has an id and positive integer dimensions', () => {
      assert.ok(typeof embedder.id === 'string' && embedder.id.length > 0, 'id must be a non-empty string');
      assert.ok(Number.isInteger(embedder.dimensions) && embedder.dimensions > 0, `dimensions ${embedder.dimensions}`);
    });

    test('vectors are Float32Arrays with the declared dimensions', async () => {
      const vectors = await embedder.embed(TEXTS);
      assert.equal(vectors.length, TEXTS.length);
      for (const vector of vectors) {
        assert.ok(vector instanceof Float32Array);
        assert.equal(vector.length, embedder.dimensions);
      }
    });

    test('vectors are L2-normalised and finite', async () => {
      for (const vector of await embedder.embed(TEXTS)) {
        assert.ok(vector.every(Number.isFinite), 'non-finite component');
        assertClose(norm(vector), 1, 1e-4, 'norm');
      }
    });

    test('is deterministic for the same input', async () => {
      const first = await embedder.embed(TEXTS);
      const second = await embedder.embed(TEXTS);
      for (let i = 0; i < TEXTS.length; i++) assertClose(cosine(first[i], second[i]), 1, 1e-5, `text ${i}`);
    });

    test('embed([]) returns []', async () => {
      assert.deepEqual(await embedder.embed([]), []);
    });

    test('preserves input order (each vector belongs to its own text)', async () => {
      const forward = await embedder.embed(TEXTS);
      const reversed = await embedder.embed([...TEXTS].reverse());
      for (let i = 0; i < TEXTS.length; i++) {
        assertClose(cosine(forward[i], reversed[TEXTS.length - 1 - i]), 1, 1e-5, `text ${i}`);
      }
      // And singly: a batch must not change a text's vector.
      const [alone] = await embedder.embed([TEXTS[2]]);
      assertClose(cosine(alone, forward[2]), 1, 1e-5, 'single vs batch');
    });

    test('embedQuery returns one normalised vector of the same dimensions', async () => {
      const query = await embedder.embedQuery('what powers the cell?');
      assert.ok(query instanceof Float32Array);
      assert.equal(query.length, embedder.dimensions);
      assertClose(norm(query), 1, 1e-4, 'query norm');
    });

    test('different texts give different vectors', async () => {
      const vectors = await embedder.embed(TEXTS);
      for (let i = 0; i < vectors.length; i++) {
        for (let j = i + 1; j < vectors.length; j++) {
          assert.ok(cosine(vectors[i], vectors[j]) < 0.999, `texts ${i} and ${j} embed alike`);
        }
      }
    });
  });
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot / (norm(a) * norm(b) || 1);
}

function assertClose(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: expected ${expected} ± ${tolerance}, got ${actual}`);
}
