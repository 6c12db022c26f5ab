import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DossierError } from '../errors/index.ts';
import type { Dossier } from '../dossier.ts';
import type { ChunkOptions } from '../ingest/chunk.ts';
import type { HybridWeights, SearchMode } from '../retrieve/search.ts';
import { mean, ndcgAtK, percentile, recallAtK } from './metrics.ts';

/** A BEIR dataset folder: corpus*.jsonl, queries.jsonl, qrels/<split>.tsv. */
export interface BeirDataset {
  corpus: { id: string; title: string; text: string }[];
  queries: Map<string, string>;
  qrels: Map<string, Map<string, number>>;
}

export function loadBeir(directory: string, split: string): BeirDataset {
  if (!existsSync(directory)) throw new DossierError('bad-input', `BEIR folder not found: ${directory}`);
  const corpusFiles = readdirSync(directory)
    .filter((name) => /^corpus.*\.jsonl$/.test(name))
    .sort();
  if (corpusFiles.length === 0) throw new DossierError('bad-input', `no corpus*.jsonl in ${directory}`);
  const qrelsPath = join(directory, 'qrels', `${split}.tsv`);
  if (!existsSync(qrelsPath)) throw new DossierError('bad-input', `no qrels for split "${split}" (${qrelsPath})`);
  const corpus = corpusFiles.flatMap((name) =>
    jsonLines(join(directory, name)).map((row) => ({ id: String(row._id), title: String(row.title ?? ''), text: String(row.text ?? '') })),
  );
  const queries = new Map(jsonLines(join(directory, 'queries.jsonl')).map((row) => [String(row._id), String(row.text)]));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(qrelsPath, 'utf8').split('\n').slice(1)) {
    const [queryId, corpusId, score] = line.trim().split('\t');
    if (!queryId || !corpusId) continue;
    if (!qrels.has(queryId)) qrels.set(queryId, new Map());
    qrels.get(queryId)!.set(corpusId, Number(score));
  }
  return { corpus, queries, qrels };
}

function jsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export async function indexBeirCorpus(
  dossier: Dossier,
  dataset: BeirDataset,
  onProgress?: (done: number, total: number) => void,
  chunking?: ChunkOptions,
): Promise<void> {
  let done = 0;
  for (const doc of dataset.corpus) {
    await dossier.ingestRecord(
      {
        source: `beir:${doc.id}`,
        title: doc.title,
        mediaType: 'text/plain',
        blocks: [{ type: 'text', text: doc.text || doc.title }],
        metadata: { beirId: doc.id },
      },
      { chunking },
    );
    if (++done % 250 === 0) onProgress?.(done, dataset.corpus.length);
  }
  onProgress?.(done, dataset.corpus.length);
}

export interface BeirResult {
  dataset: string;
  split: string;
  mode: SearchMode;
  queries: number;
  'ndcg@10': number;
  'recall@100': number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs every query of the split and scores documents (a document ranks at its best chunk). */
export async function evaluateBeir(
  dossier: Dossier,
  dataset: BeirDataset,
  options: {
    name: string;
    split: string;
    mode: SearchMode;
    hybrid?: Partial<HybridWeights>;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<BeirResult> {
  const beirIdOf = new Map<number, string>();
  for (const document of await dossier.store.listDocuments({ collections: '*' })) {
    if (document.source.startsWith('beir:')) beirIdOf.set(document.id, document.source.slice(5));
  }
  const ndcg: number[] = [];
  const recall: number[] = [];
  const latencies: number[] = [];
  const queryIds = [...dataset.qrels.keys()].filter((id) => dataset.queries.has(id));
  for (const [i, queryId] of queryIds.entries()) {
    const started = performance.now();
    const hits = await dossier.retriever.rank({
      query: dataset.queries.get(queryId)!,
      scope: { collections: '*' },
      mode: options.mode,
      k: 200,
      hybrid: options.hybrid,
    });
    latencies.push(performance.now() - started);
    const ranked: string[] = [];
    const seen = new Set<number>();
    for (const hit of hits) {
      if (seen.has(hit.documentId)) continue;
      seen.add(hit.documentId);
      const id = beirIdOf.get(hit.documentId);
      if (id) ranked.push(id);
    }
    const relevance = dataset.qrels.get(queryId)!;
    ndcg.push(ndcgAtK(ranked, relevance, 10));
    recall.push(recallAtK(ranked, relevance, 100));
    options.onProgress?.(i + 1, queryIds.length);
  }
  const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
  return {
    dataset: options.name,
    split: options.split,
    mode: options.mode,
    queries: queryIds.length,
    'ndcg@10': round(mean(ndcg)),
    'recall@100': round(mean(recall)),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
  };
}
