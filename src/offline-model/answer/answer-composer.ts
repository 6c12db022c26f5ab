import type { Tokenizer } from '../../text/tokenize.ts';
import { calculate, compareCandidates, multipleValues, ownedBy, type ReaderSentence } from './calculation.ts';
import { plainTitle, relevanceRank, titledBy, type ContentRead, type OfflineEvidence, type PromptState } from '../prompt-state.ts';
import { analyseQuestion, answerTypeOfNoun, participleOf, type QuestionAnalysis } from '../question/question.ts';
import { questionCoverage, withPlainerWords, type QuestionCoverage } from '../question/question-coverage.ts';
import { isLeadIn, segmentsOf, type Segment } from '../text/sentences.ts';
import { convertTime, datesIn, lifeDates } from '../text/quantities.ts';
import { sharedProperty } from './shared-property.ts';
import { compareSections, renderComparison } from './section-comparison.ts';
import { procedureSteps, type Quoted, type Step } from './procedure-steps.ts';
import { listItems, listReadOn } from './list-items.ts';
import { headingAnswer, renderHeadingAnswer } from './heading-answer.ts';
import { parameterList } from './parameter-list.ts';
import { isHeadline } from '../text/headline.ts';
import {
  candidateSpans,
  isRoleTitle,
  looksLikePerson,
  nameSpans,
  namesJoinedByAnd,
  NATIONALITY,
  ORG_WORDS,
  titleFit,
  withoutRoleOf,
  type Span,
} from '../text/spans.ts';
import {
  BRIDGE_SENTENCE_BONUS,
  SECOND_HOP_ALWAYS,
  HOWTO_NEEDS_ENTITIES,
  CHAIN_PASSAGE_BONUS,
  CHOSEN_SENTENCE_BONUS,
  UNCHOSEN_PASSAGE_PENALTY,
  MIN_SECOND_HOP_GAIN,
  SPAN_MIN_SCORE,
  NAMED_PASSAGES_ALWAYS,
  SPAN_SENTENCES,
  ANTECEDENT_MAX_CHARS,
  FIRST_SENTENCE_MIN_GAIN,
  LINK_WEIGHT,
  MIN_CHAIN_COVERAGE,
  MIN_SENTENCE_CHARS,
  MIN_SPAN_FIT,
  MIN_SPAN_RELEVANCE,
  NEXT_SENTENCE_MIN_GAIN,
  NOT_FOUND_ABSENT_SHARE,
  NOT_FOUND_ABSENT_TERMS,
  OFF_CHAIN_WEIGHT,
  PARTIAL_LINK_SHARE,
  PARTIAL_LINK_STRENGTH,
  QUESTION_RANK_BONUS,
  RANK_TIE_BREAK,
  SECOND_HOP_WEIGHT,
  SPAN_FIT_WEIGHT,
  SPAN_FOCUS_WEIGHT,
  SPAN_OVERLAP_PENALTY,
  SPAN_OTHER_YEAR_PENALTY,
  SPAN_ASKED_YEAR_BONUS,
  LED_TO_RELEVANCE_SHARE,
  SPAN_PROXIMITY_SCALE,
  SPAN_PROXIMITY_WEIGHT,
  SPAN_RELEVANCE_WEIGHT,
  SPAN_REPEAT_BONUS,
  SPAN_AGENT_WEIGHT,
  SPAN_NAMED_PASSAGE_PENALTY,
  SPAN_BRIDGE_OWNER_WEIGHT,
  SPAN_BRIDGE_PENALTY,
  SPAN_HOP_SENTENCE_PENALTY,
  SPAN_SUBJECT_WEIGHT,
  SPAN_TITLE_WEIGHT,
  SUPPORT_SENTENCES,
} from '../tuning.ts';
import { isNotFoundAnswer, NOT_FOUND_LEAD } from './not-found.ts';
import { questionParts } from '../question/question-parts.ts';
import { closestPassages, uncoveredKeyTerms, withoutFiller } from './answer-coverage.ts';
import { splitAnswerLines } from './answer-lines.ts';

export const NOT_FOUND = `${NOT_FOUND_LEAD}: none of the retrieved passages answers the question.`;

/** How strongly a passage names another passage's title: 1 for the full title, less for most of its words. */
export function linkStrength(text: string, title: string): number {
  const plain = plainTitle(title).trim();
  if (plain.length < 3) return 0;
  if (text.toLowerCase().includes(plain.toLowerCase())) return 1;
  const words = plain.split(/\s+/).filter((w) => w.length > 3);
  if (words.length < 2) return 0;
  const found = words.filter((w) => text.toLowerCase().includes(w.toLowerCase())).length;
  return found / words.length >= PARTIAL_LINK_SHARE ? PARTIAL_LINK_STRENGTH : 0;
}

/** One supporting segment of an answer, with the passage it cites (the shape procedure steps quote in). */
type Chosen = Quoted;

/** Renders a segment for the answer: code fenced and whole, a lead-in's colon made a full stop. */
function render(segment: Segment, id: string): string {
  if (segment.kind === 'code') return `\`\`\`\n${segment.text}\n\`\`\` [${id}]`;
  return `${segment.text.trim().replace(/:$/, '.')} [${id}]`;
}

/** A procedure's steps in order, each its introduction (numbered, unless its item is) and then its own code block. */
function renderSteps(steps: Step[]): string[] {
  return steps.flatMap((step, n) => [
    ...(step.lead ? [`${/^\d+[.)]\s/.test(step.lead.text) ? '' : `${n + 1}. `}${render(step.lead.segment, step.lead.evidence.id)}`] : []),
    ...step.body.map((item) => render(item.segment, item.evidence.id)),
  ]);
}

/**
 * A sentence that opens with a pronoun ("It has 22 engineers …") is shown with the sentence before
 * it, so the reader sees what "it" is.
 */
function withAntecedent(item: Chosen): Segment {
  const { segment } = item;
  if (segment.kind !== 'sentence' || segment.index === 0 || !/^(?:It|He|She|They|Its|His|Her|Their|This|These)\b/.test(segment.text))
    return segment;
  const previous = segmentsOf(item.evidence.text)[segment.index - 1];
  if (
    previous?.kind !== 'sentence' ||
    previous.block !== segment.block ||
    previous.text.length + segment.text.length > ANTECEDENT_MAX_CHARS
  )
    return segment;
  return { ...segment, text: `${previous.text} ${segment.text}` };
}

function supportLines(items: Chosen[], limit = SUPPORT_SENTENCES): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const item of items) {
    const key = item.segment.text.trim();
    if (seen.has(key)) continue;
    seen.add(key);
    const shown = withAntecedent(item);
    if (shown !== item.segment) {
      // the antecedent sentence may be a support of its own: show it once
      const previousIndex = lines.findIndex(
        (line) =>
          line ===
          render({ ...item.segment, text: shown.text.slice(0, shown.text.length - item.segment.text.length - 1) }, item.evidence.id),
      );
      if (previousIndex >= 0) lines.splice(previousIndex, 1);
      seen.add(shown.text.slice(0, shown.text.length - item.segment.text.length - 1).trim());
    }
    lines.push(render(shown, item.evidence.id));
    if (lines.length >= limit) break;
  }
  return lines;
}

/** "Not found in the documents: …", naming what was asked for. */
function notFound(what?: string): string {
  return what ? `${NOT_FOUND_LEAD}: ${what}.` : NOT_FOUND;
}

/** What the question asks, as a phrase for "not found": "the favourite colour of the chief executive officer". */
function askedFor(analysis: QuestionAnalysis): string {
  const q = analysis.question.replace(/\?+\s*$/, '').trim();
  const lower = q.charAt(0).toLowerCase() + q.slice(1);
  const the = /^(?:what|which|who) (?:is|was|are|were) (the .+)$/i.exec(lower);
  if (the) return the[1];
  return `an answer to "${q}?"`;
}

export function composeAnswer(state: PromptState, tokenizer: Tokenizer, maxSentences: number): string {
  return readAnswer(state, tokenizer, maxSentences).text;
}

/** An answer and the name of the answerer that gave it (reported by evaluations, so a change shows which path moved). */
export interface ReadAnswer {
  text: string;
  answeredBy: string;
  /** The rule that decided the question's type (QuestionAnalysis.rule), once the question was read. */
  questionRule?: string;
  /** A not-found answer's closest passages (evidence ids, closest first): listed beside it, never cited. */
  closest?: string[];
}

/** What every answerer reads: the question's analysis and the evidence the reader chose for it. */
interface AnswerContext {
  state: PromptState;
  tokenizer: Tokenizer;
  analysis: QuestionAnalysis;
  score: QuestionCoverage;
  best: ReturnType<typeof bestChain>;
  chain: OfflineEvidence[];
  sentences: ReaderSentence[];
  chosen: Chosen[];
  questionTerms: Set<string>;
}

/** One way of answering: `answer` returns the answer, or undefined to let the next answerer try. */
interface Answerer {
  name: string;
  answer(context: AnswerContext): string | ReadAnswer | undefined;
}

const joined = (lines: string[]) => lines.join('\n');

/**
 * The answerers, in order: the first that answers wins. Each reads structure the question or the
 * evidence has (a shared property, a calculation, options to compare, steps, a list, several values,
 * a span of the expected type) before the fallback, the best sentences.
 */
