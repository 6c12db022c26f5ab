import type { Citation } from '../protocol/events.ts';
import { formatCitationMarker, parseCitationMarkers, rewriteCitationMarkers } from '../protocol/citations.ts';
import type { StoredChunk } from '../store/types.ts';
import type { EvidenceLedger } from './ledger.ts';

export interface CheckedAnswer {
  /** The answer with unresolved markers rewritten as "[unresolved: E9]" so they never pass as sources. */
  answer: string;
  citations: Citation[];
  unresolved: string[];
}

/** The distinct ids an answer cites as sources ([E1], [E1, E3], [E2][E5], [e4]); ids already marked unresolved are not. */
export function citedIds(answer: string): string[] {
  const ids = parseCitationMarkers(answer).flatMap((marker) => marker.ids.filter((id) => !marker.unresolvedIds.includes(id)));
  return [...new Set(ids)];
}

/** Where an evidence id points: the chunk, its document and its place in it. */
function citationOf(id: string, chunk: StoredChunk): Citation {
  return {
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
  };
}

/**
 * The passages a model named closest to answering when the documents do not answer (a "not found"
 * answer): resolved like citations, so a reader can open them, but not cited and not used evidence.
 * Ids that resolve to nothing are dropped.
 */
export function resolveClosestPassages(ids: readonly string[], ledger: EvidenceLedger): Citation[] {
  const seen = new Set<string>();
  return ids.flatMap((raw) => {
    const id = raw.toUpperCase();
    const entry = seen.has(id) ? undefined : ledger.get(id);
    seen.add(id);
    return entry ? [citationOf(id, entry.chunk)] : [];
  });
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
    citations.push(citationOf(id, entry.chunk));
  }
  const marked = unresolved.length
    ? rewriteCitationMarkers(answer, (marker) =>
        formatCitationMarker(marker.ids, (id) => marker.unresolvedIds.includes(id) || unresolved.includes(id)),
      )
    : answer;
  return { answer: marked, citations, unresolved };
}
