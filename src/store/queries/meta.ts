import { DossierError } from '../../errors/index.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { IndexIdentity, IndexInfo } from '../types.ts';

/** `{ value }` of a meta key, or no row. */
export function selectMeta(key: string): Sql {
  return sql`SELECT value FROM meta WHERE key = ${key}`;
}

export function upsertMeta(key: string, value: string): Sql {
  return sql`INSERT INTO meta(key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** Writes a meta key only where none is stored: the first writer wins. */
export function insertMetaIfMissing(key: string, value: string): Sql {
  return sql`INSERT INTO meta(key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO NOTHING`;
}

/** Every write moves the generation on, so a trace can tell that the index changed since it ran. */
export const bumpGeneration = sql`UPDATE meta SET value = CAST(CAST(value AS BIGINT) + 1 AS TEXT) WHERE key = 'generation'`;

export const selectIdentity = sql`SELECT (SELECT value FROM meta WHERE key = 'index_id') AS id, (SELECT value FROM meta WHERE key = 'generation') AS generation,
    (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks`;

export interface IdentityRow {
  id: string;
  generation: string | null;
  documents: number;
  chunks: number;
}

export function toIdentity(row: IdentityRow): IndexIdentity {
  return { id: row.id, generation: Number(row.generation ?? 0), documents: row.documents, chunks: row.chunks };
}

/** `{ key, value }` rows of the recorded embedder (see toIndexInfo). */
export const selectIndexInfo = sql`SELECT key, value FROM meta WHERE key IN ('embedder_id', 'embedder_dimensions')`;

export function toIndexInfo(rows: readonly { key: string; value: string }[]): IndexInfo | null {
  const values = new Map(rows.map((row) => [row.key, row.value]));
  const embedderId = values.get('embedder_id');
  const dimensions = values.get('embedder_dimensions');
  return embedderId && dimensions ? { embedderId, dimensions: Number(dimensions) } : null;
}

export function sameEmbedder(a: IndexInfo, b: IndexInfo): boolean {
  return a.embedderId === b.embedderId && a.dimensions === b.dimensions;
}

export function embedderMismatch(index: string, current: IndexInfo, info: IndexInfo): DossierError {
  return new DossierError(
    'embedder-mismatch',
    `index ${index} was built with embedder ${current.embedderId} (${current.dimensions} dims), not ${info.embedderId} (${info.dimensions} dims); use the same embedder or a new --db`,
  );
}

/** The meta key of an index setting (assertSetting). */
export function settingKey(name: string): string {
  return `setting:${name}`;
}

export function settingMismatch(index: string, name: string, stored: string, value: string): DossierError {
  return new DossierError(
    'config',
    `index ${index} was built with ${name} "${stored}", not "${value}"; use the same setting or a new --db`,
  );
}

/** `{ key, value }` rows of every setting (see toSettings). */
export const selectSettings = sql`SELECT key, value FROM meta WHERE key LIKE 'setting:%' ORDER BY key`;

export function toSettings(rows: readonly { key: string; value: string }[]): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const row of rows) settings[row.key.slice(settingKey('').length)] = row.value;
  return settings;
}
