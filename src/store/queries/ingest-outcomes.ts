import { sql, type Sql } from '../sql/sql.ts';

/**
 * Files that were read but gave no document (failed, or skipped with a reason), by collection and
 * source, with the content hash they had: an unchanged one is not parsed or OCR'd again.
 */
export const INGEST_OUTCOMES_TABLE = `CREATE TABLE IF NOT EXISTS ingest_outcomes (
  collection TEXT NOT NULL,
  source TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (collection, source)
)`;

/** `{ content_hash, outcome, reason }` of a source, or no row. */
export function selectIngestOutcome(collection: string, source: string): Sql {
  return sql`SELECT content_hash, outcome, reason FROM ingest_outcomes WHERE collection = ${collection} AND source = ${source}`;
}

export function upsertIngestOutcome(
  row: { collection: string; source: string; contentHash: string; outcome: string; reason: string },
  now: string,
): Sql {
  return sql`INSERT INTO ingest_outcomes(collection, source, content_hash, outcome, reason, updated_at)
    VALUES (${row.collection}, ${row.source}, ${row.contentHash}, ${row.outcome}, ${row.reason}, ${now})
    ON CONFLICT (collection, source) DO UPDATE SET content_hash = excluded.content_hash, outcome = excluded.outcome,
      reason = excluded.reason, updated_at = excluded.updated_at`;
}

export function deleteIngestOutcome(collection: string, source: string): Sql {
  return sql`DELETE FROM ingest_outcomes WHERE collection = ${collection} AND source = ${source}`;
}

/** `{ source }` of every recorded outcome of a collection, by source. */
export function selectIngestOutcomeSources(collection: string): Sql {
  return sql`SELECT source FROM ingest_outcomes WHERE collection = ${collection} ORDER BY source`;
}
