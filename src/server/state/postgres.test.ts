import { after } from 'node:test';
import pg from 'pg';
import { freshDatabase } from '../../store/postgres/test-database.ts';
import { serverStateContract } from './contract.ts';
import { PgServerState } from './postgres.ts';

// The ServerState contract on PostgreSQL (DOSSIER_TEST_PG names the cluster): one fresh database for
// the suite, dropped at its end; every test opens its own state on it, the srv_* tables emptied first.
const SKIP = process.env.DOSSIER_TEST_PG
  ? false
  : 'DOSSIER_TEST_PG is unset: no PostgreSQL for the ServerState contract (bash scripts/postgres-test-cluster.sh start)';

let database: ReturnType<typeof freshDatabase> | undefined;
after(async () => (await database)?.drop());

/** Runs `sql` on a connection of its own (beside the state's pool). */
async function query(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

serverStateContract(
  'PgServerState',
  async () => {
    const { url } = await (database ??= freshDatabase());
    const state = await PgServerState.open(url); // migrates the first time
    const tables = (
      await query(
        url,
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'srv\\_%' AND tablename <> 'srv_meta'",
      )
    ).map((row) => row.tablename as string);
    await query(url, `TRUNCATE ${tables.join(', ')} CASCADE`);
    return { state, rows: (table) => query(url, `SELECT * FROM ${table}`), cleanup: () => state.close() };
  },
  { skip: SKIP, queue: true, sharedRateLimit: true, refusesNul: true },
);
