// Tuning on the SciFact TRAIN split only: builds the index once per embedder setting and sweeps fusion weights.
// Usage: node --import tsx bench/tune-scifact.ts [--split train]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { configFromEnv } from '../src/config/index.ts';
import { createDossier } from '../src/dossier.ts';
import { HashedEmbedder } from '../src/embed/hashed/hashed-embedder.ts';
import { evaluateBeir, indexBeirCorpus, loadBeir } from '../src/eval/beir.ts';

const split = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] : 'train';
if (split === 'test') throw new Error('tuning on the test split is not allowed');
const dataset = loadBeir(join(configFromEnv().dataDir, 'beir-scifact'), split);
const configs = JSON.parse(process.env.CONFIGS ?? '[{}]') as Record<string, unknown>[];
for (const config of configs) {
  const db = `/tmp/tune-${process.pid}.db`;
  rmSync(db, { force: true });
  const { titleWeight, ...embedderOptions } = config as { titleWeight?: number };
  const dossier = await createDossier({ db, embedder: new HashedEmbedder(embedderOptions), titleWeight });
  const t0 = performance.now();
  await indexBeirCorpus(dossier, dataset, undefined, process.env.CHUNK ? { maxTokens: Number(process.env.CHUNK) } : undefined);
  const seconds = (performance.now() - t0) / 1000;
  const full = await evaluateBeir(dossier, dataset, { name: 'scifact', split, mode: 'fulltext' });
  const vector = await evaluateBeir(dossier, dataset, { name: 'scifact', split, mode: 'vector' });
  console.log(
    JSON.stringify({
      config,
      indexSeconds: seconds.toFixed(1),
      fulltext: full['ndcg@10'],
      vector: vector['ndcg@10'],
      vr100: vector['recall@100'],
    }),
  );
  for (const vw of JSON.parse(process.env.VW ?? '[1]') as number[]) {
    for (const rrfK of JSON.parse(process.env.RRFK ?? '[60]') as number[]) {
      for (const [feedbackDocs, feedbackWeight] of JSON.parse(process.env.FB ?? '[[0,0]]') as [number, number][]) {
        const hybrid = await evaluateBeir(dossier, dataset, {
          name: 'scifact',
          split,
          mode: 'hybrid',
          hybrid: { vector: vw, rrfK, feedbackDocs, feedbackWeight },
        });
        console.log(
          JSON.stringify({
            vw,
            rrfK,
            feedbackDocs,
            feedbackWeight,
            hybrid: hybrid['ndcg@10'],
            r100: hybrid['recall@100'],
            p50: hybrid.p50Ms,
          }),
        );
      }
    }
  }
  await dossier.close();
  rmSync(db, { force: true });
}
