import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { runCli, tempDir } from './helpers.ts';

describe('dossier ask / replay', () => {
  it('answers offline with cited sources, as JSON and as streamed text, and replays a trace', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', join(REGRESSION_DIR, 'corpus'), '--db', db])).status, 0);

      const json = await runCli(['ask', 'Who leads the team that built the Tern-4 salinity sensor?', '--db', db, '--json']);
      assert.equal(json.status, 0, json.stderr);
      for (const key of ['answer', 'citations', 'unresolvedCitations', 'finishReason', 'steps', 'toolCalls', 'usage'])
        assert.ok(key in json.json, `ask --json has ${key}`);
      assert.match(json.json.answer, /Ingrid Maalen/);
      assert.equal(json.json.finishReason, 'stop');
      for (const key of ['id', 'chunkId', 'documentId', 'title', 'text']) assert.ok(key in json.json.citations[0], `citation has ${key}`);
      assert.deepEqual(json.json.unresolvedCitations, []);

      const trace = join(dir, 'run.jsonl');
      const human = await runCli(['ask', 'When was Halvorsen Instruments founded?', '--db', db, '--trace', trace, '--max-steps', '4']);
      assert.equal(human.status, 0, human.stderr);
      assert.match(human.stdout, /1987/);
      assert.match(human.stdout, /Sources\n\s+\[E\d+\] Halvorsen Instruments: company history/);
      assert.match(human.stdout, /finish: stop/);
      assert.match(human.stderr, /→ search_knowledge/, 'tool activity is shown on stderr');
      const lines = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(lines[0].type, 'run-start');
      assert.equal(lines.at(-1).type, 'run-finish');
      assert.ok(lines.some((l) => l.type === 'tool-result' && typeof l.ms === 'number' && l.summary));
      assert.ok(lines.some((l) => l.type === 'model-output' && l.usage));

      const replay = await runCli(['replay', trace, '--db', db, '--json']);
      assert.equal(replay.status, 0, replay.stderr);
      assert.equal(replay.json.same, true);
      assert.match(replay.json.answer, /1987/);
    } finally {
      cleanup();
    }
  });

  it('reports bad asks in one line', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      await new SqliteStore(db).close(); // an empty index
      const cases: [string[], number, RegExp][] = [
        [['ask', '--db', db], 2, /ask needs a question/],
        [['ask', 'x', '--mode', 'deep', '--db', db], 2, /--mode must be rag or research/],
        [['ask', 'x', '--reasoning-model', 'offline', '--db', db], 2, /--reasoning-model needs --mode research/],
        [['ask', 'x', '--max-steps', '0', '--db', db], 2, /--max-steps must be an integer/],
        [['ask', 'x', '--context-tokens', '50', '--db', db], 2, /--context-tokens must be an integer/],
        [['ask', 'x', '--model', 'openai:gpt-x', '--db', db], 1, /OPENAI_API_KEY/],
        [['ask', 'x', '--model', 'acme:y', '--db', db], 1, /unknown .*provider "acme"/],
        [['replay', join(dir, 'missing.jsonl'), '--db', db], 1, /trace file not found/],
      ];
      for (const [args, status, message] of cases) {
        const result = await runCli(args, { env: { OPENAI_API_KEY: '' } });
        assert.equal(result.status, status, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.match(result.stderr, message);
      }
      const empty = await runCli(['ask', 'What is the refund policy?', '--db', db, '--json']);
      assert.equal(empty.status, 0);
      assert.equal(empty.json.finishReason, 'no-evidence');
      assert.match(empty.json.answer, /not found/i);
    } finally {
      cleanup();
    }
  });
});

describe('dossier ask: not found', () => {
  it('says "not found" with finish reason no-evidence and lists the closest passages beside it, never as sources', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', join(REGRESSION_DIR, 'corpus'), '--db', db])).status, 0);
      const question = 'Which Halvorsen sensor was sent to the Moon?';
      const json = await runCli(['ask', question, '--db', db, '--json']);
      assert.equal(json.status, 0, json.stderr);
      assert.equal(json.json.finishReason, 'no-evidence');
      assert.match(json.json.answer, /^Not found in the documents/);
      assert.deepEqual(json.json.citations, []);
      const closest = json.json.closestPassages;
      assert.ok(Array.isArray(closest) && closest.length > 0 && closest.length <= 3, JSON.stringify(closest));
      const store = new SqliteStore(db);
      try {
        for (const passage of closest) {
          const [stored] = await store.getChunks({ collections: '*' }, [passage.chunkId]);
          assert.ok(stored, `closest passage ${passage.id} resolves to chunk ${passage.chunkId}`);
          assert.equal(stored.text, passage.text);
        }
      } finally {
        await store.close();
      }
      const human = await runCli(['ask', question, '--db', db]);
      assert.match(human.stdout, /Closest passages \(not an answer\)\n\s+\S/);
      assert.doesNotMatch(human.stdout, /^Sources$/m);
      assert.match(human.stdout, /finish: no-evidence/);
    } finally {
      cleanup();
    }
  });
});

describe('dossier ingest --model', () => {
  it('writes document descriptions with the configured model, over the real OpenAI-compatible client', async () => {
    const { startOpenAIServer } = await import('../src/testing/protocol-server/openai.ts');
    const { createDossier } = await import('../src/dossier.ts');
    const server = await startOpenAIServer();
    const { dir, cleanup } = tempDir();
    try {
      server.chat.enqueue({ type: 'text', text: 'Description: The staff directory lists the three engineering teams and their leads.' });
      const db = join(dir, 'index.db');
      const result = await runCli(
        ['ingest', join(REGRESSION_DIR, 'corpus', 'staff-directory.md'), '--db', db, '--model', 'openai-compatible:describer', '--json'],
        {
          env: { DOSSIER_BASE_URL: server.baseURL },
        },
      );
      assert.equal(result.status, 0, result.stderr);
      const dossier = await createDossier({ db });
      const [document] = await dossier.store.listDocuments({ collections: '*' });
      assert.equal(document.description, 'The staff directory lists the three engineering teams and their leads.');
      assert.equal(
        (await dossier.store.searchDescriptions({ collections: '*' }, dossier.tokenizer.terms('engineering teams leads'), { k: 1 }))[0]
          .documentId,
        document.id,
      );
      await dossier.close();
    } finally {
      await server.close();
      cleanup();
    }
  });

  it('says once how many descriptions fell back to the extractive one, and why', async () => {
    const { startOpenAIServer, openaiError } = await import('../src/testing/protocol-server/openai.ts');
    const server = await startOpenAIServer();
    const { dir, cleanup } = tempDir();
    try {
      // Every description request is refused (401 is not retried): the documents still ingest.
      server.chat.enqueue({ type: 'status', status: 401, body: openaiError(401, 'invalid api key') }, 100);
      const result = await runCli(
        ['ingest', join(REGRESSION_DIR, 'corpus'), '--db', join(dir, 'index.db'), '--model', 'openai-compatible:describer', '--json'],
        {
          env: { DOSSIER_BASE_URL: server.baseURL },
        },
      );
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.json.ingested, 7);
      assert.deepEqual([result.json.descriptions.written, result.json.descriptions.fallbacks], [0, 7]);
      assert.match(result.json.descriptions.reason, /HTTP 401/);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0], /^dossier: 7 of 7 descriptions fell back to the extractive one \(.*HTTP 401.*\)$/);
    } finally {
      await server.close();
      cleanup();
    }
  });
});
