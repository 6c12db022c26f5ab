/**
 * The graph route alone on a pooled multi-hop set (HotpotQA format: MuSiQue train-100, HotpotQA
 * dev-500): offline extraction time and MB/s, graph size, and Recall@2/@5 of supporting paragraphs
 * for Personalized PageRank from the question's entities. A benchmark, never part of `npm test`.
 *   node --import tsx bench/graph-recall.ts $DOSSIER_DATA_DIR/musique-train/train-100.jsonl [--damping 0.5] [--graph-weight 1] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../src/dossier.ts';
import { indexHotpot } from '../src/eval/hotpotqa.ts';
import { reciprocalRankFusion } from '../src/retrieve/fuse.ts';
import { createOfflineGraphExtractor, EntityGraph, resolveEntities } from '../src/graph/index.ts';
import { loadGraphCorpus } from './graph-corpus.ts';

const args = process.argv.slice(2);
const [file] = args.filter((arg, i) => !arg.startsWith('--') && !['--damping', '--graph-weight'].includes(args[i - 1] ?? ''));
const dampingAt = args.indexOf('--damping');
const damping = dampingAt >= 0 ? Number(args[dampingAt + 1]) : undefined;
if (!file) {
  console.error('usage: graph-recall.ts <pooled.jsonl> [--json]');
  process.exit(2);
}
const { data, titles, chunks } = loadGraphCorpus(file);
const bytes = chunks.reduce((sum, c) => sum + Buffer.byteLength(c.title) + Buffer.byteLength(c.text), 0);
let started = performance.now();
const extraction = await createOfflineGraphExtractor().extract(chunks);
const extractSeconds = (performance.now() - started) / 1000;
started = performance.now();
const graph = new EntityGraph(resolveEntities(extraction.entities, extraction.relationships));
const buildSeconds = (performance.now() - started) / 1000;
const recall = (k: number, ranked: number[], gold: string[]) =>
  gold.length ? gold.filter((title) => ranked.slice(0, k).some((id) => titles[id] === title)).length / gold.length : 0;
// The same pool in a hybrid index, to fuse the graph list with (RRF, as `hybrid` would).
const folder = mkdtempSync(join(tmpdir(), 'dossier-graph-bench-'));
const dossier = await createDossier({ db: join(folder, 'index.db') });
await indexHotpot(dossier, data);
const weightAt = args.indexOf('--graph-weight');
const graphWeight = weightAt >= 0 ? Number(args[weightAt + 1]) : 1;
const fused2: number[] = [];
const fused5: number[] = [];
const hybrid5: number[] = [];
const r2: number[] = [];
const r5: number[] = [];
const latencies: number[] = [];
let seeded = 0;
for (const question of data.questions) {
  const t = performance.now();
  const { hits, seeds } = graph.search(question.question, 5, damping === undefined ? {} : { damping });
  latencies.push(performance.now() - t);
  if (seeds.length) seeded++;
  const ranked = hits.map((hit) => hit.chunkId);
  r2.push(recall(2, ranked, question.supportingTitles));
  r5.push(recall(5, ranked, question.supportingTitles));
  const hybrid = (await dossier.search({ query: question.question, mode: 'hybrid', k: 20 })).map((hit) => titles.indexOf(hit.title));
  const graphTop = graph.search(question.question, 20, damping === undefined ? {} : { damping }).hits.map((hit) => hit.chunkId);
  const fused = reciprocalRankFusion([{ items: hybrid }, { items: graphTop, weight: graphWeight }], (id) => id).map((entry) => entry.item);
  hybrid5.push(recall(5, hybrid, question.supportingTitles));
  fused2.push(recall(2, fused, question.supportingTitles));
  fused5.push(recall(5, fused, question.supportingTitles));
}
await dossier.close();
rmSync(folder, { recursive: true, force: true });
const mean = (values: number[]) => Number((values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)).toFixed(3));
latencies.sort((a, b) => a - b);
const report = {
  file,
  paragraphs: chunks.length,
  megabytes: Number((bytes / 1e6).toFixed(2)),
  extractSeconds: Number(extractSeconds.toFixed(2)),
  megabytesPerSecond: Number((bytes / 1e6 / extractSeconds).toFixed(2)),
  buildSeconds: Number(buildSeconds.toFixed(2)),
  entities: graph.resolved.entities.length,
  relationships: graph.resolved.relationships.length,
  questions: data.questions.length,
  questionsWithSeeds: seeded,
  'recall@2': mean(r2),
  'recall@5': mean(r5),
  'hybrid recall@5': mean(hybrid5),
  'fused recall@2': mean(fused2),
  'fused recall@5': mean(fused5),
  p50Ms: Number(latencies[Math.floor(latencies.length / 2)].toFixed(2)),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(report));
else for (const [key, value] of Object.entries(report)) console.log(`${key.padEnd(20)} ${value}`);
