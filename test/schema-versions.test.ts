import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createDossier } from '../src/dossier.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { startServer } from '../src/server/index.ts';
import { type PgServerState, SERVER_MIGRATIONS, SERVER_SCHEMA_VERSION } from '../src/server/state/postgres.ts';
import { openServerState, SQLITE_SERVER_SCHEMA_VERSION, SqliteServerState } from '../src/server/state/index.ts';
import { PgStore } from '../src/store/postgres/pg-store.ts';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../src/store/postgres/schema.ts';
import { freshDatabase } from '../src/store/postgres/test-database.ts';
import { runCli, tempDir } from './helpers.ts';
import { startScriptedModel, type ScriptedModel } from './scripted-model.ts';

// A node started on a database made by an older Dossier migrates it (once, whichever node is
// first) and works; one made by a newer Dossier is refused in one line naming both versions. The
// index (store) and the server tables are versioned separately, on both backends.

const json = async (response: Response) => (await response.json()) as any;
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const oneLineNaming = (found: number, reads: number) => (error: unknown) => {
  const message = (error as Error).message;
  assert.doesNotMatch(message, /\n/);
  assert.match(message, new RegExp(`schema version ${found}, newer than this Dossier reads \\(${reads}\\)`));
  return true;
};

/** A run an older node left running, before runs had leases: recovery must close it. */
const OLD_RUN = 'old-run';

describe('server tables on SQLite', () => {
  // The migrated server's ask is answered by the scripted model (test/scripted-model.ts).
  let model: ScriptedModel;
  before(async () => (model = await startScriptedModel()));
  after(async () => model.close());

  it('a file from before versioning and leases is migrated on start: the columns added, an old running run closed, the server works', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'index.db');
      const dossier = await createDossier({ db: file, env: { ...process.env, ...model.env } });
      await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
      // Made current, then set back to the layout of a Dossier without srv_meta or leases.
      await new SqliteServerState(file).close();
      const raw = new Database(file);
      raw.exec(`DROP INDEX srv_runs_running; ALTER TABLE srv_runs DROP COLUMN node; ALTER TABLE srv_runs DROP COLUMN lease_until;
        ALTER TABLE srv_jobs DROP COLUMN worker; ALTER TABLE srv_jobs DROP COLUMN lease_until; DROP TABLE srv_meta;`);
      raw.prepare("INSERT INTO srv_users (id, name, admin, created_at) VALUES ('u1', 'local', 1, '2026-01-01T00:00:00.000Z')").run();
      raw
        .prepare(
          "INSERT INTO srv_runs (id, user_id, question, mode, status, created_at) VALUES (?, 'u1', 'q', 'rag', 'running', '2026-01-01T00:00:00.000Z')",
        )
        .run(OLD_RUN);
      raw.close();

      const server = await startServer({ dossier, db: file, port: 0 });
      try {
        const check = new Database(file, { readonly: true });
        const columns = (table: string) => (check.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
        assert.ok(columns('srv_runs').includes('node') && columns('srv_runs').includes('lease_until'));
        assert.ok(columns('srv_jobs').includes('worker') && columns('srv_jobs').includes('lease_until'));
        assert.equal(
          (check.prepare("SELECT value FROM srv_meta WHERE key = 'schema_version'").get() as { value: string }).value,
          String(SQLITE_SERVER_SCHEMA_VERSION),
        );
        check.close();
        const old = await json(await fetch(`${server.url}/v1/runs/${OLD_RUN}`));
        assert.deepEqual([old.status, old.finishReason], ['failed', 'error']);
        const search = await post(`${server.url}/v1/search`, { query: 'Tern-4 sea trial', k: 3 });
        assert.equal(search.status, 200);
        assert.match(JSON.stringify(await json(search)), /Hardangerfjord/);
        const ask = await json(await post(`${server.url}/v1/ask`, { question: 'Where did the Tern-4 sea trial take place?' }));
        assert.deepEqual([ask.finishReason, ask.answer], ['stop', model.answersTo('Where did the Tern-4 sea trial take place?')[0]]);
        // A second open finds nothing left to do.
        const again = new SqliteServerState(file);
        assert.deepEqual(again.migrated, []);
        await again.close();
      } finally {
        await server.close();
        await dossier.close();
      }
    } finally {
      cleanup();
    }
  });

  it('server tables from a newer Dossier are refused in one line naming both versions, by the state and by dossier serve', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'index.db');
      await (await createDossier({ db: file })).close();
      await new SqliteServerState(file).close();
      const raw = new Database(file);
      raw.prepare("UPDATE srv_meta SET value = ? WHERE key = 'schema_version'").run(String(SQLITE_SERVER_SCHEMA_VERSION + 1));
      raw.close();
      assert.throws(() => new SqliteServerState(file), oneLineNaming(SQLITE_SERVER_SCHEMA_VERSION + 1, SQLITE_SERVER_SCHEMA_VERSION));
      const served = await runCli(['serve', '--port', '0', '--db', file]);
      assert.notEqual(served.status, 0);
      assert.equal(served.stderr.trim().split('\n').length, 1, served.stderr);
      assert.match(
        served.stderr,
        new RegExp(
          `schema version ${SQLITE_SERVER_SCHEMA_VERSION + 1}, newer than this Dossier reads \\(${SQLITE_SERVER_SCHEMA_VERSION}\\)`,
        ),
      );
    } finally {
      cleanup();
    }
  });
});

const SKIP = process.env.DOSSIER_TEST_PG
  ? false
  : 'DOSSIER_TEST_PG is unset: no PostgreSQL cluster for the schema tests (bash scripts/postgres-test-cluster.sh start)';

