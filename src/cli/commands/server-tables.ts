import Database from 'better-sqlite3';
import { DossierError } from '../../errors/index.ts';
import { loadPg } from '../../store/postgres/driver.ts';

/**
 * The server's tables (src/server/state.ts) moving with an index from its SQLite file to PostgreSQL,
 * row for row: ids, key hashes, timestamps and stored events as they are (going through the
 * ServerState API would mint new ids and keys). The PostgreSQL tables are made by the server's own
 * migrations (state-postgres.ts); here they are only filled.
 */

/** In foreign-key order: users before their keys and memberships, conversations before messages, runs before events. */
export const SERVER_TABLES = [
  'srv_users',
  'srv_keys',
  'srv_members',
  'srv_conversations',
  'srv_messages',
  'srv_runs',
  'srv_run_events',
  'srv_jobs',
] as const;

/** Rows per server table in a SQLite file; only the tables that are there. */
export function sqliteServerRows(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const present = new Set(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'srv_%'").pluck().all() as string[],
    );
    return Object.fromEntries(
      SERVER_TABLES.filter((t) => present.has(t)).map((t) => [t, db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number]),
    );
  } finally {
    db.close();
  }
}

/** Rows per server table in a PostgreSQL database (tables not there count 0). */
export async function pgServerRows(url: string): Promise<Record<string, number>> {
  const client = new (await loadPg()).Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, number> = {};
    for (const table of SERVER_TABLES) {
      const present = (await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [table])).rows[0].present as boolean;
      out[table] = present ? Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n) : 0;
    }
    return out;
  } finally {
    await client.end();
  }
}

const BATCH = 500;

/**
 * Copies every server row from `file` into the (empty) server tables at `url` in one transaction,
 * then checks the row count of every table; returns them.
 */
export async function copyServerTables(file: string, url: string): Promise<Record<string, number>> {
  const source = sqliteServerRows(file);
  // The server's own migrations make the tables (and record their schema version).
  const { openServerState } = await import('../../server/state/index.ts');
  await (await openServerState(url)).close();
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  const client = new (await loadPg()).Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const table of SERVER_TABLES) {
      if (!(table in source)) continue;
      const types = new Map(
        (
          (
            await client.query(
              'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
              [table],
            )
          ).rows as { column_name: string; data_type: string }[]
        ).map((r) => [r.column_name, r.data_type]),
      );
      const columns = (sqlite.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).filter((name) => types.has(name));
      // SQLite keeps booleans as 0/1 (srv_users.admin); PostgreSQL's column is boolean.
      const convert = columns.map((name) =>
        types.get(name) === 'boolean' ? (v: unknown) => (v === null ? null : Boolean(v)) : (v: unknown) => v,
      );
      let batch: unknown[][] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const params: unknown[] = [];
        const values = batch.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(', ')})`).join(', ');
        await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`, params);
        batch = [];
      };
      for (const row of sqlite
        .prepare(`SELECT ${columns.join(', ')} FROM ${table}`)
        .raw()
        .iterate() as Iterable<unknown[]>) {
        batch.push(row.map((value, i) => convert[i](value)));
        if (batch.length === BATCH) await flush();
      }
      await flush();
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new DossierError('store-failed', `copying the server tables failed (nothing of them was written): ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    sqlite.close();
    await client.end();
  }
  const target = await pgServerRows(url);
  for (const [table, rows] of Object.entries(source)) {
    if (target[table] !== rows)
      throw new DossierError('store-failed', `server table ${table} has ${target[table]} rows in the target, ${rows} in the source`);
  }
  return source;
}
