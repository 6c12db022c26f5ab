import { DossierError } from '../../errors/index.ts';
import type { Dialect } from '../sql/dialect.ts';
import { sql, type Sql } from '../sql/sql.ts';
import type { GraphCommunityRecord, GraphExtractionRecord, GraphInfo, Scope } from '../types.ts';

/**
 * The knowledge graph's tables, one graph per collection:
 * - `graphs`: a collection that has a graph, the extractor that built it, and a version that moves
 *   with every change of its extractions (a cached graph in memory is reloaded when it moved);
 * - `graph_extractions`: what the extractor found in one document (entities and relationships with
 *   their provenance, as JSON), deleted with the document and when its content changes, so a graph
 *   never holds an orphan;
 * - `graph_communities`: the communities of a collection's resolved graph, with the graph version they
 *   were detected on (older ones are stale).
 */
export const GRAPH_TABLES = [
  `CREATE TABLE IF NOT EXISTS graphs (
  collection TEXT PRIMARY KEY,
  extractor TEXT NOT NULL,
  built_at TEXT NOT NULL,
  version BIGINT NOT NULL DEFAULT 0
)`,
  // failed_chunks stands before the JSON so that counting failures never reads the (large) JSON.
  `CREATE TABLE IF NOT EXISTS graph_extractions (
  document_id BIGINT PRIMARY KEY,
  collection TEXT NOT NULL,
  extractor TEXT NOT NULL,
  failed_chunks INTEGER NOT NULL,
  entities TEXT NOT NULL,
  relationships TEXT NOT NULL,
  failures TEXT NOT NULL,
  updated_at TEXT NOT NULL
)`,
  'CREATE INDEX IF NOT EXISTS graph_extractions_by_collection ON graph_extractions (collection, failed_chunks, document_id)',
  `CREATE TABLE IF NOT EXISTS graph_communities (
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  level INTEGER NOT NULL,
  parent_id TEXT,
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  entity_keys TEXT NOT NULL,
  chunk_ids TEXT NOT NULL,
  size INTEGER NOT NULL,
  summarized_by TEXT NOT NULL,
  graph_version BIGINT NOT NULL,
  PRIMARY KEY (collection, id)
)`,
];

function inScope(dialect: Dialect, column: Sql, scope: Scope): Sql {
  if (scope.collections === '*') return dialect.always;
  if (scope.collections.length === 0) return dialect.never;
  return dialect.isOneOf(column, scope.collections, 'text');
}

/** `{ collection, extractor, built_at, version, documents, failures, communities, communities_version }` of each graph in scope. */
export function selectGraphs(dialect: Dialect, scope: Scope): Sql {
  return sql`SELECT g.collection, g.extractor, g.built_at, g.version,
      (SELECT count(*) FROM graph_extractions x WHERE x.collection = g.collection) AS documents,
      (SELECT count(*) FROM graph_extractions x WHERE x.collection = g.collection AND x.failed_chunks > 0) AS failed_documents,
      (SELECT count(*) FROM graph_communities c WHERE c.collection = g.collection) AS communities,
      (SELECT max(c.graph_version) FROM graph_communities c WHERE c.collection = g.collection) AS communities_version
    FROM graphs g WHERE ${inScope(dialect, sql`g.collection`, scope)} ORDER BY ${dialect.inCodePointOrder(sql`g.collection`)}`;
}

/** Makes (or re-marks) a collection's graph as built by `extractor`; its version moves on. */
export function upsertGraph(collection: string, extractor: string, now: string): Sql {
  return sql`INSERT INTO graphs(collection, extractor, built_at, version) VALUES (${collection}, ${extractor}, ${now}, 1)
    ON CONFLICT (collection) DO UPDATE SET extractor = excluded.extractor, built_at = excluded.built_at, version = graphs.version + 1`;
}

/** The collection's graph changed (a document was re-extracted, replaced or deleted). */
export function bumpGraphVersion(collection: Sql | string): Sql {
  return sql`UPDATE graphs SET version = version + 1 WHERE collection = ${collection}`;
}

export function deleteGraph(collection: string): Sql[] {
  return [
    sql`DELETE FROM graph_communities WHERE collection = ${collection}`,
    sql`DELETE FROM graph_extractions WHERE collection = ${collection}`,
    sql`DELETE FROM graphs WHERE collection = ${collection}`,
  ];
}

/** Forgets a document's extraction (it was deleted or its content changed) and moves its graph's version. */
export function forgetDocumentGraph(documentId: number): Sql[] {
  return [
    sql`UPDATE graphs SET version = version + 1 WHERE collection IN (SELECT collection FROM graph_extractions WHERE document_id = ${documentId})`,
    sql`DELETE FROM graph_extractions WHERE document_id = ${documentId}`,
  ];
}

export function upsertGraphExtraction(record: GraphExtractionRecord, now: string): Sql {
  const failedChunks = new Set(record.failures.flatMap((failure) => failure.chunkIds)).size;
  return sql`INSERT INTO graph_extractions(document_id, collection, extractor, failed_chunks, entities, relationships, failures, updated_at)
    VALUES (${record.documentId}, ${record.collection}, ${record.extractor}, ${failedChunks}, ${JSON.stringify(record.entities)},
      ${JSON.stringify(record.relationships)}, ${JSON.stringify(record.failures)}, ${now})
    ON CONFLICT (document_id) DO UPDATE SET collection = excluded.collection, extractor = excluded.extractor,
      failed_chunks = excluded.failed_chunks, entities = excluded.entities,
      relationships = excluded.relationships, failures = excluded.failures, updated_at = excluded.updated_at`;
}

