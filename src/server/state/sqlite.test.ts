import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverStateContract } from './contract.ts';
import { SqliteServerState } from './sqlite.ts';

// The ServerState contract on SQLite: a state in an index file of its own, in a temp folder, per test.
serverStateContract(
  'SqliteServerState',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-server-state-'));
    const state = new SqliteServerState(join(dir, 'index.db'));
    return {
      state,
      rows: async (table) => state.db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>,
      async cleanup() {
        await state.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { queue: false, sharedRateLimit: false },
);
