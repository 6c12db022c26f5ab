import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createDossier } from '../dossier.ts';
import type { SearchMode } from '../retrieve/search.ts';
import { progressBar } from '../cli/output.ts';
import { evaluateBeir, indexBeirCorpus, loadBeir, type BeirResult } from './beir.ts';

/**
 * `dossier eval beir`: indexes the corpus into a fresh temporary index (or --db, reused when it
 * already holds the corpus) and scores the split's queries.
 */
export async function runBeirCommand(options: { directory: string; split: string; mode: SearchMode; db?: string; embedder?: string }): Promise<BeirResult> {
  const dataset = loadBeir(options.directory, options.split);
  const temporary = options.db ? undefined : mkdtempSync(join(tmpdir(), 'dossier-beir-'));
  const dossier = await createDossier({ db: options.db ?? join(temporary!, 'index.db'), embedder: options.embedder });
  const bar = progressBar('index');
  try {
    if (dossier.stats().documents < dataset.corpus.length) await indexBeirCorpus(dossier, dataset, (done, total) => bar.update(done, total));
    bar.stop();
    const queries = progressBar('queries');
    const result = await evaluateBeir(dossier, dataset, {
      name: basename(resolve(options.directory)),
      split: options.split,
      mode: options.mode,
      onProgress: (done, total) => queries.update(done, total),
    });
    queries.stop();
    return result;
  } finally {
    bar.stop();
    dossier.close();
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  }
}
