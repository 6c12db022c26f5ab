import type { Tokenizer } from '../../text/tokenize.ts';
import { citedIds } from '../../protocol/citations.ts';
import type { OfflineEvidence } from '../prompt-state.ts';
import { howToObject, keyTermsOf, type KeyTerm } from '../question/key-terms.ts';
import { questionClauses } from '../question/question-parts.ts';
import type { QuestionAnalysis } from '../question/types.ts';
import { CLOSEST_PASSAGES, HOWTO_OBJECT_MISSING_SHARE, HOWTO_OBJECT_MISSING_TERMS, SUBJECT_NAME_SHARE } from '../tuning.ts';

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
  const lines: string[] = [];
  let fence: string[] | undefined;
  for (const line of answer.split('\n')) {
    if (fence) {
      fence.push(line);
      if (/^```/.test(line)) {
        lines.push(fence.join('\n'));
        fence = undefined;
      }
    } else if (/^```/.test(line)) fence = [line];
    else lines.push(line);
  }
  if (fence) lines.push(fence.join('\n'));
  return lines.find((line) => citedIds(line).length > 0) ?? '';
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
  const termsOf = new Map(evidence.map((e) => [e, new Set(tokenizer.terms(`${e.title} ${e.at} ${e.text}`))]));
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
      const terms = new Set(tokenizer.terms(`${e.title} ${e.at} ${e.text}`));
      return [e, keys.filter((key) => covers(terms, key)).length];
    }),
  );
  return [...evidence]
    .sort((a, b) => keyed.get(b)! - keyed.get(a)! || share(b) - share(a) || rank(a) - rank(b))
    .slice(0, CLOSEST_PASSAGES)
    .map((e) => e.id);
}
