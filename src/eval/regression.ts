import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DossierError } from '../errors/index.ts';
import type { Dossier } from '../dossier.ts';
import type { AgentEvent } from '../protocol/events.ts';
import type { AgentResult } from '../agent/run-agent.ts';
import { runQuestion, type EvalMode } from './run-question.ts';
import type { ResolvedModel } from '../providers/index.ts';
import { citedAs, mean } from './metrics.ts';

/** An expected string, or a list of alternatives of which any one will do. */
export type Expected = string | readonly string[];

/**
 * The regression set: questions of five kinds (single fact, multi-hop, comparison, calculation,
 * unanswerable/ambiguous) over a small corpus that ships in the repository (eval/regression/).
 * The development sets (eval/docs-dev/) use the same shape and the same judge.
 */
export interface RegressionQuestion {
  id: string;
  kind: string;
  question: string;
  /** Every entry must appear in the answer (case-insensitive, runs of whitespace count as one space). */
  answerContains?: Expected[];
  answerNotContains?: string[];
  /** File names (base names) that a good answer cites; an entry that is a list is hit by citing any one of them. */
  cites?: Expected[];
  /** The corpus does not hold the answer: the run must say so. */
  notFound?: boolean;
}

export interface RegressionOutcome {
  id: string;
  kind: string;
  answerPass: boolean;
  citationHit: number;
  finishReason: string;
  toolCalls: number;
  /** Model calls of the run and their input tokens, nested agents' included (absent when judging an `ask --json` object). */
  modelCalls?: number;
  inputTokens?: number;
  citations: number;
  unresolved: number;
  answer: string;
  /** What the answer cites, as `citedAs` writes it (golden outputs compare these). */
  cited: string[];
  /** The offline model's answerer that answered, and the rule that read the question (absent for other models). */
  answeredBy?: string;
  questionRule?: string;
  /** The question is unanswerable (`notFound`), and whether the run abstained (finish reason `no-evidence`). */
  unanswerable: boolean;
  abstained: boolean;
}

/**
 * How well a run's abstentions match the unanswerable questions. An abstention is a run that ends
 * with finish reason `no-evidence`, the signal the judge reads for a `notFound` question.
 */
export interface AbstentionScore {
  /** Questions marked `notFound`, and all the others. */
  unanswerable: number;
  answerable: number;
  /** Runs that abstained, of either kind. */
  abstained: number;
  /** Share of unanswerable questions whose run abstained (1 when there are none). */
  recall: number;
  /** Share of abstentions that were on unanswerable questions (1 when nothing abstained). */
  precision: number;
  /** Answerable questions whose run abstained, and their share of the answerable ones. */
  wrongAbstentions: number;
  wrongAbstentionRate: number;
}

export interface RegressionScore {
  questions: number;
  answerPassRate: number;
  citationHitRate: number;
  toolCallsMean: number;
  /** Per question, when the runs counted them (the offline model estimates input tokens from the prompt's length). */
  modelCallsMean?: number;
  inputTokensMean?: number;
  unresolvedCitations: number;
}

export interface RegressionReport extends RegressionScore {
  abstention: AbstentionScore;
  byKind: Record<string, RegressionScore>;
  outcomes: RegressionOutcome[];
}

/** What the judge reads of a run: an `AgentResult`, or the `ask --json` object. */
export type JudgedRun = Pick<AgentResult, 'answer' | 'citations' | 'unresolvedCitations' | 'finishReason' | 'toolCalls'> & {
  modelCalls?: number;
  inputTokens?: number;
  answeredBy?: string;
  questionRule?: string;
};

export const REGRESSION_DIR = join(import.meta.dirname, '..', '..', 'eval', 'regression');

export function loadRegression(directory = REGRESSION_DIR): { questions: RegressionQuestion[]; corpus: string } {
  const path = join(directory, 'questions.json');
  if (!existsSync(path)) throw new DossierError('bad-input', `no questions.json in ${directory}`);
  return { questions: JSON.parse(readFileSync(path, 'utf8')) as RegressionQuestion[], corpus: join(directory, 'corpus') };
}

/** Lower case, and a hard-wrapped line break is a space: expected strings match across them. */
const normalize = (text: string) => text.toLowerCase().replace(/\s+/g, ' ');
const alternatives = (expected: Expected): readonly string[] => (typeof expected === 'string' ? [expected] : expected);

