/**
 * Tunes and measures the graph's place in hybrid search on a pooled multi-hop set (HotpotQA format:
 * MuSiQue train-100, HotpotQA dev-500 questions 0–99): the pool is indexed, its knowledge graph built
 * by `dossier graph build`'s code, and each question searched once (single shot) by hybrid without
 * the graph, the graph alone, and hybrid with the graph fused at each weight. Prints Recall@2/@5 of
 * the supporting paragraphs, the build's time and size, and the search latencies. Tune on
 * development splits only. A benchmark, never part of `npm test`.
 *   node --import tsx bench/graph-fusion.ts $DOSSIER_DATA_DIR/musique-train/train-100.jsonl [--limit N] [--weights 0.5,1,2] [--json]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../src/dossier.ts';
import { indexHotpot, loadHotpot } from '../src/eval/hotpotqa.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const file = args.find((arg, i) => !arg.startsWith('--') && !['--limit', '--weights'].includes(args[i - 1] ?? ''));
if (!file) {
  console.error('usage: graph-fusion.ts <pooled.jsonl> [--limit N] [--weights 0.5,1,2] [--json]');
  process.exit(2);
}
const data = loadHotpot(file);
const questions = data.questions.slice(0, Number(option('limit') ?? data.questions.length));
const weights = (option('weights') ?? '0.5,1,2').split(',').map(Number);
const folder = mkdtempSync(join(tmpdir(), 'dossier-graph-fusion-'));
const db = join(folder, 'index.db');
const dossier = await createDossier({ db, env: {} });
const progress = (what: string) => process.stderr.write(`graph-fusion: ${what}\n`);
progress(`indexing ${data.paragraphs.size} paragraphs`);
await indexHotpot(dossier, data);
const sizeBefore = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
progress('building the graph');
const build = await dossier.graph.build();
const sizeAfter = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
const bytes = [...data.paragraphs].reduce((sum, [title, text]) => sum + Buffer.byteLength(title) + Buffer.byteLength(text), 0);

const runs: Record<string, { mode: 'hybrid' | 'graph'; graph?: number }> = {
  'hybrid (no graph)': { mode: 'hybrid', graph: 0 },
  'graph alone': { mode: 'graph' },
  ...Object.fromEntries(weights.map((weight) => [`hybrid + graph ×${weight}`, { mode: 'hybrid' as const, graph: weight }])),
};
const recall = (k: number, titles: string[], gold: string[]) =>
  gold.length ? gold.filter((title) => titles.slice(0, k).includes(title)).length / gold.length : 0;
const mean = (values: number[]) => Number((values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)).toFixed(3));
const rows: Record<string, { 'recall@2': number; 'recall@5': number; p50Ms: number }> = {};
for (const [name, run] of Object.entries(runs)) {
  progress(name);
  const r2: number[] = [];
  const r5: number[] = [];
  const ms: number[] = [];
  for (const question of questions) {
    const started = performance.now();
    const hits = await dossier.search({
      query: question.question,
      mode: run.mode,
      k: 5,
      ...(run.graph !== undefined ? { hybrid: { graph: run.graph } } : {}),
    });
    ms.push(performance.now() - started);
    const titles = hits.map((hit) => hit.title);
    r2.push(recall(2, titles, question.supportingTitles));
    r5.push(recall(5, titles, question.supportingTitles));
  }
  ms.sort((a, b) => a - b);
  rows[name] = { 'recall@2': mean(r2), 'recall@5': mean(r5), p50Ms: Number(ms[Math.floor(ms.length / 2)].toFixed(2)) };
}
await dossier.close();
rmSync(folder, { recursive: true, force: true });
const report = {
  file,
  questions: questions.length,
  paragraphs: data.paragraphs.size,
  megabytes: Number((bytes / 1e6).toFixed(2)),
  graph: {
    entities: build.entities,
    relationships: build.relationships,
    communities: build.communities,
    seconds: Number(build.seconds.toFixed(2)),
    megabytesPerSecond: Number((bytes / 1e6 / build.seconds).toFixed(2)),
    storageMegabytes: Number(((sizeAfter - sizeBefore) / 1e6).toFixed(2)),
  },
  runs: rows,
};
if (args.includes('--json')) console.log(JSON.stringify(report));
else {
  console.log(
    `${report.file}: ${report.questions} questions, ${report.paragraphs} paragraphs (${report.megabytes} MB); graph ${JSON.stringify(report.graph)}`,
  );
  for (const [name, row] of Object.entries(rows))
    console.log(`${name.padEnd(22)} R@2 ${row['recall@2']}  R@5 ${row['recall@5']}  p50 ${row.p50Ms} ms`);
}
