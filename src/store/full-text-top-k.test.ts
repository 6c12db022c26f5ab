import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BM25_K1, bm25Idf, topKSearch, topKSteps } from './full-text-top-k.ts';

const N = 1_000_000;

describe('full-text top k by pruning', () => {
  it('runs a query without long posting lists plainly, and drops terms no row holds', () => {
    assert.deepEqual(
      topKSteps(
        [
          { term: 'a', documentFrequency: 300 },
          { term: 'b', documentFrequency: 0 },
          { term: 'c', documentFrequency: 900 },
        ],
        N,
      ),
      [{ essential: ['a', 'c'], rest: [], restBound: 0, final: true }],
    );
    assert.deepEqual(topKSteps([{ term: 'gone', documentFrequency: 0 }], N), []);
  });

  it('makes the rarest terms essential first and bounds what the rest can add', () => {
    const steps = topKSteps(
      [
        { term: 'common', documentFrequency: 120_000 },
        { term: 'rare', documentFrequency: 800 },
        { term: 'mid', documentFrequency: 9_000 },
      ],
      N,
    );
    assert.deepEqual(
      steps.map((s) => [s.essential, s.rest, s.final]),
      [
        [['rare'], ['mid', 'common'], false],
        [['rare', 'mid'], ['common'], false],
        [['rare', 'mid', 'common'], [], true],
      ],
    );
    const bound = (bm25Idf(N, 9_000) + bm25Idf(N, 120_000)) * (BM25_K1 + 1);
    assert.ok(Math.abs(steps[0].restBound - bound) < 1e-6 && steps[0].restBound >= bound);
  });

  it('stops at the first step whose k-th score reaches the bound, and goes on when it does not', () => {
    const terms = [
      { term: 'common', documentFrequency: 120_000 },
      { term: 'rare', documentFrequency: 800 },
      { term: 'mid', documentFrequency: 9_000 },
    ];
    const run = (
      kth: number,
      rows = [
        { id: 1, score: 30 },
        { id: 2, score: kth },
        { id: 1, score: 10 },
      ],
    ) => {
      const search = topKSearch<{ id: number; score: number }>(terms, N, 2);
      const seen: string[][] = [];
      let next = search.next();
      while (!next.done) {
        seen.push(next.value.essential);
        next = search.next(rows);
      }
      return { seen, result: next.value };
    };
    // A k-th score above what "mid" and "common" could add: one step, duplicates kept at their best.
    assert.deepEqual(run(20), {
      seen: [['rare']],
      result: [
        { id: 1, score: 30 },
        { id: 2, score: 20 },
      ],
    });
    // Below that but above what "common" alone adds: straight to the step that leaves only "common" out.
    const commonOnly = bm25Idf(N, 120_000) * (BM25_K1 + 1);
    assert.deepEqual(run(commonOnly + 0.01).seen, [['rare'], ['rare', 'mid']]);
    // Below both: no pruned step is proven, so straight to the plain query (a step that may fail costs more).
    assert.deepEqual(run(0.5).seen, [['rare'], ['rare', 'mid', 'common']]);
    // Rows the store left unscored count as a bound too: proven only once the k-th score beats them.
    const partly = topKSearch<{ id: number; score: number }>(terms, N, 1);
    partly.next();
    const unproven = partly.next({ rows: [{ id: 1, score: 20 }], unscoredBound: 25 });
    assert.equal(unproven.done, false, 'an unscored row might reach 25, above the k-th score 20');
    // Fewer than k rows tell nothing: the next step.
    assert.deepEqual(run(0, [{ id: 1, score: 30 }]).seen, [['rare'], ['rare', 'mid'], ['rare', 'mid', 'common']]);
  });
});
