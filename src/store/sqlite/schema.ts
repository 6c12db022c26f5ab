import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DossierError } from '../../errors/index.ts';
import { GRAPH_TABLES } from '../queries/graph.ts';
import { INGEST_OUTCOMES_TABLE } from '../queries/ingest-outcomes.ts';

/**
 * The SQLite schema as numbered migrations. `meta.schema_version` holds the last one applied; each
 * runs in its own IMMEDIATE transaction and re-checks the version inside it, so two processes
 * opening an old index at once migrate it exactly once. Migrations only ever add: a database made
 * by any earlier version opens, migrates and keeps its documents, vectors and search results
 * (test/fixtures/legacy-index holds one made by 0.1.0).
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

const BASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS collections (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
-- AUTOINCREMENT: ids are never reused, so a stale citation can never point at another chunk.
CREATE TABLE IF NOT EXISTS documents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  collection_id INTEGER NOT NULL REFERENCES collections(id),
  source TEXT NOT NULL,
  title TEXT NOT NULL,
  media_type TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  text TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (collection_id, source)
);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  document_id INTEGER NOT NULL REFERENCES documents(id),
  ordinal INTEGER NOT NULL,
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  heading_path TEXT NOT NULL DEFAULT '[]',
  page INTEGER,
  page_end INTEGER,
  char_start INTEGER NOT NULL,
  char_end INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks(document_id, ordinal);
CREATE TABLE IF NOT EXISTS chunk_vectors (chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  title, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');
`;

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name));
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'documents, chunks, vectors, full text', up: (db) => db.exec(BASE_SCHEMA) },
  {
    version: 2,
    name: 'document descriptions and their full-text index',
    up(db) {
      // Databases from before descriptions get an empty one, and their raw titles in documents_fts so
      // searchDescriptions still finds them by title until they are re-ingested with changes.
      const hadColumn = columnsOf(db, 'documents').has('description');
      if (!hadColumn) db.exec("ALTER TABLE documents ADD COLUMN description TEXT NOT NULL DEFAULT ''");
      const hadIndex = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'documents_fts'").get() !== undefined;
      // One row per document (rowid = documents.id): stemmed terms of its title and description.
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(
        title, description, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`);
      if (!hadColumn || !hadIndex) db.exec("INSERT INTO documents_fts(rowid, title, description) SELECT id, title, '' FROM documents");
    },
  },
  {
    version: 3,
    name: 'vector owners and int8 form',
    up(db) {
      // Document and collection ids ride along so loading the vector index is one table scan, no join;
      // q8/q8_scale (the int8 form) make opening an index a copy. Older rows are quantised on load.
      const columns = columnsOf(db, 'chunk_vectors');
      for (const [name, type] of [
        ['document_id', 'INTEGER'],
        ['collection_id', 'INTEGER'],
        ['q8', 'BLOB'],
        ['q8_scale', 'REAL'],
      ]) {
        if (!columns.has(name)) db.exec(`ALTER TABLE chunk_vectors ADD COLUMN ${name} ${type}`);
      }
      db.exec(`UPDATE chunk_vectors SET
        document_id = (SELECT c.document_id FROM chunks c WHERE c.id = chunk_vectors.chunk_id),
        collection_id = (SELECT d.collection_id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = chunk_vectors.chunk_id)
        WHERE document_id IS NULL`);
    },
  },
  {
    version: 4,
    name: 'index identity and write generation',
    up(db) {
      // A trace records which index it ran on; replay refuses another index or a changed one.
      const set = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING');
      set.run('index_id', randomUUID());
      set.run('generation', '0');
    },
  },
  {
    version: 5,
    name: 'outcomes of files that gave no document',
    // A file that failed or was skipped (an image without text) is not parsed or OCR'd again while its bytes are the same.
    up: (db) => db.exec(INGEST_OUTCOMES_TABLE),
  },
  {
    version: 6,
    name: 'knowledge graph: extractions, graphs and communities per collection',
    up: (db) => db.exec(GRAPH_TABLES.join(';\n')),
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The schema version recorded in the file; 0 for an empty database; undefined when it is not a Dossier index. */
export function schemaVersionOf(db: Database.Database): number | undefined {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length === 0) return 0;
  if (!tables.includes('meta')) return undefined;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  const version = Number(row?.value);
  return row && Number.isInteger(version) && version > 0 ? version : undefined;
}

/** Applies every pending migration; returns the versions before and after. */
export function migrate(db: Database.Database, path: string): { from: number; to: number } {
  const from = schemaVersionOf(db);
  if (from === undefined) throw notAnIndex(path);
  if (from > SCHEMA_VERSION) throw tooNew(path, from);
  for (const migration of MIGRATIONS) {
    db.transaction(() => {
      const current = schemaVersionOf(db) ?? 0; // another connection may have migrated meanwhile
      if (current >= migration.version) return;
      migration.up(db);
      db.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
        String(migration.version),
      );
    }).immediate();
  }
  return { from, to: SCHEMA_VERSION };
}

export function notAnIndex(path: string): DossierError {
  return new DossierError('not-an-index', `${path} is a SQLite database but not a Dossier index; pick another --db`);
}

export function tooNew(path: string, version: number): DossierError {
  return new DossierError(
    'store-failed',
    `index ${path} has schema version ${version}, newer than this Dossier reads (${SCHEMA_VERSION}); upgrade Dossier`,
  );
}

export function needsMigration(path: string, version: number): DossierError {
  return new DossierError(
    'needs-migration',
    `index ${path} was made by an older Dossier (schema ${version}, this one reads ${SCHEMA_VERSION}); upgrade it with "dossier migrate --db ${path}"`,
  );
}
