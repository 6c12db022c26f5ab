// Query latency over a generated corpus (default 100k chunks): p50/p99 of `search` in one mode.
// Usage: npm run bench:query -- [--chunks 100000] [--mode hybrid] [--queries 300] [--json]
// The generated index is cached in .bench/ so later runs only measure queries.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createDossier } from '../src/dossier.ts';
import { processIo, progressBar } from '../src/cli/io.ts';
import { percentile } from '../src/eval/metrics.ts';
import { SEARCH_MODES, type SearchMode } from '../src/retrieve/search.ts';
import type { Block } from '../src/ingest/types.ts';
import { argValue, SyntheticText } from './corpus.ts';

const chunks = argValue('chunks', 100_000);
const queryCount = argValue('queries', 300);
const modeIndex = process.argv.indexOf('--mode');
const mode = (modeIndex === -1 ? 'hybrid' : process.argv[modeIndex + 1]) as SearchMode;
if (!SEARCH_MODES.includes(mode)) throw new Error(`--mode must be one of ${SEARCH_MODES.join(', ')}`);
const CHUNKS_PER_DOCUMENT = 10;

mkdirSync('.bench', { recursive: true });
const db = join('.bench', `query-${chunks}.db`);
if (!existsSync(db)) {
  const building = `${db}.building`;
  rmSync(building, { force: true });
  const dossier = await createDossier({ db: building });
  const text = new SyntheticText(11);
  const bar = await progressBar(processIo(), 'build corpus');
  const documents = Math.ceil(chunks / CHUNKS_PER_DOCUMENT);
  for (let d = 0; d < documents; d++) {
    // A heading before each paragraph makes every paragraph its own chunk: exactly N chunks.
    const blocks: Block[] = [];
    for (let c = 0; c < CHUNKS_PER_DOCUMENT && d * CHUNKS_PER_DOCUMENT + c < chunks; c++) {
      blocks.push({ type: 'heading', level: 2, text: `Section ${c + 1}` }, { type: 'text', text: text.paragraph() });
    }
    await dossier.ingestRecord({ source: `synthetic:${d}`, title: text.sentence(), mediaType: 'text/plain', blocks });
    if (d % 200 === 0) bar.update(d, documents);
  }
  bar.stop();
  await dossier.close();
  renameSync(building, db);
}

const dossier = await createDossier({ db });
const stats = await dossier.stats();
const queries = new SyntheticText(99);
const scope = { collections: '*' } as const;
for (let i = 0; i < 20; i++) await dossier.retriever.rank({ query: queries.query(), scope, mode, k: 10 }); // warm caches and the vector index
const latencies: number[] = [];
for (let i = 0; i < queryCount; i++) {
  const query = queries.query();
  const started = performance.now();
  await dossier.search({ query, mode, k: 10 });
  latencies.push(performance.now() - started);
}
await dossier.close();
const round = (value: number) => Math.round(value * 100) / 100;
const result = { chunks: stats.chunks, mode, queries: queryCount, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) };
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else console.log(`${result.chunks} chunks, ${mode}: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms over ${queryCount} queries`);
