import type { ServerState } from './types.ts';
import { isPostgresUrl } from './types.ts';
import { SqliteServerState } from './sqlite.ts';

export * from './types.ts';
export { SqliteServerState, SQLITE_SERVER_SCHEMA_VERSION } from './sqlite.ts';

/** The server state beside the index named by `db`: a PostgreSQL URL or an SQLite file. */
export async function openServerState(db: string): Promise<ServerState> {
  if (isPostgresUrl(db)) {
    const { PgServerState } = await import('./postgres.ts');
    return PgServerState.open(db);
  }
  return new SqliteServerState(db);
}