export interface GraphExtractionRow {
  document_id: number | string;
  collection: string;
  extractor: string;
  entities: string;
  relationships: string;
  failures: string;
}

/** Every extraction in scope, by collection and document id. */
export function selectGraphExtractions(dialect: Dialect, scope: Scope): Sql {
  return sql`SELECT document_id, collection, extractor, entities, relationships, failures FROM graph_extractions
    WHERE ${inScope(dialect, sql`collection`, scope)} ORDER BY ${dialect.inCodePointOrder(sql`collection`)}, document_id`;
}

/** `{ id }` of the documents of a collection that have no extraction yet (or lost it), by id. */
export function selectUnextractedDocuments(collection: string): Sql {
  return sql`SELECT d.id FROM documents d JOIN collections col ON col.id = d.collection_id
    WHERE col.name = ${collection} AND NOT EXISTS (SELECT 1 FROM graph_extractions x WHERE x.document_id = d.id) ORDER BY d.id`;
}

export function toGraphExtraction(row: GraphExtractionRow): GraphExtractionRecord {
  return {
    documentId: Number(row.document_id),
    collection: row.collection,
    extractor: row.extractor,
    entities: JSON.parse(row.entities) as unknown[],
    relationships: JSON.parse(row.relationships) as unknown[],
    failures: JSON.parse(row.failures) as GraphExtractionRecord['failures'],
  };
}

export function deleteCommunities(collection: string): Sql {
  return sql`DELETE FROM graph_communities WHERE collection = ${collection}`;
}

export function insertCommunity(community: GraphCommunityRecord): Sql {
  return sql`INSERT INTO graph_communities(collection, id, level, parent_id, title, summary, entity_keys, chunk_ids, size, summarized_by, graph_version)
    VALUES (${community.collection}, ${community.id}, ${community.level}, ${community.parentId ?? null}, ${community.title}, ${community.summary},
      ${JSON.stringify(community.entityKeys)}, ${JSON.stringify(community.chunkIds)}, ${community.size}, ${community.summarizedBy},
      ${community.graphVersion})`;
}

export interface CommunityRow {
  collection: string;
  id: string;
  level: number;
  parent_id: string | null;
  title: string;
  summary: string;
  entity_keys: string;
  chunk_ids: string;
  size: number;
  summarized_by: string;
  graph_version: number | string;
}

/** Communities in scope, coarsest level first, larger first. */
export function selectCommunities(dialect: Dialect, scope: Scope): Sql {
  return sql`SELECT collection, id, level, parent_id, title, summary, entity_keys, chunk_ids, size, summarized_by, graph_version
    FROM graph_communities WHERE ${inScope(dialect, sql`collection`, scope)}
    ORDER BY ${dialect.inCodePointOrder(sql`collection`)}, level, size DESC, ${dialect.inCodePointOrder(sql`id`)}`;
}

export function toCommunity(row: CommunityRow): GraphCommunityRecord {
  return {
    collection: row.collection,
    id: row.id,
    level: Number(row.level),
    ...(row.parent_id ? { parentId: row.parent_id } : {}),
    title: row.title,
    summary: row.summary,
    entityKeys: JSON.parse(row.entity_keys) as string[],
    chunkIds: JSON.parse(row.chunk_ids) as number[],
    size: Number(row.size),
    summarizedBy: row.summarized_by,
    graphVersion: Number(row.graph_version),
  };
}

export interface GraphRow {
  collection: string;
  extractor: string;
  built_at: string;
  version: number | string;
  documents: number | string;
  failed_documents: number | string;
  communities: number | string;
  communities_version: number | string | null;
}

export function toGraphInfo(row: GraphRow): GraphInfo {
  return {
    collection: row.collection,
    extractor: row.extractor,
    builtAt: row.built_at,
    version: Number(row.version),
    documents: Number(row.documents),
    failedDocuments: Number(row.failed_documents),
    communities: Number(row.communities),
    communitiesVersion: row.communities_version === null ? null : Number(row.communities_version),
  };
}

/** `{ name, graphed }` of a document's collection: `graphed` is 1 when the collection has a graph. */
export function selectGraphedCollectionOf(documentId: number): Sql {
  return sql`SELECT col.name, (SELECT 1 FROM graphs g WHERE g.collection = col.name) AS graphed
    FROM documents d JOIN collections col ON col.id = d.collection_id WHERE d.id = ${documentId}`;
}

/** The collection of a document whose collection has a graph (the row of selectGraphedCollectionOf); a clear error otherwise. */
export function graphedCollectionOf(rows: readonly { name: string; graphed: number | null }[], documentId: number, index: string): string {
  const [row] = rows;
  if (!row) throw new DossierError('not-found', `document ${documentId} is not in index ${index}`);
  if (!row.graphed)
    throw new DossierError('bad-input', `collection ${row.name} has no knowledge graph; build one with "dossier graph build"`);
  return row.name;
}
