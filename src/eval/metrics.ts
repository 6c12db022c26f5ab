/** Standard IR metrics as trec_eval / pytrec_eval compute them. */

/** nDCG@k with graded gains rel and log2(rank + 1) discounts. */
export function ndcgAtK(ranked: readonly string[], relevance: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    const gain = relevance.get(id) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  });
  const ideal = [...relevance.values()]
    .filter((gain) => gain > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Share of relevant items found in the first k. */
export function recallAtK(ranked: readonly string[], relevance: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...relevance].filter(([, gain]) => gain > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/**
 * A citation as golden outputs and development reports name it: the last two parts of its source
 * (independent of where the corpus sits) and the characters it covers.
 */
export function citedAs(citation: { source: string; charStart: number; charEnd: number }): string {
  return `${citation.source.split('/').slice(-2).join('/')}#${citation.charStart}-${citation.charEnd}`;
}
