/**
 * Exact BM25 top-k without scoring every row that holds a common query term (MaxScore, term at a time).
 *
 * A term's BM25 contribution to any row is below idf·(k1+1), because f/(f + K) < 1. So with the query
 * terms split into the rare "essential" ones and the common "rest", a row holding no essential term
 * scores below Σ_rest idf·(k1+1). Score exactly (all terms) every row that holds an essential term; if
 * the k-th best of those reaches that bound, no other row can enter the top k, and the answer is the
 * same as scoring everything. If not, the next rarest term becomes essential and the step repeats; the
 * last step has every term essential, which is the plain query. Both SQL stores use it: they differ in
 * how they score "every row holding an essential term", not in when that suffices.
 */

/** FTS5's bm25() k1; the PostgreSQL store uses the same constants, so scores agree. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface TermFrequency {
  term: string;
  /** Rows of the index that hold the term (its posting list's length). */
  documentFrequency: number;
}

export interface TopKStep {
  essential: string[];
  rest: string[];
  /** Score no row can reach when it holds none of the essential terms. */
  restBound: number;
  /** True on the last step (no rest): the plain query, which may rank and limit in SQL. */
  final: boolean;
}

/** FTS5's idf: ln((N − n + 0.5) / (n + 0.5)), and 1e-6 where that is not positive. */
export function bm25Idf(rows: number, documentFrequency: number): number {
  const idf = Math.log((rows - documentFrequency + 0.5) / (documentFrequency + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/**
 * The steps to try, rarest terms first. Terms no row holds are dropped (they can neither match nor
 * score). FTS5 ranks a few tens of thousands of postings in a few milliseconds, so a query with no
 * long posting list is run plain; otherwise the first step takes rare terms while their postings stay
 * small, and a step whose essential postings reach half of all the query's postings gives way to the
 * plain query, which is then about as cheap. (FTS5 spends about a microsecond per posting it ranks.)
 */
export function topKSteps(terms: readonly TermFrequency[], rows: number): TopKStep[] {
  const present = [...terms]
    .filter((t) => t.documentFrequency > 0)
    .sort((a, b) => a.documentFrequency - b.documentFrequency || (a.term < b.term ? -1 : 1));
  const all = present.map((t) => t.term);
  const plain: TopKStep = { essential: all, rest: [], restBound: 0, final: true };
  if (present.length === 0) return [];
  const total = present.reduce((sum, t) => sum + t.documentFrequency, 0);
  if (present.length === 1 || total <= PLAIN_POSTINGS) return [plain];
  // Slightly loose bound (×(1 + 1e-9)) so floating-point sums never make a pruned row look beatable.
  const bound = (from: number) =>
    present.slice(from).reduce((sum, t) => sum + bm25Idf(rows, t.documentFrequency) * (BM25_K1 + 1), 0) * (1 + 1e-9);
  const steps: TopKStep[] = [];
  let postings = present[0].documentFrequency;
  let split = 1;
  while (split < present.length - 1 && postings + present[split].documentFrequency <= FIRST_STEP_POSTINGS)
    postings += present[split++].documentFrequency;
  for (; split < present.length && postings * 2 <= total; postings += present[split++].documentFrequency) {
    steps.push({ essential: all.slice(0, split), rest: all.slice(split), restBound: bound(split), final: false });
  }
  steps.push(plain);
  return steps;
}

/** Postings FTS5 ranks quickly enough that pruning would not pay. */
const PLAIN_POSTINGS = 10_000;
/** Postings the first step's essential terms may hold. */
const FIRST_STEP_POSTINGS = 5_000;

/**
 * The top k of one step's exactly scored rows, or undefined when a row outside them could still
 * belong there. Ties are ordered by id, so the answer never depends on the order rows came in.
 * The scored rows need not be all essential rows: the k best of those holding no rest term (whose
 * score is then their essential-terms score) plus every row holding both kinds is enough, since a
 * row's essential-terms score never exceeds its full score.
 */
export function exactTopK<T extends { id: number; score: number }>(
  scored: readonly T[],
  k: number,
  step: TopKStep,
  unscoredBound = -Infinity,
): T[] | undefined {
  const top = bestK(scored, k);
  if (step.final) return top;
  if (top.length < k) return undefined;
  return top[k - 1].score >= Math.max(step.restBound, unscoredBound) ? top : undefined;
}

/**
 * A step's scored rows, when the store left some essential rows unscored (to cap the work): none of
 * those can score above `unscoredBound`, which then counts as a bound like the rest's.
 */
export interface PartlyScored<T> {
  rows: T[];
  unscoredBound: number;
}

/** The k highest-scoring rows, one per id (the highest score an id came with), ties by id. */
function bestK<T extends { id: number; score: number }>(scored: readonly T[], k: number): T[] {
  const best = new Map<number, T>();
  for (const row of scored) {
    const seen = best.get(row.id);
    if (seen === undefined || row.score > seen.score) best.set(row.id, row);
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
}

/**
 * Drives the steps: yields the step to score, receives its scored rows, returns the top k. After a
 * step that falls short, it goes straight to the first step its k-th score already proves (the k-th
 * score only grows as steps take more terms), or to the next one when it found fewer than k rows.
 * The caller scores a step as its store can, synchronously or not:
 *   const run = topKSearch(terms, rows, k); let next = run.next();
 *   while (!next.done) next = run.next(score(next.value));
 */
export function* topKSearch<T extends { id: number; score: number }>(
  terms: readonly TermFrequency[],
  rows: number,
  k: number,
): Generator<TopKStep, T[], T[] | PartlyScored<T>> {
  const steps = topKSteps(terms, rows);
  for (let i = 0; i < steps.length; ) {
    const step = steps[i];
    const answer = yield step;
    const scored = Array.isArray(answer) ? answer : answer.rows;
    const top = exactTopK(scored, k, step, Array.isArray(answer) ? -Infinity : answer.unscoredBound);
    if (top) return top;
    const kth = bestK(scored, k)[k - 1]?.score;
    const proven = kth === undefined ? -1 : steps.findIndex((later, j) => j > i && (later.final || later.restBound <= kth));
    i = proven === -1 ? i + 1 : proven;
  }
  return [];
}
