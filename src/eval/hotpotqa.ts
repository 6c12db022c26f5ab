import { existsSync, readFileSync } from 'node:fs';
import { DossierError } from '../errors/index.ts';
import type { Dossier } from '../dossier.ts';
import { runQuestion, type EvalMode } from './run-question.ts';
import type { ResolvedModel } from '../providers/index.ts';
import { rankHotpotEvidence } from './hotpot-ranking.ts';
import { citedAs, mean } from './metrics.ts';
import { stripCitationMarkers } from '../protocol/citations.ts';

/**
 * HotpotQA, pooled protocol (IRCoT / HippoRAG): every paragraph of the file becomes one document
 * (one per title) in a single corpus; each question is asked against the whole pool. Gold labels
 * are used only to score, never to rank.
 */
export interface HotpotQuestion {
  id: string;
  question: string;
  answers: string[];
  supportingTitles: string[];
}

export interface HotpotData {
  questions: HotpotQuestion[];
  paragraphs: Map<string, string>;
}

export function loadHotpot(path: string): HotpotData {
  if (!existsSync(path)) throw new DossierError('bad-input', `HotpotQA file not found: ${path}`);
  const questions: HotpotQuestion[] = [];
  const paragraphs = new Map<string, string>();
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .forEach((line, i) => {
      let row: {
        question_id: string;
        question_text: string;
        answers_objects?: { spans?: string[] }[];
        contexts?: { title: string; paragraph_text: string; is_supporting: boolean }[];
        /** Development rows that reuse the pool's paragraphs name their supporting titles instead of carrying contexts. */
        supporting_titles?: string[];
      };
      try {
        row = JSON.parse(line);
      } catch {
        throw new DossierError('bad-input', `${path} line ${i + 1} is not JSON`);
      }
      for (const context of row.contexts ?? []) if (!paragraphs.has(context.title)) paragraphs.set(context.title, context.paragraph_text);
      questions.push({
        id: row.question_id,
        question: row.question_text,
        answers: row.answers_objects?.[0]?.spans ?? [],
        supportingTitles: row.supporting_titles ?? [...new Set((row.contexts ?? []).filter((c) => c.is_supporting).map((c) => c.title))],
      });
    });
  return { questions, paragraphs };
}

export async function indexHotpot(dossier: Dossier, data: HotpotData, onProgress?: (done: number, total: number) => void): Promise<void> {
  let done = 0;
  for (const [title, text] of data.paragraphs) {
    await dossier.ingestRecord({
      source: `hotpot:${title}`,
      title,
      mediaType: 'text/plain',
      blocks: [{ type: 'text', text: text || title }],
    });
    if (++done % 500 === 0) onProgress?.(done, data.paragraphs.size);
  }
}

/** SQuAD-style answer normalisation. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function tokenF1(prediction: string, gold: string): number {
  const predicted = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const expected = normalizeAnswer(gold).split(' ').filter(Boolean);
  if (predicted.length === 0 || expected.length === 0) return predicted.length === expected.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const token of expected) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common++;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * The direct answer of an answer text: its first line, citations (and research mode's notes) stripped. The offline model (and
 * the answer format the prompts ask for) puts the short answer (a name, a number with its unit, a
 * date, yes/no) alone on the first line, and the supporting sentences after it. Exact match and F1
 * are scored on this direct answer against the gold span; "answer contains" reads the whole answer.
 */
