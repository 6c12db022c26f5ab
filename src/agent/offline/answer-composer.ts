import type { Tokenizer } from '../../text/tokenize.ts';
import { relevanceRank, type OfflineEvidence, type PromptState } from './prompt-state.ts';
import { questionCoverage } from './question-coverage.ts';
import { sentencesOf } from './sentences.ts';
import {
  BRIDGE_SENTENCE_BONUS,
  CHAIN_PASSAGE_BONUS,
  FIRST_SENTENCE_MIN_GAIN,
  LINK_WEIGHT,
  MIN_CHAIN_COVERAGE,
  NEXT_SENTENCE_MIN_GAIN,
  NOT_FOUND_ABSENT_SHARE,
  NOT_FOUND_ABSENT_TERMS,
  OFF_CHAIN_WEIGHT,
  PARTIAL_LINK_SHARE,
  PARTIAL_LINK_STRENGTH,
  QUESTION_RANK_BONUS,
  RANK_TIE_BREAK,
  SECOND_HOP_WEIGHT,
} from './tuning.ts';

export const OFFLINE_NOTICE = 'Offline extractive answer (Dossier offline model, no language model configured):';
export const NOT_FOUND = 'Not found in the documents: none of the retrieved passages answers the question.';
const NOT_FOUND_ANSWER = `${OFFLINE_NOTICE} ${NOT_FOUND}`;

/** Strips a disambiguation suffix: "Kiss and Tell (1945 film)" → "Kiss and Tell". */
function plainTitle(title: string): string {
  return title.replace(/\s*\([^)]*\)\s*$/, '');
}

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

/**
 * The extractive answer: the best chain of one or two passages (one that matches the question, and
 * one it leads to), then the sentences that add most to the question's coverage, each citing its
 * passage; or "not found in the documents" when the evidence lacks the question's terms.
 */
export function composeAnswer(state: PromptState, tokenizer: Tokenizer, maxSentences: number): string {
  if (state.evidence.length === 0) return NOT_FOUND_ANSWER;
  const score = questionCoverage(state, tokenizer);
  const best = bestChain(state, score);
  const chain = [best.first, ...(best.second ? [best.second] : [])];
  const absent = score.absent();
  if ((absent.share > NOT_FOUND_ABSENT_SHARE && absent.terms >= NOT_FOUND_ABSENT_TERMS) || score.coverage(chain) < MIN_CHAIN_COVERAGE) return NOT_FOUND_ANSWER;
  // Sentences chosen greedily by what they add to the question's coverage: the chain's passages
  // first (a multi-hop answer needs both hops), then any other passage that still adds something.
  const pool = [...chain, ...state.evidence.filter((e) => !chain.includes(e))];
  // The names that led from the first hop to the second: the sentence that names them is the answer's hinge.
  const bridgeNames = best.second ? [plainTitle(best.second.title), ...best.second.foundBy].map((name) => name.toLowerCase()).filter((name) => name !== state.question.toLowerCase()) : [];
  const chosen: { evidence: OfflineEvidence; text: string }[] = [];
  const covered = new Set<string>();
  for (let round = 0; round < maxSentences; round++) {
    let pick: { evidence: OfflineEvidence; text: string; gain: number; terms: string[] } | undefined;
    for (const evidence of pool) {
      const inChain = chain.includes(evidence);
      const firstFromPassage = !chosen.some((c) => c.evidence === evidence);
      for (const sentence of sentencesOf(evidence.text)) {
        if (chosen.some((c) => c.text === sentence)) continue;
        const terms = score.sentenceTerms(sentence);
        const namesBridge = evidence === best.second && bridgeNames.some((name) => sentence.toLowerCase().includes(name));
        const gain =
          score.gain(terms, covered, evidence) * (inChain ? 1 : OFF_CHAIN_WEIGHT) +
          (inChain && firstFromPassage ? CHAIN_PASSAGE_BONUS : 0) +
          (namesBridge && firstFromPassage ? BRIDGE_SENTENCE_BONUS : 0) +
          RANK_TIE_BREAK / (1 + relevanceRank(evidence));
        if (!pick || gain > pick.gain) pick = { evidence, text: sentence, gain, terms };
      }
    }
    if (!pick || pick.gain < (round === 0 ? FIRST_SENTENCE_MIN_GAIN : NEXT_SENTENCE_MIN_GAIN)) break;
    chosen.push(pick);
    for (const term of [...pick.terms, ...score.context(pick.evidence)]) covered.add(term);
  }
  if (chosen.length === 0) return NOT_FOUND_ANSWER;
  return `${OFFLINE_NOTICE}\n${chosen.map((item) => `${item.text.trim()} [${item.evidence.id}]`).join('\n')}`;
}

/**
 * The best chain of two passages: one that matches the question, and one that it leads to (its
 * title is named in the first) or that the question names too (comparisons); or one passage alone.
 */
function bestChain(state: PromptState, score: ReturnType<typeof questionCoverage>): { first: OfflineEvidence; second?: OfflineEvidence } {
  const questionLower = state.question.toLowerCase();
  let best: { first: OfflineEvidence; second?: OfflineEvidence; value: number } = { first: state.evidence[0], value: -Infinity };
  for (const first of state.evidence) {
    const single = score.passage(first) + QUESTION_RANK_BONUS / (1 + relevanceRank(first));
    if (single > best.value) best = { first, value: single };
    for (const second of state.evidence) {
      if (second === first) continue;
      // Linked when the first passage names the second's title, or names what the second is about
      // (a bridge search whose name is the second passage's title or heading).
      const about = `${second.title} ${second.at}`.toLowerCase();
      const bridged = Math.max(
        linkStrength(first.text, second.title),
        // Only names taken from evidence count: a name the question itself gives links nothing.
        ...second.foundBy.filter((q) => !questionLower.includes(q.toLowerCase()) && about.includes(q.toLowerCase())).map((q) => linkStrength(first.text, q)),
      );
      const named = questionLower.includes(second.title.toLowerCase()) && questionLower.includes(first.title.toLowerCase()) ? 1 : 0;
      const link = Math.max(bridged, named);
      if (link === 0) continue;
      const value = single + SECOND_HOP_WEIGHT * score.passage(second, first) + LINK_WEIGHT * link;
      if (value > best.value) best = { first, second, value };
    }
  }
  return best;
}
