import type { EvalMode } from './run-question.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertCollectionName, type Dossier } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import { configFromEnv } from '../config/index.ts';
import type { ResolvedModel } from '../providers/index.ts';
import {
  abstentionScore,
  runRegression,
  score,
  type AbstentionScore,
  type RegressionQuestion,
  type RegressionReport,
  type RegressionScore,
} from './regression.ts';

/**
 * Documentation development sets (eval/docs-dev/): questions a user would ask of a project's docs,
 * each over one corpus folder, judged like the regression set. The corpora are not in the
 * repository; they live in a corpus root (default `docs-dev/` of DOSSIER_DATA_DIR),
 * one folder per corpus name.
 */
export interface DocsQuestion extends RegressionQuestion {
  /** The corpus folder (under the corpus root) and the collection the question searches. */
  corpus: string;
}

export interface DocsCorpusReport extends RegressionScore {
  folder: string;
  documents: number;
  chunks: number;
  /** Files the ingestion could not read (a line each). */
  failed: { path: string; error: string }[];
  abstention: AbstentionScore;
}

export interface DocsReport extends RegressionReport {
  questionsFile: string;
  corpusRoot: string;
  model: string;
  byCorpus: Record<string, DocsCorpusReport>;
}

export const DOCS_DEV_QUESTIONS = join(import.meta.dirname, '..', '..', 'eval', 'docs-dev', 'questions.json');
/** The documentation trees the docs sets ask about: `docs-dev/` of the data folder (DOSSIER_DATA_DIR). */
export const DOCS_DEV_CORPUS = join(configFromEnv().dataDir, 'docs-dev');

const KEYS = new Set(['id', 'corpus', 'kind', 'question', 'answerContains', 'answerNotContains', 'cites', 'notFound']);

/** A questions file's list (a clear error when the file is missing, not JSON, or not a non-empty list). */
export function readQuestionList(file: string): unknown[] {
  if (!existsSync(file)) throw new DossierError('not-found', `no questions file ${file}`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DossierError('bad-input', `${file} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(data) || data.length === 0) throw new DossierError('bad-input', `${file} must hold a non-empty list of questions`);
  return data;
}

/** Reads and checks a questions file: a list of questions, each naming its corpus; ids unique. */
export function loadDocsQuestions(file = DOCS_DEV_QUESTIONS): DocsQuestion[] {
  const data = readQuestionList(file);
  const ids = new Set<string>();
  for (const [index, item] of data.entries()) {
    const where = `${file}: question ${index + 1}`;
    if (typeof item !== 'object' || item === null) throw new DossierError('bad-input', `${where} is not an object`);
    const question = item as Record<string, unknown>;
    for (const key of ['id', 'corpus', 'kind', 'question']) {
      if (typeof question[key] !== 'string' || !(question[key] as string).trim())
        throw new DossierError('bad-input', `${where} needs a string "${key}"`);
    }
    const unknown = Object.keys(question).filter((key) => !KEYS.has(key));
    if (unknown.length)
      throw new DossierError(
        'bad-input',
        `${where} (${question.id}) has unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
      );
    if (ids.has(question.id as string)) throw new DossierError('bad-input', `${where}: id "${question.id}" is used twice`);
    ids.add(question.id as string);
    assertCollectionName(question.corpus as string);
    if (!question.notFound && !Array.isArray(question.answerContains))
      throw new DossierError('bad-input', `${where} (${question.id}) needs answerContains or notFound: true`);
  }
  return data as DocsQuestion[];
}

/** The folder of each corpus the questions name; a clear error when the root or a folder is absent. */
export function corpusFolders(questions: readonly DocsQuestion[], root = DOCS_DEV_CORPUS): Map<string, string> {
  const base = resolve(root);
  if (!existsSync(base) || !statSync(base).isDirectory()) {
    throw new DossierError('not-found', `no corpus folder ${base} (the docs corpora are not on this machine; pass --corpus DIR)`);
  }
  const folders = new Map<string, string>();
  for (const name of new Set(questions.map((question) => question.corpus))) {
    const folder = join(base, name);
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new DossierError('not-found', `no folder "${name}" in the corpus root ${base}`);
    folders.set(name, folder);
  }
  return folders;
}

/**
 * Indexes each corpus into its own collection of `dossier`, then asks every question within its
 * corpus only, and judges the answers as the regression set does.
 */
export async function runDocs(
  dossier: Dossier,
  model: ResolvedModel,
  questions: readonly DocsQuestion[],
  options: {
    corpusRoot?: string;
    questionsFile?: string;
    maxSteps?: number;
    mode?: EvalMode;
    onProgress?: (phase: string, done: number, total: number) => void;
  } = {},
): Promise<DocsReport> {
  const folders = corpusFolders(questions, options.corpusRoot);
  const ingested = new Map<string, { folder: string; failed: { path: string; error: string }[] }>();
  let done = 0;
  for (const [name, folder] of folders) {
    const report = await dossier.ingest([folder], { collection: name });
    ingested.set(name, { folder, failed: report.failed });
    options.onProgress?.('index', ++done, folders.size);
  }
  const report = await runRegression(dossier, model, questions, {
    maxSteps: options.maxSteps,
    mode: options.mode,
    collections: (question) => [question.corpus],
    onProgress: (count, total) => options.onProgress?.('questions', count, total),
  });
  const byCorpus: Record<string, DocsCorpusReport> = {};
  for (const [name, { folder, failed }] of ingested) {
    const stats = await dossier.stats({ collections: [name] });
    const ids = new Set(questions.filter((question) => question.corpus === name).map((question) => question.id));
    const outcomes = report.outcomes.filter((outcome) => ids.has(outcome.id));
    byCorpus[name] = {
      folder,
      documents: stats.documents,
      chunks: stats.chunks,
      failed,
      ...score(outcomes),
      abstention: abstentionScore(outcomes),
    };
  }
  return {
    questionsFile: options.questionsFile ?? '',
    corpusRoot: resolve(options.corpusRoot ?? DOCS_DEV_CORPUS),
    model: model.id,
    questions: report.questions,
    answerPassRate: report.answerPassRate,
    citationHitRate: report.citationHitRate,
    toolCallsMean: report.toolCallsMean,
    ...(report.modelCallsMean !== undefined ? { modelCallsMean: report.modelCallsMean } : {}),
    ...(report.inputTokensMean !== undefined ? { inputTokensMean: report.inputTokensMean } : {}),
    unresolvedCitations: report.unresolvedCitations,
    abstention: report.abstention,
    byKind: report.byKind,
    byCorpus,
    outcomes: report.outcomes,
  };
}
