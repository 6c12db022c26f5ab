import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Dossier } from '../dossier.ts';
import { DossierError } from '../errors/index.ts';
import type { ResolvedModel } from '../providers/index.ts';
import { DOCS_DEV_CORPUS, readQuestionList } from './docs.ts';
import { mean, citedAs } from './metrics.ts';
import { REGRESSION_DIR } from './regression.ts';
import { runQuestion, type EvalMode } from './run-question.ts';

/**
 * The multi-part development set (eval/research-dev): questions that need 2–4 sub-questions, over
 * the regression corpus and the docs-dev corpora. The figure is the share of sub-questions
 * answered with cited evidence: every string of the sub-question is in the answer and the answer
 * cites a file holding its evidence. A sub-question the corpus cannot answer counts as handled
 * when the answer says it is open or not found, and makes nothing up.
 */
export interface ResearchDevSubQuestion {
  question: string;
  answerContains?: string[];
  cites?: Array<string | string[]>;
  answerable?: boolean;
}

export interface ResearchDevQuestion {
  id: string;
  corpus: string;
  kind: string;
  question: string;
  subQuestions: ResearchDevSubQuestion[];
  answerContains?: string[];
  answerNotContains?: string[];
}

export interface ResearchDevOutcome {
  id: string;
  corpus: string;
  kind: string;
  /** Per sub-question: answered with cited evidence (answerable) or said to be open (unanswerable). */
  subQuestions: Array<{ question: string; answerable: boolean; ok: boolean; missing: string[] }>;
  reportContains: boolean;
  finishReason: string;
  unresolvedCitations: number;
  modelCalls: number;
  /** Input tokens of every model call (estimated from the prompt's length by the offline model). */
  inputTokens: number;
  toolCalls: number;
  seconds: number;
  answer: string;
  /** What the answer cites (`citedAs`). */
  cited: string[];
  /** The offline model's answerer that answered, and the rule that read the question (absent for other models). */
  answeredBy?: string;
  questionRule?: string;
}

export interface ResearchDevReport {
  mode: EvalMode;
  model: string;
  questions: number;
  subQuestions: number;
  /** Share of answerable sub-questions answered with cited evidence. */
  answeredWithEvidence: number;
  /** Unanswerable sub-questions the answer says are open, of all unanswerable ones. */
  openHandled: string;
  /** Share of questions whose answer holds all the report-level strings. */
  reportContains: number;
  unresolvedCitations: number;
  modelCallsMean: number;
  /** Input tokens per question, every model call counted (the offline model estimates them from the prompt's length). */
  inputTokensMean: number;
  toolCallsMean: number;
  secondsMean: number;
  byCorpus: Record<string, { questions: number; answeredWithEvidence: number }>;
  byKind: Record<string, { questions: number; answeredWithEvidence: number }>;
  outcomes: ResearchDevOutcome[];
}

export const RESEARCH_DEV_QUESTIONS = join(import.meta.dirname, '..', '..', 'eval', 'research-dev', 'questions.json');

export function loadResearchDev(file = RESEARCH_DEV_QUESTIONS): ResearchDevQuestion[] {
  const data = readQuestionList(file);
  for (const [i, item] of data.entries()) {
    const q = item as Partial<ResearchDevQuestion>;
    if (
      typeof q.id !== 'string' ||
      typeof q.question !== 'string' ||
      typeof q.corpus !== 'string' ||
      !Array.isArray(q.subQuestions) ||
      q.subQuestions.length === 0
    ) {
      throw new DossierError('bad-input', `${file}: question ${i + 1} needs id, corpus, question and subQuestions`);
    }
  }
  return data as ResearchDevQuestion[];
}

/** The folder of a corpus id: the regression corpus, or a folder of the docs-dev root. */
function corpusFolder(corpus: string, root: string): string {
  const folder = corpus === 'regression' ? join(REGRESSION_DIR, 'corpus') : join(resolve(root), corpus);
  if (!existsSync(folder))
    throw new DossierError('not-found', `no corpus folder ${folder} for "${corpus}" (pass --corpus DIR for the docs-dev root)`);
  return folder;
}

const normal = (text: string) => text.toLowerCase().replace(/\s+/g, ' ');

