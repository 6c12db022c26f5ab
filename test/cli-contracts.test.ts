import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { REPO_ROOT, runCli, runCliProcess, startCli, tempDir } from './helpers.ts';

const corpus = join(REGRESSION_DIR, 'corpus');

describe('dossier CLI contracts', () => {
  it('lists documents with the documented keys, ingests metadata and syncs removed files', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const files = join(dir, 'files');
      mkdirSync(files);
      for (const name of ['a.md', 'b.md', 'c.md']) writeFileSync(join(files, name), `# ${name}\n\nThe ${name} notes mention lighthouses.`);
      const ingest = await runCli([
        'ingest',
        files,
        '--db',
        db,
        '--collection',
        'notes',
        '--metadata',
        'year=2024',
        '--metadata',
        'team=coast',
        '--json',
      ]);
      assert.equal(ingest.status, 0, ingest.stderr);
      assert.deepEqual([ingest.json.ingested, ingest.json.removed], [3, 0]);
      const listed = await runCli(['list', '--db', db, '--json']);
      assert.equal(listed.status, 0, listed.stderr);
      assert.equal(listed.json.documents.length, 3);
      for (const key of ['id', 'collection', 'title', 'source', 'mediaType', 'chunks', 'updatedAt', 'metadata'])
        assert.ok(key in listed.json.documents[0], `list has ${key}`);
      assert.deepEqual(listed.json.documents[0].metadata, { year: 2024, team: 'coast' });
      assert.equal(listed.json.documents[0].collection, 'notes');
      const filtered = await runCli(['search', 'lighthouses', '--db', db, '--filter', '{"metadata.year":2024}', '--json']);
      assert.equal(filtered.json.hits.length, 3);

      rmSync(join(files, 'b.md'));
      const withoutSync = await runCli(['ingest', files, '--db', db, '--collection', 'notes', '--json']);
      assert.deepEqual([withoutSync.json.skipped, withoutSync.json.removed], [2, 0], 'without --sync nothing is removed');
      const synced = await runCli(['ingest', files, '--db', db, '--collection', 'notes', '--sync', '--json']);
      assert.deepEqual([synced.json.skipped, synced.json.removed], [2, 1]);
      const after = await runCli(['list', '--db', db, '--collection', 'notes', '--json']);
      assert.deepEqual(after.json.documents.map((d: { title: string }) => d.title).sort(), ['a.md', 'c.md']);
    } finally {
      cleanup();
    }
  });

  it('names the existing collections when asked for an unknown one, and validates names at ingest', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db, '--collection', 'company'])).status, 0);
      for (const args of [['search', 'sensor'], ['ask', 'Who built the sensor?'], ['list']]) {
        const result = await runCli([...args, '--db', db, '--collection', 'compnay', '--json']);
        assert.equal(result.status, 1, args.join(' '));
        assert.equal(result.json.error.code, 'not-found');
        assert.match(result.stderr, /^dossier: unknown collection "compnay"; existing: company\n$/);
      }
      const bad = await runCli(['ingest', corpus, '--db', db, '--collection', '../etc']);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /^dossier: collection name "\.\.\/etc" is not allowed/);
    } finally {
      cleanup();
    }
  });

  it('gives one clear line and exit code 2 for extra or malformed arguments', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      const cases: [string[], RegExp][] = [
        [['stats', 'extra'], /unexpected argument "extra": this command takes none/],
        [['search', 'x', '--k', '-1'], /--k must be an integer from 1 to 1000, got "-1"/],
        [['search', 'x', '--k', 'abc'], /--k must be an integer from 1 to 1000, got "abc"/],
        [['ask', 'x', '--max-steps', '0'], /--max-steps must be an integer from 1 to 100, got "0"/],
        [['ask', 'x', '--timeout', 'soon'], /--timeout must be a number/],
        [['replay', 'a.jsonl', 'b.jsonl'], /unexpected argument "b.jsonl"/],
        [['search', 'x', '--frobnicate'], /unknown option --frobnicate for "dossier search"/],
        [['ingest', corpus, '--metadata', 'novalue'], /--metadata must be key=value/],
      ];
      for (const [args, message] of cases) {
        const result = await runCli([...args, '--db', db]);
        assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.match(result.stderr, message);
      }
    } finally {
      cleanup();
    }
  });

  it('opens the index read-only for read commands: a non-Dossier SQLite file stays byte-for-byte unchanged', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'other.db');
      const other = new Database(db);
      other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');");
      other.close();
      const before = readFileSync(db);
      for (const args of [['search', 'x'], ['ask', 'x'], ['stats'], ['list'], ['ingest', corpus]]) {
        const result = await runCli([...args, '--db', db]);
        assert.equal(result.status, 1, args.join(' '));
        assert.equal(result.stderr, `dossier: ${db} is a SQLite database but not a Dossier index; pick another --db\n`);
        assert.deepEqual(readFileSync(db), before, `${args[0]} left the file as it was`);
      }
      // Read commands write nothing to a real index either: no WAL switch, no new rows.
      const index = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', index])).status, 0);
      const indexBefore = readFileSync(index);
      for (const args of [['search', 'sensor'], ['ask', 'Who leads the coastal team?'], ['stats'], ['list']])
        assert.equal((await runCli([...args, '--db', index])).status, 0);
      assert.deepEqual(readFileSync(index), indexBefore);
    } finally {
      cleanup();
    }
  });

  it('asks an older index to be migrated by read commands and migrates it with `migrate`', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'old.db');
      copyFileSync(join(REPO_ROOT, 'test/fixtures/legacy-index/v0.1.0.db'), db);
      const search = await runCli(['search', 'salinity', '--db', db, '--json']);
      assert.equal(search.status, 1);
      assert.equal(search.json.error.code, 'needs-migration');
      assert.match(search.stderr, /dossier migrate --db/);
      assert.equal((await runCli(['migrate', '--db', db])).status, 0);
      const after = await runCli(['search', 'salinity', '--db', db, '--json']);
      assert.equal(after.status, 0, after.stderr);
      assert.ok(after.json.hits.length > 0);
    } finally {
      cleanup();
    }
  });

  it('replays only on the index the trace was recorded on, and refuses a truncated trace', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const otherDb = join(dir, 'other.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      assert.equal((await runCli(['ingest', corpus, '--db', otherDb])).status, 0);
      const trace = join(dir, 'run.jsonl');
      assert.equal((await runCli(['ask', 'When was Halvorsen Instruments founded?', '--db', db, '--trace', trace])).status, 0);
      const same = await runCli(['replay', trace, '--db', db, '--json']);
      assert.equal(same.status, 0, same.stderr);
      assert.equal(same.json.same, true);

      const other = await runCli(['replay', trace, '--db', otherDb]);
      assert.equal(other.status, 1);
      assert.match(other.stderr, /^dossier: trace .* was recorded on another index .*; use the --db it ran on\n$/);

      const text = readFileSync(trace, 'utf8');
      const truncated = join(dir, 'cut.jsonl');
      writeFileSync(truncated, text.slice(0, Math.floor(text.length * 0.6)));
      const cut = await runCli(['replay', truncated, '--db', db]);
      assert.equal(cut.status, 1);
      assert.match(cut.stderr, /^dossier: trace .* is truncated/);

      writeFileSync(join(dir, 'extra.md'), '# Extra\n\nA new document changes the index.');
      assert.equal((await runCli(['ingest', join(dir, 'extra.md'), '--db', db])).status, 0);
      const changed = await runCli(['replay', trace, '--db', db]);
      assert.equal(changed.status, 1);
      assert.match(changed.stderr, /the index changed since trace/);
    } finally {
      cleanup();
    }
  });

  it('fails a run whose model cannot be reached: exit 1, finish reason error, never "not found"', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      // A loopback port that was just free: nothing listens there, so the connection is refused at once.
      const probe = createServer().listen(0, '127.0.0.1');
      await once(probe, 'listening');
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const started = performance.now();
      const result = await runCli(
        ['ask', 'Who leads the coastal team?', '--db', db, '--model', 'openai-compatible:nobody-home', '--json'],
        {
          env: { DOSSIER_BASE_URL: `http://127.0.0.1:${port}/v1` },
        },
      );
      const seconds = (performance.now() - started) / 1000;
      assert.equal(result.status, 1, result.stderr);
      assert.equal(result.json.finishReason, 'error');
      assert.equal(result.json.error.code, 'remote-unreachable');
      assert.doesNotMatch(result.json.answer, /not found in the documents/i);
      assert.ok(seconds <= 2, `connection refused took ${seconds.toFixed(2)} s`);
      assert.match(result.stderr, /dossier: the run failed: /);
    } finally {
      cleanup();
    }
  });
});

