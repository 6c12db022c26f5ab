import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContentRead, OfflineEvidence, PromptState } from '../prompt-state.ts';
import { nextReads } from './planner.ts';

const passage = (id: string, at: string, text: string, ordinal: number, cut: boolean): OfflineEvidence => ({
  id,
  title: 'Widgets',
  at,
  text,
  round: 1,
  rank: Number(id.slice(1)) - 1,
  foundBy: [],
  ...(cut ? { cut: true } : {}),
  documentId: 7,
  ordinal,
});

const stateOf = (question: string, evidence: OfflineEvidence[], reads: ContentRead[] = []): PromptState => ({
  question,
  lastUserText: question,
  communities: [],
  rounds: 2,
  queries: new Set(),
  reads,
  chunkCounts: new Map(),
  evidence,
});

test("a question for a thing's arguments reads its cut section whole, once, and never another thing's", () => {
  const evidence = [
    passage('E1', 'Spinner', 'The following arguments are supported:\n\n- speed - How fast it turns.', 3, true),
    passage('E2', 'Wheel', 'The following arguments are supported:\n\n- size - How big it is.', 5, true),
  ];
  assert.deepEqual(nextReads(stateOf('List the Spinner arguments', evidence), true), [{ documentId: 7, from: 3 }]);
  assert.deepEqual(nextReads(stateOf('List the Spinner arguments', evidence, [{ documentId: 7, from: 3, to: 3 }]), true), [], 'read once');
  assert.deepEqual(nextReads(stateOf('List the Spinner arguments', evidence), false), [], 'only when get_content is offered');
  assert.deepEqual(nextReads(stateOf('How fast does a spinner turn?', evidence), true), [], 'only for a question for arguments');
});

test('a passage that ends by introducing the thing reads the chunk after it, where the introduced list is', () => {
  const evidence = [passage('E1', '', 'Gizmo also includes a SpinnerSet class for turning several spinners:', 0, false)];
  assert.deepEqual(nextReads(stateOf('What parameters does SpinnerSet accept?', evidence), true), [{ documentId: 7, from: 1 }]);
});
