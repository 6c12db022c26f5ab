/**
 * The citation markers an answer carries: `[E3]`, `[E2, E1]` and `[E2; E1]` (evidence ids, a comma
 * or semicolon between them), and `[unresolved: E5]` (ids that matched no passage the run read).
 * The one grammar `dossier/client` and the web page read them by. Dependency-free, browser-safe.
 */
const MARKER = /\[(unresolved: )?(E\d+(?:\s*[,;]\s*E\d+)*)\]/g;
/** A marker with the white space before it, which goes when the marker does. */
const SPACED_MARKER = new RegExp(`\\s*${MARKER.source}`, 'g');
const ID_SEPARATOR = /\s*[,;]\s*/;

export interface CitationMarker {
  /** The marker as written, brackets included. */
  text: string;
  /** Where it starts in the text, and where it ends (exclusive). */
  start: number;
  end: number;
  /** The evidence ids in order, e.g. ["E2", "E1"]. */
  ids: string[];
  unresolved: boolean;
}

function marker(text: string, unresolvedPrefix: string | undefined, ids: string, start: number): CitationMarker {
  return { text, start, end: start + text.length, ids: ids.split(ID_SEPARATOR), unresolved: unresolvedPrefix !== undefined };
}

/** The markers of `text`, in order. */
export function parseCitationMarkers(text: string): CitationMarker[] {
  return [...text.matchAll(MARKER)].map((match) => marker(match[0], match[1], match[2], match.index!));
}

/** `text` without its markers (and the white space before each): "Oslo [E1]." → "Oslo.". */
export function stripCitationMarkers(text: string): string {
  return text.replace(SPACED_MARKER, '');
}

/** `text` with every marker replaced by what `replace` makes of it. */
export function rewriteCitationMarkers(text: string, replace: (marker: CitationMarker) => string): string {
  return text.replace(MARKER, (whole: string, unresolvedPrefix: string | undefined, ids: string, start: number) => replace(marker(whole, unresolvedPrefix, ids, start)));
}
