/**
 * Reranking end to end, against Cohere's rerank API on the protocol test server: the library option,
 * `dossier search --reranker`, the agent's searches (through the Knowledge port's retriever), the
 * HTTP API, and the help that says offline has none.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import type { Reranker } from '../src/retrieve/reranker.ts';
import { startServer } from '../src/server/index.ts';
import { rerankDocuments, startCohereServer, type CohereServer } from '../src/testing/protocol-server/cohere.ts';
import { runCli, tempDir, writeTinyBeir } from './helpers.ts';

const FACTS = [
  ['Lighthouse keepers', 'The lighthouse keeper climbed the tower at dusk to light the lamp.'],
  ['Lighthouse lenses', 'A Fresnel lens lets a lighthouse lamp be seen far out at sea.'],
  ['Lighthouse history', 'The first lighthouse on the coast was built of stone in 1820.'],
  ['Harbour pilots', 'Harbour pilots guide ships past the lighthouse into the port.'],
  ['Fog signals', 'In fog the lighthouse sounds a horn instead of showing its lamp.'],
  ['Bread', 'Sourdough bread rises slowly overnight.'],
] as const;

let cohere: CohereServer;
let dir: string;
let cleanup: () => void;
let db: string;
const env = () => ({ COHERE_API_KEY: 'test-key', COHERE_BASE_URL: cohere.baseURL });

before(async () => {
  cohere = await startCohereServer({ apiKey: 'test-key' });
  ({ dir, cleanup } = tempDir('dossier-rerank-'));
  db = join(dir, 'index.db');
  const dossier = await createDossier({ db, env: {} });
  for (const [title, text] of FACTS)
    await dossier.ingestRecord({ source: `note:${title}`, title, mediaType: 'text/plain', blocks: [{ type: 'text', text }] });
  await dossier.close();
});
after(async () => {
  await cohere.close();
  cleanup();
});
beforeEach(() => cohere.reset());

/** Reverses whatever order it is sent. */
const reversed = (body: unknown) => ({ type: 'ranking' as const, order: rerankDocuments(body).map((_, i, all) => all.length - 1 - i) });

async function open(options: { reranker?: Reranker | string; env?: Record<string, string> } = {}): Promise<Dossier> {
  return createDossier({ db, readonly: true, env: options.env ?? env(), reranker: options.reranker });
}