describe('dossier ask --timeout', () => {
  it('bounds a model server that never answers, by flag or by DOSSIER_MODEL_TIMEOUT', async () => {
    const { startOpenAIServer } = await import('../src/testing/protocol-server/openai.ts');
    const server = await startOpenAIServer();
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      for (const [flags, env] of [
        [['--timeout', '0.5'], {}],
        [[], { DOSSIER_MODEL_TIMEOUT: '0.5' }],
      ] as const) {
        server.chat.enqueue({ type: 'hang' }, 10);
        const started = performance.now();
        const result = await runCli(
          ['ask', 'Who leads the coastal team?', '--db', db, '--model', 'openai-compatible:slow', ...flags, '--json'],
          {
            env: { DOSSIER_BASE_URL: server.baseURL, ...env },
          },
        );
        const seconds = (performance.now() - started) / 1000;
        assert.equal(result.status, 1, result.stderr);
        assert.deepEqual([result.json.finishReason, result.json.error.code], ['error', 'remote-timeout']);
        assert.ok(seconds < 3, `a 0.5 s timeout ended the run after ${seconds.toFixed(2)} s`);
      }
      const bad = await runCli(['ask', 'x', '--db', db], { env: { DOSSIER_MODEL_TIMEOUT: 'soon' } });
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /^dossier: model timeout must be a positive number of seconds, got "soon"\n$/);
    } finally {
      await server.close();
      cleanup();
    }
  });
});

describe('dossier binary', () => {
  it('prints its version', async () => {
    const result = await runCliProcess(['--version']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
  });

  it('ends quietly when its reader closes the pipe (dossier stats | head -1)', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      const child = startCli(['list', '--db', db]);
      child.stdout.destroy(); // the reader goes away before the first line
      let stderr = '';
      child.stderr.on('data', (data) => (stderr += data));
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(stderr, '', 'no stack trace, no EPIPE message');
      assert.equal(status, 0);
    } finally {
      cleanup();
    }
  });
});
