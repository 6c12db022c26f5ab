/**
 * Weighted reciprocal rank fusion (Cormack et al., 2009): each list contributes weight / (k + rank).
 * Ranks, not raw scores, are fused, so BM25 and cosine need no common scale.
 */
export interface RankedList<T> {
  items: readonly T[];
  weight?: number;
}

export function reciprocalRankFusion<T>(
  lists: readonly RankedList<T>[],
  key: (item: T) => string | number,
  k = 60,
): { item: T; score: number }[] {
  const fused = new Map<string | number, { item: T; score: number }>();
  for (const list of lists) {
    const weight = list.weight ?? 1;
    list.items.forEach((item, rank) => {
      const id = key(item);
      const entry = fused.get(id);
      const contribution = weight / (k + rank + 1);
      if (entry) entry.score += contribution;
      else fused.set(id, { item, score: contribution });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
