/** The AI SDK reranker over Cohere's rerank API on the protocol test server: real sockets, scripted replies. */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { createCohere } from '@ai-sdk/cohere';
import { DossierError } from '../errors/index.ts';
import { resolveReranker } from '../providers/index.ts';
import { startCohereServer } from '../testing/protocol-server/cohere.ts';
import { AiSdkReranker } from './ai-sdk-reranker.ts';

const server = await startCohereServer({ apiKey: 'test-key' });
after(() => server.close());
beforeEach(() => server.reset());

const model = (apiKey = 'test-key') => createCohere({ baseURL: server.baseURL, apiKey }).reranking('rerank-test');
const reranker = (options: ConstructorParameters<typeof AiSdkReranker>[1] = {}) =>
  new AiSdkReranker(model(), { provider: 'cohere', ...options });
const documents = ['alpha passage', 'beta passage', 'gamma passage'];

async function rejects(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(DossierError.isInstance(error), `expected a DossierError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
}

describe('AiSdkReranker over Cohere /v2/rerank', () => {
  it('returns the order the server ranks, with its scores', async () => {
    server.rerank.enqueue({ type: 'ranking', order: [2, 0, 1], scores: [0.9, 0.5, 0.1] });
    const ranking = await reranker().rerank('which is third?', documents);
    assert.deepEqual(ranking, [
      { index: 2, score: 0.9 },
      { index: 0, score: 0.5 },
      { index: 1, score: 0.1 },
    ]);
    assert.equal(reranker().id, 'cohere:rerank-test');
  });

  it('sends the model, the query and every document, with the key', async () => {
    await reranker().rerank('which is third?', documents);
    const [request] = server.rerank.requests;
    assert.equal(request.path, '/v2/rerank');
    assert.equal(request.headers.authorization, 'Bearer test-key');
    const body = request.body as { model: string; query: string; documents: string[] };
    assert.equal(body.model, 'rerank-test');
    assert.equal(body.query, 'which is third?');
    assert.deepEqual(body.documents, documents);
  });

  it('sends nothing for no documents', async () => {
    assert.deepEqual(await reranker().rerank('q', []), []);
    assert.equal(server.rerank.requests.length, 0);
  });

  it('a refused key is remote-auth, not retried', async () => {
    const bad = new AiSdkReranker(model('wrong'), { provider: 'cohere' });
    await rejects(bad.rerank('q', documents), 'remote-auth', /^reranker cohere:rerank-test failed: HTTP 401: invalid api token/);
    assert.equal(server.rerank.requests.length, 1);
  });

  it('retries a 5xx and gives up with the status and the attempts', async () => {
    server.rerank.enqueue({ type: 'status', status: 503, headers: { 'retry-after': '0' } }, 3);
    await rejects(
      reranker({ maxRetries: 2 }).rerank('q', documents),
      'remote-failed',
      /HTTP 503: scripted 503 \(gave up after 3 attempts\)/,
    );
    assert.equal(server.rerank.requests.length, 3);
  });

  it('recovers when a retry succeeds', async () => {
    server.rerank.enqueue({ type: 'status', status: 429, headers: { 'retry-after': '0' } });
    assert.equal((await reranker().rerank('q', documents)).length, 3);
    assert.equal(server.rerank.requests.length, 2);
  });

  it('a server that never answers is remote-timeout', async () => {
    server.rerank.enqueue({ type: 'hang' });
    await rejects(
      reranker({ timeoutMs: 200 }).rerank('q', documents),
      'remote-timeout',
      /^reranker cohere:rerank-test timed out after 200 ms$/,
    );
  });

  it('a dropped connection is a clear failure', async () => {
    server.rerank.enqueue({ type: 'drop' }, 3);
    await rejects(reranker({ maxRetries: 0 }).rerank('q', documents), 'remote-failed', /^reranker cohere:rerank-test failed: /);
  });

  it('a body that is not JSON is a clear failure', async () => {
    server.rerank.enqueue({ type: 'malformed' });
    await rejects(reranker({ maxRetries: 0 }).rerank('q', documents), 'remote-failed', /^reranker cohere:rerank-test failed: /);
  });

  it('refuses a ranking that names a document not sent, or one twice', async () => {
    server.rerank.enqueue({ type: 'ranking', order: [0, 7] });
    await rejects(reranker().rerank('q', documents), 'remote-failed', /^reranker cohere:rerank-test failed: /);
    server.rerank.enqueue({ type: 'ranking', order: [1, 1] });
    await rejects(reranker().rerank('q', documents), 'remote-failed', /ranked document 1 twice/);
  });

  it('a server nobody listens on is remote-unreachable, at once', async () => {
    const closed = await startCohereServer();
    await closed.close();
    const nowhere = new AiSdkReranker(createCohere({ baseURL: closed.baseURL, apiKey: 'k' }).reranking('m'), { provider: 'cohere' });
    await rejects(nowhere.rerank('q', documents), 'remote-unreachable', /^reranker cohere:m failed: network error: /);
  });

  it("the caller's abort wins", async () => {
    server.rerank.enqueue({ type: 'hang' });
    const controller = new AbortController();
    const pending = reranker().rerank('q', documents, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await assert.rejects(pending, /stop/);
  });
});

describe('resolveReranker', () => {
  const env = { COHERE_API_KEY: 'test-key', COHERE_BASE_URL: server.baseURL };

  it('cohere:<model> takes COHERE_API_KEY and COHERE_BASE_URL', async () => {
    const resolved = await resolveReranker('cohere:rerank-v3.5', { env });
    assert.equal(resolved?.id, 'cohere:rerank-v3.5');
    await resolved!.rerank('q', documents);
    assert.equal((server.rerank.requests[0].body as { model: string }).model, 'rerank-v3.5');
  });

  it('cohere-compatible:<model> takes DOSSIER_RERANKER_BASE_URL, and sends no Authorization without a key', async () => {
    const open = await startCohereServer();
    try {
      const resolved = await resolveReranker('cohere-compatible:BAAI/bge-reranker-base', {
        env: { DOSSIER_RERANKER_BASE_URL: `${open.url}/v1` },
      });
      assert.equal(resolved?.id, 'cohere-compatible:BAAI/bge-reranker-base');
      assert.equal((await resolved!.rerank('q', documents)).length, 3);
      assert.equal(open.rerankV1.requests.length, 1);
      assert.equal(open.rerankV1.requests[0].headers.authorization, undefined);
      const keyed = await resolveReranker('cohere-compatible:m', {
        env: { DOSSIER_RERANKER_BASE_URL: server.baseURL, DOSSIER_RERANKER_API_KEY: 'test-key' },
      });
      assert.equal((await keyed!.rerank('q', documents)).length, 3);
    } finally {
      await open.close();
    }
  });

  it('none is no reranker', async () => {
    assert.equal(await resolveReranker('none'), undefined);
  });

  const refused: [string, Record<string, string>, RegExp][] = [
    [
      'offline',
      {},
      /^there is no offline reranker \(reranker "offline"\): without one the fused order stands; expected cohere:<model> or cohere-compatible:<model>, or none$/,
    ],
    ['cohere:rerank-v3.5', {}, /^COHERE_API_KEY is not set \(needed for reranker cohere:rerank-v3.5\)$/],
    ['cohere-compatible:m', {}, /^DOSSIER_RERANKER_BASE_URL is not set/],
    ['cohere', { COHERE_API_KEY: 'k' }, /^reranker "cohere" names no model \(expected cohere:<model>\)$/],
    [
      'openai:gpt-4o-mini',
      { OPENAI_API_KEY: 'k' },
      /^provider "openai" has no rerankers \(in "openai:gpt-4o-mini"; expected cohere:<model> or cohere-compatible:<model>, or none\)$/,
    ],
    ['voyage:rerank-2', {}, /^unknown reranker provider "voyage" in "voyage:rerank-2"/],
  ];
  for (const [spec, specEnv, message] of refused) {
    it(`refuses "${spec}" with one config line`, async () => {
      await assert.rejects(resolveReranker(spec, { env: specEnv }), (error: unknown) => {
        assert.ok(DossierError.isInstance(error));
        assert.equal(error.code, 'config');
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
