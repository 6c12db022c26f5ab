import type { Tokenizer } from '../../text/tokenize.ts';
import { citedIds } from '../../protocol/citations.ts';
import type { OfflineEvidence } from '../prompt-state.ts';
import { splitAnswerLines } from './answer-lines.ts';
import { howToObject, keyTermsOf, type KeyTerm } from '../question/key-terms.ts';
import { questionClauses } from '../question/question-parts.ts';
import type { QuestionAnalysis } from '../question/types.ts';
import {
  CLOSEST_PASSAGES,
  FILLER_SUBJECT_SHARE,
  HOWTO_OBJECT_MISSING_SHARE,
  HOWTO_OBJECT_MISSING_TERMS,
  SUBJECT_MIN_PASSAGES,
  SUBJECT_NAME_SHARE,
} from '../tuning.ts';

/** A passage's index terms, its title and heading path counting as part of it. */
function passageTerms(passage: OfflineEvidence, tokenizer: Tokenizer): Set<string> {
  return new Set(tokenizer.terms(`${passage.title} ${passage.at} ${passage.text}`));
}

/** Stems that share a start of 4+ letters count as the same word ("limiter" / "limits"). */
function related(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

function has(terms: ReadonlySet<string>, term: string): boolean {
  return terms.has(term) || [...terms].some((known) => related(known, term));
}

/**
 * A passage covers a key term when it holds all its terms, its title and heading path counting as
 * part of it; a name of several words needs at least half of them ("Bob Seger" covers "Robert C Seger").
 */
function covers(terms: ReadonlySet<string>, key: KeyTerm): boolean {
  const words = key.terms.filter((term) => term.length > 1);
  if (key.kind === 'name' && words.length > 1) return words.filter((term) => has(terms, term)).length * 2 >= words.length;
  return key.terms.every((term) => has(terms, term));
}

/** The passages a text cites, in the order it first cites them. */
function citedPassages(text: string, evidence: readonly OfflineEvidence[]): OfflineEvidence[] {
  const byId = new Map(evidence.map((e) => [e.id.toUpperCase(), e]));
  return citedIds(text).flatMap((id) => byId.get(id) ?? []);
}

/** An answer's first line that cites, a fenced code block counted as one line. */
function firstCitedLine(answer: string): string {
  return splitAnswerLines(answer).find((line) => citedIds(line).length > 0) ?? '';
}

/**
 * Answerers whose direct answer quotes one section (a procedure, a list, the best sentences): the
 * passage of that quote is where the answer comes from, and it alone must cover the key terms.
 * Every other answer (a span, a value, a comparison) may join passages — the two hops of a bridge
 * question — and is covered by what it cites together.
 */
const QUOTING_ANSWERERS = new Set(['how-to-steps', 'list-items', 'best-sentences']);

export interface Uncovered {
  /** The key terms the answer's passages do not cover, as the question writes them. */
  missing: string[];
}

/**
 * Calibrated abstention: whether the passages an answer comes from cover the question's key terms —
 * its named things and code identifiers, and for a how-to question the object of its verb. A name
 * that most retrieved passages hold (SUBJECT_NAME_SHARE) is what the whole collection is about
 * ("Starlette" in Starlette's docs), not what singles a passage out, and needs no covering.
 * Undefined when the answer is covered.
 */
export function uncoveredKeyTerms(
  analysis: QuestionAnalysis,
  evidence: readonly OfflineEvidence[],
  tokenizer: Tokenizer,
  answer: { text: string; answeredBy: string },
): Uncovered | undefined {
  const termsOf = new Map(evidence.map((e) => [e, passageTerms(e, tokenizer)]));
  const everywhere = (key: KeyTerm) =>
    evidence.length > 0 && [...termsOf.values()].filter((terms) => covers(terms, key)).length / evidence.length >= SUBJECT_NAME_SHARE;
  const quoting = QUOTING_ANSWERERS.has(answer.answeredBy);
  // Answers that join passages (spans, values) are not checked yet: on MuSiQue their question names drift from the passages' wording.
  if (!quoting) return undefined;
  // A question that asks several things is answered from several passages: each key term needs one of them.
  const asksOneThing = questionClauses(analysis.question).length === 1;
  const sources = citedPassages(asksOneThing ? firstCitedLine(answer.text) : answer.text, evidence);
  if (sources.length === 0) return undefined;
  const sets = sources.map((source) => termsOf.get(source)!);
  // A passage the answer cites that is about a named thing (its title or heading path names it) is the
  // hop the answer took through that thing: "Tara Strong" in a bridge question over Tara Strong's page.
  const citedHeadings = citedPassages(answer.text, evidence).map((e) => new Set(tokenizer.terms(`${e.title} ${e.at}`)));
  const missing = keyTermsOf(analysis, tokenizer)
    .filter((key) => !sets.some((terms) => covers(terms, key)) && !citedHeadings.some((terms) => covers(terms, key)) && !everywhere(key))
    .map((key) => key.text);
  // A how-to's object: most of its words (at least two) missing from the passage the steps come from.
  const object = howToObject(analysis);
  if (object) {
    const words = tokenizer.terms(object).filter((term) => !everywhere({ text: term, kind: 'name', terms: [term] }));
    const absent = words.filter((term) => !sets.some((terms) => has(terms, term)));
    if (absent.length >= HOWTO_OBJECT_MISSING_TERMS && absent.length / words.length >= HOWTO_OBJECT_MISSING_SHARE) missing.push(object);
  }
  return missing.length ? { missing } : undefined;
}

/**
 * The passages closest to answering when none does: those covering most of the question's key terms,
 * then most of its weight (`share`), then the best ranked. Listed beside a "not found", never cited.
 */
export function closestPassages(
  analysis: QuestionAnalysis,
  evidence: readonly OfflineEvidence[],
  tokenizer: Tokenizer,
  share: (passage: OfflineEvidence) => number,
  rank: (passage: OfflineEvidence) => number,
): string[] {
  const keys = keyTermsOf(analysis, tokenizer);
  const keyed = new Map(
    evidence.map((e) => {
      const terms = passageTerms(e, tokenizer);
      return [e, keys.filter((key) => covers(terms, key)).length];
    }),
  );
  return [...evidence]
    .sort((a, b) => keyed.get(b)! - keyed.get(a)! || share(b) - share(a) || rank(a) - rank(b))
    .slice(0, CLOSEST_PASSAGES)
    .map((e) => e.id);
}

/** Lines an answer keeps whatever words they hold: code, list items and steps, section headings, verdicts, "not found". */
const STRUCTURAL_LINE = /^(?:```|\s*(?:[-*+]|\d+[.)])\s|#{1,6}\s|(?:Yes|No)\b|Not found in the documents)/;

/** An answer line's index terms, its citation markers left out. */
function lineTerms(line: string, tokenizer: Tokenizer): string[] {
  return tokenizer.terms(line.replace(/\[[^\]]*\]/g, ' '));
}

/**
 * An answer without filler: a supporting prose line (any line after the first) stays only when it
 * holds one of the question's terms or of the direct answer's. The collection's subject does not
 * count: a name of the question that at least FILLER_SUBJECT_SHARE of the retrieved passages hold
 * ("HTTPX requires Python 3.9+" in HTTPX's docs). Other words always count: a search for a question
 * fills its results with the question's words ("released" in "Was the Apple Remote released …?").
 * Code blocks, list items and steps, headings and verdicts stay: their place in the answer is their
 * structure, not their words.
 */
export function withoutFiller(
  text: string,
  analysis: Pick<QuestionAnalysis, 'question' | 'entities'>,
  evidence: readonly OfflineEvidence[],
  tokenizer: Tokenizer,
): string {
  const { question } = analysis;
  const names = new Set(analysis.entities.flatMap((entity) => tokenizer.terms(entity)));
  const passages = evidence.map((e) => passageTerms(e, tokenizer));
  // Over a handful of passages a share says nothing about the collection: then nothing is its subject.
  const subject = (term: string) =>
    names.has(term) &&
    passages.length >= SUBJECT_MIN_PASSAGES &&
    passages.filter((terms) => has(terms, term)).length / passages.length >= FILLER_SUBJECT_SHARE;
  const [headline, ...rest] = splitAnswerLines(text);
  const questionTerms = tokenizer.terms(question);
  const headlineTerms = lineTerms(headline, tokenizer);
  const restTerms = rest.map((line) => lineTerms(line, tokenizer));
  // The direct answer's own words count too: the sentence that says it is its support.
  const asked = [...new Set([...questionTerms, ...headlineTerms])].filter((term) => !subject(term));
  if (asked.length === 0) return text;
  // A passage the question or the answer's other lines name by its title supports the answer whatever
  // its line says: the other end of a bridge ("Shirley Temple" in "… starring Shirley Temple as …").
  const named = (index: number) => {
    const cited = citedIds(rest[index]);
    const elsewhere = new Set([...questionTerms, ...headlineTerms, ...restTerms.flatMap((terms, other) => (other === index ? [] : terms))]);
    return evidence.some((e) => {
      if (!cited.includes(e.id.toUpperCase())) return false;
      const title = tokenizer.terms(e.title.replace(/\([^)]*\)/g, ' ')).filter((term) => !subject(term)); // "Poison (American band)" is Poison
      return title.length > 0 && title.every((term) => has(elsewhere, term));
    });
  };
  const kept = rest.filter((line, index) => {
    if (STRUCTURAL_LINE.test(line) || line.trim() === '') return true;
    const terms = new Set(restTerms[index]);
    return asked.some((term) => has(terms, term)) || named(index);
  });
  return [headline, ...kept].join('\n');
}
