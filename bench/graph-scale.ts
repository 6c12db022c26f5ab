/**
 * The knowledge graph at scale, offline: a synthetic corpus of N chunks (default 100,000) whose
 * sentences name people and places drawn (Zipf) from a pool of two-word names, through
 * `dossier graph build`'s code path into a SQLite index: extraction and build time and MB/s, the
 * graph's size and storage, and the latency of graph search (Personalized PageRank from the names a
 * query holds, 100 results as hybrid search reads) over queries naming one or two of them.
 * A benchmark, never part of `npm test`.
 *   node --import tsx bench/graph-scale.ts [--chunks 100000] [--queries 200] [--epsilons 1e-6,1e-5] [--json]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../src/dossier.ts';
import { KnowledgeGraph } from '../src/graph/index.ts';
import { argValue, SyntheticText } from './corpus.ts';

const chunks = argValue('chunks', 100_000);
const queries = argValue('queries', 200);
const epsilonAt = process.argv.indexOf('--epsilons');
const epsilons = epsilonAt >= 0 ? process.argv[epsilonAt + 1].split(',').map(Number) : [1e-6];
const text = new SyntheticText(11);
const capitalised = (word: string) => word[0].toUpperCase() + word.slice(1);
// Two-word names over the same syllables (e.g. "Kalo Renmi"): what the offline extractor reads as a name.
const names = Array.from(
  { length: 20_000 },
  (_, i) => `${capitalised(text.vocabulary[i * 2 + 1000])} ${capitalised(text.vocabulary[i * 2 + 1001])}`,
);
const zipfName = () => names[Math.min(names.length - 1, Math.floor(names.length * text.random() ** 3))];
const sentence = () => {
  const words = text.sentence().slice(0, -1).split(' ');
  for (let n = 1 + Math.floor(text.random() * 2); n > 0; n--)
    words.splice(1 + Math.floor(text.random() * (words.length - 1)), 0, zipfName());
  return `${words.join(' ')}.`;
};
const folder = mkdtempSync(join(tmpdir(), 'dossier-graph-scale-'));
const db = join(folder, 'index.db');
const size = () => statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
try {
  const dossier = await createDossier({ db, env: {} });
  // Documents of 10 chunks of about 3 sentences each, indexed as records (one chunk per block).
  let bytes = 0;
  const perDocument = 10;
  for (let d = 0; d < chunks / perDocument; d++) {
    const blocks = Array.from({ length: perDocument }, () => ({
      type: 'text' as const,
      text: `${sentence()} ${sentence()} ${sentence()}`,
    }));
    bytes += blocks.reduce((sum, block) => sum + Buffer.byteLength(block.text), 0);
    await dossier.ingestRecord(
      { source: `synthetic:${d}`, title: `Report ${d}`, mediaType: 'text/plain', blocks },
      { chunking: { maxTokens: 100, overlapTokens: 0 } },
    );
    if (d % 1000 === 0) process.stderr.write(`graph-scale: indexed ${d * perDocument} of ${chunks} chunks\r`);
  }
  const stats = await dossier.stats();
  const before = size();
  process.stderr.write('\ngraph-scale: building the graph\n');
  const build = await dossier.graph.build();
  const storage = size() - before;
  const scope = { collections: '*' } as const;
  const asked = Array.from({ length: queries }, () =>
    text.random() < 0.5 ? `What did ${zipfName()} do?` : `How is ${zipfName()} related to ${zipfName()}?`,
  );
  const latency: Record<string, { p50Ms: number; p95Ms: number }> = {};
  for (const epsilon of epsilons) {
    const graph = new KnowledgeGraph(dossier.store, { ppr: { epsilon } });
    await graph.searchGraph(names[0], scope, 100); // loaded and cached, as a server keeps it
    const latencies: number[] = [];
    for (const query of asked) {
      const started = performance.now();
      await graph.searchGraph(query, scope, 100);
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    latency[`epsilon ${epsilon}`] = {
      p50Ms: Number(latencies[Math.floor(latencies.length / 2)].toFixed(2)),
      p95Ms: Number(latencies[Math.floor(latencies.length * 0.95)].toFixed(2)),
    };
  }
  await dossier.close();
  const result = {
    chunks: stats.chunks,
    megabytes: Number((bytes / 1e6).toFixed(1)),
    buildSeconds: Number(build.seconds.toFixed(1)),
    buildMegabytesPerSecond: Number((bytes / 1e6 / build.seconds).toFixed(2)),
    entities: build.entities,
    relationships: build.relationships,
    communities: build.communities,
    storageMegabytes: Number((storage / 1e6).toFixed(1)),
    search: latency,
  };
  if (process.argv.includes('--json')) console.log(JSON.stringify(result));
  else for (const [key, value] of Object.entries(result)) console.log(`${key.padEnd(24)} ${JSON.stringify(value)}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
