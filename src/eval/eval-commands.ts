import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createDossier, type Dossier } from '../dossier.ts';
import { progressBar } from '../cli/output.ts';
import { resolveModel } from '../models/resolve.ts';
import type { SearchMode } from '../retrieve/search.ts';
import { evaluateBeir, indexBeirCorpus, loadBeir, type BeirResult } from './beir.ts';
import { evaluateHotpot, indexHotpot, loadHotpot, type HotpotResult } from './hotpotqa.ts';
import { loadRegression, runRegression, type RegressionReport } from './regression.ts';

/** Opens --db (reused when it already holds the corpus) or a fresh temporary index removed afterwards. */
async function withIndex<T>(db: string | undefined, use: (dossier: Dossier) => Promise<T>, embedder?: string): Promise<T> {
  const temporary = db ? undefined : mkdtempSync(join(tmpdir(), 'dossier-eval-'));
  const dossier = await createDossier({ db: db ?? join(temporary!, 'index.db'), embedder });
  try {
    return await use(dossier);
  } finally {
    dossier.close();
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  }
}

export async function runHotpotCommand(options: { file: string; limit?: number; offset?: number; db?: string; model?: string }): Promise<HotpotResult> {
  const data = loadHotpot(options.file);
  const model = await resolveModel(options.model ?? 'offline');
  return withIndex(options.db, async (dossier) => {
    if (dossier.stats().documents < data.paragraphs.size) {
      const bar = progressBar('index');
      await indexHotpot(dossier, data, (done, total) => bar.update(done, total));
      bar.stop();
    }
    const bar = progressBar('questions');
    const result = await evaluateHotpot(dossier, data, model, { limit: options.limit, offset: options.offset, onProgress: (done, total) => bar.update(done, total) });
    bar.stop();
    return result;
  });
}

export async function runRegressionCommand(options: { directory?: string; model?: string }): Promise<RegressionReport> {
  const { questions, corpus } = loadRegression(options.directory);
  const model = await resolveModel(options.model ?? 'offline');
  return withIndex(undefined, async (dossier) => {
    await dossier.ingest([corpus]);
    return runRegression(dossier, model, questions);
  });
}

/** `dossier eval beir`: indexes the corpus (or reuses --db when it already holds it) and scores the split's queries. */
export async function runBeirCommand(options: { directory: string; split: string; mode: SearchMode; db?: string; embedder?: string }): Promise<BeirResult> {
  const dataset = loadBeir(options.directory, options.split);
  return withIndex(
    options.db,
    async (dossier) => {
      if (dossier.stats().documents < dataset.corpus.length) {
        const bar = progressBar('index');
        await indexBeirCorpus(dossier, dataset, (done, total) => bar.update(done, total));
        bar.stop();
      }
      const bar = progressBar('queries');
      const result = await evaluateBeir(dossier, dataset, {
        name: basename(resolve(options.directory)),
        split: options.split,
        mode: options.mode,
        onProgress: (done, total) => bar.update(done, total),
      });
      bar.stop();
      return result;
    },
    options.embedder,
  );
}
