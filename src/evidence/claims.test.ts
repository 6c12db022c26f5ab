import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkClaim, claimsOf, critiqueDraft, findingsOf, markFindings, passageText } from './claims.ts';

const evidence: Record<string, string> = {
  E1: 'Halvorsen Instruments was founded in 1987 by Marit Halvorsen in Bergen, Norway.',
  E2: 'Halvorsen Instruments had revenue of 55.2 million euros in 2024.',
  E3: 'In 2024 the company reported revenue of 54.9 million euros.',
};
const lookup = (id: string) => evidence[id];

describe('critique: claims checked against the evidence they cite', () => {
  it('splits a draft into claims, leaving out headings, code and "not found" lines; a line-end citation covers its sentences', () => {
    const claims = claimsOf(
      'Marit Halvorsen [E1]\n\n## S1. Who founded it?\nIt was founded in 1987. Marit Halvorsen founded it. [E1]\n```\nprint(1)\n```\nNot found in the documents: the colour.',
    );
    assert.deepEqual(
      claims.map((c) => c.claim),
      ['Marit Halvorsen [E1]', 'It was founded in 1987.', 'Marit Halvorsen founded it. [E1]'],
    );
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
    assert.equal(
      checkClaim('The trial was held underwater near penguins [E1].', ['E1'], lookup).verdict,
      'unsupported',
      'most key terms missing',
    );
    const contradiction = checkClaim('Revenue in 2024 was 55.2 million euros [E2, E3].', ['E2', 'E3'], lookup);
    assert.equal(contradiction.verdict, 'contradicted');
    assert.match(contradiction.reason, /55\.2 vs 54\.9/);
    assert.equal(
      checkClaim('55.2 − 48.0 = 7.2 million euros [E2]', ['E2'], lookup).verdict,
      'unsupported',
      '48.0 is an operand no cited passage has',
    );
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
    assert.ok(
      again.checks.every((c) => c.verdict === 'supported') && again.openQuestions.length === 0,
      'a marked draft has nothing left to address',
    );
  });
});

describe('offline critique: the normalisation rules, as case tables of constructed examples', () => {
  const passages: Record<string, string> = {
    E7: 'Lakeside Books sold 1.40 million copies in 2023, a rise of 7% on the year before.',
    E8: 'Orchard Lane Press printed 1,400,000 copies. Sales grew 7 percent.',
    // A passage whose heading path names the place; its body does not.
    E9: passageText({
      title: 'Annual report',
      headingPath: ['Sites', 'Tromsø warehouse'],
      text: 'The warehouse opened in 2019 and employs 40 people.',
    }),
  };
  const look = (id: string) => passages[id];
  const cases: Array<{
    rule: string;
    claim: string;
    cites: string[];
    verdict: string;
    question?: string;
    computed?: Array<{ id: string; text: string }>;
  }> = [
    {
      rule: 'millions in digits = in words',
      claim: 'Lakeside Books sold 1,400,000 copies in 2023 [E7].',
      cites: ['E7'],
      verdict: 'supported',
    },
    {
      rule: 'millions in words = in digits',
      claim: 'Orchard Lane Press printed 1.4 million copies [E8].',
      cites: ['E8'],
      verdict: 'supported',
    },
    {
      rule: 'a different scale is another number',
      claim: 'Lakeside Books sold 1.40 billion copies in 2023 [E7].',
      cites: ['E7'],
      verdict: 'unsupported',
    },
    { rule: '7% = 7 percent', claim: 'Orchard Lane Press sales grew 7% [E8].', cites: ['E8'], verdict: 'supported' },
    { rule: '7 percent = 7%', claim: 'Lakeside Books sales rose 7 percent in 2023 [E7].', cites: ['E7'], verdict: 'supported' },
    { rule: '7 per cent = 7%', claim: 'Lakeside Books sales rose 7 per cent in 2023 [E7].', cites: ['E7'], verdict: 'supported' },
    {
      rule: 'a heading path names what its passage is about',
      claim: 'The Tromsø warehouse opened in 2019 [E9].',
      cites: ['E9'],
      verdict: 'supported',
    },
    {
      rule: 'a name neither the passage nor its headings carry',
      claim: 'The Narvik warehouse opened in 2019 [E9].',
      cites: ['E9'],
      verdict: 'unsupported',
    },
    {
      rule: "the question's own words need no support",
      claim: 'The Growth Rate of Lakeside Books was 7% in 2023 [E7].',
      cites: ['E7'],
      verdict: 'supported',
      question: 'What was the growth rate of Lakeside Books in 2023?',
    },
    {
      rule: 'an ordinary word with a capital is not a name',
      claim: 'Sales: Increase of 7% at Lakeside Books [E7].',
      cites: ['E7'],
      verdict: 'supported',
    },
    {
      rule: 'a number a computed result printed is supported',
      claim: 'Together they sold 2,800,000 copies [E7, E8].',
      cites: ['E7', 'E8'],
      verdict: 'supported',
      computed: [{ id: 'P1', text: '2800000\n' }],
    },
    {
      rule: 'an uncited claim stating only a computed number',
      claim: 'The total is 2.8 million copies.',
      cites: [],
      verdict: 'supported',
      computed: [{ id: 'P1', text: 'total=2800000.0\n' }],
    },
    {
      rule: 'without the computed result the number is unsupported',
      claim: 'Together they sold 2,800,000 copies [E7, E8].',
      cites: ['E7', 'E8'],
      verdict: 'unsupported',
    },
  ];
  for (const c of cases) {
    it(`${c.rule}: "${c.claim}" is ${c.verdict}`, () => {
      const check = checkClaim(c.claim, c.cites, look, { question: c.question, computed: c.computed });
      assert.equal(check.verdict, c.verdict, check.reason);
    });
  }

  it('skips meta sentences, and never reports a finding twice', () => {
    const draft =
      'Here is what the documents say:\nIn summary:\nThe documents do not say who owns it.\nLakeside Books sold 9 copies [E7]. Lakeside Books sold 9 copies [E7].';
    const critique = critiqueDraft(draft, look);
    assert.deepEqual(
      critique.checks.map((c) => [c.claim, c.verdict]),
      [['Lakeside Books sold 9 copies [E7].', 'unsupported']],
    );
    assert.equal(findingsOf(critique).length, 1);
    assert.deepEqual(findingsOf(critique)[0], {
      claim: 'Lakeside Books sold 9 copies [E7].',
      finding: 'the cited evidence has no "9"',
      by: 'critique',
      verdict: 'unsupported',
      citations: ['E7'],
    });
  });
});
