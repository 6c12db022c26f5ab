import type { EvidenceLedger } from '../evidence/ledger.ts';

/** The answer when the documents gave nothing relevant, and only then (never for a failed run). */
export const NO_EVIDENCE_ANSWER = 'Not found in the documents: no passage relevant to the question was found.';

function strongestEvidence(ledger: EvidenceLedger): string {
  const top = ledger.ranked().slice(0, 3);
  return top.map((entry) => `- ${entry.chunk.text.replace(/\s+/g, ' ').slice(0, 300)} [${entry.id}]`).join('\n');
}

/** When a limit left no model answer: the strongest evidence, quoted and cited, marked as such. */
export function extractiveFallback(ledger: EvidenceLedger): string {
  return `The run stopped before a full answer. The strongest evidence found:\n${strongestEvidence(ledger)}`;
}

/** A failed run says so and why, in one line; evidence gathered before the failure follows, cited. */
export function failedAnswer(message: string, ledger: EvidenceLedger): string {
  const line = `The run failed: ${message}`;
  return ledger.size === 0 ? line : `${line}\nThe strongest evidence found before it failed:\n${strongestEvidence(ledger)}`;
}

export function abortedAnswer(ledger: EvidenceLedger): string {
  const line = 'The run was aborted before it answered.';
  return ledger.size === 0 ? line : `${line}\nThe strongest evidence found before it stopped:\n${strongestEvidence(ledger)}`;
}