/** One transaction on a pool of its own, closed after. */
async function withClient(url: string, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } finally {
    client.release();
    await pool.end();
  }
}

describe('schema versions on PostgreSQL', { skip: SKIP }, () => {
  it('an index at schema 1 is migrated exactly once by four nodes opening it at once, and then works', async () => {
    const db = await freshDatabase();
    try {
      // What a Dossier with only the first migration left behind.
      await withClient(db.url, async (client) => {
        await client.query('CREATE EXTENSION IF NOT EXISTS vector');
        await client.query('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
        await PG_MIGRATIONS[0]!.up(client);
        await client.query("INSERT INTO meta (key, value) VALUES ('schema_version', '1')");
      });
      const stores = await Promise.all(Array.from({ length: 4 }, () => PgStore.open(db.url)));
      try {
        const pending = PG_MIGRATIONS.filter((m) => m.version > 1).map((m) => m.version);
        assert.deepEqual(
          stores.map((s) => s.migrated).sort((x, y) => y.length - x.length),
          [pending, [], [], []],
          'one node migrated, the others found it done',
        );
      } finally {
        for (const store of stores) await store.close();
      }
      const dossier = await createDossier({ db: db.url });
      try {
        await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
        const hits = await dossier.search({ query: 'Tern-4 sea trial', k: 3, scope: { collections: '*' } });
        assert.match(JSON.stringify(hits[0]), /Hardangerfjord/);
      } finally {
        await dossier.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('an index with a newer schema is refused in one line naming both versions (read-write and read-only)', async () => {
    const db = await freshDatabase();
    try {
      await (await PgStore.open(db.url)).close();
      await withClient(
        db.url,
        async (client) =>
          void (await client.query("UPDATE meta SET value = $1 WHERE key = 'schema_version'", [String(PG_SCHEMA_VERSION + 1)])),
      );
      await assert.rejects(() => PgStore.open(db.url), oneLineNaming(PG_SCHEMA_VERSION + 1, PG_SCHEMA_VERSION));
      await assert.rejects(() => PgStore.open(db.url, { readonly: true }), oneLineNaming(PG_SCHEMA_VERSION + 1, PG_SCHEMA_VERSION));
    } finally {
      await db.drop();
    }
  });

  it('server tables from before leases are migrated exactly once by three nodes at once; a node then closes the old running run and works', async () => {
    const db = await freshDatabase();
    try {
      const before = SERVER_MIGRATIONS.filter((m) => m.version < SERVER_SCHEMA_VERSION);
      await withClient(db.url, async (client) => {
        await client.query('CREATE TABLE srv_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
        for (const migration of before) await client.query(migration.sql);
        await client.query("INSERT INTO srv_meta (key, value) VALUES ('schema_version', $1)", [String(before.at(-1)!.version)]);
        await client.query("INSERT INTO srv_users (id, name, admin, created_at) VALUES ('u1', 'local', true, '2026-01-01T00:00:00.000Z')");
        await client.query(
          "INSERT INTO srv_runs (id, user_id, question, mode, status, created_at) VALUES ($1, 'u1', 'q', 'rag', 'running', '2026-01-01T00:00:00.000Z')",
          [OLD_RUN],
        );
      });
      const states = (await Promise.all(Array.from({ length: 3 }, () => openServerState(db.url)))) as PgServerState[];
      try {
        assert.deepEqual(
          states.map((s) => s.migrated).sort((x, y) => y.length - x.length),
          [[SERVER_SCHEMA_VERSION], [], []],
        );
      } finally {
        for (const state of states) await state.close();
      }
      const dossier = await createDossier({ db: db.url });
      await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
      const server = await startServer({ dossier, db: db.url, port: 0, workers: 0 });
      try {
        const old = await json(await fetch(`${server.url}/v1/runs/${OLD_RUN}`));
        assert.deepEqual([old.status, old.finishReason], ['failed', 'error'], 'a run without a lease belongs to no live node');
        assert.equal((await post(`${server.url}/v1/search`, { query: 'Tern-4 sea trial', k: 3 })).status, 200);
        const ask = await post(`${server.url}/v1/ask`, { question: 'Where did the Tern-4 sea trial take place?' });
        assert.equal(ask.status, 200);
        const { runId } = await json(ask);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const row = (await client.query('SELECT node, status FROM srv_runs WHERE id = $1', [runId])).rows[0];
          assert.ok(row?.node, `the new run names its node: ${JSON.stringify(row)}`);
          assert.equal(
            (await client.query("SELECT value FROM srv_meta WHERE key = 'schema_version'")).rows[0].value,
            String(SERVER_SCHEMA_VERSION),
          );
        } finally {
          await client.end();
        }
      } finally {
        await server.close();
        await dossier.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('server tables from a newer Dossier are refused in one line naming both versions, by the state and by dossier serve', async () => {
    const db = await freshDatabase();
    try {
      await (await openServerState(db.url)).close();
      await withClient(
        db.url,
        async (client) =>
          void (await client.query("UPDATE srv_meta SET value = $1 WHERE key = 'schema_version'", [String(SERVER_SCHEMA_VERSION + 1)])),
      );
      await assert.rejects(() => openServerState(db.url), oneLineNaming(SERVER_SCHEMA_VERSION + 1, SERVER_SCHEMA_VERSION));
      const served = await runCli(['serve', '--port', '0', '--db', db.url]);
      assert.notEqual(served.status, 0);
      assert.equal(served.stderr.trim().split('\n').length, 1, served.stderr);
      assert.match(
        served.stderr,
        new RegExp(`schema version ${SERVER_SCHEMA_VERSION + 1}, newer than this Dossier reads \\(${SERVER_SCHEMA_VERSION}\\)`),
      );
    } finally {
      await db.drop();
    }
  });
});