export function judge(question: RegressionQuestion, result: JudgedRun): RegressionOutcome {
  const answer = normalize(result.answer);
  const appears = (text: string) => answer.includes(normalize(text));
  let answerPass: boolean;
  // The run says it found nothing (finish reason `no-evidence`, nothing cited), whatever the words.
  if (question.notFound) answerPass = result.finishReason === 'no-evidence' && result.citations.length === 0;
  else {
    // A run that abstained did not answer, even when its "not found" sentence repeats the expected terms.
    answerPass =
      result.finishReason !== 'no-evidence' &&
      (question.answerContains ?? []).every((expected) => alternatives(expected).some(appears)) &&
      !(question.answerNotContains ?? []).some(appears);
  }
  const citedFiles = new Set(result.citations.map((citation) => basename(citation.source)));
  const expected = question.cites ?? [];
  const hits = expected.filter((files) => alternatives(files).some((file) => citedFiles.has(file))).length;
  const citationHit = expected.length ? hits / expected.length : question.notFound ? (result.citations.length === 0 ? 1 : 0) : 1;
  return {
    id: question.id,
    kind: question.kind,
    answerPass,
    citationHit,
    finishReason: result.finishReason,
    toolCalls: result.toolCalls,
    ...(result.modelCalls !== undefined ? { modelCalls: result.modelCalls } : {}),
    ...(result.inputTokens !== undefined ? { inputTokens: result.inputTokens } : {}),
    citations: result.citations.length,
    unresolved: result.unresolvedCitations.length,
    answer: result.answer,
    cited: result.citations.map(citedAs),
    ...(result.answeredBy ? { answeredBy: result.answeredBy } : {}),
    ...(result.questionRule ? { questionRule: result.questionRule } : {}),
    unanswerable: question.notFound === true,
    abstained: result.finishReason === 'no-evidence',
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** The figures over some outcomes: pass rate, citation hit rate, tool calls, unresolved citations. */
export function score(outcomes: readonly RegressionOutcome[]): RegressionScore {
  const counted = outcomes.length > 0 && outcomes.every((o) => o.modelCalls !== undefined && o.inputTokens !== undefined);
  return {
    questions: outcomes.length,
    answerPassRate: round(mean(outcomes.map((o) => Number(o.answerPass)))),
    citationHitRate: round(mean(outcomes.map((o) => o.citationHit))),
    toolCallsMean: round(mean(outcomes.map((o) => o.toolCalls))),
    ...(counted
      ? {
          modelCallsMean: round(mean(outcomes.map((o) => o.modelCalls ?? 0))),
          inputTokensMean: Math.round(mean(outcomes.map((o) => o.inputTokens ?? 0))),
        }
      : {}),
    unresolvedCitations: outcomes.reduce((sum, o) => sum + o.unresolved, 0),
  };
}

/** Abstention precision and recall over some outcomes (see AbstentionScore). */
export function abstentionScore(outcomes: readonly Pick<RegressionOutcome, 'unanswerable' | 'abstained'>[]): AbstentionScore {
  const unanswerable = outcomes.filter((o) => o.unanswerable).length;
  const abstained = outcomes.filter((o) => o.abstained).length;
  const rightly = outcomes.filter((o) => o.unanswerable && o.abstained).length;
  const wrongAbstentions = abstained - rightly;
  const answerable = outcomes.length - unanswerable;
  return {
    unanswerable,
    answerable,
    abstained,
    recall: unanswerable ? round(rightly / unanswerable) : 1,
    precision: abstained ? round(rightly / abstained) : 1,
    wrongAbstentions,
    wrongAbstentionRate: answerable ? round(wrongAbstentions / answerable) : 0,
  };
}

/** The report over judged outcomes: overall, abstention, then by kind (in the order kinds first appear). */
export function summarize(outcomes: RegressionOutcome[]): RegressionReport {
  const byKind: RegressionReport['byKind'] = {};
  for (const kind of new Set(outcomes.map((o) => o.kind))) byKind[kind] = score(outcomes.filter((o) => o.kind === kind));
  return { ...score(outcomes), abstention: abstentionScore(outcomes), byKind, outcomes };
}

export async function runRegression<Q extends RegressionQuestion>(
  dossier: Dossier,
  model: ResolvedModel,
  questions: readonly Q[],
  options: {
    onEvent?: (id: string, event: AgentEvent) => void;
    maxSteps?: number;
    /** The collections a question may search (every collection when absent). */
    collections?: (question: Q) => readonly string[] | undefined;
    onProgress?: (done: number, total: number) => void;
    mode?: EvalMode;
  } = {},
): Promise<RegressionReport> {
  const outcomes: RegressionOutcome[] = [];
  for (const question of questions) {
    const collections = options.collections?.(question);
    const scope = collections ? await dossier.scope({ collections }) : undefined;
    const result = await runQuestion(options.mode ?? 'rag', {
      dossier,
      question: question.question,
      model,
      scope,
      maxSteps: options.maxSteps,
      onEvent: (event) => options.onEvent?.(question.id, event),
    });
    outcomes.push(judge(question, result));
    options.onProgress?.(outcomes.length, questions.length);
  }
  return summarize(outcomes);
}
