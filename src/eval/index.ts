import type { EvalMode } from './run-question.ts';
import { loadResearchDev, runResearchDev, type ResearchDevReport } from './research-dev.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createDossier, type Dossier } from '../dossier.ts';
import { resolveModel } from '../providers/index.ts';
import type { SearchMode } from '../retrieve/search.ts';
import { evaluateBeir, indexBeirCorpus, loadBeir, type BeirResult } from './beir.ts';
import { corpusFolders, DOCS_DEV_QUESTIONS, loadDocsQuestions, runDocs, type DocsReport } from './docs.ts';
import { evaluateHotpot, indexHotpot, loadHotpot, type HotpotResult } from './hotpotqa.ts';
import { loadRegression, runRegression, type RegressionReport } from './regression.ts';
import { loadContextQuestions, runContextEval, type ContextReport } from './context.ts';

export type { BeirResult } from './beir.ts';
export type { DocsReport } from './docs.ts';
export type { HotpotResult } from './hotpotqa.ts';
export type { RegressionReport } from './regression.ts';

/** Progress of one phase of an evaluation ("index", "queries", "questions"). */
export type EvalProgress = (phase: string, done: number, total: number) => void;

interface EvalIndexOptions {
  /** Reuse this index (indexed once, when it holds fewer documents than the corpus); a temporary one otherwise. */
  db?: string;
  embedder?: string;
  /** Reranker spec for every search of the evaluation (none by default). */
  reranker?: string;
  /** The graph list's weight in hybrid search (default DEFAULT_HYBRID.graph), for tuning on development splits. */
  graphWeight?: number;
  env?: Record<string, string | undefined>;
  onProgress?: EvalProgress;
}

/** Opens --db or a fresh temporary index, removed afterwards. */
async function withIndex<T>(options: EvalIndexOptions, use: (dossier: Dossier) => Promise<T>): Promise<T> {
  const temporary = options.db ? undefined : mkdtempSync(join(tmpdir(), 'dossier-eval-'));
  const dossier = await createDossier({
    db: options.db ?? join(temporary!, 'index.db'),
    embedder: options.embedder,
    reranker: options.reranker,
    env: options.env,
    ...(options.graphWeight !== undefined ? { hybrid: { graph: options.graphWeight } } : {}),
  });
  try {
    return await use(dossier);
  } finally {
    await dossier.close();
    if (temporary) rmSync(temporary, { recursive: true, force: true });
  }
}

/** `dossier eval beir`: indexes the corpus (or reuses --db when it already holds it) and scores the split's queries. */
export async function runBeirEval(options: EvalIndexOptions & { directory: string; split: string; mode: SearchMode }): Promise<BeirResult> {
  const dataset = loadBeir(options.directory, options.split);
  return withIndex(options, async (dossier) => {
    if ((await dossier.stats()).documents < dataset.corpus.length) {
      await indexBeirCorpus(dossier, dataset, (done, total) => options.onProgress?.('index', done, total));
    }
    return evaluateBeir(dossier, dataset, {
      name: basename(resolve(options.directory)),
      split: options.split,
      mode: options.mode,
      onProgress: (done, total) => options.onProgress?.('queries', done, total),
    });
  });
}

/** `dossier eval hotpotqa`: the pooled protocol (DESIGN §4) with the given model. */
export async function runHotpotEval(
  options: EvalIndexOptions & {
    file: string;
    limit?: number;
    offset?: number;
    model?: string;
    mode?: EvalMode;
    /** Build the knowledge graph of the pool first, so every search fuses it in (the "with the graph" figures). */
    graph?: boolean;
  },
): Promise<HotpotResult & { graph?: GraphFigures }> {
  const data = loadHotpot(options.file);
  return withIndex(options, async (dossier) => {
    const model = await resolveModel(options.model ?? 'offline', { env: dossier.env, language: dossier.language });
    if ((await dossier.stats()).documents < data.paragraphs.size) {
      await indexHotpot(dossier, data, (done, total) => options.onProgress?.('index', done, total));
    }
    const graph = options.graph ? await buildGraph(dossier, options.onProgress) : undefined;
    const result = await evaluateHotpot(dossier, data, model, {
      limit: options.limit,
      offset: options.offset,
      mode: options.mode,
      onProgress: (done, total) => options.onProgress?.('questions', done, total),
    });
    return graph ? { ...result, graph } : result;
  });
}