const ANSWERERS: readonly Answerer[] = [
  {
    name: 'section-comparison',
    answer: ({ state }) => {
      const sides = compareSections(state.question, state.evidence);
      return sides && joined(renderComparison(sides));
    },
  },
  {
    name: 'parameter-list',
    answer: ({ state }) => {
      const list = parameterList(state.question, state.evidence);
      return (
        list &&
        joined([...list.items.map((item) => render(item.segment, item.evidence.id)), ...supportLines(list.lead ? [list.lead] : [], 1)])
      );
    },
  },
  {
    name: 'heading-name',
    answer: ({ state, score }) => {
      const found = headingAnswer(state.question, state.evidence, score);
      return found && joined(renderHeadingAnswer(found));
    },
  },
  {
    name: 'shared-property',
    answer: ({ analysis, sentences, tokenizer }) => {
      const shared = sharedProperty(analysis, sentences, tokenizer);
      return shared && joined([shared.line, ...supportLines(shared.support)]);
    },
  },
  {
    name: 'calculation',
    answer: ({ analysis, sentences, tokenizer }) => {
      if (analysis.type !== 'calculation') return undefined;
      const result = calculate(analysis, sentences, tokenizer);
      return result && joined([result.line, ...supportLines(result.support)]);
    },
  },
  {
    name: 'comparison',
    answer: ({ analysis, sentences, tokenizer, chosen }) => {
      if (analysis.type !== 'comparison') return undefined;
      const result = compareCandidates(analysis, sentences, tokenizer);
      return result && joined([result.line, ...supportLines(result.support.length ? result.support : chosen)]);
    },
  },
  {
    name: 'yes-no',
    answer: ({ analysis, sentences, tokenizer, chosen, questionTerms }) => {
      if (analysis.type !== 'yes-no') return undefined;
      const result = compareCandidates(analysis, sentences, tokenizer) ?? yesNo(analysis, sentences, tokenizer, questionTerms);
      return result && joined([result.line, ...supportLines([...result.support, ...chosen])]);
    },
  },
  {
    name: 'how-to-steps',
    answer: ({ analysis, state, score, chosen }) => {
      if (analysis.type !== 'how-to') return undefined;
      const procedure = procedureSteps(state.evidence, score);
      if (!procedure) return undefined;
      if (procedure.steps.length > 1) return joined(renderSteps(procedure.steps));
      const [instruction] = procedure.steps;
      const context = [
        ...(instruction.lead ? [instruction.lead] : []),
        ...chosen.filter((c) => c.segment.kind !== 'code' && !instruction.body.some((b) => b.segment.text === c.segment.text)),
      ];
      return joined([...instruction.body.map((item) => render(item.segment, item.evidence.id)), ...supportLines(context, 2)]);
    },
  },
  {
    name: 'list-items',
    answer: ({ analysis, state, score }) => {
      if (analysis.type !== 'list') return undefined;
      const list = listItems(state.evidence, score);
      return (
        list &&
        joined([...list.items.map((item) => render(item.segment, item.evidence.id)), ...supportLines(list.lead ? [list.lead] : [], 1)])
      );
    },
  },
  {
    name: 'multiple-values',
    answer: ({ analysis, sentences, tokenizer }) => {
      if (!analysis.multiValue) return undefined;
      const result = multipleValues(analysis, sentences, tokenizer);
      return result && joined([result.line, ...supportLines(result.support)]);
    },
  },
  { name: 'span', answer: spanAnswer },
  {
    name: 'best-sentences',
    // A sentence answer (what happens, why, how): the best sentence, never a lead-in whose content follows it.
    answer: ({ chosen, state }) => joined(supportLines(expandLeadIns(chosen, state.evidence), SUPPORT_SENTENCES + 1)),
  },
];

/**
 * The extractive reader's answer: a short direct answer first (a name, a number with its unit, a
 * date, yes/no, a command, the items of a list, a computed value), then at most a few supporting
 * sentences, each citing its evidence; or "Not found in the documents: …" when the evidence lacks
 * what the question asks for. The supporting sentences come from the best chain of one or two
 * passages (one that matches the question and one it leads to), chosen by what they add to the
 * question's coverage; the direct answer comes from the first answerer (ANSWERERS) that answers.
 */
export function readAnswer(state: PromptState, tokenizer: Tokenizer, maxSentences: number): ReadAnswer {
  if (state.evidence.length === 0) return { text: NOT_FOUND, answeredBy: 'not-found:no-evidence' };
  const parts = questionParts(state.question);
  if (parts) {
    const answered = answerInParts(parts, state, tokenizer, maxSentences);
    if (answered) return answered;
  }
  const analysis = analyseQuestion(state.question);
  return { ...answerTo(analysis, state, tokenizer, maxSentences), questionRule: analysis.rule };
}

/** Lines of a part's answer shown in a two-part answer: its direct answer and its best two supports. */
const PART_LINES = 3;

/**
 * A two-part question answered part by part, from the same evidence: each part's answer (its direct
 * answer and best support) in the order asked, a part the documents do not answer said last. When
 * no part is answered, the whole question is read as one (undefined).
 */
