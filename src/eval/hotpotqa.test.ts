import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directAnswer, normalizeAnswer, tokenF1 } from './hotpotqa.ts';

test('EM/F1 read the direct answer: the first line, citations stripped; the rest is support', () => {
  const answer =
    'Bergen [E1][E2]\nHarbor Station was founded in 1962 by Mara Lindqvist. [E1]\nMara Lindqvist was born in Bergen, Norway, in 1931. [E2]';
  assert.equal(directAnswer(answer), 'Bergen');
  assert.equal(normalizeAnswer(directAnswer(answer)), normalizeAnswer('Bergen'));
  assert.equal(tokenF1(directAnswer('The Spiderwick Chronicles [E4]\nIt is a film. [E4]'), 'Spiderwick Chronicles'), 1);
  assert.equal(directAnswer('Not found in the documents: nothing about "Mars".'), 'Not found in the documents: nothing about "Mars".');
  assert.equal(directAnswer('55.2 − 48.0 = 7.2 million euros [E1, E2]'), '55.2 − 48.0 = 7.2 million euros');
});