export function directAnswer(answer: string): string {
  const first = answer.trim().split('\n')[0] ?? '';
  return stripCitationMarkers(first, ' ').replace(ANNOTATION, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Notes research mode adds to a line, like citations not part of the answer itself: the critique's
 * "(uncertain: …)" and "(computed in the Python sandbox)".
 */
const ANNOTATION = /\((?:uncertain: [^)]*|computed in the Python sandbox)\)/g;

/** One question's outcome, for development loops (`onQuestion`). */
export interface HotpotOutcome {
  index: number;
  id: string;
  question: string;
  gold: string[];
  answer: string;
  direct: string;
  em: number;
  f1: number;
  contains: number;
  'recall@2': number;
  'recall@5': number;
  /** A gold answer appears in some passage the agent read (the ceiling for "answer contains"). */
  goldRead: boolean;
  /** The first five titles of the final evidence ranking, and the two supporting titles. */
  ranked: string[];
  supporting: string[];
  finishReason: string;
  /** What the answer cites (`citedAs`). */
  cited: string[];
  /** The offline model's answerer that answered, and the rule that read the question (absent for other models). */
  answeredBy?: string;
  questionRule?: string;
}

function recallAt(titles: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const top = new Set(titles.slice(0, k));
  return gold.filter((title) => top.has(title)).length / gold.length;
}

function distinct<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

export interface HotpotResult {
  questions: number;
  offset: number;
  mode: EvalMode;
  singleShot: { 'recall@2': number; 'recall@5': number };
  agent: {
    'recall@2': number;
    'recall@5': number;
    'recall@read': number;
    answerContains: number;
    /** Exact match and token F1 of the direct answer (first line, citations stripped) against the gold spans. */
    em: number;
    f1: number;
    toolCallsMean: number;
    /** Model calls per question (nested agents' included) and seconds per question. */
    modelCallsMean: number;
    secondsMean: number;
    evidenceMean: number;
    finishReasons: Record<string, number>;
    /** How many answers each of the offline model's answerers gave (empty for other models). */
    answeredBy: Record<string, number>;
    /** How many questions each of the offline model's question rules read (empty for other models). */
    questionRule: Record<string, number>;
    /** Citations in answers, and how many of them resolved to no ledger evidence. */
    citations: number;
    unresolvedCitations: number;
  };
}

export const MAX_PARAGRAPHS_READ = 20;

export async function evaluateHotpot(
  dossier: Dossier,
  data: HotpotData,
  model: ResolvedModel,
  options: {
    limit?: number;
    offset?: number;
    mode?: EvalMode;
    onProgress?: (done: number, total: number) => void;
    onQuestion?: (outcome: HotpotOutcome) => void;
  },
): Promise<HotpotResult> {
  const offset = options.offset ?? 0;
  const questions = data.questions.slice(offset, offset + (options.limit ?? data.questions.length));
  const scope = { collections: '*' } as const;
  const titleOf = (source: string) => source.replace(/^hotpot:/, '');
  const single = { r2: [] as number[], r5: [] as number[] };
  const agent = {
    r2: [] as number[],
    r5: [] as number[],
    all: [] as number[],
    contains: [] as number[],
    em: [] as number[],
    f1: [] as number[],
    tools: [] as number[],
    evidence: [] as number[],
    seconds: [] as number[],
    modelCalls: [] as number[],
  };
  const finishReasons: Record<string, number> = {};
  const answeredBy: Record<string, number> = {};
  const questionRule: Record<string, number> = {};
  let citations = 0;
  let unresolved = 0;
  for (const [i, item] of questions.entries()) {
    const hits = await dossier.search({ query: item.question, scope, mode: 'hybrid', k: 20 });
    const singleTitles = distinct(hits.map((hit) => titleOf(hit.source)));
    single.r2.push(recallAt(singleTitles, item.supportingTitles, 2));
    single.r5.push(recallAt(singleTitles, item.supportingTitles, 5));

    const started = performance.now();
    const result = await runQuestion(options.mode ?? 'rag', {
      dossier,
      question: item.question,
      model,
      scope,
      ledger: { maxDistinct: MAX_PARAGRAPHS_READ, capacity: MAX_PARAGRAPHS_READ },
    });
    agent.seconds.push((performance.now() - started) / 1000);
    agent.modelCalls.push(result.modelCalls);
    const ranked = await rankHotpotEvidence(dossier, item.question, result);
    const agentTitles = distinct(ranked.map((entry) => titleOf(entry.chunk.source)));
    agent.r2.push(recallAt(agentTitles, item.supportingTitles, 2));
    agent.r5.push(recallAt(agentTitles, item.supportingTitles, 5));
    agent.all.push(recallAt(agentTitles, item.supportingTitles, MAX_PARAGRAPHS_READ));
    const answer = stripCitationMarkers(result.answer, ' ');
    const direct = directAnswer(result.answer);
    const contains = item.answers.some((gold) => normalizeAnswer(answer).includes(normalizeAnswer(gold))) ? 1 : 0;
    const em = item.answers.some((gold) => normalizeAnswer(direct) === normalizeAnswer(gold)) ? 1 : 0;
    const f1 = Math.max(0, ...item.answers.map((gold) => tokenF1(direct, gold)));
    agent.contains.push(contains);
    agent.em.push(em);
    agent.f1.push(f1);
    if (options.onQuestion) {
      const read = normalizeAnswer(result.evidence.map((entry) => entry.chunk.text).join('\n'));
      const goldRead = item.answers.some((gold) => read.includes(normalizeAnswer(gold)));
      options.onQuestion({
        index: offset + i,
        id: item.id,
        question: item.question,
        gold: item.answers,
        answer: result.answer,
        direct,
        em,
        f1,
        contains,
        'recall@2': agent.r2.at(-1)!,
        'recall@5': agent.r5.at(-1)!,
        goldRead,
        ranked: agentTitles.slice(0, 5),
        supporting: [...item.supportingTitles],
        finishReason: result.finishReason,
        cited: result.citations.map(citedAs),
        ...(result.answeredBy ? { answeredBy: result.answeredBy } : {}),
        ...(result.questionRule ? { questionRule: result.questionRule } : {}),
      });
    }
    agent.tools.push(result.allToolCalls);
    agent.evidence.push(result.evidence.length);
    citations += result.citations.length + result.unresolvedCitations.length;
    unresolved += result.unresolvedCitations.length;
    finishReasons[result.finishReason] = (finishReasons[result.finishReason] ?? 0) + 1;
    if (result.answeredBy) answeredBy[result.answeredBy] = (answeredBy[result.answeredBy] ?? 0) + 1;
    if (result.questionRule) questionRule[result.questionRule] = (questionRule[result.questionRule] ?? 0) + 1;
    options.onProgress?.(i + 1, questions.length);
  }
  const round = (value: number) => Math.round(value * 10000) / 10000;
  return {
    questions: questions.length,
    offset,
    mode: options.mode ?? 'rag',
    singleShot: { 'recall@2': round(mean(single.r2)), 'recall@5': round(mean(single.r5)) },
    agent: {
      'recall@2': round(mean(agent.r2)),
      'recall@5': round(mean(agent.r5)),
      /** Share of gold paragraphs the agent read at all: the ceiling for any ranking of its evidence. */
      'recall@read': round(mean(agent.all)),
      answerContains: round(mean(agent.contains)),
      em: round(mean(agent.em)),
      f1: round(mean(agent.f1)),
      toolCallsMean: round(mean(agent.tools)),
      modelCallsMean: round(mean(agent.modelCalls)),
      secondsMean: round(mean(agent.seconds)),
      evidenceMean: round(mean(agent.evidence)),
      finishReasons,
      answeredBy,
      questionRule,
      citations,
      unresolvedCitations: unresolved,
    },
  };
}
