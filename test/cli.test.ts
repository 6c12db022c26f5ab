import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { REPO_ROOT, runCli, sharedDataMissing, SHARED_DATA, startCli, tempDir, writeTinyBeir } from './helpers.ts';
import { SyntheticText } from '../bench/corpus.ts';

describe('dossier CLI', () => {
  it('ingests, searches, reports stats and deletes with the documented JSON keys', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const ingest = await runCli(['ingest', join(REPO_ROOT, 'docs'), '--db', db, '--json']);
      assert.equal(ingest.status, 0, ingest.stderr);
      for (const key of ['ingested', 'skipped', 'failed', 'documents', 'chunks', 'seconds'])
        assert.ok(key in ingest.json, `ingest --json has ${key}`);
      assert.ok(ingest.json.ingested >= 3);
      assert.deepEqual(ingest.json.failed, []);

      const search = await runCli(['search', 'how are vectors searched', '--db', db, '--json', '--k', '3']);
      assert.equal(search.status, 0, search.stderr);
      assert.equal(search.json.hits.length, 3);
      for (const key of ['chunkId', 'documentId', 'title', 'text', 'score']) assert.ok(key in search.json.hits[0], `hit has ${key}`);
      assert.equal(typeof search.json.ms, 'number');
      assert.match(search.json.hits.map((h: { text: string }) => h.text).join(' '), /vector/i);

      for (const mode of ['fulltext', 'vector', 'hybrid']) {
        const result = await runCli(['search', 'offline embedder', '--mode', mode, '--db', db, '--json']);
        assert.equal(result.status, 0, result.stderr);
        assert.ok(result.json.hits.length > 0, `${mode} finds something`);
      }
      const human = await runCli(['search', 'feature hashing', '--db', db]);
      assert.match(human.stdout, /offline-embedder\.md/);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is what is looked for
      assert.doesNotMatch(human.stdout, /\x1b\[/, 'NO_COLOR: no escape codes');

      const stats = await runCli(['stats', '--db', db, '--json']);
      for (const key of ['documents', 'chunks', 'collections', 'bytes', 'embedder'])
        assert.ok(key in stats.json, `stats --json has ${key}`);
      assert.equal(stats.json.documents, ingest.json.documents);
      assert.match(stats.json.embedder.embedderId, /^offline-hashed/);

      const again = await runCli(['ingest', join(REPO_ROOT, 'docs'), '--db', db, '--json']);
      assert.deepEqual([again.json.ingested, again.json.skipped], [0, ingest.json.ingested]);

      const documentId = search.json.hits[0].documentId;
      const deleted = await runCli(['delete', String(documentId), '--db', db, '--json']);
      assert.deepEqual(deleted.json, { deleted: [documentId], notFound: [] });
      assert.equal((await runCli(['stats', '--db', db, '--json'])).json.documents, stats.json.documents - 1);
      const missing = await runCli(['delete', String(documentId), '--db', db, '--json']);
      assert.equal(missing.status, 1);
      assert.deepEqual(missing.json.notFound, [documentId]);
    } finally {
      cleanup();
    }
  });

  it('answers bad input with a one-line reason and a non-zero exit code', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const missing = await runCli(['search', 'x', '--db', join(dir, 'typo.db')]);
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /no index at .*typo\.db; create it with "dossier ingest/);
      assert.ok(!existsSync(join(dir, 'typo.db')), 'a read command never creates an index');
      await new SqliteStore(db).close(); // an empty index
      const cases: [string[], number, RegExp][] = [
        [['search', 'x', '--mode', 'semantic', '--db', db], 2, /--mode must be fulltext, vector, graph or hybrid/],
        [['search', 'x', '--k', '0', '--db', db], 2, /--k must be an integer/],
        [['search', 'x', '--filter', '{bad', '--db', db], 2, /--filter is not valid JSON/],
        [['search', 'x', '--filter', '{"metadata.a":{"$regex":"b"}}', '--db', db], 1, /unknown operator \$regex/],
        [['frobnicate'], 2, /unknown command "frobnicate"/],
        [['ingest', '--db', db], 2, /ingest needs at least one/],
        [['ingest', join(dir, 'nope'), '--db', db], 1, /no such file or directory/],
        [['ingest', join(dir, 'nope'), '--db', join(dir, 'no-such-dir', 'x.db')], 1, /cannot open database/],
        [['eval', 'beir', join(dir, 'nothing'), '--db', db], 1, /BEIR folder not found/],
        [['search', 'x', '--embedder', 'acme:model', '--db', db], 1, /unknown embedder provider "acme"/],
      ];
      for (const [args, status, message] of cases) {
        const result = await runCli(args);
        assert.equal(result.status, status, `${args.join(' ')}: ${result.stderr}`);
        const lines = result.stderr.trim().split('\n');
        assert.equal(lines.length, 1, `one line for ${args.join(' ')}: ${result.stderr}`);
        assert.match(lines[0], message);
      }
      const json = await runCli(['search', 'x', '--mode', 'nope', '--json', '--db', db]);
      assert.match(json.json.error.message, /--mode/);
      assert.equal(json.json.error.code, 'usage');
      const empty = await runCli(['search', 'anything', '--db', db, '--json']);
      assert.equal(empty.status, 0);
      assert.deepEqual(empty.json.hits, []);
    } finally {
      cleanup();
    }
  });

  it('refuses to search an index with a different embedder (real OpenAI-compatible client over HTTP)', async () => {
    const { dir, cleanup } = tempDir();
    const server = await startOpenAIServer({ dimensions: 32 });
    try {
      const db = join(dir, 'index.db');
      writeFileSync(join(dir, 'a.md'), '# Lighthouses\n\nA lighthouse guides ships at night.');
      const env = { DOSSIER_BASE_URL: server.baseURL, DOSSIER_API_KEY: 'test' };
      const ingest = await runCli(['ingest', join(dir, 'a.md'), '--db', db, '--embedder', 'openai-compatible:test-embed', '--json'], {
        env,
      });
      assert.equal(ingest.status, 0, ingest.stderr);
      assert.equal(ingest.json.ingested, 1);
      const search = await runCli(
        ['search', 'ships at night', '--db', db, '--embedder', 'openai-compatible:test-embed', '--mode', 'vector', '--json'],
        { env },
      );
      assert.equal(search.status, 0, search.stderr);
      assert.match(search.json.hits[0].text, /lighthouse/);
      const mismatch = await runCli(['search', 'ships', '--db', db, '--mode', 'vector', '--json']);
      assert.equal(mismatch.status, 1);
      assert.equal(mismatch.json.error.code, 'embedder-mismatch');
      assert.match(mismatch.stderr, /built with embedder openai-compatible:test-embed .* not offline-hashed/);
    } finally {
      await server.close();
      cleanup();
    }
  });

  it('survives SIGKILL mid-ingest: no partial document, nothing committed lost, a rerun completes it', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const files = join(dir, 'files');
      mkdirSync(files);
      const text = new SyntheticText(3);
      const FILES = 500;
      for (let i = 0; i < FILES; i++) {
        writeFileSync(
          join(files, `doc-${String(i).padStart(4, '0')}.txt`),
          Array.from({ length: 30 }, () => text.paragraph()).join('\n\n'),
        );
      }
      const db = join(dir, 'index.db');
      const child = startCli(['ingest', files, '--db', db]);
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      let committed = 0;
      const deadline = Date.now() + 60_000;
      while (committed < 40 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        try {
          const probe = new Database(db, { readonly: true, fileMustExist: true });
          committed = (probe.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
          probe.close();
        } catch {
          // the writer has not created the schema yet
        }
      }
      child.kill('SIGKILL');
      await exited;
      assert.ok(committed >= 40, 'the ingest was killed in the middle');

      const check = new Database(db, { readonly: true });
      const documents = check.prepare('SELECT id, source, text, updated_at FROM documents').all() as {
        id: number;
        source: string;
        text: string;
        updated_at: string;
      }[];
      assert.ok(documents.length < FILES, `killed before the end (${documents.length}/${FILES})`);
      const count = (sql: string) => (check.prepare(sql).get() as { n: number }).n;
      assert.equal(
        count('SELECT count(*) AS n FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)'),
        0,
        'no document without chunks',
      );
      assert.equal(count('SELECT count(*) AS n FROM chunk_vectors'), count('SELECT count(*) AS n FROM chunks'), 'a vector for every chunk');
      assert.equal(
        count('SELECT count(*) AS n FROM chunks_fts'),
        count('SELECT count(*) AS n FROM chunks'),
        'a full-text row for every chunk',
      );
      for (const document of documents) {
        assert.equal(document.text, readFileSync(document.source, 'utf8').trim(), `${document.source} is complete`);
      }
      check.close();

      const rerun = await runCli(['ingest', files, '--db', db, '--json']);
      assert.equal(rerun.status, 0, rerun.stderr);
      assert.equal(rerun.json.skipped, documents.length, 'what was committed is recognised as unchanged');
      assert.equal(rerun.json.ingested, FILES - documents.length);
      assert.deepEqual(rerun.json.failed, []);
      const after = new Database(db, { readonly: true });
      const kept = after.prepare('SELECT id, source, updated_at FROM documents WHERE id = ?');
      for (const document of documents) {
        const row = kept.get(document.id) as { source: string; updated_at: string };
        assert.deepEqual([row.source, row.updated_at], [document.source, document.updated_at], 'committed documents untouched');
      }
      assert.equal((after.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n, FILES);
      after.close();
    } finally {
      cleanup();
    }
  });

  it('evaluates a BEIR-format dataset and prints the documented keys', async () => {
    const { dir, cleanup } = tempDir();
    try {
      writeTinyBeir(dir, [
        { id: 'q1', text: 'aspirin heart attack', relevant: 'd1' },
        { id: 'q2', text: 'cholesterol statins', relevant: 'd2' },
      ]);
      const result = await runCli(['eval', 'beir', dir, '--split', 'test', '--mode', 'hybrid', '--json']);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(
        Object.keys(result.json).sort(),
        ['dataset', 'mode', 'ndcg@10', 'p50Ms', 'p99Ms', 'queries', 'recall@100', 'split'].sort(),
      );
      assert.equal(result.json.queries, 2);
      assert.equal(result.json['ndcg@10'], 1);
      const badSplit = await runCli(['eval', 'beir', dir, '--split', 'dev']);
      assert.match(badSplit.stderr, /no qrels for split "dev"/);
    } finally {
      cleanup();
    }
  });

  it('evaluates SciFact test in hybrid mode above the published BM25 figure', {
    skip: sharedDataMissing('beir-scifact'),
    timeout: 300_000,
  }, async () => {
    const result = await runCli(['eval', 'beir', join(SHARED_DATA, 'beir-scifact'), '--split', 'test', '--mode', 'fulltext', '--json']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.json.queries, 300);
    // Guards against retrieval regressions; the figures themselves are reported in the README.
    assert.ok(result.json['ndcg@10'] > 0.665, `nDCG@10 ${result.json['ndcg@10']}`);
  });
});

describe('index settings', () => {
  it('refuses to search an index with another tokenizer language', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      writeFileSync(join(dir, 'a.md'), 'Die Häuser stehen am Fluss.');
      assert.equal((await runCli(['ingest', join(dir, 'a.md'), '--db', db], { env: { DOSSIER_LANGUAGE: 'german' } })).status, 0);
      assert.equal(
        (await runCli(['search', 'Haus', '--db', db, '--mode', 'fulltext', '--json'], { env: { DOSSIER_LANGUAGE: 'german' } })).json.hits
          .length,
        1,
        'German stemming finds "Häuser" for "Haus"',
      );
      const english = await runCli(['search', 'Haus', '--db', db]);
      assert.equal(english.status, 1);
      assert.match(english.stderr, /built with tokenizer "german", not "english"/);
    } finally {
      cleanup();
    }
  });
});
