import type { Tokenizer } from '../../text/tokenize.ts';
import type { OfflineEvidence, PromptState } from '../prompt-state.ts';
import { CONTEXT_TERM_WEIGHT } from '../tuning.ts';

export interface QuestionCoverage {
  /** Share of the question's weight no evidence mentions, and how many distinct terms that is. */
  absent(): { share: number; terms: number };
  /** The distinct terms of a sentence. */
  sentenceTerms(sentence: string): string[];
  /** The terms of a passage's title and headings. */
  context(evidence: OfflineEvidence): Set<string>;
  /** Question weight a sentence adds beyond what is covered; its passage's title and headings count part. */
  gain(terms: string[], already: Set<string>, evidence: OfflineEvidence): number;
  /** Share of the question's weight this passage covers (not counting what `after` already covers). */
  passage(evidence: OfflineEvidence, after?: OfflineEvidence): number;
  /** Share of the question's weight a chain of passages covers together. */
  coverage(chain: OfflineEvidence[]): number;
  /** Whether any passage mentions all the terms of a name. */
  mentions(name: string): boolean;
}

/** Term-overlap scoring with weights from the evidence at hand (rare question terms weigh more). */
/** Stems that share a start of 4+ letters count as the same word for presence ("founder" / "found"). */
function related(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

/** Phrasal verbs a question uses where passages use one word: "came out" is said "released". */
const PLAINER_WORDS: Array<[RegExp, string]> = [
  [/\b(?:came|come|comes|coming)\s+out\b/gi, 'released'],
  [/\b(?:passed|pass|passes)\s+away\b/gi, 'died'],
  [/\b(?:set|sets)\s+up\b/gi, 'founded established'],
  [/\b(?:took|take|takes)\s+place\b/gi, 'held'],
  [/\b(?:grew|grow|grows)\s+up\b/gi, 'raised'],
];

/** The question with each phrasal verb followed by the word passages use for it. */
export function withPlainerWords(question: string): string {
  return PLAINER_WORDS.reduce((text, [phrase, plain]) => text.replace(phrase, (found) => `${found} ${plain}`), question);
}

/**
 * `ignore`: question terms that describe the answer rather than what it is about ("city" in "in
 * which city", "together" in a sum); they never make the evidence look absent.
 */
export function questionCoverage(
  state: PromptState,
  tokenizer: Tokenizer,
  ignore: ReadonlySet<string> = new Set(),
  operators: ReadonlySet<string> = new Set(),
): QuestionCoverage {
  const termsOf = new Map<OfflineEvidence, Set<string>>();
  const documentFrequency = new Map<string, number>();
  for (const evidence of state.evidence) {
    const terms = new Set(tokenizer.terms(`${evidence.title} ${evidence.at} ${evidence.text}`));
    termsOf.set(evidence, terms);
    for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const n = state.evidence.length;
  const weight = (term: string) => Math.log(1 + (n + 1) / ((documentFrequency.get(term) ?? 0) + 0.5));
  // `operators`: words of the operation asked ("together", "how many"), not of its subject: they weigh nothing.
  const wanted = new Map(
    tokenizer
      .terms(withPlainerWords(state.question))
      .filter((term) => !operators.has(term))
      .map((term) => [term, weight(term)]),
  );
  const total = [...wanted.values()].reduce((a, b) => a + b, 0) || 1;
  const covered = (terms: Set<string>, exclude?: Set<string>) => {
    let sum = 0;
    for (const [term, w] of wanted) if (terms.has(term) && !exclude?.has(term)) sum += w;
    return sum / total;
  };
  const everything = new Set(state.evidence.flatMap((e) => [...termsOf.get(e)!]));
  const contextTerms = new Map(state.evidence.map((e) => [e, new Set(tokenizer.terms(`${e.title} ${e.at}`))]));
  return {
    absent: () => {
      let absentWeight = 0;
      let terms = 0;
      for (const [term, w] of wanted) {
        if (everything.has(term) || ignore.has(term)) continue;
        if (term.length >= 4 && [...everything].some((t) => related(t, term))) continue;
        absentWeight += w;
        terms++;
      }
      return { share: absentWeight / total, terms };
    },
    sentenceTerms: (sentence) => [...new Set(tokenizer.terms(sentence))],
    context: (evidence) => contextTerms.get(evidence)!,
    gain: (terms, already, evidence) => {
      let sum = 0;
      const own = new Set(terms);
      for (const [term, w] of wanted) {
        if (already.has(term)) continue;
        if (own.has(term)) sum += w;
        else if (contextTerms.get(evidence)!.has(term)) sum += w * CONTEXT_TERM_WEIGHT;
      }
      return sum / total;
    },
    passage: (evidence, after) => covered(termsOf.get(evidence)!, after ? termsOf.get(after) : undefined),
    coverage: (chain) => covered(new Set(chain.flatMap((e) => [...termsOf.get(e)!]))),
    mentions: (name) => {
      const terms = tokenizer.terms(name);
      return terms.length === 0 || state.evidence.some((e) => terms.every((t) => termsOf.get(e)!.has(t)));
    },
  };
}