export async function runResearchDev(
  dossier: Dossier,
  model: ResolvedModel,
  questions: readonly ResearchDevQuestion[],
  options: {
    mode?: EvalMode;
    corpusRoot?: string;
    /** Research mode: the model that judges drafts (default `model`). */
    critiqueModel?: ResolvedModel;
    onProgress?: (phase: string, done: number, total: number) => void;
  } = {},
): Promise<ResearchDevReport> {
  const mode = options.mode ?? 'research';
  const corpora = [...new Set(questions.map((q) => q.corpus))];
  for (const [i, corpus] of corpora.entries()) {
    await dossier.ingest([corpusFolder(corpus, options.corpusRoot ?? DOCS_DEV_CORPUS)], { collection: corpus });
    options.onProgress?.('index', i + 1, corpora.length);
  }
  const outcomes: ResearchDevOutcome[] = [];
  for (const item of questions) {
    const started = performance.now();
    const result = await runQuestion(mode, {
      dossier,
      question: item.question,
      model,
      critiqueModel: options.critiqueModel,
      scope: await dossier.scope({ collections: [item.corpus] }),
    });
    const answer = normal(result.answer);
    const citedFiles = new Set(result.citations.map((c) => basename(c.source)));
    const subQuestions = item.subQuestions.map((sub) => {
      const answerable = sub.answerable !== false;
      if (!answerable) {
        const open = /\bopen\b|not found|not (?:in|stated in|given in) the documents|does not say|unknown/.test(answer);
        return { question: sub.question, answerable, ok: open, missing: open ? [] : ['says it is open'] };
      }
      const missing = [
        ...(sub.answerContains ?? []).filter((text) => !answer.includes(normal(text))).map((text) => `"${text}"`),
        ...(sub.cites ?? [])
          .filter((entry) => !(Array.isArray(entry) ? entry : [entry]).some((file) => citedFiles.has(file)))
          .map((entry) => `a citation of ${Array.isArray(entry) ? entry.join(' or ') : entry}`),
      ];
      return { question: sub.question, answerable, ok: missing.length === 0, missing };
    });
    const reportContains =
      (item.answerContains ?? []).every((text) => answer.includes(normal(text))) &&
      !(item.answerNotContains ?? []).some((text) => answer.includes(normal(text)));
    outcomes.push({
      id: item.id,
      corpus: item.corpus,
      kind: item.kind,
      subQuestions,
      reportContains,
      finishReason: result.finishReason,
      unresolvedCitations: result.unresolvedCitations.length,
      modelCalls: result.modelCalls,
      inputTokens: result.inputTokens,
      toolCalls: result.allToolCalls,
      seconds: (performance.now() - started) / 1000,
      answer: result.answer,
      cited: result.citations.map(citedAs),
      ...(result.answeredBy ? { answeredBy: result.answeredBy } : {}),
      ...(result.questionRule ? { questionRule: result.questionRule } : {}),
    });
    options.onProgress?.('questions', outcomes.length, questions.length);
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const share = (list: ResearchDevOutcome[]) => {
    const subs = list.flatMap((o) => o.subQuestions.filter((s) => s.answerable));
    return round(subs.filter((s) => s.ok).length / Math.max(1, subs.length));
  };
  const group = (key: 'corpus' | 'kind') =>
    Object.fromEntries(
      [...new Set(outcomes.map((o) => o[key]))].map((value) => {
        const list = outcomes.filter((o) => o[key] === value);
        return [value, { questions: list.length, answeredWithEvidence: share(list) }];
      }),
    );
  const unanswerable = outcomes.flatMap((o) => o.subQuestions.filter((s) => !s.answerable));
  return {
    mode,
    model: model.id,
    questions: outcomes.length,
    subQuestions: outcomes.reduce((sum, o) => sum + o.subQuestions.length, 0),
    answeredWithEvidence: share(outcomes),
    openHandled: `${unanswerable.filter((s) => s.ok).length}/${unanswerable.length}`,
    reportContains: round(mean(outcomes.map((o) => (o.reportContains ? 1 : 0)))),
    unresolvedCitations: outcomes.reduce((sum, o) => sum + o.unresolvedCitations, 0),
    modelCallsMean: round(mean(outcomes.map((o) => o.modelCalls))),
    inputTokensMean: Math.round(mean(outcomes.map((o) => o.inputTokens))),
    toolCallsMean: round(mean(outcomes.map((o) => o.toolCalls))),
    secondsMean: round(mean(outcomes.map((o) => o.seconds))),
    byCorpus: group('corpus'),
    byKind: group('kind'),
    outcomes,
  };
}