describe('reranking: the library option', () => {
  it('reorders the fused candidates as the reranker says, keeps the fused score and adds rerankScore', async () => {
    const plain = await open();
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      const fused = await plain.search({ query: 'lighthouse lamp', k: 3 });
      assert.equal(cohere.rerank.requests.length, 0, 'no reranker, no request');
      const everything = await plain.search({ query: 'lighthouse lamp', k: 12 });
      cohere.rerank.enqueue(reversed);
      const hits = await dossier.search({ query: 'lighthouse lamp', k: 3 });
      // k 3 sends the first 12 fused candidates (four per result), all there are; reversed, then cut to 3.
      const sent = rerankDocuments(cohere.rerank.requests[0].body);
      assert.equal(sent.length, everything.length);
      const expected = [...everything].reverse().slice(0, 3);
      assert.deepEqual(
        hits.map((hit) => hit.chunkId),
        expected.map((hit) => hit.chunkId),
      );
      assert.deepEqual(
        hits.map((hit) => hit.score),
        expected.map((hit) => hit.score),
      );
      assert.deepEqual(
        hits.map((hit) => hit.rerankScore),
        [1, (sent.length - 1) / sent.length, (sent.length - 2) / sent.length],
      );
      assert.equal(
        fused.every((hit) => hit.rerankScore === undefined),
        true,
      );
    } finally {
      await plain.close();
      await dossier.close();
    }
  });

  it('sends the model, the query and each candidate with its title', async () => {
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      await dossier.search({ query: 'fresnel lens', k: 1, mode: 'fulltext' });
      const body = cohere.rerank.requests[0].body as { model: string; query: string; documents: string[] };
      assert.equal(body.model, 'rerank-test');
      assert.equal(body.query, 'fresnel lens');
      assert.deepEqual(body.documents, ['Lighthouse lenses\n\nA Fresnel lens lets a lighthouse lamp be seen far out at sea.']);
    } finally {
      await dossier.close();
    }
  });

  it('an echoing reranker changes nothing, in every mode', async () => {
    const plain = await open();
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      for (const mode of ['hybrid', 'fulltext', 'vector'] as const) {
        for (const k of [1, 2, 5]) {
          const ids = async (d: Dossier) =>
            (await d.search({ query: 'lighthouse at sea', k, mode })).map((hit) => [hit.chunkId, hit.score]);
          assert.deepEqual(await ids(dossier), await ids(plain), `${mode} k=${k}`);
        }
      }
      assert.equal(cohere.rerank.requests.length, 9);
    } finally {
      await plain.close();
      await dossier.close();
    }
  });

  it('rerank: false keeps the fused order for one search', async () => {
    const plain = await open();
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      cohere.rerank.otherwise(reversed);
      const hits = await dossier.search({ query: 'lighthouse', k: 3, rerank: false });
      assert.deepEqual(hits, await plain.search({ query: 'lighthouse', k: 3 }));
      assert.equal(cohere.rerank.requests.length, 0);
    } finally {
      await plain.close();
      await dossier.close();
    }
  });

  it('documents the reranker leaves out follow in fused order', async () => {
    const plain = await open();
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      const fused = await plain.search({ query: 'lighthouse', k: 4 });
      cohere.rerank.enqueue({ type: 'ranking', order: [2] });
      const hits = await dossier.search({ query: 'lighthouse', k: 4 });
      assert.deepEqual(
        hits.map((hit) => hit.chunkId),
        [fused[2], fused[0], fused[1], fused[3]].map((hit) => hit.chunkId),
      );
      assert.deepEqual(
        hits.map((hit) => hit.rerankScore !== undefined),
        [true, false, false, false],
      );
    } finally {
      await plain.close();
      await dossier.close();
    }
  });

  it('takes any Reranker object', async () => {
    const calls: string[] = [];
    const last: Reranker = {
      id: 'test:last-first',
      rerank: async (query, documents) => (calls.push(query), documents.map((_, i) => ({ index: documents.length - 1 - i, score: i }))),
    };
    const dossier = await open({ reranker: last });
    try {
      const hits = await dossier.search({ query: 'lighthouse', k: 2 });
      assert.equal(hits.length, 2);
      assert.deepEqual(calls, ['lighthouse']);
      assert.equal(dossier.retriever.reranker?.id, 'test:last-first');
    } finally {
      await dossier.close();
    }
  });

  it('a failing reranker fails the search with its name, never silently', async () => {
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      cohere.rerank.enqueue({ type: 'status', status: 500, headers: { 'retry-after': '0' } }, 3);
      await assert.rejects(dossier.search({ query: 'lighthouse', k: 2 }), {
        code: 'remote-failed',
        message: /^reranker cohere:rerank-test failed: HTTP 500: scripted 500 \(gave up after 3 attempts\)$/,
      });
    } finally {
      await dossier.close();
    }
  });

  it('a bad spec or a missing key fails createDossier with one config line', async () => {
    await assert.rejects(open({ reranker: 'cohere:rerank-test', env: {} }), {
      code: 'config',
      message: 'COHERE_API_KEY is not set (needed for reranker cohere:rerank-test)',
    });
    await assert.rejects(open({ reranker: 'offline' }), { code: 'config', message: /^there is no offline reranker/ });
    await assert.rejects(open({ env: { DOSSIER_RERANKER: 'openai:gpt-4o' } }), {
      code: 'config',
      message: /^provider "openai" has no rerankers/,
    });
    const fromEnv = await open({ env: { ...env(), DOSSIER_RERANKER: 'cohere:from-env' } });
    assert.equal(fromEnv.retriever.reranker?.id, 'cohere:from-env');
    await fromEnv.close();
  });
});

