import type { Citation } from '../protocol/events.ts';
import type { EvidenceLedger } from './ledger.ts';

/** Matches [E1], [E1, E3], [E2][E5] and [e4]; ids are the ledger's short ids. */
const CITATION_GROUP = /\[((?:\s*E\d+\s*[,;]?)+)\]/gi;

export interface CheckedAnswer {
  /** The answer with unresolved markers rewritten as "[unresolved: E9]" so they never pass as sources. */
  answer: string;
  citations: Citation[];
  unresolved: string[];
}

export function citedIds(answer: string): string[] {
  const ids: string[] = [];
  for (const match of answer.matchAll(CITATION_GROUP)) {
    for (const id of match[1].split(/[\s,;]+/).filter(Boolean)) {
      const normal = id.toUpperCase();
      if (!ids.includes(normal)) ids.push(normal);
    }
  }
  return ids;
}

/** Resolves every cited id against the ledger; what does not resolve is reported, never shown as a source. */
export function checkCitations(answer: string, ledger: EvidenceLedger): CheckedAnswer {
  const citations: Citation[] = [];
  const unresolved: string[] = [];
  for (const id of citedIds(answer)) {
    const entry = ledger.get(id);
    if (!entry) {
      unresolved.push(id);
      continue;
    }
    entry.used = true;
    const chunk = entry.chunk;
    citations.push({
      id,
      chunkId: chunk.id,
      documentId: chunk.documentId,
      title: chunk.title,
      source: chunk.source,
      text: chunk.text,
      headingPath: chunk.headingPath,
      ...(chunk.page !== undefined ? { page: chunk.page } : {}),
      charStart: chunk.charStart,
      charEnd: chunk.charEnd,
    });
  }
  const marked = unresolved.length
    ? answer.replace(CITATION_GROUP, (_group, inner: string) =>
        `[${inner
          .split(/[\s,;]+/)
          .filter(Boolean)
          .map((id) => (unresolved.includes(id.toUpperCase()) ? `unresolved: ${id}` : id))
          .join(', ')}]`,
      )
    : answer;
  return { answer: marked, citations, unresolved };
}
