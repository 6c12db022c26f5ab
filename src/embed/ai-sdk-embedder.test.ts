import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  batchSizes,
  deterministicEmbedding,
  rateLimited,
  serverError,
  startOpenAIServer,
  type OpenAIServer,
} from '../testing/protocol-server/openai.ts';
import { DossierError } from '../errors/index.ts';
import { AiSdkEmbedder, parseRetryAfter, type AiSdkEmbedderOptions } from './ai-sdk-embedder.ts';
import { embedderContract } from './contract.ts';
import { l2normalize } from './embedder.ts';
import { resolveEmbedder } from '../providers/index.ts';

// Short backoffs keep the retry tests fast; the policy is the same as in production.
const FAST: AiSdkEmbedderOptions = { initialBackoffMs: 1, maxBackoffMs: 20, timeoutMs: 2_000 };

function openaiModel(server: OpenAIServer, apiKey = 'test-key') {
  return createOpenAI({ baseURL: server.baseURL, apiKey }).embedding('text-embedding-test');
}

function texts(n: number, prefix = 'text'): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix} number ${i} about topic ${i % 7}`);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

function assertRemoteFailed(error: unknown, ...fragments: string[]): asserts error is DossierError {
  assert.ok(DossierError.isInstance(error), `expected a DossierError, got ${String(error)}`);
  assert.equal(error.code, 'remote-failed');
  assert.ok(!error.message.includes('\n'), `message must be one line: ${error.message}`);
  for (const fragment of fragments) assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`);
}

