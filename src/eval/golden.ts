import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configFromEnv } from '../config/index.ts';
import { createDossier } from '../dossier.ts';
import { resolveModel } from '../providers/index.ts';
import { evaluateHotpot, indexHotpot, loadHotpot, type HotpotOutcome } from './hotpotqa.ts';
import { runDocsEval, runRegressionEval, runResearchDevEval } from './index.ts';

/**
 * Golden outputs: what the offline engine answers to every development question, kept in
 * `eval/golden/<set>.jsonl`, so a change that moves an answer shows which ones moved, and a change
 * meant to move nothing proves it. `scripts/golden.ts` writes and checks them; `test/golden.test.ts`
 * checks them in `npm test` (all of them take about a minute).
 */
export interface GoldenAnswer {
  id: string;
  answer: string;
  /** Citations as `citedAs` names them. */
  cited: string[];
  finishReason: string;
  /** The offline model's answerer that gave it, and the rule that read the question. */
  answeredBy?: string;
  questionRule?: string;
}

export interface GoldenSet {
  name: string;
  /** The data this set needs, relative to DOSSIER_DATA_DIR (absent data skips the set, saying so). */
  needs: string[];
  run(options: GoldenRunOptions): Promise<GoldenAnswer[]>;
}

export interface GoldenRunOptions {
  env?: Record<string, string | undefined>;
  /** Where the pooled HotpotQA-format indexes are built (and reused by later sets of the same run). */
  cacheDir: string;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const GOLDEN_DIR = join(REPO_ROOT, 'eval', 'golden');
const EVAL_DIR = join(REPO_ROOT, 'eval');

const answerOf = (outcome: {
  id: string;
  answer: string;
  cited: string[];
  finishReason: string;
  answeredBy?: string;
  questionRule?: string;
}): GoldenAnswer => ({
  id: outcome.id,
  answer: outcome.answer,
  cited: outcome.cited,
  finishReason: outcome.finishReason,
  ...(outcome.answeredBy ? { answeredBy: outcome.answeredBy } : {}),
  ...(outcome.questionRule ? { questionRule: outcome.questionRule } : {}),
});

/** A pooled HotpotQA-format index, built once into the cache folder and reused read-only. */
async function pooledIndex(pool: string, cacheFile: string, options: GoldenRunOptions) {
  if (!existsSync(cacheFile)) {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const building = await createDossier({ db: `${cacheFile}.building`, env: options.env });
    await indexHotpot(building, loadHotpot(pool), (done, total) => options.onProgress?.('index', done, total));
    await building.close();
    renameSync(`${cacheFile}.building`, cacheFile);
  }
  return createDossier({ db: cacheFile, readonly: true, env: options.env });
}

function pooledSet(name: string, pool: string, questions: string | undefined, range?: { offset: number; limit: number }): GoldenSet {
  return {
    name,
    needs: [pool],
    async run(options) {
      const dataDir = configFromEnv(options.env).dataDir;
      const cache = join(options.cacheDir, `${pool.split('/')[0]}.db`);
      const dossier = await pooledIndex(join(dataDir, pool), cache, options);
      try {
        const data = loadHotpot(questions ? join(EVAL_DIR, questions) : join(dataDir, pool));
        const outcomes: HotpotOutcome[] = [];
        const model = await resolveModel('offline', { env: dossier.env, language: dossier.language });
        await evaluateHotpot(dossier, data, model, {
          ...range,
          onQuestion: (outcome) => outcomes.push(outcome),
          onProgress: (done, total) => options.onProgress?.(name, done, total),
        });
        return outcomes.map(answerOf);
      } finally {
        await dossier.close();
      }
    },
  };
}

/** Every development set (never a held-out one: its answers are not read). */
export const GOLDEN_SETS: readonly GoldenSet[] = [
  {
    name: 'regression',
    needs: [],
    run: async (options) => (await runRegressionEval({ env: options.env })).outcomes.map(answerOf),
  },
  {
    name: 'docs-dev',
    needs: ['docs-dev'],
    run: async (options) =>
      (
        await runDocsEval({
          env: options.env,
          corpus: join(configFromEnv(options.env).dataDir, 'docs-dev'),
          onProgress: options.onProgress,
        })
      ).outcomes.map(answerOf),
  },
  {
    // Starlette's and Black's docs: questions a new user asked (eval/docs-starlette-black).
    name: 'docs-starlette-black',
    needs: ['docs-dev/starlette', 'docs-dev/black'],
    run: async (options) =>
      (
        await runDocsEval({
          env: options.env,
          file: join(EVAL_DIR, 'docs-starlette-black', 'questions.json'),
          corpus: join(configFromEnv(options.env).dataDir, 'docs-dev'),
          onProgress: options.onProgress,
        })
      ).outcomes.map(answerOf),
  },
  {
    name: 'research-dev',
    needs: ['docs-dev'],
    run: async (options) =>
      (
        await runResearchDevEval({
          env: options.env,
          corpus: join(configFromEnv(options.env).dataDir, 'docs-dev'),
          onProgress: options.onProgress,
        })
      ).outcomes.map(answerOf),
  },
  pooledSet('hotpot-dev-0-99', 'hotpotqa/dev-500.jsonl', undefined, { offset: 0, limit: 100 }),
  pooledSet('hotpot-bridge-dev', 'hotpotqa/dev-500.jsonl', 'hotpot-bridge-dev/questions.jsonl'),
  pooledSet('hotpot-comparison-dev', 'hotpotqa/dev-500.jsonl', 'hotpot-comparison-dev/questions.jsonl'),
  pooledSet('hotpot-paraphrase-dev', 'hotpotqa/dev-500.jsonl', 'hotpot-paraphrase-dev/questions.jsonl'),
  pooledSet('musique-train', 'musique-train/train-100.jsonl', undefined),
];

export function goldenFile(set: string): string {
  return join(GOLDEN_DIR, `${set}.jsonl`);
}

export function readGolden(set: string): GoldenAnswer[] | undefined {
  const file = goldenFile(set);
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as GoldenAnswer);
}

export function writeGolden(set: string, answers: readonly GoldenAnswer[]): void {
  mkdirSync(GOLDEN_DIR, { recursive: true });
  writeFileSync(goldenFile(set), `${answers.map((answer) => JSON.stringify(answer)).join('\n')}\n`);
}

/** What moved between the golden answers and a new run, one line per question that changed. */
export function goldenDiff(golden: readonly GoldenAnswer[], now: readonly GoldenAnswer[]): string[] {
  const before = new Map(golden.map((answer) => [answer.id, answer]));
  const after = new Map(now.map((answer) => [answer.id, answer]));
  const lines: string[] = [];
  for (const [id, was] of before) {
    const is = after.get(id);
    if (!is) {
      lines.push(`${id}: no longer asked`);
      continue;
    }
    const moved = (['answer', 'finishReason', 'cited', 'answeredBy', 'questionRule'] as const).filter(
      (key) => JSON.stringify(was[key]) !== JSON.stringify(is[key]),
    );
    for (const key of moved) lines.push(`${id} ${key}: ${JSON.stringify(was[key])} → ${JSON.stringify(is[key])}`);
  }
  for (const id of after.keys()) if (!before.has(id)) lines.push(`${id}: new question`);
  return lines;
}
