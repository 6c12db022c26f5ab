// Query latency over a generated corpus (default 100k chunks): p50/p99 of `search` in one mode.
// Usage: npm run bench:query -- [--chunks 100000] [--mode hybrid] [--queries 300] [--store postgres://…] [--json]
// The generated SQLite index is cached in .bench/; a PostgreSQL database (--store) is built once and
// reused while it holds the same number of chunks. On PostgreSQL the run also measures HNSW recall@10
// against an exact scan of the same vectors (--recall-queries, default 50). --hnsw-m and
// --hnsw-ef-construction set the index's build parameters; a higher hnsw.ef_search goes in the URL
// (`?options=-c%20hnsw.ef_search%3D400`).
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { processIo, progressBar } from '../src/cli/io.ts';
import { percentile } from '../src/eval/metrics.ts';
import { SEARCH_MODES, type SearchMode } from '../src/retrieve/search.ts';
import type { Block } from '../src/ingest/types.ts';
import { argValue, SyntheticText, TopicalText } from './corpus.ts';

const chunks = argValue('chunks', 100_000);
const queryCount = argValue('queries', 300);
const recallQueries = argValue('recall-queries', 50);
// --topics N: documents and queries about N topics (TopicalText); without it, topic-less text.
const topics = process.argv.includes('--topics') ? argValue('topics', 200) : 0;
const corpusText = (seed: number) => (topics ? new TopicalText(seed, topics) : new SyntheticText(seed));
const modeIndex = process.argv.indexOf('--mode');
const mode = (modeIndex === -1 ? 'hybrid' : process.argv[modeIndex + 1]) as SearchMode;
if (!SEARCH_MODES.includes(mode)) throw new Error(`--mode must be one of ${SEARCH_MODES.join(', ')}`);
const storeIndex = process.argv.indexOf('--store');
const postgres = storeIndex === -1 ? undefined : process.argv[storeIndex + 1];
if (postgres !== undefined && !/^postgres(ql)?:\/\//.test(postgres))
  throw new Error('--store takes a postgres:// connection string (the SQLite index is cached in .bench/)');
const CHUNKS_PER_DOCUMENT = 10;

/** Writes the synthetic corpus: every paragraph behind its own heading, so exactly `chunks` chunks. */
async function buildCorpus(dossier: Dossier, afterFirst: () => Promise<void> = async () => {}): Promise<void> {
  const text = corpusText(11);
  const bar = await progressBar(processIo(), 'build corpus');
  const documents = Math.ceil(chunks / CHUNKS_PER_DOCUMENT);
  for (let d = 0; d < documents; d++) {
    if (text instanceof TopicalText) text.startDocument();
    const blocks: Block[] = [];
    for (let c = 0; c < CHUNKS_PER_DOCUMENT && d * CHUNKS_PER_DOCUMENT + c < chunks; c++) {
      blocks.push({ type: 'heading', level: 2, text: `Section ${c + 1}` }, { type: 'text', text: text.paragraph() });
    }
    await dossier.ingestRecord({ source: `synthetic:${d}`, title: text.sentence(), mediaType: 'text/plain', blocks });
    if (d === 0) await afterFirst();
    if (d % 200 === 0) bar.update(d, documents);
  }
  bar.stop();
}

async function openSqlite(): Promise<Dossier> {
  mkdirSync('.bench', { recursive: true });
  const db = join('.bench', `query-${chunks}${topics ? `-topics${topics}` : ''}.db`);
  if (!existsSync(db)) {
    const building = `${db}.building`;
    rmSync(building, { force: true });
    const dossier = await createDossier({ db: building });
    await buildCorpus(dossier);
    await dossier.close();
    renameSync(building, db);
  }
  return createDossier({ db });
}

async function openPostgres(url: string): Promise<Dossier> {
  const { default: pg } = await import('pg');
  const { vectorIndexSql } = await import('../src/store/postgres/pg-store.ts');
  let dossier = await createDossier({ db: url });
  const held = (await dossier.stats()).chunks;
  if (held === chunks) return dossier;
  if (held !== 0) throw new Error(`${url} holds ${held} chunks, not ${chunks}: give an empty database or one built for --chunks ${chunks}`);
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    // A bulk load, as an operator would do it: the HNSW graph is built once at the end rather than
    // searched and extended for every inserted vector (the first document creates it; it is dropped).
    await buildCorpus(dossier, async () => void (await sql.query('DROP INDEX IF EXISTS chunk_vectors_hnsw')));
    const dimensions = dossier.embedder.dimensions;
    process.stderr.write('building the HNSW index…\n');
    // --hnsw-m / --hnsw-ef-construction: the index built with other parameters than pgvector's defaults (16, 64).
    const m = process.argv.includes('--hnsw-m') ? argValue('hnsw-m', 16) : undefined;
    const efConstruction = process.argv.includes('--hnsw-ef-construction') ? argValue('hnsw-ef-construction', 64) : undefined;
    const parameters = [...(m ? [`m = ${m}`] : []), ...(efConstruction ? [`ef_construction = ${efConstruction}`] : [])];
    await sql.query(vectorIndexSql(dimensions) + (parameters.length ? ` WITH (${parameters.join(', ')})` : ''));
    await sql.query('VACUUM ANALYZE');
  } finally {
    await sql.end();
  }
  await dossier.close();
  dossier = await createDossier({ db: url });
  return dossier;
}