describe('AiSdkEmbedder against the OpenAI protocol server', () => {
  let server: OpenAIServer;
  before(async () => {
    server = await startOpenAIServer({ dimensions: 32, apiKey: 'test-key' });
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  test('id names provider and model', async () => {
    const embedder = new AiSdkEmbedder(openaiModel(server), { dimensions: 32 });
    assert.equal(embedder.id, 'openai:text-embedding-test');
    assert.equal(server.embeddings.requests.length, 0, 'known dimensions need no request');
  });

  test('batches 250 texts into 96 + 96 + 58 and returns vectors in input order', async () => {
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32 });
    const input = texts(250);
    const vectors = await embedder.embed(input);
    assert.deepEqual(
      [...batchSizes(server.embeddings)].sort((a, b) => b - a),
      [96, 96, 58],
    );
    assert.equal(vectors.length, 250);
    for (let i = 0; i < input.length; i++) {
      const expected = l2normalize(deterministicEmbedding(input[i], 32));
      assert.deepEqual(Array.from(vectors[i]), Array.from(expected), `vector ${i} out of place`);
    }
  });

  test('never has more batches in flight than the concurrency bound', async () => {
    const slow = await startOpenAIServer({ dimensions: 8, delayMs: 25 });
    try {
      const model = createOpenAI({ baseURL: slow.baseURL, apiKey: 'k' }).embedding('m');
      const embedder = new AiSdkEmbedder(model, { ...FAST, dimensions: 8, maxBatchSize: 5, concurrency: 3 });
      const vectors = await embedder.embed(texts(52));
      assert.equal(vectors.length, 52);
      assert.equal(slow.embeddings.requests.length, 11);
      assert.equal(slow.embeddings.maxInFlight, 3, 'bound reached but not exceeded');
    } finally {
      await slow.close();
    }
  });

  test('retries 429 (Retry-After: 0) and then succeeds', async () => {
    server.embeddings.enqueue(rateLimited(0), 2);
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, maxRetries: 3 });
    const vectors = await embedder.embed(['hello world']);
    assert.equal(vectors.length, 1);
    assert.equal(server.embeddings.requests.length, 3);
  });

  test('waits as long as Retry-After asks, even beyond its own backoff', async () => {
    server.embeddings.enqueue({ type: 'status', status: 429, headers: { 'retry-after-ms': '300' } });
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, maxBackoffMs: 5_000 });
    const started = Date.now();
    await embedder.embed(['patience']);
    assert.ok(Date.now() - started >= 290, `retried after ${Date.now() - started} ms`);
  });

  test('persistent 500 fails with a one-line DossierError after the configured retries', async () => {
    server.embeddings.enqueue(serverError(500), 10);
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, maxRetries: 2 });
    const error = await rejection(embedder.embed(['doomed']));
    assertRemoteFailed(error, 'openai', 'HTTP 500', '3 attempts');
    assert.equal(server.embeddings.requests.length, 3);
  });

  test('a network error (dropped connection) is retried', async () => {
    server.embeddings.enqueue({ type: 'drop' });
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, maxRetries: 1 });
    assert.equal((await embedder.embed(['again'])).length, 1);
    assert.equal(server.embeddings.requests.length, 2);
  });

  test('a 401 is not retried and names the status', async () => {
    const embedder = new AiSdkEmbedder(openaiModel(server, 'wrong-key'), { ...FAST, dimensions: 32 });
    const error = await rejection(embedder.embed(['secret']));
    assertRemoteFailed(error, 'openai:text-embedding-test', 'HTTP 401', 'Incorrect API key');
    assert.equal(server.embeddings.requests.length, 1);
  });

  test('malformed JSON fails without retrying', async () => {
    server.embeddings.enqueue({ type: 'malformed' });
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32 });
    assertRemoteFailed(await rejection(embedder.embed(['x'])), 'HTTP 200', 'Invalid JSON');
    assert.equal(server.embeddings.requests.length, 1);
  });

  test('the wrong number of embeddings is an error', async () => {
    server.embeddings.enqueue({ type: 'wrong-count', count: 3 });
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32 });
    assertRemoteFailed(await rejection(embedder.embed(['a', 'b', 'c', 'd'])), 'got 3 embeddings for 4 texts');
  });

  test('vectors of unexpected length are an error', async () => {
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 16 });
    assertRemoteFailed(await rejection(embedder.embed(['a'])), '32 dimensions, expected 16');
  });

  test('a hanging request times out', async () => {
    server.embeddings.enqueue({ type: 'hang' }, 5);
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, timeoutMs: 150, maxRetries: 1 });
    const started = Date.now();
    assertRemoteFailed(await rejection(embedder.embed(['slow'])), 'no response within 150 ms', '2 attempts');
    assert.ok(Date.now() - started < 1_500);
    assert.equal(server.embeddings.requests.length, 2);
  });

  test('a timed-out request is retried and can then succeed', async () => {
    server.embeddings.enqueue({ type: 'hang' });
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, timeoutMs: 150, maxRetries: 1 });
    assert.equal((await embedder.embed(['eventually'])).length, 1);
  });

  test('abort stops an in-flight request with the abort reason', async () => {
    server.embeddings.enqueue({ type: 'hang' }, 5);
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await rejection(embedder.embed(texts(300), { signal: controller.signal }));
    assert.equal((error as Error).name, 'AbortError');
    assert.ok(Date.now() - started < 1_000);
    assert.ok(server.embeddings.requests.length <= 2, 'no batch started after the abort');
  });

  test('abort also interrupts a backoff wait', async () => {
    server.embeddings.enqueue(rateLimited(30));
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32, maxBackoffMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user gave up')), 100);
    const error = await rejection(embedder.embed(['x'], { signal: controller.signal }));
    assert.equal((error as Error).message, 'user gave up');
  });

  test('an already aborted signal sends nothing', async () => {
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32 });
    await rejection(embedder.embed(['x'], { signal: AbortSignal.abort() }));
    assert.equal(server.embeddings.requests.length, 0);
  });

  test('create discovers dimensions with one probe request', async () => {
    const embedder = await AiSdkEmbedder.create(openaiModel(server), FAST);
    assert.equal(embedder.dimensions, 32);
    assert.equal(server.embeddings.requests.length, 1);
    const given = await AiSdkEmbedder.create(openaiModel(server), { ...FAST, dimensions: 32 });
    assert.equal(given.dimensions, 32);
    assert.equal(server.embeddings.requests.length, 1, 'given dimensions need no probe');
  });

  test('vectors are L2-normalised', async () => {
    const embedder = new AiSdkEmbedder(openaiModel(server), { ...FAST, dimensions: 32 });
    for (const vector of await embedder.embed(texts(10))) {
      const norm = Math.hypot(...vector);
      assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    }
  });

  test('works through the openai-compatible provider too', async () => {
    const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, apiKey: 'test-key' });
    const embedder = await AiSdkEmbedder.create(provider.embeddingModel('bge-small'), FAST);
    assert.equal(embedder.id, 'local:bge-small');
    assert.equal((await embedder.embed(texts(3))).length, 3);
    const body = server.embeddings.requests.at(-1)?.body as { model: string };
    assert.equal(body.model, 'bge-small');
  });
});

