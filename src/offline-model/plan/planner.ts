import type { Tokenizer } from '../../text/tokenize.ts';
import { questionParts } from '../question/question-parts.ts';
import { headedBy, parameterOwner } from '../question/parameter-owner.ts';
import { entitiesIn } from '../text/entities.ts';
import { isLeadIn, segmentsOf } from '../text/sentences.ts';
import { analyseQuestion } from '../question/question.ts';
import { isDemonym, NATIONALITY } from '../text/spans.ts';
import { normaliseQuery, plainTitle, relevanceRank, type PromptState } from '../prompt-state.ts';
import {
  BRIDGE_SEARCH_K,
  BRIDGE_SOURCES,
  ENTITY_SEARCH_K,
  NAME_POSITION_DECAY,
  QUESTION_ENTITY_SEARCHES,
  QUESTION_SEARCH_K,
  SELF_NAME_SHARE,
  SINGLE_WORD_NAME_WEIGHT,
} from '../tuning.ts';

export interface PlannedSearch {
  query: string;
  k: number;
}

export interface PlanOptions {
  maxRounds: number;
  queriesPerRound: number;
  /** Passages for the whole-question search. */
  k: number;
  /** The run offers search_knowledge and does not demand an answer now. */
  canSearch: boolean;
}

/** A passage to read whole with get_content. */
export interface PlannedRead {
  documentId: number;
  from: number;
}

/** How many cut sections are read whole before answering. */
const WHOLE_READS = 2;

/**
 * Sections to read whole before answering, once the searches are done. A question for the
 * arguments of a named thing is answered from that thing's list: when the section headed by its
 * name was shown cut to the search's budget, the list's end is missing, and when a passage ends by
 * introducing the thing ("… includes a StaticFiles class for …:"), what it introduces is the next
 * chunk. get_content reads each whole, once.
 */
export function nextReads(state: PromptState, canRead: boolean): PlannedRead[] {
  if (!mayRead(state, canRead)) return [];
  const owner = parameterOwner(state.question);
  if (!owner) return [];
  const alreadyRead = (documentId: number, ordinal: number) =>
    state.reads.some((r) => r.documentId === documentId && r.from <= ordinal && ordinal <= r.to);
  const reads: PlannedRead[] = [];
  for (const e of [...state.evidence].sort((a, b) => relevanceRank(a) - relevanceRank(b))) {
    const { documentId, ordinal } = e;
    if (documentId === undefined || ordinal === undefined) continue;
    const last = segmentsOf(e.text).pop();
    const introduces =
      owner.code && last?.kind === 'sentence' && /:$/.test(last.text) && isLeadIn(last.text) && namesWord(last.text, owner.name);
    const read = e.cut && headedBy(e.at, owner.name) ? ordinal : introduces ? ordinal + 1 : undefined;
    if (read === undefined || alreadyRead(documentId, read)) continue;
    if (!reads.some((r) => r.documentId === documentId && r.from === read)) reads.push({ documentId, from: read });
  }
  return reads.slice(0, WHOLE_READS);
}

/** The text names the word as a word of its own ("a StaticFiles class", not "StaticFilesApp"). */
function namesWord(text: string, word: string): boolean {
  return new RegExp(`(?<![\\w.])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`).test(text);
}

/**
 * The next round of searches, or undefined when it is time to answer: after `maxRounds`, when the
 * last round brought no new evidence, or when every planned search was made already.
 */
export function nextSearches(state: PromptState, tokenizer: Tokenizer, options: PlanOptions): PlannedSearch[] | undefined {
  const wantsAnswer = !options.canSearch || state.lastUserText !== state.question;
  if (wantsAnswer || state.rounds >= options.maxRounds) return undefined;
  const lastRoundAddedEvidence = state.rounds === 0 || state.evidence.some((e) => e.round === state.rounds);
  if (!lastRoundAddedEvidence) return undefined;
  const planned = state.rounds === 0 ? firstQueries(state.question, options.k) : bridgeQueries(state, tokenizer, options.queriesPerRound);
  const fresh = planned.filter((search) => !state.queries.has(normaliseQuery(search.query))).slice(0, options.queriesPerRound);
  return fresh.length > 0 ? fresh : undefined;
}

/** The run offers get_content and lets the model go on (it does not demand an answer now). */
export function mayRead(state: PromptState, canRead: boolean): boolean {
  return canRead && state.lastUserText === state.question;
}

/** Round 1: the whole question (and each part of a two-part one), plus each named entity or quoted phrase in it as its own, narrower search. */
export function firstQueries(question: string, k = QUESTION_SEARCH_K): PlannedSearch[] {
  // a demonym alone ("American", "South Korean") names no document worth a read
  const named = entitiesIn(question).filter((entity) => !isDemonym(entity));
  // A two-part question's parts may live in different documents: each part is searched as well.
  const parts = questionParts(question) ?? [];
  return [
    { query: question, k },
    ...parts.map((part) => ({ query: part, k })),
    ...named.slice(0, QUESTION_ENTITY_SEARCHES).map((entity) => ({ query: entity, k: ENTITY_SEARCH_K })),
  ];
}

/**
 * Names in the evidence most relevant to the question that the question does not mention: the
 * hop to the next document (the "bridge"). Searched by name alone, since a document about a
 * thing usually carries its name in its title.
 */
export function bridgeQueries(state: PromptState, tokenizer: Tokenizer, limit: number): PlannedSearch[] {
  const questionTerms = new Set(tokenizer.terms(state.question));
  // The passage of the thing a multi-hop question starts from ("the city in which Kirton End is
  // located") names where the chain goes next, one-word names too ("… in the Boston district").
  const hopEntities = analyseQuestion(state.question)
    .chain.filter((hop) => !hop.terminal && hop.entity)
    .map((hop) => normaliseQuery(hop.entity!));
  const isHopSource = (evidence: PromptState['evidence'][number]) => hopEntities.includes(normaliseQuery(plainTitle(evidence.title)));
  const ranked = [...state.evidence].sort((a, b) => relevanceRank(a) - relevanceRank(b));
  const hopSource = ranked.find(isHopSource);
  const sources = ranked.slice(0, BRIDGE_SOURCES);
  if (hopSource && !sources.includes(hopSource)) sources.push(hopSource);
  const candidates = new Map<string, number>();
  sources.forEach((evidence, position) => {
    const fromHop = evidence === hopSource;
    const weight = fromHop ? 1 : 1 / (1 + position);
    const ownTitle = new Set(tokenizer.terms(evidence.title));
    for (const [i, name] of entitiesIn(evidence.text).entries()) {
      const terms = tokenizer.terms(name);
      if (terms.length === 0 || terms.every((term) => questionTerms.has(term))) continue;
      if (terms.filter((term) => ownTitle.has(term)).length >= terms.length * SELF_NAME_SHARE) continue; // the passage naming itself
      if (state.evidence.some((e) => normaliseQuery(e.title) === normaliseQuery(name))) continue; // already read
      const specificity = terms.length > 1 || (fromHop && !NATIONALITY.test(name)) ? 1 : SINGLE_WORD_NAME_WEIGHT;
      candidates.set(name, (candidates.get(name) ?? 0) + (weight * specificity) / (1 + NAME_POSITION_DECAY * i));
    }
  });
  return [...candidates.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name]) => ({ query: name, k: BRIDGE_SEARCH_K }));
}
