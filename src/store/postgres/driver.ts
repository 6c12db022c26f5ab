import type pg from 'pg';
import { DossierError } from '../../errors/index.ts';

export type PgModule = typeof pg;

export const PG_MISSING_MESSAGE = 'PostgreSQL support needs the "pg" package: npm install pg';

/**
 * The `pg` driver, imported only when a postgres:// index is opened: it is an optional peer
 * dependency, so SQLite users need not install it, and a missing one is a one-line config error
 * naming the package. `importPg` is for tests.
 */
export async function loadPg(importPg: () => Promise<{ default: PgModule }> = () => import('pg')): Promise<PgModule> {
  try {
    return (await importPg()).default;
  } catch (error) {
    if (isMissingPg(error)) throw new DossierError('config', PG_MISSING_MESSAGE, { cause: error });
    throw error;
  }
}

/** pg itself not found; a dependency of pg missing is a broken install, reported as it is. */
function isMissingPg(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && /['"]pg['"]/.test(message);
}
