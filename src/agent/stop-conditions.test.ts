import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideFinishReason } from './finish-reason.ts';
import { abortedBy, noNewEvidenceFor, stepCountIs, stopReason, tokenBudgetIs, type StepRecord } from './stop-conditions.ts';

const searched = (newEvidence: number): StepRecord => ({ step: 0, toolCalls: 1, searches: { calls: 1, newEvidence } });
const other: StepRecord = { step: 0, toolCalls: 1, searches: { calls: 0, newEvidence: 0 } };
const usage = { inputTokens: 0, outputTokens: 0 };

describe('stop conditions', () => {
  it('each returns its finish reason or undefined', () => {
    assert.equal(stepCountIs(2)({ steps: [other], usage }), undefined);
    assert.equal(stepCountIs(2)({ steps: [other, other], usage }), 'max-steps');
    assert.equal(tokenBudgetIs(100)({ steps: [], usage: { inputTokens: 60, outputTokens: 39 } }), undefined);
    assert.equal(tokenBudgetIs(100)({ steps: [], usage: { inputTokens: 60, outputTokens: 40 } }), 'budget');
    assert.equal(abortedBy(undefined)({ steps: [], usage }), undefined);
    assert.equal(abortedBy(AbortSignal.abort())({ steps: [], usage }), 'aborted');
  });

  it('stagnation counts consecutive searching steps that found nothing new; other steps do not count either way', () => {
    const stagnant = noNewEvidenceFor(2);
    assert.equal(stagnant({ steps: [searched(3), searched(0)], usage }), undefined);
    assert.equal(stagnant({ steps: [searched(3), searched(0), other, searched(0)], usage }), 'stagnation');
    assert.equal(stagnant({ steps: [searched(0), searched(0), searched(1)], usage }), undefined, 'new evidence resets it');
    assert.equal(stagnant({ steps: [other, other, other], usage }), undefined);
  });

  it('the first condition that stops decides the reason', () => {
    const progress = { steps: [searched(0), searched(0)], usage: { inputTokens: 500, outputTokens: 0 } };
    assert.equal(stopReason([noNewEvidenceFor(2), stepCountIs(2), tokenBudgetIs(10)], progress), 'stagnation');
    assert.equal(stopReason([stepCountIs(2), noNewEvidenceFor(2)], progress), 'max-steps');
    assert.equal(stopReason([stepCountIs(5)], progress), undefined);
  });
});

describe('finish reason', () => {
  it('is decided from how the run ended and what the answer cites', () => {
    assert.equal(decideFinishReason({ type: 'answered' }, { ledgerSize: 3, citations: 1 }), 'stop');
    assert.equal(
      decideFinishReason({ type: 'answered' }, { ledgerSize: 3, citations: 0 }),
      'no-evidence',
      'an answer citing nothing is unsupported',
    );
    assert.equal(decideFinishReason({ type: 'limit', reason: 'max-steps' }, { ledgerSize: 0, citations: 0 }), 'max-steps');
    assert.equal(decideFinishReason({ type: 'limit', reason: 'stagnation' }, { ledgerSize: 0, citations: 0 }), 'no-evidence');
    assert.equal(decideFinishReason({ type: 'limit', reason: 'stagnation' }, { ledgerSize: 2, citations: 0 }), 'stagnation');
    assert.equal(
      decideFinishReason({ type: 'failed', error: { code: 'remote-failed', message: 'x' } }, { ledgerSize: 0, citations: 0 }),
      'error',
      'a failure is never no-evidence',
    );
    assert.equal(decideFinishReason({ type: 'aborted' }, { ledgerSize: 0, citations: 0 }), 'aborted');
  });
});