describe('reranking: the agent and the surfaces', () => {
  it("the agent's searches go through the reranker (the Knowledge port's retriever)", async () => {
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      const result = await dossier.ask({ question: 'What lets a lighthouse lamp be seen far out at sea?' });
      assert.ok(cohere.rerank.requests.length >= 1, 'the agent searched through the reranker');
      assert.ok(result.citations.length > 0);
    } finally {
      await dossier.close();
    }
  });

  it("a failing reranker reaches the agent's run as a tool error naming it", async () => {
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    try {
      cohere.rerank.otherwise({ type: 'status', status: 401 });
      const events: { type: string; [key: string]: unknown }[] = [];
      await dossier.ask({
        question: 'What lets a lighthouse lamp be seen far out at sea?',
        onEvent: (event) => void events.push(event as never),
      });
      const results = events.filter((event) => event.type === 'tool-result');
      assert.ok(results.length > 0);
      assert.match(JSON.stringify(results), /reranker cohere:rerank-test failed: HTTP 401/);
    } finally {
      await dossier.close();
    }
  });

  it('dossier search --reranker reorders and reports rerankScore; a bad spec is one line and exit 1', async () => {
    cohere.rerank.enqueue(reversed);
    const search = await runCli(['search', 'lighthouse lamp', '--k', '2', '--reranker', 'cohere:rerank-test', '--db', db, '--json'], {
      env: env(),
    });
    assert.equal(search.status, 0, search.stderr);
    assert.equal(search.json.hits.length, 2);
    assert.equal(typeof search.json.hits[0].rerankScore, 'number');
    assert.equal(typeof search.json.hits[0].score, 'number');
    assert.equal(cohere.rerank.requests.length, 1);
    const bad = await runCli(['search', 'lighthouse', '--reranker', 'offline', '--db', db, '--json'], { env: env() });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /there is no offline reranker/);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  });

  it('dossier eval beir --reranker ranks with the reranker (an echo changes nothing, a reversal lowers nDCG)', async () => {
    const { dir: beir, cleanup: removeBeir } = tempDir('dossier-rerank-beir-');
    try {
      writeTinyBeir(beir, [{ id: 'q1', text: 'aspirin heart attack adults', relevant: 'd1' }]);
      const args = ['eval', 'beir', beir, '--split', 'test', '--mode', 'vector', '--db', join(beir, 'index.db'), '--json'];
      const plain = await runCli(args);
      assert.equal(plain.status, 0, plain.stderr);
      assert.equal(plain.json['ndcg@10'], 1);
      const echoed = await runCli([...args, '--reranker', 'cohere:rerank-test'], { env: env() });
      assert.equal(echoed.json['ndcg@10'], 1);
      cohere.rerank.enqueue(reversed);
      const reversedRun = await runCli([...args, '--reranker', 'cohere:rerank-test'], { env: env() });
      assert.equal(reversedRun.status, 0, reversedRun.stderr);
      assert.ok(reversedRun.json['ndcg@10'] < 1, `nDCG@10 ${reversedRun.json['ndcg@10']}`);
      assert.equal(cohere.rerank.requests.length, 2);
    } finally {
      removeBeir();
    }
  });

  it('dossier eval hotpotqa --reranker sends its searches to the reranker', async () => {
    const { dir: hotpot, cleanup: removeHotpot } = tempDir('dossier-rerank-hotpot-');
    try {
      const row = {
        question_id: 'q1',
        question_text: 'What lets a lighthouse lamp be seen far out at sea?',
        answers_objects: [{ spans: ['A Fresnel lens'] }],
        contexts: FACTS.map(([title, text]) => ({ title, paragraph_text: text, is_supporting: title === 'Lighthouse lenses' })),
      };
      writeFileSync(join(hotpot, 'dev.jsonl'), `${JSON.stringify(row)}\n`);
      const result = await runCli(['eval', 'hotpotqa', join(hotpot, 'dev.jsonl'), '--reranker', 'cohere:rerank-test', '--json'], {
        env: env(),
      });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.json.questions, 1);
      assert.ok(cohere.rerank.requests.length >= 2, `${cohere.rerank.requests.length} rerank requests`);
      const bad = await runCli(['eval', 'hotpotqa', join(hotpot, 'dev.jsonl'), '--reranker', 'cohere:rerank-test', '--json'], {
        env: { ...env(), COHERE_API_KEY: '' },
      });
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /COHERE_API_KEY is not set/);
    } finally {
      removeHotpot();
    }
  });

  it('--help says what --reranker takes and that offline there is none', async () => {
    for (const args of [['--help'], ['search', '--help'], ['serve', '--help']]) {
      const help = await runCli(args);
      assert.equal(help.status, 0);
      assert.match(help.stdout, /--reranker S/);
      assert.match(help.stdout, /cohere:<model>/);
      assert.match(help.stdout, /cohere-compatible:<model>/);
      assert.match(help.stdout, /Offline\s+there\s+is\s+no\s+reranker/);
    }
  });

  it('the HTTP API searches through the reranker', async () => {
    const dossier = await open({ reranker: 'cohere:rerank-test' });
    const { dir: stateDir, cleanup: removeState } = tempDir('dossier-rerank-serve-');
    const server = await startServer({ dossier, db: join(stateDir, 'server.db'), port: 0, uploadsDir: join(stateDir, 'uploads') });
    try {
      assert.equal(cohere.rerank.requests.length, 0, 'the warm-up search does not call the reranker');
      cohere.rerank.enqueue(reversed);
      const response = await fetch(`${server.url}/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'lighthouse lamp', k: 2 }),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { hits: { rerankScore?: number }[] };
      assert.equal(body.hits.length, 2);
      assert.equal(body.hits[0].rerankScore, 1);
      assert.equal(cohere.rerank.requests.length, 1);
    } finally {
      await server.close();
      await dossier.close();
      removeState();
    }
  });
});
