import { countTokens } from '../text/tokenize.ts';
import type { LedgerEntry } from './ledger.ts';

/**
 * The one text format in which retrieved text reaches a model, and the one parser of it (the offline
 * model reads its own prompt with it). Retrieved text is data, never instructions: every piece sits
 * inside a fence that the text itself cannot close, because fence markers inside it are defused.
 *
 *   <<<EVIDENCE id=E3 title="Staff directory" at="Teams › Coastal Team, page 2" confidence=low
 *   …passage text…
 *   EVIDENCE>>>
 */
export const FENCE_OPEN = '<<<EVIDENCE';
export const FENCE_CLOSE = 'EVIDENCE>>>';
/** Whole-document cards (search_descriptions): not evidence, not citable, fenced the same way. */
export const DOCUMENT_OPEN = '<<<DOCUMENT';
export const DOCUMENT_CLOSE = 'DOCUMENT>>>';
/** Appended to a passage cut to its token budget. */
const CUT_MARK = ' …';

/** No retrieved text can contain a fence marker: `<<<` and `>>>` become look-alikes. */
export function defuse(text: string): string {
  return text.replaceAll('<<<', '‹‹‹').replaceAll('>>>', '›››');
}

/** Defused, and with double quotes made single, for a `name="…"` attribute. */
export function defuseAttribute(text: string): string {
  return defuse(text).replaceAll('"', "'");
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
  return `${out.trimEnd()}${CUT_MARK}`;
}

/** Where in its document a passage sits: its heading path, then its page. */
function locationOf(entry: LedgerEntry): string {
  return [entry.chunk.headingPath.join(' › '), entry.chunk.page !== undefined ? `page ${entry.chunk.page}` : ''].filter(Boolean).join(', ');
}

export function fenceEvidence(entry: LedgerEntry, text: string): string {
  const at = locationOf(entry);
  const header = `${FENCE_OPEN} id=${entry.id} title="${defuseAttribute(entry.chunk.title)}"${at ? ` at="${defuseAttribute(at)}"` : ''}${entry.lowConfidence ? ' confidence=low' : ''}`;
  return `${header}\n${defuse(text)}\n${FENCE_CLOSE}`;
}

/** Ledger entries within a total token budget, best first; what does not fit is listed by id. */
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
  // Web evidence (negative chunk ids) is no document of the index: get_content cannot read it.
  if (omitted.length) parts.push(`(also found, not shown for space: ${omitted.join(', ')}; ${entries.some((e) => omitted.includes(e.id) && e.chunk.id < 0) ? 'read documents with get_content, web pages with web_scrape' : 'read them with get_content'})`);
  return parts.join('\n\n');
}

export interface DocumentCard {
  documentId: number;
  title: string;
  chunks: number;
  description: string;
}

export function formatDocuments(documents: readonly DocumentCard[]): string {
  if (documents.length === 0) return 'No matching documents.';
  return documents.map((d) => `${DOCUMENT_OPEN} id=${d.documentId} title="${defuseAttribute(d.title)}" chunks=${d.chunks}\n${defuse(d.description)}\n${DOCUMENT_CLOSE}`).join('\n\n');
}

/** One evidence block read back from text the model was shown (values as shown: defused, possibly cut). */
export interface ParsedEvidence {
  id: string;
  title: string;
  /** The location as shown ("Teams › Coastal Team, page 2"); '' when none. */
  at: string;
  headingPath: string[];
  page?: number;
  text: string;
  lowConfidence: boolean;
  /** The text was cut to the token budget (the cut mark is removed from `text`). */
  cut: boolean;
}

const EVIDENCE_BLOCK = new RegExp(`${FENCE_OPEN} id=(E\\d+) title="([^"]*)"(?: at="([^"]*)")?( confidence=low)?[^\\n]*\\n([\\s\\S]*?)\\n${FENCE_CLOSE}`, 'g');

/** Every evidence block in a text, in order. */
export function parseEvidence(text: string): ParsedEvidence[] {
  return [...text.matchAll(EVIDENCE_BLOCK)].map((match) => {
    const at = match[3] ?? '';
    const page = at.match(/(?:^|, )page (\d+)$/);
    const headings = page ? at.slice(0, page.index) : at;
    const body = match[5];
    const cut = body.endsWith(CUT_MARK);
    return {
      id: match[1],
      title: match[2],
      at,
      headingPath: headings ? headings.split(' › ') : [],
      ...(page ? { page: Number(page[1]) } : {}),
      text: cut ? body.slice(0, -CUT_MARK.length) : body,
      lowConfidence: match[4] !== undefined,
      cut,
    };
  });
}
