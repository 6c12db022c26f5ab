import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkClaim, claimsOf, critiqueDraft, markFindings } from './claims.ts';

const evidence: Record<string, string> = {
  E1: 'Halvorsen Instruments was founded in 1987 by Marit Halvorsen in Bergen, Norway.',
  E2: 'Halvorsen Instruments had revenue of 55.2 million euros in 2024.',
  E3: 'In 2024 the company reported revenue of 54.9 million euros.',
};
const lookup = (id: string) => evidence[id];

describe('critique: claims checked against the evidence they cite', () => {
  it('splits a draft into claims, leaving out headings, code and "not found" lines; a line-end citation covers its sentences', () => {
    const claims = claimsOf('Marit Halvorsen [E1]\n\n## S1. Who founded it?\nIt was founded in 1987. Marit Halvorsen founded it. [E1]\n```\nprint(1)\n```\nNot found in the documents: the colour.');
    assert.deepEqual(claims.map((c) => c.claim), ['Marit Halvorsen [E1]', 'It was founded in 1987.', 'Marit Halvorsen founded it. [E1]']);
    assert.deepEqual(claims[1].citations, ['E1'], 'the sentence before the citation on its line is covered by it');
  });

  it('gives each verdict for the reason that applies', () => {
    assert.equal(checkClaim('Founded in 1987 by Marit Halvorsen [E1].', ['E1'], lookup).verdict, 'supported');
    assert.equal(checkClaim('Founded in 1987.', [], lookup).verdict, 'uncited');
    assert.match(checkClaim('Founded in 1987 [E9].', ['E9'], lookup).reason, /E9 resolves to no evidence/);
    const number = checkClaim('Founded in 1999 by Marit Halvorsen [E1].', ['E1'], lookup);
    assert.equal(number.verdict, 'unsupported');
    assert.match(number.reason, /no "1999"/);
    const name = checkClaim('Founded by Sigrid Olsen [E1].', ['E1'], lookup);
    assert.equal(name.verdict, 'unsupported');
    assert.match(name.reason, /does not name "Sigrid", "Olsen"/);
    assert.equal(checkClaim('The trial was held underwater near penguins [E1].', ['E1'], lookup).verdict, 'unsupported', 'most key terms missing');
    const contradiction = checkClaim('Revenue in 2024 was 55.2 million euros [E2, E3].', ['E2', 'E3'], lookup);
    assert.equal(contradiction.verdict, 'contradicted');
    assert.match(contradiction.reason, /55\.2 vs 54\.9/);
    assert.equal(checkClaim('55.2 − 48.0 = 7.2 million euros [E2]', ['E2'], lookup).verdict, 'unsupported', '48.0 is an operand no cited passage has');
    assert.equal(checkClaim('1987 + 1 = 1988 [E1]', ['E1'], lookup).verdict, 'supported', 'a computed result need not be quoted');
  });

  it('lists sub-questions the draft neither answers nor marks open, and marks what is left', () => {
    const plan = [
      { id: 'S1', question: 'Who founded Halvorsen Instruments?', status: 'answered' as const },
      { id: 'S2', question: 'What colour is the logo?', status: 'open' as const },
    ];
    const draft = 'Marit Halvorsen founded it [E1]. The logo is blue [E1].';
    const critique = critiqueDraft(draft, lookup, plan);
    assert.deepEqual(critique.openQuestions, ['S2: What colour is the logo?']);
    const marked = markFindings(draft, critique);
    assert.match(marked, /The logo is blue \[E1\] \(uncertain: [^)]+\)\./);
    assert.match(marked, /Open: S2: What colour is the logo\?/);
    const again = critiqueDraft(marked, lookup, plan);
    assert.ok(again.checks.every((c) => c.verdict === 'supported') && again.openQuestions.length === 0, 'a marked draft has nothing left to address');
  });
});
