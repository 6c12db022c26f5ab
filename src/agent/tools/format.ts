import { countTokens } from '../../text/tokenize.ts';
import type { LedgerEntry } from '../ledger.ts';

/**
 * Retrieved text is data, never instructions: every piece shown to the model sits inside a fence
 * that the text itself cannot close (fence markers inside it are defused).
 */
export const FENCE_OPEN = '<<<EVIDENCE';
export const FENCE_CLOSE = 'EVIDENCE>>>';

function defuse(text: string): string {
  return text.replaceAll('<<<', '‹‹‹').replaceAll('>>>', '›››');
}

/** Cuts text to a token budget at a sentence boundary (or a word boundary for one long sentence). */
export function cutToTokens(text: string, tokens: number): string {
  if (countTokens(text) <= tokens) return text;
  // Sentences (a hard-wrapped line does not end one; a blank line does), covering the text exactly so
  // the kept part keeps its layout.
  const sentences = text.match(/[\s\S]+?(?:[.!?]+(?=\s|$)|(?=\n[^\S\n]*\n)|$)\s*/g) ?? [text];
  let out = '';
  let used = 0;
  for (const sentence of sentences) {
    const cost = countTokens(sentence);
    if (used + cost > tokens) break;
    out += sentence;
    used += cost;
  }
  if (!out) out = text.split(/\s+/).slice(0, Math.max(1, Math.floor(tokens * 0.7))).join(' ');
  return `${out.trimEnd()} …`;
}

export function fenceEvidence(entry: LedgerEntry, text: string): string {
  const where = [entry.chunk.headingPath.join(' › '), entry.chunk.page !== undefined ? `page ${entry.chunk.page}` : ''].filter(Boolean).join(', ');
  const header = `${FENCE_OPEN} id=${entry.id} title="${defuse(entry.chunk.title).replaceAll('"', "'")}"${where ? ` at="${defuse(where).replaceAll('"', "'")}"` : ''}${entry.lowConfidence ? ' confidence=low' : ''}`;
  return `${header}\n${defuse(text)}\n${FENCE_CLOSE}`;
}

/** Formats ledger entries within a total token budget, best first; what does not fit is listed by id. */
export function formatEvidence(entries: readonly LedgerEntry[], budgetTokens: number): string {
  if (entries.length === 0) return 'No matching passages.';
  const perEntry = Math.max(60, Math.floor(budgetTokens / Math.max(1, Math.min(entries.length, 8))));
  const parts: string[] = [];
  let used = 0;
  const omitted: string[] = [];
  for (const entry of entries) {
    if (used >= budgetTokens) {
      omitted.push(entry.id);
      continue;
    }
    const text = cutToTokens(entry.chunk.text, Math.min(perEntry, budgetTokens - used));
    used += countTokens(text) + 12;
    parts.push(fenceEvidence(entry, text));
  }
  if (omitted.length) parts.push(`(also found, not shown for space: ${omitted.join(', ')}; read them with get_content)`);
  return parts.join('\n\n');
}
