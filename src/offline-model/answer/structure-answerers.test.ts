import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Tokenizer } from '../../text/tokenize.ts';
import type { ContentRead, OfflineEvidence, PromptState } from '../prompt-state.ts';
import { questionCoverage } from '../question/question-coverage.ts';
import { listItems, listReadOn } from './list-items.ts';
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

const tokenizer = new Tokenizer({ language: 'english' });
const stateOf = (question: string, evidence: OfflineEvidence[], reads: ContentRead[] = []): PromptState => ({
  question,
  lastUserText: question,
  communities: [],
  rounds: 1,
  reads,
  chunkCounts: new Map(),
  queries: new Set(),
  evidence,
});
const chunkOf = (id: string, at: string, ordinal: number, text: string, more: Partial<OfflineEvidence> = {}): OfflineEvidence => ({
  ...passage(id, at, text, ordinal),
  documentId: 7,
  ordinal,
  ...more,
});
const listed = (state: PromptState) =>
  listItems(state.evidence, questionCoverage(state, tokenizer))?.items.map((item) => `${item.text} [${item.evidence.id}]`);

test('entries after a lead-in keep their later sentences and end at the first paragraph without a label', () => {
  const text =
    'Inside a widget, three hooks are available:\n\nopen: Runs first. It gets the file.\n\nclose: Runs last. It gets the result.\n\n' +
    'fail: Runs on an error.\n\nWidgets also keep some details of their own.';
  const items = listed(stateOf('Which hooks are available inside a widget?', [passage('E1', 'Hooks', text, 0)]));
  assert.deepEqual(items, ['open: Runs first. [E1]', 'close: Runs last. [E1]', 'fail: Runs on an error. [E1]']);
});

test('a list running to the end of its chunk goes on with the next chunk of its section, each item citing its own chunk, and stops at the section', () => {
  const first = chunkOf('E1', 'Formats', 1, 'Widget reads these formats:\n\n- comma-separated text\n- tab-separated text');
  const second = chunkOf('E2', 'Formats', 2, '- tab-separated text\n- line-delimited objects\n- columnar archives');
  const other = chunkOf('E3', 'Themes', 3, '- dark theme\n- light theme');
  const question = 'Which formats does Widget read?';
  assert.deepEqual(listed(stateOf(question, [first, second, other])), [
    '- comma-separated text [E1]',
    '- tab-separated text [E1]',
    '- line-delimited objects [E2]',
    '- columnar archives [E2]',
  ]);
  // Before the next chunk is read, reading it is what the list asks for; the section's end asks for nothing more.
  assert.deepEqual(listReadOn(stateOf(question, [first]), questionCoverage(stateOf(question, [first]), tokenizer)), {
    documentId: 7,
    from: 1,
    to: 2,
  });
  const read = stateOf(question, [first, second, other], [{ documentId: 7, from: 1, to: 2 }]);
  assert.equal(listReadOn(read, questionCoverage(read, tokenizer)), undefined);
});

test('a list cut inside by the search result is read whole, and only while reads are left', () => {
  const cut = chunkOf('E1', 'Formats', 4, 'Widget reads these formats:\n\n- comma-separated text\n\nWidget writes charts.', {
    cut: true,
    gaps: ['Widget reads these formats:\n\n- comma-separated text'.length],
  });
  const question = 'Which formats does Widget read?';
  const fresh = stateOf(question, [cut]);
  assert.deepEqual(listReadOn(fresh, questionCoverage(fresh, tokenizer)), { documentId: 7, from: 4, to: 4 });
  const spent = stateOf(
    question,
    [cut],
    [
      { documentId: 3, from: 0, to: 0 },
      { documentId: 3, from: 1, to: 1 },
    ],
  );
  assert.equal(listReadOn(spent, questionCoverage(spent, tokenizer)), undefined);
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
