// Golden outputs (src/eval/golden.ts, eval/golden/): the answers of the quick development sets, the
// CLI's --json shapes, /openapi.json and the core HTTP responses must be exactly as recorded. A move
// that should change nothing proves it here; a change that moves one records it with
// `GOLDEN_WRITE=1 node --import tsx --test test/golden.test.ts` in a commit that says why.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GOLDEN_DIR, GOLDEN_SETS, goldenDiff, readGolden, writeGolden } from '../src/eval/golden.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { REPO_ROOT, runCli, SHARED_DATA, tempDir } from './helpers.ts';

const WRITE = process.env.GOLDEN_WRITE === '1';

/** The shape of a JSON value: its keys and their types, values left out (an array: the distinct shapes of its items). */
function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const shapes = new Map(value.map((item) => [JSON.stringify(shapeOf(item)), shapeOf(item)]));
    return [...shapes.values()];
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
    );
  }
  return typeof value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
const TIMING = /^(?:ms|seconds|created|latencyMs)$|Ms$/;

/** A response with what differs on every run (ids, clocks, timings) masked; everything else compared exactly. */
function stable(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => stable(item));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stable(v, k)]));
  if (typeof value === 'string' && (UUID.test(value) || ISO_TIME.test(value))) return `<${UUID.test(value) ? 'uuid' : 'time'}>`;
  if (typeof value === 'string' && value.startsWith(REPO_ROOT)) return `<checkout>${value.slice(REPO_ROOT.length)}`;
  if (typeof value === 'number' && TIMING.test(key)) return '<timing>';
  return value;
}

function compareOrWrite(file: string, actual: unknown) {
  const path = join(GOLDEN_DIR, file);
  if (WRITE || !existsSync(path)) {
    writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
    if (!WRITE) assert.fail(`${file} had no golden file; one was written: review and commit it`);
    return;
  }
  assert.deepEqual(actual, JSON.parse(readFileSync(path, 'utf8')), `${file} differs from its golden file`);
}

describe('golden answers of the development sets', () => {
  let pools: { dir: string; cleanup: () => void };
  before(() => (pools = tempDir('dossier-golden-')));
  after(() => pools.cleanup());
  for (const set of GOLDEN_SETS) {
    const missing = set.needs.find((path) => !existsSync(join(SHARED_DATA, path)));
    const skip = missing ? `${join(SHARED_DATA, missing)} is absent (DOSSIER_DATA_DIR)` : false;
    it(`${set.name}: every answer, citation and finish reason as recorded`, { skip }, async () => {
      const answers = await set.run({ cacheDir: pools.dir });
      const golden = readGolden(set.name);
      if (WRITE || !golden) {
        writeGolden(set.name, answers);
        if (!WRITE) assert.fail(`${set.name} had no golden file; one was written: review and commit it`);
        return;
      }
      assert.deepEqual(goldenDiff(golden, answers), []);
    });
  }
});

describe('golden surfaces: CLI --json shapes, /openapi.json, the core HTTP responses', () => {
  let dir: string;
  let cleanup: () => void;
  before(() => ({ dir, cleanup } = tempDir()));
  after(() => cleanup());

  it('every command keeps its --json keys', async () => {
    const db = join(dir, 'cli.db');
    const trace = join(dir, 'trace.jsonl');
    const script = join(dir, 'sum.py');
    writeFileSync(script, 'print(sum(range(10)))\n');
    const commands: Record<string, string[]> = {
      ingest: ['ingest', join(REGRESSION_DIR, 'corpus'), '--collection', 'company'],
      list: ['list'],
      search: ['search', 'Tern-4 sea trial', '--k', '3'],
      ask: ['ask', 'Where did the Tern-4 sea trial take place?', '--trace', trace],
      'ask (not found)': ['ask', 'What is the favourite colour of the chief executive officer?'],
      'ask (research)': ['ask', 'How many engineers are there in the three engineering teams together?', '--mode', 'research'],
      replay: ['replay', trace],
      stats: ['stats'],
      python: ['python', script],
      'web fetch (refused)': ['web', 'fetch', 'http://127.0.0.1/'],
      'search (bad input)': ['search', 'sensor', '--collection', 'nope'],
      'graph build': ['graph', 'build'],
      'graph entities': ['graph', 'entities', '--query', 'Tern-4', '--limit', '3'],
      'graph show': ['graph', 'show', 'Tern-4'],
      'graph communities': ['graph', 'communities', '--level', '0', '--limit', '2'],
      'search (graph)': ['search', 'Tern-4 sea trial', '--mode', 'graph', '--k', '3'],
    };
    const shapes: Record<string, unknown> = {};
    for (const [name, args] of Object.entries(commands)) {
      const result = await runCli([...args, '--db', db, '--json']);
      assert.ok(result.json !== undefined, `${name}: --json printed no JSON (${result.stderr})`);
      shapes[name] = { exit: result.status, json: shapeOf(result.json) };
    }
    compareOrWrite('cli-json-shapes.json', shapes);
  });

  it('/openapi.json and the core HTTP responses are as recorded', async () => {
    const { createDossier } = await import('../src/dossier.ts');
    const { startServer } = await import('../src/server/index.ts');
    const db = join(dir, 'http.db');
    const dossier = await createDossier({ db });
    await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
    const server = await startServer({ dossier, db, port: 0 });
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: body ? { 'content-type': 'application/json' } : {},
          body: body ? JSON.stringify(body) : undefined,
        });
        const text = await response.text();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        return { status: response.status, body: json as any };
      };
      compareOrWrite('openapi.json', (await call('GET', '/openapi.json')).body);
      const documents = await call('GET', '/v1/documents');
      const first = documents.body.documents[0].id;
      const conversation = await call('POST', '/v1/conversations', { title: 'golden' });
      const responses = {
        health: await call('GET', '/health'),
        documents,
        document: await call('GET', `/v1/documents/${first}`),
        chunks: await call('GET', `/v1/documents/${first}/chunks`),
        search: await call('POST', '/v1/search', { query: 'Tern-4 sea trial', k: 3 }),
        'search (bad input)': await call('POST', '/v1/search', { k: 3 }),
        ask: await call('POST', '/v1/ask', { question: 'Where did the Tern-4 sea trial take place?' }),
        'ask (not found)': await call('POST', '/v1/ask', { question: 'What is the favourite colour of the chief executive officer?' }),
        conversation,
        'ask (in a conversation)': await call('POST', '/v1/ask', {
          question: 'Who founded Halvorsen Instruments?',
          conversationId: conversation.body.id,
        }),
        'chat completions': await call('POST', '/v1/chat/completions', {
          model: 'dossier',
          messages: [{ role: 'user', content: 'How many engineers does the Deep Water Team have?' }],
        }),
        'missing document': await call('GET', '/v1/documents/999999'),
      };
      compareOrWrite('http-smoke.json', stable(responses));
    } finally {
      await server.close();
      await dossier.close();
    }
  });
});
