import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OfflineEvidence } from '../prompt-state.ts';
import { questionParts } from '../question/question-parts.ts';
import { compareSections, comparedNames, renderComparison } from './section-comparison.ts';
import { askedKind } from './heading-answer.ts';
import { parameterList } from './parameter-list.ts';

const passage = (id: string, at: string, text: string, rank: number): OfflineEvidence => ({
  id,
  title: 'Widgets',
  at,
  text,
  round: 1,
  rank,
  questionRank: rank,
  foundBy: [],
});

test('a comparison names its two things, the shared head noun and product left out', () => {
  assert.deepEqual(comparedNames('What is the difference between Spinner and Spinners?'), ['Spinner', 'Spinners']);
  assert.deepEqual(comparedNames('What is the difference between soft and hard reset in Gizmo?'), ['soft', 'hard']);
  assert.equal(comparedNames('Who directed the film?'), undefined);
});

test('each side is read from its own section, with the code lines only it has, both cited', () => {
  const evidence = [
    passage('E1', 'Spinners', 'Runs several spinners at once.\n\n```python\ns = Spinners()\ns.add_spinner(a)\n```', 0),
    passage('E2', 'Spinner', 'Runs one spinner.\n\n```python\ns = Spinner(a)\n```', 1),
  ];
  const sides = compareSections('What is the difference between Spinner and Spinners?', evidence);
  assert.ok(sides);
  const text = renderComparison(sides).join('\n');
  assert.match(text, /- Spinner: Runs one spinner\. \[E2\]/);
  assert.match(text, /- Spinners: Runs several spinners at once\. \[E1\]/);
  assert.match(text, /s\.add_spinner\(a\)/);
});

test('a side with no section of its own is read from the sentence that names it, not one naming both together', () => {
  const evidence = [
    passage(
      'E1',
      'Whitespace',
      'With both fold and strip off, nothing changes. Setting fold joins short lines. The strip option removes trailing spaces.',
      0,
    ),
  ];
  const text = renderComparison(compareSections('What is the difference between fold and strip?', evidence)!).join('\n');
  assert.match(text, /- fold: Setting fold joins short lines\./);
  assert.match(text, /- strip: The strip option removes trailing spaces\./);
});

test('a two-part question splits at ", and <question word>"; a single question does not', () => {
  assert.deepEqual(questionParts('Which flag enables turbo mode, and what do I need to install for it?'), [
    'Which flag enables turbo mode?',
    'What do I need to install for it?',
  ]);
  assert.equal(questionParts('Which city hosts the fair and the parade?'), undefined);
});

test('a question for a kind of named thing says which kind and whether several; one that names the thing does not', () => {
  assert.equal(askedKind('Which Gizmo flag turns on colour?')?.plural, false);
  assert.equal(askedKind('What environment variables does Gizmo read?')?.plural, true);
  assert.equal(askedKind('Which class holds the pages?')?.words, 'class');
  assert.equal(askedKind('What does the --colour flag do?'), undefined);
  assert.equal(askedKind('What is the default colour?'), undefined);
});

test("a parameter list is read from the owner's own section, as items, table rows or rst fields, never another class's", () => {
  const evidence = [
    passage(
      'E1',
      'Wheel',
      'The following arguments are supported:\n\n- size - How big the wheel is.\n- spokes - How many spokes it has.',
      0,
    ),
    passage(
      'E2',
      'Spinner',
      'A Spinner turns.\n\nArgument: speed; Description: How fast it turns.\nArgument: clockwise; Description: Turn right.',
      1,
    ),
    passage('E3', 'Helpers', 'make_spinner(speed, clockwise)\n\nparam speed: How fast.\n\nparam clockwise: Which way.', 2),
  ];
  const names = (question: string) => parameterList(question, evidence)?.items.map((item) => `${item.evidence.id} ${item.text}`);
  assert.deepEqual(names('What arguments does Spinner accept?'), [
    'E2 Argument: speed; Description: How fast it turns.',
    'E2 Argument: clockwise; Description: Turn right.',
  ]);
  assert.deepEqual(names('List the make_spinner parameters'), ['E3 param speed: How fast.', 'E3 param clockwise: Which way.']);
  assert.equal(parameterList('What arguments does Axle accept?', evidence), undefined, 'no list of its own: no answer from another');
});
