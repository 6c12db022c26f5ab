import type { FinishReason } from '../protocol/events.ts';

/** A failure that ended a run: what `AgentResult.error` and the `error` event carry. */
export interface RunError {
  code: string;
  message: string;
}

/** How the loop ended, before the answer was checked. */
export type RunEnd =
  /** The model answered of its own accord; `notFound`: it declared that the documents do not answer (protocol/model-metadata.ts). */
  | { type: 'answered'; notFound?: boolean }
  /** A stop condition ended it (`max-steps`, `budget`, `stagnation`). */
  | { type: 'limit'; reason: FinishReason }
  /** A model call (or anything else outside the tools) failed. */
  | { type: 'failed'; error: RunError }
  | { type: 'aborted' };

/**
 * The one place a run's finish reason is decided. An answer that no evidence supports (nothing
 * cited, or nothing found at all), or that the model declared not found, is a `no-evidence` finish;
 * a failure is never dressed up as one.
 */
export function decideFinishReason(end: RunEnd, evidence: { ledgerSize: number; citations: number }): FinishReason {
  switch (end.type) {
    case 'failed':
      return 'error';
    case 'aborted':
      return 'aborted';
    case 'limit':
      return end.reason === 'stagnation' && evidence.ledgerSize === 0 ? 'no-evidence' : end.reason;
    case 'answered':
      return evidence.citations > 0 && !end.notFound ? 'stop' : 'no-evidence';
  }
}