describe('AiSdkEmbedder with nothing listening', () => {
  test('connection refused fails as a network error after retries', async () => {
    const server = await startOpenAIServer();
    const baseURL = server.baseURL;
    await server.close();
    const model = createOpenAI({ baseURL, apiKey: 'k' }).embedding('m');
    const embedder = new AiSdkEmbedder(model, { ...FAST, dimensions: 8, maxRetries: 1 });
    assertRemoteFailed(await rejection(embedder.embed(['x'])), 'network error', '2 attempts');
  });
});

test('parseRetryAfter reads seconds, HTTP dates and retry-after-ms', () => {
  assert.equal(parseRetryAfter({ 'retry-after': '2' }), 2000);
  assert.equal(parseRetryAfter({ 'Retry-After-Ms': '150' }), 150);
  const date = parseRetryAfter({ 'retry-after': new Date(Date.now() + 5_000).toUTCString() });
  assert.ok(date !== undefined && date > 3_000 && date <= 5_000, String(date));
  assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});

describe('resolveEmbedder', () => {
  let server: OpenAIServer;
  before(async () => {
    server = await startOpenAIServer({ dimensions: 24 });
  });
  after(() => server.close());

  const configError = (message: RegExp) => (error: unknown) =>
    DossierError.isInstance(error) && error.code === 'config' && message.test(error.message);

  test('rejects unknown providers, missing models and missing settings', async () => {
    await assert.rejects(resolveEmbedder('nosuch:embed-v3', { env: {} }), configError(/unknown embedder provider "nosuch"/));
    await assert.rejects(resolveEmbedder('cohere:embed-v3', { env: {} }), configError(/provider "cohere" has no embedders/));
    await assert.rejects(resolveEmbedder('openai', { env: {} }), configError(/names no model/));
    await assert.rejects(resolveEmbedder('openai:text-embedding-3-small', { env: {} }), configError(/OPENAI_API_KEY is not set/));
    await assert.rejects(resolveEmbedder('openai-compatible:bge', { env: {} }), configError(/DOSSIER_BASE_URL is not set/));
  });

  test('openai:<model> uses OPENAI_API_KEY and OPENAI_BASE_URL', async () => {
    const embedder = await resolveEmbedder('openai:my-model', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseURL } });
    assert.equal(embedder.id, 'openai:my-model');
    assert.equal(embedder.dimensions, 24);
    assert.equal(server.embeddings.requests.at(-1)?.headers.authorization, 'Bearer k');
  });

  test('known OpenAI models need no probe', async () => {
    const before = server.embeddings.requests.length;
    const embedder = await resolveEmbedder('openai:text-embedding-3-small', {
      env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseURL },
    });
    assert.equal(embedder.dimensions, 1536);
    assert.equal(server.embeddings.requests.length, before);
  });

  test('ollama:<model> keeps colons in the model name and uses OLLAMA_BASE_URL', async () => {
    const embedder = await resolveEmbedder('ollama:nomic-embed-text:latest', { env: { OLLAMA_BASE_URL: server.baseURL } });
    assert.equal(embedder.id, 'ollama:nomic-embed-text:latest');
    assert.equal((server.embeddings.requests.at(-1)!.body as { model: string }).model, 'nomic-embed-text:latest');
  });

  test('openai-compatible:<model> uses DOSSIER_BASE_URL and DOSSIER_API_KEY', async () => {
    const embedder = await resolveEmbedder('openai-compatible:bge', { env: { DOSSIER_BASE_URL: server.baseURL, DOSSIER_API_KEY: 'dk' } });
    assert.equal(embedder.id, 'openai-compatible:bge');
    assert.equal(server.embeddings.requests.at(-1)?.headers.authorization, 'Bearer dk');
  });
});

// The shared contract, through both real clients.
{
  let server: OpenAIServer | undefined;
  const start = async () => (server ??= await startOpenAIServer({ dimensions: 48 }));
  embedderContract('ai-sdk (openai)', async () => {
    const s = await start();
    return AiSdkEmbedder.create(createOpenAI({ baseURL: s.baseURL, apiKey: 'k' }).embedding('contract'), FAST);
  });
  embedderContract(
    'ai-sdk (openai-compatible)',
    async () => {
      const s = await start();
      return AiSdkEmbedder.create(createOpenAICompatible({ name: 'compat', baseURL: s.baseURL }).embeddingModel('contract'), FAST);
    },
    { cleanup: () => server?.close() },
  );
}