/** What building the evaluation index's knowledge graph took. */
export interface GraphFigures {
  entities: number;
  relationships: number;
  communities: number;
  seconds: number;
}

async function buildGraph(dossier: Dossier, onProgress?: EvalProgress): Promise<GraphFigures> {
  const report = await dossier.graph.build({ onProgress: (done, total) => onProgress?.('graph', done, total) });
  return { entities: report.entities, relationships: report.relationships, communities: report.communities, seconds: report.seconds };
}

/** `dossier eval regression`: the regression set over its own corpus, in a temporary index. */
export async function runRegressionEval(
  options: { directory?: string; model?: string; mode?: EvalMode; graph?: boolean; env?: Record<string, string | undefined> } = {},
): Promise<RegressionReport & { graph?: GraphFigures }> {
  const { questions, corpus } = loadRegression(options.directory);
  return withIndex({ env: options.env }, async (dossier) => {
    const model = await resolveModel(options.model ?? 'offline', { env: dossier.env, language: dossier.language });
    await dossier.ingest([corpus]);
    const graph = options.graph ? await buildGraph(dossier) : undefined;
    const report = await runRegression(dossier, model, questions, { mode: options.mode });
    return graph ? { ...report, graph } : report;
  });
}

/**
 * `dossier eval docs`: a documentation question set (default eval/docs-dev/questions.json); each
 * corpus the questions name is a folder of the corpus root (default `docs-dev/` of DOSSIER_DATA_DIR),
 * indexed into its own collection of a temporary index, and each question searches its corpus only.
 */
export async function runDocsEval(
  options: {
    file?: string;
    corpus?: string;
    model?: string;
    embedder?: string;
    maxSteps?: number;
    mode?: EvalMode;
    env?: Record<string, string | undefined>;
    onProgress?: EvalProgress;
  } = {},
): Promise<DocsReport> {
  const file = resolve(options.file ?? DOCS_DEV_QUESTIONS);
  const questions = loadDocsQuestions(file);
  corpusFolders(questions, options.corpus); // a missing corpus fails before any indexing
  return withIndex({ env: options.env, embedder: options.embedder }, async (dossier) => {
    const model = await resolveModel(options.model ?? 'offline', { env: dossier.env, language: dossier.language });
    return runDocs(dossier, model, questions, {
      corpusRoot: options.corpus,
      questionsFile: file,
      maxSteps: options.maxSteps,
      mode: options.mode,
      onProgress: options.onProgress,
    });
  });
}

/** `dossier eval context`: what a model is shown of each question's search (eval/context.ts); --db keeps the index. */
export async function runContextEvalCommand(
  options: EvalIndexOptions & { file: string; answers?: string; corpus?: string; limit?: number; offset?: number },
): Promise<ContextReport> {
  const file = resolve(options.file);
  const answersFile = options.answers ? resolve(options.answers) : undefined;
  loadContextQuestions(file, answersFile); // a bad file fails before any indexing
  return withIndex(options, (dossier) =>
    runContextEval(dossier, file, {
      answersFile,
      corpusRoot: options.corpus,
      limit: options.limit,
      offset: options.offset,
      onProgress: options.onProgress,
    }),
  );
}

/** `dossier eval research-dev`: the multi-part development set (eval/research-dev), each corpus in its own collection. */
export async function runResearchDevEval(
  options: {
    file?: string;
    corpus?: string;
    model?: string;
    /** Research mode: the model that judges drafts claim by claim (default `model`). */
    critiqueModel?: string;
    mode?: EvalMode;
    env?: Record<string, string | undefined>;
    onProgress?: EvalProgress;
  } = {},
): Promise<ResearchDevReport> {
  const questions = loadResearchDev(options.file ? resolve(options.file) : undefined);
  return withIndex({ env: options.env }, async (dossier) => {
    const resolving = { env: dossier.env, language: dossier.language };
    const model = await resolveModel(options.model ?? 'offline', resolving);
    const critiqueModel = options.critiqueModel === undefined ? undefined : await resolveModel(options.critiqueModel, resolving);
    return runResearchDev(dossier, model, questions, {
      mode: options.mode,
      corpusRoot: options.corpus,
      critiqueModel,
      onProgress: options.onProgress,
    });
  });
}
