/**
 * Graph communities on a pooled multi-hop set (HotpotQA format, e.g. MuSiQue train-100): offline
 * extraction and resolution, then community detection (Louvain, hierarchical) timed on its own, with
 * the communities per level, their sizes, and how much of each summary is cited evidence. Runs the
 * detection twice and says whether the second run gave the same communities (a rebuild is idempotent).
 * A benchmark, never part of `npm test`.
 *   node --import tsx bench/graph-communities.ts $DOSSIER_DATA_DIR/musique-train/train-100.jsonl [--runs N] [--chunk-edge-weight W] [--resolution R] [--json]
 */
import { loadavg } from 'node:os';
import { createOfflineGraphExtractor, detectCommunities, entityKey, resolveEntities } from '../src/graph/index.ts';
import { loadGraphCorpus } from './graph-corpus.ts';

const args = process.argv.slice(2);
const valueOf = (flag: string) => (args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) : undefined);
const runs = valueOf('--runs') ?? 5;
const options = { chunkEdgeWeight: valueOf('--chunk-edge-weight'), resolution: valueOf('--resolution') };
const [file] = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!file) {
  console.error('usage: graph-communities.ts <pooled.jsonl> [--runs N] [--json]');
  process.exit(2);
}
const { chunks } = loadGraphCorpus(file);
const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
let started = performance.now();
const extraction = await createOfflineGraphExtractor().extract(chunks);
const resolved = resolveEntities(extraction.entities, extraction.relationships);
const graphSeconds = (performance.now() - started) / 1000;
const times: number[] = [];
const cpuTimes: number[] = [];
let communities = detectCommunities(resolved, byId, options);
const first = JSON.stringify(communities);
let identical = true;
for (let run = 0; run < runs; run++) {
  started = performance.now();
  const cpu = process.cpuUsage();
  communities = detectCommunities(resolved, byId, options);
  times.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  cpuTimes.push((used.user + used.system) / 1000);
  identical &&= JSON.stringify(communities) === first;
}
times.sort((a, b) => a - b);
cpuTimes.sort((a, b) => a - b);
const levels = [...new Set(communities.map((c) => c.level))].sort((a, b) => a - b);
const sizes = (level: number) =>
  communities
    .filter((c) => c.level === level)
    .map((c) => c.size)
    .sort((a, b) => a - b);
const median = (values: number[]) => values[Math.floor(values.length / 2)] ?? 0;
// How well level 0 keeps a passage together: per paragraph, the share of its entities in the
// level-0 community of the paragraph's title entity (no labels: the title is the paragraph's own).
const homeOf = new Map(communities.filter((c) => c.level === 0).flatMap((c) => c.entityKeys.map((key) => [key, c.id] as const)));
const entitiesOf = new Map<number, Set<string>>();
for (const entity of resolved.entities)
  for (const mention of entity.mentions) entitiesOf.set(mention.chunkId, (entitiesOf.get(mention.chunkId) ?? new Set()).add(entity.key));
const coherence = chunks.map((chunk) => {
  const home = homeOf.get(entityKey(chunk.title));
  const members = [...(entitiesOf.get(chunk.id) ?? [])];
  return home && members.length ? members.filter((key) => homeOf.get(key) === home).length / members.length : 0;
});
const report = {
  file,
  paragraphs: chunks.length,
  entities: resolved.entities.length,
  relationships: resolved.relationships.length,
  extractAndResolveSeconds: Number(graphSeconds.toFixed(2)),
  detectMsMedian: Number(median(times).toFixed(1)),
  detectMsMax: Number(times.at(-1)!.toFixed(1)),
  // CPU time of the process (garbage collection threads included): steadier than wall time on a busy machine.
  detectCpuMsMedian: Number(median(cpuTimes).toFixed(1)),
  loadAverage: Number(loadavg()[0].toFixed(2)),
  communitiesPerLevel: Object.fromEntries(levels.map((level) => [level, sizes(level).length])),
  medianSizePerLevel: Object.fromEntries(levels.map((level) => [level, median(sizes(level))])),
  largestPerLevel: Object.fromEntries(levels.map((level) => [level, sizes(level).at(-1)])),
  entitiesInLevel0: communities.filter((c) => c.level === 0).reduce((sum, c) => sum + c.size, 0),
  paragraphCoherence: Number((coherence.reduce((a, b) => a + b, 0) / Math.max(1, coherence.length)).toFixed(3)),
  summarised: communities.filter((c) => c.summary).length,
  sentencesMean: Number((communities.reduce((sum, c) => sum + c.evidence.length, 0) / Math.max(1, communities.length)).toFixed(2)),
  identicalOnRerun: identical,
};
if (args.includes('--json')) console.log(JSON.stringify(report));
else {
  for (const [key, value] of Object.entries(report))
    console.log(`${key.padEnd(26)} ${typeof value === 'object' ? JSON.stringify(value) : value}`);
  for (const community of communities.filter((c) => c.level === 0).slice(0, 3))
    console.log(`\n${community.id} (${community.size}): ${community.title}\n  ${community.summary.slice(0, 400)}`);
}