/** Share of the exact 10 nearest vectors (a sequential scan, no index) that the HNSW search returns. */
async function hnswRecall(dossier: Dossier, url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  const queries = corpusText(7);
  let found = 0;
  try {
    for (let i = 0; i < recallQueries; i++) {
      const vector = await dossier.embedder.embedQuery(queries.query());
      const approximate = await dossier.store.searchVector({ collections: '*' }, vector, { k: 10 });
      await sql.query('BEGIN');
      await sql.query('SET LOCAL enable_indexscan = off');
      const exact = await sql.query(`SELECT chunk_id FROM chunk_vectors ORDER BY embedding <=> $1::vector LIMIT 10`, [
        `[${[...vector].join(',')}]`,
      ]);
      await sql.query('COMMIT');
      const exactIds = new Set(exact.rows.map((row: { chunk_id: string | number }) => Number(row.chunk_id)));
      found += approximate.filter((hit) => exactIds.has(hit.chunkId)).length;
    }
  } finally {
    await sql.end();
  }
  return found / (recallQueries * 10);
}

const dossier = postgres ? await openPostgres(postgres) : await openSqlite();
const stats = await dossier.stats();
const queries = corpusText(99);
const scope = { collections: '*' } as const;
for (let i = 0; i < 20; i++) await dossier.retriever.rank({ query: queries.query(), scope, mode, k: 10 }); // warm caches and the vector index
const latencies: number[] = [];
for (let i = 0; i < queryCount; i++) {
  const query = queries.query();
  const started = performance.now();
  await dossier.search({ query, mode, k: 10 });
  latencies.push(performance.now() - started);
}
const recall = postgres && recallQueries > 0 ? await hnswRecall(dossier, postgres) : undefined;
await dossier.close();
const round = (value: number) => Math.round(value * 100) / 100;
const result = {
  store: postgres ? 'postgres' : 'sqlite',
  ...(topics ? { topics } : {}),
  chunks: stats.chunks,
  mode,
  queries: queryCount,
  p50Ms: round(percentile(latencies, 50)),
  p99Ms: round(percentile(latencies, 99)),
  ...(recall === undefined ? {} : { hnswRecallAt10: Math.round(recall * 1000) / 1000 }),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else
  console.log(
    `${result.store}, ${result.chunks} chunks, ${mode}: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms over ${queryCount} queries${recall === undefined ? '' : `; HNSW recall@10 ${result.hnswRecallAt10}`}`,
  );
