import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DossierError } from '../errors/index.ts';
import type { Dossier } from '../dossier.ts';
import type { AgentEvent } from '../agent/events.ts';
import { runAgent, type AgentResult } from '../agent/run-agent.ts';
import type { ResolvedModel } from '../providers/index.ts';
import { mean } from './metrics.ts';

/**
 * The regression set: questions of five kinds (single fact, multi-hop, comparison, calculation,
 * unanswerable/ambiguous) over a small corpus that ships in the repository (eval/regression/).
 */
export interface RegressionQuestion {
  id: string;
  kind: string;
  question: string;
  /** Every string must appear in the answer (case-insensitive). */
  answerContains?: string[];
  answerNotContains?: string[];
  /** File names that a good answer cites. */
  cites?: string[];
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
  citations: number;
  unresolved: number;
  answer: string;
}

export interface RegressionReport {
  questions: number;
  answerPassRate: number;
  citationHitRate: number;
  toolCallsMean: number;
  unresolvedCitations: number;
  byKind: Record<string, { questions: number; answerPassRate: number; citationHitRate: number }>;
  outcomes: RegressionOutcome[];
}

export const REGRESSION_DIR = join(import.meta.dirname, '..', '..', 'eval', 'regression');

export function loadRegression(directory = REGRESSION_DIR): { questions: RegressionQuestion[]; corpus: string } {
  const path = join(directory, 'questions.json');
  if (!existsSync(path)) throw new DossierError('bad-input', `no questions.json in ${directory}`);
  return { questions: JSON.parse(readFileSync(path, 'utf8')) as RegressionQuestion[], corpus: join(directory, 'corpus') };
}

const NOT_FOUND = /not found|no (relevant )?(passage|evidence|information)|does not (contain|say|mention)|cannot find|don't know|unknown/i;

export function judge(question: RegressionQuestion, result: AgentResult): RegressionOutcome {
  const answer = result.answer.toLowerCase();
  let answerPass: boolean;
  if (question.notFound) answerPass = NOT_FOUND.test(result.answer) && result.citations.length === 0;
  else {
    answerPass =
      (question.answerContains ?? []).every((text) => answer.includes(text.toLowerCase())) &&
      !(question.answerNotContains ?? []).some((text) => answer.includes(text.toLowerCase()));
  }
  const citedFiles = new Set(result.citations.map((citation) => basename(citation.source)));
  const expected = question.cites ?? [];
  const citationHit = expected.length ? expected.filter((file) => citedFiles.has(file)).length / expected.length : question.notFound ? (result.citations.length === 0 ? 1 : 0) : 1;
  return {
    id: question.id,
    kind: question.kind,
    answerPass,
    citationHit,
    finishReason: result.finishReason,
    toolCalls: result.toolCalls,
    citations: result.citations.length,
    unresolved: result.unresolvedCitations.length,
    answer: result.answer,
  };
}

export async function runRegression(
  dossier: Dossier,
  model: ResolvedModel,
  questions: readonly RegressionQuestion[],
  options: { onEvent?: (id: string, event: AgentEvent) => void; maxSteps?: number } = {},
): Promise<RegressionReport> {
  const outcomes: RegressionOutcome[] = [];
  for (const question of questions) {
    const result = await runAgent({ dossier, question: question.question, model, maxSteps: options.maxSteps, onEvent: (event) => options.onEvent?.(question.id, event) });
    outcomes.push(judge(question, result));
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const byKind: RegressionReport['byKind'] = {};
  for (const kind of new Set(outcomes.map((o) => o.kind))) {
    const of = outcomes.filter((o) => o.kind === kind);
    byKind[kind] = { questions: of.length, answerPassRate: round(mean(of.map((o) => Number(o.answerPass)))), citationHitRate: round(mean(of.map((o) => o.citationHit))) };
  }
  return {
    questions: outcomes.length,
    answerPassRate: round(mean(outcomes.map((o) => Number(o.answerPass)))),
    citationHitRate: round(mean(outcomes.map((o) => o.citationHit))),
    toolCallsMean: round(mean(outcomes.map((o) => o.toolCalls))),
    unresolvedCitations: outcomes.reduce((sum, o) => sum + o.unresolved, 0),
    byKind,
    outcomes,
  };
}