function answerInParts(parts: [string, string], state: PromptState, tokenizer: Tokenizer, maxSentences: number): ReadAnswer | undefined {
  const answerPart = (part: string) => {
    const analysis = analyseQuestion(part);
    return { ...answerTo(analysis, { ...state, question: part }, tokenizer, maxSentences), questionRule: analysis.rule };
  };
  const first = answerPart(parts[0]);
  // "… and which class is its parent?": "it" is what the first part's direct answer names.
  const named = isNotFoundAnswer(first.text) ? undefined : /^([^\s`[][^[\n]{0,40}?) \[E\d+\]$/.exec(first.text.split('\n')[0])?.[1];
  const second =
    named && named.split(/\s+/).length <= 4 && /\b(?:it|its)\b/i.test(parts[1])
      ? parts[1].replace(/\bits\b/gi, `${named}'s`).replace(/\bit\b/gi, named)
      : parts[1];
  const answers = [first, answerPart(second)];
  const found = answers.filter((answer) => !isNotFoundAnswer(answer.text));
  if (found.length === 0) return undefined;
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const answer of [...found, ...answers.filter((a) => isNotFoundAnswer(a.text))]) {
    const own = withCitedVerdict(splitAnswerLines(answer.text)).filter((line) => !seen.has(line));
    for (const line of own.slice(0, PART_LINES)) {
      seen.add(line);
      lines.push(line);
    }
  }
  return { text: joined(lines), answeredBy: `parts:${answers.map((a) => a.answeredBy).join('+')}`, questionRule: 'two-part' };
}

/**
 * A part's bare "Yes"/"No" joined to the one sentence it was read from, so that inside a longer
 * answer the verdict carries that sentence's citation instead of standing uncited on a line of its
 * own; that sentence is the verdict's whole support.
 */
function withCitedVerdict(lines: string[]): string[] {
  const [verdict, support] = lines;
  if (!/^(?:Yes|No)$/.test(verdict ?? '') || !support || !/\[E\d+\]$/.test(support) || support.startsWith('```')) return lines;
  return [`${verdict}: ${support}`];
}

/** Answerers whose answer is a direct answer over supporting sentences, which must not be filler (withoutFiller). */
const SENTENCE_ANSWERERS = new Set(['span', 'best-sentences', 'yes-no']);

/**
 * The answer to a question read (readAnswer, once there is evidence), checked for coverage: an answer
 * whose passages do not cover the question's key terms is no answer (answer-coverage.ts). A
 * not-found answer names the passages closest to answering.
 */
function answerTo(analysis: QuestionAnalysis, state: PromptState, tokenizer: Tokenizer, maxSentences: number): ReadAnswer {
  const read = readEvidence(analysis, state, tokenizer, maxSentences);
  const found = !isNotFoundAnswer(read.text);
  const uncovered = found ? uncoveredKeyTerms(analysis, state.evidence, tokenizer, read) : undefined;
  if (found && !uncovered)
    return SENTENCE_ANSWERERS.has(read.answeredBy)
      ? { ...read, text: withoutFiller(read.text, analysis, state.evidence, tokenizer) }
      : read;
  const score = questionCoverage(state, tokenizer, answerWords(analysis, tokenizer), operatorWords(analysis, tokenizer));
  const closest = closestPassages(analysis, state.evidence, tokenizer, (e) => score.passage(e), relevanceRank);
  if (!uncovered) return { ...read, closest };
  return {
    text: notFound(`nothing about ${uncovered.missing.map((m) => `"${m}"`).join(' or ')} in the passage the answer would come from`),
    answeredBy: `not-found:key-terms-uncovered(${read.answeredBy})`,
    closest,
  };
}

/**
 * Before answering a list question: the get_content read that shows the rest of the list its answer
 * would quote, when a search result cut that list or it runs on into the next chunk (list-items.ts).
 * A two-part question is answered part by part and reads nothing.
 */
export function listReadBeforeAnswer(state: PromptState, tokenizer: Tokenizer): ContentRead | undefined {
  if (state.evidence.length === 0 || questionParts(state.question)) return undefined;
  const analysis = analyseQuestion(state.question);
  if (analysis.type !== 'list') return undefined;
  return listReadOn(state, questionCoverage(state, tokenizer, answerWords(analysis, tokenizer), operatorWords(analysis, tokenizer)));
}

function readEvidence(analysis: QuestionAnalysis, state: PromptState, tokenizer: Tokenizer, maxSentences: number): ReadAnswer {
  const score = questionCoverage(state, tokenizer, answerWords(analysis, tokenizer), operatorWords(analysis, tokenizer));
  const best = bestChain(state, score);
  const chain = [best.first, ...(best.second ? [best.second] : [])];
  const absent = score.absent();
  if ((absent.share > NOT_FOUND_ABSENT_SHARE && absent.terms >= NOT_FOUND_ABSENT_TERMS) || score.coverage(chain) < MIN_CHAIN_COVERAGE)
    return { text: notFound(absentPhrase(analysis, score)), answeredBy: 'not-found:terms-absent' };
  // How to do something with a thing no passage names (a protocol, a product): the documents do not say.
  if (HOWTO_NEEDS_ENTITIES && analysis.type === 'how-to' && analysis.entities.some((entity) => !score.mentions(entity)))
    return { text: notFound(absentPhrase(analysis, score)), answeredBy: 'not-found:how-to-subject-absent' };
  const selected = withSecondHop(selectSupport(state, score, best, chain, maxSentences), score, best);
  if (selected.length === 0) return { text: NOT_FOUND, answeredBy: 'not-found:nothing-selected' };
  // Spans are read from what the selection chose; the passages the question names join the support shown.
  const context: AnswerContext = {
    state,
    tokenizer,
    analysis,
    score,
    best,
    chain,
    sentences: rankSentences(state, tokenizer, score, chain, selected),
    chosen: withNamedPassages(selected, score, analysis, state.evidence),
    questionTerms: new Set(tokenizer.terms(withPlainerWords(state.question))),
  };
  for (const answerer of ANSWERERS) {
    const answer = answerer.answer(context);
    if (answer !== undefined) return typeof answer === 'string' ? { text: answer, answeredBy: answerer.name } : answer;
  }
  throw new Error('the last answerer always answers');
}

/**
 * A span of the expected type (a person, place, date, year, number or named thing), following the
 * first hop of a multi-hop question; or, when there is none, a partial or not-found answer for
 * number and date questions and the bridge passage's sentences for the rest.
 */
function spanAnswer({
  state,
  tokenizer,
  analysis,
  score,
  best,
  chain,
  sentences,
  chosen,
  questionTerms,
}: AnswerContext): ReadAnswer | undefined {
  if (
    !['person', 'place', 'date', 'year', 'number', 'entity'].includes(analysis.answerType) ||
    analysis.type === 'how-to' ||
    analysis.type === 'list'
  )
    return undefined;
  const hop = firstHop(analysis, sentences, tokenizer);
  const partial = hop ? missingSecondHop(analysis, hop, sentences, tokenizer) : undefined;
  if (partial) return { text: partial, answeredBy: 'span:second-hop-missing' };
  // The passage about the name the first hop leads to ("the woman who portrayed …" → Shirley Temple) supports the answer.
  const bridge = hop ? state.evidence.find((e) => hop.names.some((name) => titledBy(e, name))) : undefined;
  const supported = bridge ? withPassage(chosen, score, bridge) : chosen;
  // The passage the first hop leads to is read for the answer even when the selection passed it over.
  const spanSentences = supported !== chosen ? rankSentences(state, tokenizer, score, chain, supported) : sentences;
  const found = bestSpan(analysis, spanSentences, tokenizer, questionTerms, state.evidence, best, hop);
  // A weak best span is no answer — unless it is said of the name the first hop led to, so the chain
  // was followed to it. A number, date or year question then has none in the documents (a partial
  // answer when the first hop was found); any other gets the best sentence instead.
  const spanSentence = found && spanSentences.find((s) => sameSentence(s, found.source));
  const followed =
    hop !== undefined &&
    spanSentence !== undefined &&
    spanSentence.evidence !== hop.sentence.evidence &&
    hop.names.some((name) => isAbout(spanSentence, name, tokenizer));
  const span = found && (found.score >= SPAN_MIN_SCORE || followed) ? found : undefined;
  const partialHop = hop && saysRelation(analysis, hop, tokenizer) ? partialAnswer(analysis, hop, sentences, tokenizer) : undefined;
  if (!span && ['number', 'date', 'year'].includes(analysis.answerType) && (found || partialHop)) {
    return partialHop
      ? { text: partialHop, answeredBy: 'span:partial-hop' }
      : { text: notFound(askedFor(analysis)), answeredBy: 'not-found:no-span' };
  }
  if (span) {
    const hopSource =
      hop && !sameSentence(hop.sentence, span.source) && ownsSpanSentence(hop, span, tokenizer)
        ? [{ evidence: hop.sentence.evidence, segment: hop.sentence.segment, text: hop.sentence.segment.text }]
        : [];
    // What states the answer and how the question leads to it comes first: the span's own sentence
    // and the first hop's, then the passages the question names and the answer's own passage, then
    // the chain's, then the rest, each group in the order the selection chose them (strongest first).
    const rank = (item: Chosen) => {
      const at = chosen.findIndex((c) => c.evidence === item.evidence);
      return at < 0 ? chosen.length : at;
    };
    const sources = [...hopSource, span.source].sort((a, b) => rank(a) - rank(b));
    const tier = (item: Chosen) =>
      sources.some((s) => s.evidence === item.evidence)
        ? 0
        : isNamedPassage(item.evidence, analysis) || normaliseSpan(plainTitle(item.evidence.title)) === normaliseSpan(span.text)
          ? 1
          : chain.includes(item.evidence)
            ? 2
            : 3;
    const ordered = [...sources, ...supported.filter((c) => !sources.some((s) => s.segment === c.segment))].sort(
      (a, b) => tier(a) - tier(b) || rank(a) - rank(b),
    );
    // "For how many minutes …" answered in seconds: converted, with the amount as written
    const converted = analysis.answerType === 'number' && analysis.unit ? convertTime(span.text, analysis.unit) : undefined;
    const shown = converted ? `${span.text} = ${converted}` : span.text;
    return { text: [`${shown} ${cite(sources.map((s) => s.evidence.id))}`, ...supportLines(ordered)].join('\n'), answeredBy: 'span' };
  }
  const typed = typeAbsent(analysis);
  if (typed) return { text: notFound(typed), answeredBy: 'not-found:type-absent' };
  if (supported !== chosen)
    return {
      text: supportLines(expandLeadIns(supported, state.evidence), SUPPORT_SENTENCES + 1).join('\n'),
      answeredBy: 'span:bridge-sentences',
    };
  return undefined;
}

/** Words of the question that describe the answer or the operation, not what it is about. */
const OPERATION_WORDS =
  'together total combined altogether sum many much difference differ share percentage percent proportion fraction ratio grow grew growth increase increased decrease decreased change changed rise rose fall fell more less fewer higher lower average mean name type kind sort';

/** Words that name the calculation, not what it is over: they count for nothing in a calculation question's coverage. */
const CALCULATION_WORDS =
  'together total combined altogether sum many much difference share percentage percent proportion fraction ratio average mean';

/** Words of a comparison by date that the passages need not repeat: they give each option's date instead. */
const DATE_COMPARISON_WORDS =
  'first older oldest younger youngest earlier earliest later latest before after newer newest recent established founded formed created started opened launched released published born came';

function answerWords(analysis: QuestionAnalysis, tokenizer: Tokenizer): Set<string> {
  const words = [OPERATION_WORDS];
  const head = analysis.focus?.split(/\s+/).pop();
  if (head && ['place', 'year', 'date', 'person', 'number'].includes(analysis.answerType)) words.push(head);
  // "Which was established first, A or B?": the passages give each date, not the comparison's words
  if (analysis.comparison?.byDate) words.push(DATE_COMPARISON_WORDS);
  return new Set(tokenizer.terms(words.join(' ')));
}

/**
 * Words that ask for the operation or the outcome, not what it is about: they weigh nothing in the
 * coverage — a calculation's "total", "average"; the "happens" of "What happens to a citation …?",
 * which an unrelated sentence ("as they happen") would otherwise match.
 */
function operatorWords(analysis: QuestionAnalysis, tokenizer: Tokenizer): Set<string> {
  if (analysis.type === 'calculation') return new Set(tokenizer.terms(CALCULATION_WORDS));
  if (/^what (?:happens|happened|will happen|would happen|occurs|occurred)\b/i.test(analysis.question))
    return new Set(tokenizer.terms('happens happened occurs occurred'));
  return new Set();
}

/** For questions whose expected type is checkable, the reason to abstain when no span of it exists. */
function typeAbsent(analysis: QuestionAnalysis): string | undefined {
  const focus = analysis.focus ?? '';
  if (/\b(?:colou?r|nationality)\b/.test(focus)) return askedFor(analysis);
  if (analysis.answerType === 'date' || analysis.answerType === 'year' || analysis.answerType === 'number') return askedFor(analysis);
  return undefined;
}

/** "Not found": which of the question's names or terms no passage mentions. */
function absentPhrase(analysis: QuestionAnalysis, score: QuestionCoverage): string | undefined {
  const missing = analysis.entities.filter((entity) => !score.mentions(entity));
  if (missing.length) return `nothing about ${missing.map((m) => `"${m}"`).join(' or ')} in the retrieved passages`;
  return askedFor(analysis);
}

/** Greedy support selection: the sentences that add most to the question's coverage, chain passages first. */
function selectSupport(
  state: PromptState,
  score: QuestionCoverage,
  best: { first: OfflineEvidence; second?: OfflineEvidence },
  chain: OfflineEvidence[],
  maxSentences: number,
): Chosen[] {
  const pool = [...chain, ...state.evidence.filter((e) => !chain.includes(e))];
  // The names that led from the first hop to the second: the sentence that names them is the answer's hinge.
  const bridgeNames = best.second
    ? [plainTitle(best.second.title), ...best.second.foundBy]
        .map((name) => name.toLowerCase())
        .filter((name) => name !== state.question.toLowerCase())
    : [];
  const chosen: Chosen[] = [];
  const covered = new Set<string>();
  for (let round = 0; round < maxSentences; round++) {
    let pick: (Chosen & { gain: number; terms: string[] }) | undefined;
    for (const evidence of pool) {
      const inChain = chain.includes(evidence);
      const firstFromPassage = !chosen.some((c) => c.evidence === evidence);
      for (const segment of segmentsOf(evidence.text)) {
        if (segment.text.length <= MIN_SENTENCE_CHARS) continue;
        if (chosen.some((c) => c.text === segment.text)) continue;
        const terms = score.sentenceTerms(segment.text);
        const namesBridge = evidence === best.second && bridgeNames.some((name) => segment.text.toLowerCase().includes(name));
        const gain =
          score.gain(terms, covered, evidence) * (inChain ? 1 : OFF_CHAIN_WEIGHT) +
          (inChain && firstFromPassage ? CHAIN_PASSAGE_BONUS : 0) +
          (namesBridge && firstFromPassage ? BRIDGE_SENTENCE_BONUS : 0) +
          RANK_TIE_BREAK / (1 + relevanceRank(evidence));
        if (!pick || gain > pick.gain) pick = { evidence, segment, text: segment.text, gain, terms };
      }
    }
    if (!pick || pick.gain < (round === 0 ? FIRST_SENTENCE_MIN_GAIN : NEXT_SENTENCE_MIN_GAIN)) break;
    chosen.push(pick);
    for (const term of [...pick.terms, ...score.context(pick.evidence)]) covered.add(term);
  }
  return chosen;
}

/**
 * A two-hop chain's answer usually sits in its second passage: when the greedy selection took
 * nothing from it (its words were already covered by the first), its best sentence joins the support.
 */
function withSecondHop(chosen: Chosen[], score: QuestionCoverage, best: { first: OfflineEvidence; second?: OfflineEvidence }): Chosen[] {
  return best.second ? withPassage(chosen, score, best.second) : chosen;
}

/**
 * The passages the question names by their titles ("Poison's album …" → "Poison (American band)")
 * each give a supporting sentence when none of theirs was chosen, ahead of second sentences from
 * passages already shown: a reader sees every named thing the answer rests on.
 */
function withNamedPassages(chosen: Chosen[], score: QuestionCoverage, analysis: QuestionAnalysis, evidence: OfflineEvidence[]): Chosen[] {
  if (!NAMED_PASSAGES_ALWAYS) return chosen;
  let out = chosen;
  for (const passage of evidence) {
    if (!isNamedPassage(passage, analysis) || out.some((c) => c.evidence === passage)) continue;
    const added = withPassage(out, score, passage);
    if (added === out) continue;
    const pick = added[added.length - 1];
    const repeat = out.findIndex((c, i) => out.slice(0, i).some((earlier) => earlier.evidence === c.evidence));
    out = repeat < 0 ? added : [...out.slice(0, repeat), pick, ...out.slice(repeat)];
  }
  return out;
}

/** Whether the question names the passage by its title ("Alfred Gell and Edmund Leach" names two). */
function isNamedPassage(passage: OfflineEvidence, analysis: QuestionAnalysis): boolean {
  if (/\(disambiguation\)\s*$/i.test(passage.title)) return false;
  const title = plainTitle(passage.title).toLowerCase();
  return analysis.entities.some((entity) => {
    const sides = entity.split(/\s+and\s+/);
    // a question's "A and B" splits at any two-word sides (unlike namesJoinedByAnd: changing it moved the figures)
    const names = sides.length > 1 && sides.every((side) => side.split(/\s+/).length >= 2) ? [entity, ...sides] : [entity];
    return names.some((name) => name.toLowerCase().replace(/['’]s$/, '') === title);
  });
}

/** The chosen support plus the best sentence of the given passage, when none of it was chosen. */
function withPassage(chosen: Chosen[], score: QuestionCoverage, second: OfflineEvidence): Chosen[] {
  if (!SECOND_HOP_ALWAYS || chosen.length === 0 || chosen.some((c) => c.evidence === second)) return chosen;
  let pick: (Chosen & { gain: number }) | undefined;
  for (const segment of segmentsOf(second.text)) {
    if (segment.text.length <= MIN_SENTENCE_CHARS || segment.kind === 'code') continue;
    const gain = score.gain(score.sentenceTerms(segment.text), new Set(), second) - segment.index * 1e-3;
    if (!pick || gain > pick.gain) pick = { evidence: second, segment, text: segment.text, gain };
  }
  return pick ? [...chosen, { evidence: pick.evidence, segment: pick.segment, text: pick.text }] : chosen;
}

/** Every segment of the evidence with how well it answers the question on its own. */
function rankSentences(
  state: PromptState,
  tokenizer: Tokenizer,
  score: QuestionCoverage,
  chain: OfflineEvidence[],
  chosen: Chosen[],
): ReaderSentence[] {
  const out: ReaderSentence[] = [];
  for (const evidence of state.evidence) {
    const inChain = chain.includes(evidence);
    const segments = segmentsOf(evidence.text);
    for (const segment of segments) {
      const terms = score.sentenceTerms(segment.text);
      const chosenAt = chosen.findIndex((c) => c.segment.text === segment.text && c.evidence === evidence);
      const chosenPassage = chosen.some((c) => c.evidence === evidence);
      const base =
        score.gain(terms, new Set(), evidence) * (inChain ? 1 : OFF_CHAIN_WEIGHT) + RANK_TIE_BREAK / (1 + relevanceRank(evidence));
      const relevance =
        base + (chosenPassage ? 0 : -UNCHOSEN_PASSAGE_PENALTY) + (chosenAt >= 0 ? CHOSEN_SENTENCE_BONUS / (1 + chosenAt) : 0);
      out.push({ evidence, segment, relevance, base, terms, segments, words: wordTerms(segment.text, tokenizer) });
    }
  }
  return out.sort((a, b) => b.relevance - a.relevance);
}

/** Each word's stemmed term and offset in the sentence, for proximity. */
function wordTerms(sentence: string, tokenizer: Tokenizer): Array<{ term: string; start: number }> {
  const out: Array<{ term: string; start: number }> = [];
  for (const match of sentence.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)) {
    const [term] = tokenizer.terms(match[0]);
    if (term) out.push({ term, start: match.index! });
  }
  return out;
}

function cite(ids: string[]): string {
  return [...new Set(ids)].map((id) => `[${id}]`).join('');
}

/** The first hop of a multi-hop question: the sentence that answers the inner phrase, and the names it leads to. */
interface FirstHop {
  /** The named thing the hop starts from ("Kasper Schmeichel" in "the father of Kasper Schmeichel"), lower-case. */
  entity: string;
  sentence: ReaderSentence;
  names: string[];
}

/** How a passage about X says the relation a question asks of X. */
const RELATION_SAID_AS: Record<string, string> = {
  father: 'son daughter child',
  mother: 'son daughter child',
  parent: 'son daughter child',
  son: 'father mother parent',
  daughter: 'father mother parent',
  wife: 'married husband spouse',
  husband: 'married wife spouse',
  spouse: 'married wife husband',
  brother: 'brother sister sibling',
  sister: 'brother sister sibling',
};

function firstHop(analysis: QuestionAnalysis, sentences: ReaderSentence[], tokenizer: Tokenizer): FirstHop | undefined {
  const hop = analysis.chain.find((h) => !h.terminal && h.entity);
  if (!hop) return undefined;
  const entity = hop.entity!.toLowerCase();
  // "the father of X" is said in X's passage as "he is the son of …"
  // the relation's own words, not the names it mentions (those the hop sentence must name anyway)
  const nameTerms = new Set(analysis.entities.flatMap((e) => tokenizer.terms(e)));
  const relationTerms = tokenizer.terms(hop.relation).filter((t) => !nameTerms.has(t));
  const role = hop.relation.split(/\s+/).pop() ?? '';
  const saidAs = tokenizer.terms(`${RELATION_SAID_AS[role] ?? ''} ${participleOf(role) ?? ''}`);
  let best: { sentence: ReaderSentence; value: number } | undefined;
  for (const sentence of sentences) {
    // a sentence naming X, or one of X's own passage ("Kasper Peter Schmeichel …" in "Kasper Schmeichel")
    if (!sentence.segment.text.toLowerCase().includes(entity) && plainTitle(sentence.evidence.title).toLowerCase() !== entity) continue;
    const named = relationTerms.filter((t) => sentence.terms.includes(t)).length / Math.max(1, relationTerms.length);
    const value = sentence.relevance + Math.max(named, saidAs.some((t) => sentence.terms.includes(t)) ? 1 : 0);
    if (!best || value > best.value) best = { sentence, value };
  }
  if (!best) return undefined;
  const questionLower = analysis.question.toLowerCase();
  const text = best.sentence.segment.text;
  // In a row, only the record the entity belongs to: "product: Gannet-2; …; built by: Deep Water Team"
  // "a play by George Abbott and John Cecil Holm" leads to both; the passage naming itself ("Three
  // Men" in "Three Men on a Horse") and a demonym ("an American film") lead nowhere
  const ownTitle = plainTitle(best.sentence.evidence.title).toLowerCase();
  const spans = nameSpans(text);
  // "the writer of X" in "X is a song written by Lee Hazlewood and recorded by Nancy Sinatra": the name after "written by"
  const participle = participleOf(role);
  const byRole = participle ? new RegExp(`\\b${participle}\\s+(?:[\\w-]+\\s+){0,2}?by\\s+(?:the\\s+)?$`, 'i') : undefined;
  const agents = byRole ? spans.filter((span) => byRole.test(text.slice(Math.max(0, span.start - 60), span.start))) : [];
  const names = (agents.length ? agents : spans)
    .flatMap((span) => [span.text, ...namesJoinedByAnd(span.text)])
    .filter(
      (name) =>
        !NATIONALITY.test(name) &&
        !questionLower.includes(name.toLowerCase()) &&
        !entity.includes(name.toLowerCase()) &&
        !ownTitle.includes(name.toLowerCase()) &&
        tokenizer.terms(name).length > 0,
    );
  return names.length ? { entity, sentence: best.sentence, names } : undefined;
}

/**
 * A partial answer: the first hop resolved ("the founder of Harbor Station" → Mara Lindqvist) but
 * nothing about that entity says what the rest of the question asks ("… married?").
 */
function missingSecondHop(
  analysis: QuestionAnalysis,
  hop: FirstHop,
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
): string | undefined {
  const chainHop = analysis.chain.find((h) => !h.terminal && h.entity);
  if (!chainHop) return undefined;
  // the noun asked for ("What nationality is {}?") names the answer's kind, which a passage need not repeat
  const ignore = new Set([...answerWords(analysis, tokenizer), ...tokenizer.terms(analysis.focus ?? '')]);
  const restTerms = tokenizer.terms(chainHop.rest.replace('{}', ' ')).filter((t) => !ignore.has(t));
  if (restTerms.length === 0) return undefined;
  const everywhere = new Set(sentences.flatMap((s) => [...s.terms, ...tokenizer.terms(`${s.evidence.title} ${s.evidence.at}`)]));
  const present = (t: string) =>
    [...everywhere].some((e) => e === t || (Math.min(e.length, t.length) >= 4 && (e.startsWith(t) || t.startsWith(e))));
  if (restTerms.some(present)) return undefined;
  return partialAnswer(analysis, hop, sentences, tokenizer);
}

/** The first hop's sentence says most of what the question relates its name by ("recruited" in "the manager who recruited X"). */
function saysRelation(analysis: QuestionAnalysis, hop: FirstHop, tokenizer: Tokenizer): boolean {
  const chainHop = analysis.chain.find((h) => !h.terminal && h.entity);
  if (!chainHop) return false;
  const entityTerms = new Set(tokenizer.terms(chainHop.entity ?? ''));
  const relationTerms = tokenizer.terms(chainHop.relation).filter((t) => !entityTerms.has(t));
  return relationTerms.filter((t) => hop.sentence.terms.includes(t)).length * 2 >= relationTerms.length;
}

/** "Not found …: the answer to "<the rest, asked of the name>" Partial answer: <the hop> is <the name>", with the hop's sentence. */
function partialAnswer(analysis: QuestionAnalysis, hop: FirstHop, sentences: ReaderSentence[], tokenizer: Tokenizer): string | undefined {
  const chainHop = analysis.chain.find((h) => !h.terminal && h.entity);
  // a rest with nothing asked of the name ("{}?") makes no partial answer
  if (!chainHop || tokenizer.terms(chainHop.rest.replace('{}', ' ')).length === 0) return undefined;
  // "the president is Department of Health" would mislead: a person asked for is named by a person's name
  // and "the civil war" by the name of a war ("Russian Civil War") when the sentence has one
  const noun = chainHop.phrase.replace(/^(?:the|a|an)\s+/i, '').split(/\s+(?:who|that|which|whose|in|at|of|on|from)\b/)[0];
  const head = tokenizer.terms(noun.split(/\s+/).pop() ?? '')[0];
  const headed = hop.names.filter((n) => head !== undefined && tokenizer.terms(n).includes(head));
  const fits = answerTypeOfNoun(noun) === 'person' ? hop.names.filter(looksLikePerson) : headed.length ? headed : hop.names;
  if (fits.length === 0) return undefined;
  const name = fits.find((n) => sentences.some((s) => s !== hop.sentence && ownedBy(s, n, tokenizer))) ?? fits[0];
  const asked = chainHop.rest.replace('{}', name).replace(/\s*\?*\s*$/, '?');
  const phrase = chainHop.phrase.replace(/^\p{Lu}/u, (c) => c.toLowerCase());
  return [
    `${NOT_FOUND_LEAD}: the answer to "${asked}" Partial answer: ${phrase} is ${name} [${hop.sentence.evidence.id}].`,
    render(hop.sentence.segment, hop.sentence.evidence.id),
  ].join('\n');
}

/**
 * The sentence is about the name, not only mentioning it: its passage is titled by the name, or the
 * sentence (or, for a pronoun, the one before it) opens with it. "… grandson of Henry J. Kaiser" is
 * about the grandson.
 */
function isAbout(sentence: ReaderSentence, name: string, tokenizer: Tokenizer): boolean {
  const nameTerms = tokenizer.terms(name);
  if (nameTerms.length && nameTerms.every((t) => tokenizer.terms(plainTitle(sentence.evidence.title)).includes(t))) return true;
  const opens = (text: string) =>
    text
      .replace(/^[\s"“'‘(]*(?:The\s+)?/, '')
      .toLowerCase()
      .startsWith(name.toLowerCase());
  if (opens(sentence.segment.text)) return true;
  const previous = sentence.segments[sentence.segment.index - 1];
  return previous !== undefined && /^(?:he|she|it|they|his|her|its|their)\b/i.test(sentence.segment.text) && opens(previous.text);
}

/** The same sentence of the same passage (segments are read afresh for each ranking). */
function sameSentence(a: { evidence: OfflineEvidence; segment: Segment }, b: { evidence: OfflineEvidence; segment: Segment }): boolean {
  return a.evidence === b.evidence && a.segment.index === b.segment.index && a.segment.text === b.segment.text;
}

function ownsSpanSentence(hop: FirstHop, span: SpanPick, tokenizer: Tokenizer): boolean {
  const sentence = { ...hop.sentence, segment: span.source.segment, evidence: span.source.evidence };
  return hop.names.some(
    (name) => span.source.text.toLowerCase().includes(name.toLowerCase()) || ownedBy(sentence as ReaderSentence, name, tokenizer),
  );
}

interface SpanPick {
  text: string;
  score: number;
  source: Chosen;
}

/**
 * "John Samuel Waters Jr." → "John Waters" when a passage is titled so: the name as the documents
 * title it. `ownTitle`: the title of the passage whose first sentence the span opens ("Robert Clark
 * Bob Seger" in the passage "Bob Seger").
 */
function titleForm(text: string, titles: string[], ownTitle?: string): string {
  const words = text.replace(/,?\s+(?:Jr|Sr|II|III|IV)\.?$/, '').split(/\s+/);
  if (words.length < 2) return text;
  if (ownTitle) {
    // "Henry John Kaiser" in the passage "Henry J. Kaiser": each title word is a word of the name or its initial
    const t = ownTitle.split(/\s+/);
    const inName = (w: string) => words.includes(w) || (/^\p{Lu}\.$/u.test(w) && words.slice(1, -1).some((n) => n[0] === w[0]));
    const shorter = t.length < words.length || t.some((w) => /^\p{Lu}\.$/u.test(w));
    if (t.length >= 2 && t.length <= words.length && shorter && t[t.length - 1] === words[words.length - 1] && t.slice(0, -1).every(inName))
      return ownTitle;
  }
  for (const title of titles) {
    const t = title.split(/\s+/);
    if (t.length >= 2 && t.length < words.length && t[0] === words[0] && t[t.length - 1] === words[words.length - 1]) return title;
  }
  return text;
}

/**
 * The best span of the expected type. Its score adds: how well its form fits the type, how well its
 * sentence answers the question, how near it is to the question's words, whether it names the noun
 * asked for ("Fairfax County" for "what county"), whether it is the subject of a sentence that
 * defines it as that noun ("David Weissman is a screenwriter"), whether a passage carries it as its
 * title; less its overlap with the question and, when the question asks about a bridge entity,
 * the bridge entity itself.
 */
function bestSpan(
  analysis: QuestionAnalysis,
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
  questionTerms: Set<string>,
  evidence: OfflineEvidence[],
  chain: { first: OfflineEvidence; second?: OfflineEvidence },
  hop?: FirstHop,
): SpanPick | undefined {
  const bridge = chain.second;
  // The names that link the first passage to the second (its title, or the bridge search that found it and that the first names).
  const linkNames = bridge
    ? [plainTitle(bridge.title), ...bridge.foundBy].filter((name) => chain.first.text.toLowerCase().includes(name.toLowerCase()))
    : [];
  const focusWords = (analysis.focus ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w && !/^(?:other|another|which|what|the|a|an)$/.test(w));
  const focusHead = focusWords[focusWords.length - 1];
  const focusTerm = focusHead ? tokenizer.terms(focusHead)[0] : undefined;
  const focusTerms = focusWords.flatMap((w) => tokenizer.terms(w));
  const titleList = evidence.map((e) => plainTitle(e.title));
  const bridgeAsked = analysis.chain.length === 0 || analysis.chain.some((h) => h.terminal);
  const bridgeNames = !bridgeAsked ? [...linkNames, ...(hop?.names ?? [])].map((n) => n.toLowerCase()) : [];
  // Titles of passages that define their subject as what is asked ("… is a 2008 American fantasy film" for "what fantasy film")
  const personAsked = analysis.answerType === 'person';
  const definingTitles = new Set(
    evidence
      .filter((e) => definesAsAsked(segmentsOf(e.text)[0]?.text ?? '', focusTerm, personAsked, tokenizer))
      .filter((e) => !(bridge && !bridgeAsked && e === bridge))
      .map((e) => normaliseSpan(plainTitle(e.title))),
  );
  // "… of a South Korean boy group that was formed by who?": the subject of a passage defining it as
  // the described thing is not the answer (a bonus for those passages' other spans changed nothing on 0–99).
  const describedHead = analysis.described?.split(/\s+/).pop();
  const describedTerm = describedHead ? tokenizer.terms(describedHead)[0] : undefined;
  const describedPassages = new Set(
    describedTerm ? evidence.filter((e) => definesAsAsked(segmentsOf(e.text)[0]?.text ?? '', describedTerm, false, tokenizer)) : [],
  );
  const describedNames = new Set([...describedPassages].map((e) => normaliseSpan(plainTitle(e.title))));
  // The bridge entity (the second hop's name) answers only when the question asks for it.
  // Sentences about what the first hop leads to ("Mara Lindqvist was born in Bergen") hold the answer.
  const inHop = (sentence: ReaderSentence) => (hop && !bridgeAsked && sameSentence(sentence, hop.sentence) ? 1 : 0);
  // (a sentence of the named thing's own passage is about it, whichever names it contains: "Kasper Peter Schmeichel")
  const hopEntity = hop?.entity;
  const aboutBridge = (sentence: ReaderSentence) =>
    hop &&
    !sameSentence(sentence, hop.sentence) &&
    plainTitle(sentence.evidence.title).toLowerCase() !== hopEntity &&
    hop.names.some((name) => isAbout(sentence, name, tokenizer))
      ? 1
      : 0;
  const questionLower = analysis.question.toLowerCase();
  // "Who directed X?": the name after "directed by" (or "directed by A and" for a second name)
  // "known as what …?" is answered by a name a sentence gives after "known as" ("currently known as
  // the Carabao Cup", "known as the A from 1979 to 1988 and the B from 1988 to 1996")
  const namedAfter = analysis.namedAs
    ? new RegExp(
        `\\b${analysis.namedAs.replace(/\s+as$/, '')}\\s+(?:as\\s+)?(?:simply\\s+)?(?:the\\s+)?(?:[^.;()]{1,80}?\\s+(?:and|or|then|later)\\s+(?:as\\s+)?(?:the\\s+)?)?["“']?$`,
        'i',
      )
    : undefined;
  const agentBy = analysis.agentOf
    ? new RegExp(`\\b${analysis.agentOf}\\s+(?:[\\w-]+\\s+){0,2}?by\\s+(?:the\\s+)?(?:[^.;()]{1,40}?\\s+and\\s+)?$`, 'i')
    : undefined;
  // A bridge question names its first passage and asks about what that passage leads to: the
  // named passage's own facts ("Ralph Hefferline … 1974") answer what the question says, not what it asks.
  const namedFirst =
    bridge &&
    questionLower.includes(plainTitle(chain.first.title).toLowerCase()) &&
    !questionLower.includes(plainTitle(bridge.title).toLowerCase());
  // So is the own passage of the thing a non-terminal hop starts from ("the father of Kasper Schmeichel"), once the hop leads on.
  const hopOwn = (sentence: ReaderSentence) =>
    hop !== undefined && !bridgeAsked && hopEntity !== undefined && plainTitle(sentence.evidence.title).toLowerCase() === hopEntity;
  const inNamedFirst = (sentence: ReaderSentence, spanText: string) =>
    (namedFirst && sentence.evidence === chain.first && normaliseSpan(spanText) !== normaliseSpan(plainTitle(bridge!.title))) ||
    (hopOwn(sentence) && !hop!.names.some((n) => normaliseSpan(n) === normaliseSpan(spanText)))
      ? 1
      : 0;
  const citable = (e: OfflineEvidence) =>
    questionLower.includes(plainTitle(e.title).toLowerCase()) ? 2 : e === chain.first || e === chain.second ? 1 : 0;
  const context = { analysis, questionTerms, stem: (word: string) => tokenizer.terms(word)[0] ?? word.toLowerCase() };
  // "When did the golfer who won 230 tournaments die?": the life's dates opening a biography answer in
  // place of another date its passage gives its subject ("He won … the 1967 Open Championship").
  const asksLife = /\b(?:born|birth)\b/i.test(analysis.question) !== /\b(?:die|died|death)\b/i.test(analysis.question);
  const passageRelevance = new Map<OfflineEvidence, number>();
  for (const s of sentences) {
    if (s.segment.index === 0 || datesIn(s.segment.text).length === 0) continue;
    passageRelevance.set(s.evidence, Math.max(passageRelevance.get(s.evidence) ?? -Infinity, s.relevance));
  }
  const relevanceOf = (sentence: ReaderSentence, span: Span) => {
    if (!asksLife || span.kind !== 'date' || sentence.segment.index !== 0) return sentence.relevance;
    const life = lifeDates(sentence.segment.text);
    return life && (span.start === life.born.start || span.start === life.died.start)
      ? Math.max(sentence.relevance, passageRelevance.get(sentence.evidence) ?? -Infinity)
      : sentence.relevance;
  };
  const byText = new Map<string, SpanPick & { count: number }>();
  // The passage a hop leads to answers what the question asks of it even in words the question does
  // not use ("What government position was held by {}?" → "… served as Chief of Protocol"): its
  // sentences are read as at least half as relevant as its best one.
  const ledTo = hop && !bridgeAsked ? evidence.filter((e) => hop.names.some((name) => titledBy(e, name))) : [];
  const ledToBest = new Map(ledTo.map((e) => [e, Math.max(...sentences.filter((s) => s.evidence === e).map((s) => s.relevance))]));
  const floorOf = (s: ReaderSentence) => LED_TO_RELEVANCE_SHARE * (ledToBest.get(s.evidence) ?? -Infinity);
  const read = sentences
    .map((s) => (s.relevance < floorOf(s) ? { ...s, relevance: floorOf(s) } : s))
    .sort((a, b) => b.relevance - a.relevance);
  const top = read.filter((s) => s.relevance >= MIN_SPAN_RELEVANCE && s.segment.kind !== 'code');
  for (const sentence of top.slice(0, SPAN_SENTENCES)) {
    const text = sentence.segment.text;
    for (const found of candidateSpans(text, context)) {
      // "which Lady …?" is answered by "Lady Mary Tudor": the title asked for stays with the name
      const titled = found.kind === 'name' && focusTerm ? /(\p{Lu}\p{Ll}+)\s+$/u.exec(text.slice(0, found.start)) : null;
      const span =
        titled && tokenizer.terms(titled[1])[0] === focusTerm
          ? { ...found, text: `${titled[1]} ${found.text}`, start: found.start - titled[0].length }
          : found;
      if (span.fit < MIN_SPAN_FIT) continue;
      // A headline is a complete phrase: never a field label, a code fragment, a cross-reference or a lone cell of another column.
      if (!isHeadline(span, sentence.segment, questionTerms, context.stem)) continue;
      const spanTerms = tokenizer.terms(span.text);
      const numeric = span.kind === 'number' || span.kind === 'year' || span.kind === 'date';
      if (spanTerms.length === 0 && !numeric) continue;
      const overlap = spanTerms.length
        ? spanTerms.filter((t) => questionTerms.has(t) && !focusTerms.includes(t)).length / spanTerms.length
        : 0;
      if (overlap >= 1 && !numeric) continue; // the question's own words are not its answer
      if (!numeric && spanTerms.every((t) => questionTerms.has(t))) continue; // nor the words of the noun it asks for ("Which NFL team" → "NFL")
      if (questionLower.includes(span.text.toLowerCase()) && span.text.length > 3) continue;
      const lowerSpan = span.text.toLowerCase();
      // "Peter Bolesław Schmeichel MBE" is the bridge "Peter Schmeichel": every word of the name is in the span
      const spanWords = lowerSpan.split(/\s+/);
      const subject =
        !numeric &&
        /^[\s"“'‘(]*(?:The\s+)?$/.test(text.slice(0, span.start)) &&
        /^\s*(?:\([^)]*\)\s*)?,?\s*(?:[^,]{0,60},\s*)?(?:is|was|are|were|has been|had been)\b/.test(text.slice(span.end));
      const isDescribed =
        !numeric &&
        (describedNames.has(normaliseSpan(span.text)) ||
          (subject && describedPassages.has(sentence.evidence) && sentence.segment.index === 0));
      const isBridge =
        isDescribed ||
        bridgeNames.some(
          (name) =>
            name === lowerSpan ||
            (name.length > 3 && lowerSpan.includes(name)) ||
            (name.includes(' ') && name.split(/\s+/).every((w) => spanWords.includes(w))),
        );
      const defines = subject && definesAsAsked(text, focusTerm, personAsked, tokenizer) ? 1 : 0;
      const datedBy = span.kind === 'name' ? yearsNamedAfter(text, span, analysis.years) : undefined;
      const value =
        SPAN_FIT_WEIGHT * span.fit +
        SPAN_RELEVANCE_WEIGHT * relevanceOf(sentence, span) +
        SPAN_PROXIMITY_WEIGHT * proximity(span, sentence, questionTerms) +
        SPAN_FOCUS_WEIGHT * focusMatch(span, text, focusWords, focusTerm, tokenizer) +
        SPAN_SUBJECT_WEIGHT * defines +
        SPAN_TITLE_WEIGHT * (definingTitles.has(normaliseSpan(span.text)) ? 1 : 0) +
        SPAN_BRIDGE_OWNER_WEIGHT * aboutBridge(sentence) +
        (agentBy?.test(text.slice(Math.max(0, span.start - 80), span.start)) ? SPAN_AGENT_WEIGHT : 0) +
        (namedAfter?.test(text.slice(Math.max(0, span.start - 120), span.start)) ? SPAN_AGENT_WEIGHT : 0) -
        SPAN_HOP_SENTENCE_PENALTY * inHop(sentence) -
        SPAN_NAMED_PASSAGE_PENALTY * inNamedFirst(sentence, span.text) -
        SPAN_OVERLAP_PENALTY * overlap -
        ((span.kind === 'number' ? datedOtherwise(text, span, analysis.years) : datedBy === 'other') ? SPAN_OTHER_YEAR_PENALTY : 0) +
        (datedBy === 'asked' ? SPAN_ASKED_YEAR_BONUS : 0) -
        (isBridge ? SPAN_BRIDGE_PENALTY : 0);
      const isTitle = titleList.some((t) => t.toLowerCase() === lowerSpan);
      const shown =
        span.kind === 'name' && !isTitle
          ? trimSpan(
              titleForm(span.text, titleList, subject && sentence.segment.index === 0 ? plainTitle(sentence.evidence.title) : undefined),
              analysis,
              questionTerms,
              focusTerm,
              tokenizer,
            )
          : span.kind === 'name'
            ? titleForm(span.text, titleList)
            : span.text;
      const key = normaliseSpan(shown);
      const source = { evidence: sentence.evidence, segment: sentence.segment, text };
      const known = byText.get(key);
      if (known) {
        known.count++;
        // The same answer written in a passage the answer rests on (the chain's, or one the question
        // names) is cited from there: "British" from Alfred Gell's passage, not from "British people".
        const better = citable(sentence.evidence) > citable(known.source.evidence);
        const worse = citable(sentence.evidence) < citable(known.source.evidence);
        if (value > known.score) Object.assign(known, { text: shown, score: value, ...(worse ? {} : { source }) });
        else if (better) known.source = source;
      } else byText.set(key, { text: shown, score: value, count: 1, source });
    }
  }
  // A passage that defines its subject as what is asked offers its title as a candidate, even when
  // its first sentence writes the name in another form ('John "John John" Alexander Florence').
  if (!['date', 'year', 'number'].includes(analysis.answerType)) {
    for (const e of evidence) {
      const title = plainTitle(e.title);
      const key = normaliseSpan(title);
      if (!definingTitles.has(key) || questionLower.includes(title.toLowerCase())) continue;
      if (bridgeNames.some((name) => name === title.toLowerCase()) || describedNames.has(key)) continue;
      const first = top.find((s) => s.evidence === e && s.segment.index === 0);
      if (!first) continue;
      const spanTerms = tokenizer.terms(title);
      const overlap = spanTerms.length
        ? spanTerms.filter((t) => questionTerms.has(t) && !focusTerms.includes(t)).length / spanTerms.length
        : 1;
      if (overlap >= 1) continue;
      const value =
        SPAN_FIT_WEIGHT * titleFit(title, analysis) +
        SPAN_RELEVANCE_WEIGHT * first.relevance +
        SPAN_PROXIMITY_WEIGHT +
        SPAN_SUBJECT_WEIGHT +
        SPAN_TITLE_WEIGHT -
        SPAN_OVERLAP_PENALTY * overlap;
      const known = byText.get(key);
      const source = { evidence: e, segment: first.segment, text: first.segment.text };
      if (!known) byText.set(key, { text: title, score: value, count: 1, source });
      else if (value > known.score) Object.assign(known, { text: title, score: value, source });
    }
  }
  let pick: (SpanPick & { count: number }) | undefined;
  for (const candidate of byText.values()) {
    const total = candidate.score + SPAN_REPEAT_BONUS * Math.min(3, candidate.count - 1);
    if (!pick || total > pick.score + SPAN_REPEAT_BONUS * Math.min(3, pick.count - 1)) pick = candidate;
  }
  return pick;
}

/** The year nearest the number in its sentence is not one the question names ("66,900, at the mid 2015 estimates" for "the 2001 census"). */
function datedOtherwise(sentence: string, span: Span, years: readonly string[]): boolean {
  if (years.length === 0) return false;
  let nearest: { year: string; distance: number } | undefined;
  for (const match of sentence.matchAll(/\b(?:1[5-9]\d\d|20\d\d)\b/g)) {
    const at = match.index!;
    if (at >= span.start && at < span.end) continue;
    const distance = at < span.start ? span.start - at : at - span.end;
    if (!nearest || distance < nearest.distance) nearest = { year: match[0], distance };
  }
  return nearest !== undefined && !years.includes(nearest.year);
}

/**
 * How the years written right after a name fit the question's: "other" when they are not the ones
 * it asks (a period that starts in another year, "the A from 1979 to 1988 and the B from 1988 to
 * 1996" for "from 1988 to 1996", or years none of which the question names, "… in 1992 and 1993"
 * for "in 1992"), "asked" when they are exactly its years ("the B from 1988 to 1996").
 */
function yearsNamedAfter(sentence: string, span: Span, years: readonly string[]): 'asked' | 'other' | undefined {
  if (years.length === 0) return undefined;
  const dated =
    /^\s*,?\s*(?:from|in|since|until|between|during|for)\s+(?:the\s+)?(?:(?:early|mid|late)[\s-]+)?((?:1[5-9]|20)\d\d)(?:\s*(to|until|and|[-–])\s*((?:1[5-9]|20)\d\d))?/i.exec(
      sentence.slice(span.end),
    );
  if (!dated) return undefined;
  const [, start, joiner, end] = dated;
  const other = joiner && joiner.toLowerCase() !== 'and' ? !years.includes(start) : !years.includes(start) && !(end && years.includes(end));
  if (other) return 'other';
  return years.includes(start) && (!end || years.includes(end)) ? 'asked' : undefined;
}

/** The predicate of "X is a/an …" defines X as the noun asked for ("… is an American film director"), or a biography when a person is asked. */
function definesAsAsked(sentence: string, focusTerm: string | undefined, personAsked: boolean, tokenizer: Tokenizer): boolean {
  const predicate =
    /\b(?:is|was|are|were|has been|had been)\s+(?:(?:a|an|the|one of the|also)\s+)+([^,;()]*?)(?=\s+(?:in|of|from|by|at|on|for|with|that|which|who|whose|based|located|known|best|founded|directed|written|produced|created|released|published|and\s+(?:is|was))\b|[,;(.]|$)/i.exec(
      sentence,
    );
  if (focusTerm && predicate && tokenizer.terms(predicate[1]).includes(focusTerm)) return true;
  return personAsked && /\((?:[^()]*;\s*)?(?:born|b\.)\s|\(\s*(?:c\.\s*)?\d{0,2}\s*\w*\s*\d{3,4}\s*[–-]/.test(sentence);
}

/**
 * Trims words that restate the question: "Sonic the Hedgehog" for "what hedgehog" → "Sonic";
 * "Marvel Comics" for "what brand's comic character" → "Marvel" (entities only: "Fairfax County"
 * keeps its noun).
 */
function trimSpan(
  text: string,
  analysis: QuestionAnalysis,
  questionTerms: Set<string>,
  focusTerm: string | undefined,
  tokenizer: Tokenizer,
): string {
  if (analysis.answerType !== 'entity') return text;
  // "Which company …?" is answered by the company of "Chairman of Berkshire Hathaway"; an office asked for keeps it
  const office = OFFICE_NOUNS.test((analysis.focus ?? '').split(/\s+/).pop() ?? '');
  let words = (office ? text : withoutRoleOf(text)).split(/\s+/);
  if (focusTerm && words.length >= 3 && /^the$/i.test(words[words.length - 2]) && tokenizer.terms(words[words.length - 1])[0] === focusTerm)
    return words.slice(0, -2).join(' ');
  // Words after the noun asked for belong to its name ("what larger Hall of Fame" → "International Boxing Hall of Fame").
  const focusAt = focusTerm ? words.findIndex((w) => tokenizer.terms(w)[0] === focusTerm) : -1;
  // "Lady Mary Tudor" for "… in The Tudors" is a titled name, not words of the question to trim
  while (words.length > 1 && !isRoleTitle(words[0])) {
    const term = tokenizer.terms(words[words.length - 1])[0];
    if (!term || !questionTerms.has(term) || term === focusTerm || (focusAt >= 0 && focusAt < words.length - 1)) break;
    if (ORG_WORDS.test(words[words.length - 1])) break; // "Polydor Records" keeps its "Records" for "which record label
    words = words.slice(0, -1);
  }
  while (words.length > 1 && /^(?:of|the|and|for|de|&)$/i.test(words[words.length - 1])) words = words.slice(0, -1);
  return words.join(' ');
}

function normaliseSpan(text: string): string {
  return text
    .toLowerCase()
    .replace(/^(?:the|a|an)\s+/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** 1 next to a question word, less with distance (in words). */
function proximity(span: Span, sentence: ReaderSentence, questionTerms: Set<string>): number {
  let nearest = Infinity;
  const words = sentence.words;
  const index = words.findIndex((w) => w.start >= span.start);
  const spanWordStart = index < 0 ? words.length : index;
  const spanWordEnd = words.findIndex((w) => w.start >= span.end);
  const endIndex = spanWordEnd < 0 ? words.length : spanWordEnd;
  words.forEach((word, i) => {
    if (i >= spanWordStart && i < endIndex) return;
    if (!questionTerms.has(word.term)) return;
    const distance = i < spanWordStart ? spanWordStart - i : i - endIndex + 1;
    nearest = Math.min(nearest, distance);
  });
  return nearest === Infinity ? 0 : 1 / (1 + (nearest - 1) / SPAN_PROXIMITY_SCALE);
}

/** The span names the focus noun ("Fairfax County" for "what county") or sits next to it. */
const OFFICE_NOUNS = /^(?:position|positions|office|offices|post|posts)$/i;
const OFFICE_NAME =
  /\b(?:Ambassador|Secretary|Minister|Senator|Governor|President|Mayor|Chief|Chancellor|Taoiseach|Premier|Representative|Congressman|Congresswoman|Speaker|Justice|Attorney|Treasurer|Commissioner|Chairman|Chairwoman|Chair|Consul|Envoy|Lieutenant|Deputy|Tánaiste|Comptroller|Auditor|Surgeon General|Director|Administrator|Prosecutor|Judge|Councillor|Councilor|Alderman|Member of Parliament|Delegate|Secretary-General)\b/;

function focusMatch(span: Span, sentence: string, focusWords: string[], focusTerm: string | undefined, tokenizer: Tokenizer): number {
  if (!focusTerm) return 0;
  const spanTerms = tokenizer.terms(sentence.slice(span.start, span.end));
  if (spanTerms.includes(focusTerm)) return 1;
  // "what government position" is answered by an office's name ("Chief of Protocol", "United States Senator")
  if (OFFICE_NOUNS.test(focusWords[focusWords.length - 1] ?? '') && OFFICE_NAME.test(span.text)) return 1;
  const modifiers = focusWords.slice(0, -1).flatMap((w) => tokenizer.terms(w));
  // "which record label" → "Polydor Records": the name ends in the noun's modifier
  if (modifiers.length && spanTerms.length > 1 && modifiers.includes(spanTerms[spanTerms.length - 1])) return 0.5;
  const before = tokenizer.terms(sentence.slice(Math.max(0, span.start - 40), span.start)).slice(-3);
  const after = tokenizer.terms(sentence.slice(span.end, span.end + 40)).slice(0, 2);
  if (before.includes(focusTerm) || after.includes(focusTerm)) return 0.7;
  if (modifiers.length && [...before, ...after].some((t) => modifiers.includes(t))) return 0.3;
  return 0;
}

/**
 * "Is X a Y?" without options: yes when a sentence about X (the question's first name) says Y —
 * most of the question's other words — without a negation or another nationality; else no.
 */
function yesNo(
  analysis: QuestionAnalysis,
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
  questionTerms: Set<string>,
): { line: string; support: Chosen[] } | undefined {
  // The passage titled with the subject ("Kasper Hvidt") says what it is; without one, the most relevant sentence
  const subject = analysis.entities[0]?.toLowerCase();
  const own = subject ? sentences.filter((s) => plainTitle(s.evidence.title).toLowerCase() === subject) : [];
  const subjectTerms = new Set(subject ? tokenizer.terms(subject) : []);
  const predicate = [...questionTerms].filter((t) => !subjectTerms.has(t));
  const coverage = (s: ReaderSentence) => (predicate.length ? predicate.filter((t) => s.terms.includes(t)).length / predicate.length : 0);
  const best = own.length ? own.reduce((a, b) => (coverage(b) > coverage(a) + 1e-9 ? b : a)) : sentences[0];
  if (!best) return undefined;
  const covered = own.length ? coverage(best) : best.terms.filter((t) => questionTerms.has(t)).length / Math.max(1, questionTerms.size);
  const negated = /\b(?:not|never|no longer|neither|nor)\b/i.test(best.segment.text);
  // "Is Jane Doe an American actress?" is no when the sentence gives another nationality
  const demonyms = analysis.question.split(/[^\p{L}-]+/u).filter((w) => NATIONALITY.test(w));
  const otherDemonym = demonyms.length > 0 && !demonyms.every((d) => new RegExp(`\\b${d}\\b`).test(best.segment.text));
  const yes = covered >= 0.6 && !negated && !otherDemonym;
  return { line: yes ? 'Yes' : 'No', support: [{ evidence: best.evidence, segment: best.segment, text: best.segment.text }] };
}

/** A chosen lead-in sentence gives way to what it leads into: the next sentence, list or code block. */
function expandLeadIns(chosen: Chosen[], evidence: OfflineEvidence[]): Chosen[] {
  void evidence;
  const out: Chosen[] = [];
  for (const item of chosen) {
    if (!isLeadIn(item.segment.text)) {
      out.push(item);
      continue;
    }
    const segments = segmentsOf(item.evidence.text);
    const at = segments.findIndex((s) => s.text === item.segment.text);
    const following: Chosen[] = [];
    for (let i = at + 1; i < segments.length; i++) {
      const segment = segments[i];
      if (following.length > 0 && segment.kind !== segments[at + 1].kind) break;
      if (following.length > 0 && segment.kind === 'sentence') break;
      following.push({ evidence: item.evidence, segment, text: segment.text });
      if (segment.kind === 'code' || (isLeadIn(segment.text) === false && segment.kind === 'sentence')) break;
      if (following.length >= 8) break;
    }
    if (following.length === 0) out.push(item);
    else out.push(...following);
  }
  return out;
}

/**
 * The part of a passage that can link to another: all of it for prose, but only the records that
 * match the question for a table or CSV passage (its rows are independent: the Tern-4 row does
 * not lead anywhere for a question about the Gannet-2).
 */
function linkingText(evidence: OfflineEvidence, score: QuestionCoverage): string {
  const segments = segmentsOf(evidence.text);
  const rows = segments.filter((s) => s.kind === 'row');
  if (rows.length < 2) return evidence.text;
  const gains = rows.map((row) => score.gain(score.sentenceTerms(row.text), score.context(evidence), evidence));
  const top = Math.max(...gains);
  const matching = rows.filter((_, i) => top > 0 && gains[i] >= top - 1e-9);
  return [...segments.filter((s) => s.kind !== 'row'), ...matching].map((s) => s.text).join('\n');
}

/**
 * The best chain of two passages: one that matches the question, and one that it leads to (its
 * title is named in the first) or that the question names too (comparisons); or one passage alone.
 */
function bestChain(state: PromptState, score: QuestionCoverage): { first: OfflineEvidence; second?: OfflineEvidence } {
  const questionLower = state.question.toLowerCase();
  let best: { first: OfflineEvidence; second?: OfflineEvidence; value: number } = { first: state.evidence[0], value: -Infinity };
  for (const first of state.evidence) {
    const single = score.passage(first) + QUESTION_RANK_BONUS / (1 + relevanceRank(first));
    const linkText = linkingText(first, score);
    if (single > best.value) best = { first, value: single };
    for (const second of state.evidence) {
      if (second === first) continue;
      // Linked when the first passage names the second's title, or names what the second is about
      // (a bridge search whose name is the second passage's title or heading).
      const about = `${second.title} ${second.at}`.toLowerCase();
      const bridged = Math.max(
        linkStrength(linkText, second.title),
        // Only names taken from evidence count: a name the question itself gives links nothing.
        ...second.foundBy
          .filter((q) => !questionLower.includes(q.toLowerCase()) && about.includes(q.toLowerCase()))
          .map((q) => linkStrength(linkText, q)),
      );
      const named = questionLower.includes(second.title.toLowerCase()) && questionLower.includes(first.title.toLowerCase()) ? 1 : 0;
      const link = Math.max(bridged, named);
      if (link === 0) continue;
      const added = score.passage(second, first);
      // A second passage that adds nothing to what the first covers is no hop (unless the question names both).
      if (added <= MIN_SECOND_HOP_GAIN && named === 0) continue;
      const value = single + SECOND_HOP_WEIGHT * added + LINK_WEIGHT * link;
      if (value > best.value) best = { first, second, value };
    }
  }
  return best;
}
