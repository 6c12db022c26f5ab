/**
 * The one grammar of the citation markers an answer carries, for every reader of them: the citation
 * check, research's id rewriting, the claim split, evaluation, the client and the web page.
 *
 * A marker is a bracket of evidence ids: `[E3]`, `[E2, E1]`, `[E2; E1]`, `[E2 E1]`, `[e4]` (ids are
 * read case-insensitively and reported upper-case), and ids Dossier could not resolve are written
 * `[unresolved: E5]` or, next to resolved ones, `[E1, unresolved: E5]`. Models write these loosely,
 * so a trailing separator (`[E1,]`) is accepted too. Dependency-free and browser-safe.
 */
const ID = String.raw`(?:unresolved:\s*)?E\d+`;
const MARKER_SOURCE = String.raw`\[\s*${ID}(?:\s*[,;]?\s*${ID})*\s*[,;]?\s*\]`;
const ID_IN_MARKER = /(unresolved:\s*)?(E\d+)/gi;

function markerPattern(): RegExp {
  return new RegExp(MARKER_SOURCE, 'gi');
}
/** A marker with the white space before it, which goes when the marker does. */
function spacedMarkerPattern(): RegExp {
  return new RegExp(String.raw`\s*${MARKER_SOURCE}`, 'gi');
}

export interface CitationMarker {
  /** The marker as written, brackets included. */
  text: string;
  /** Where it starts in the text, and where it ends (exclusive). */
  start: number;
  end: number;
  /** Every evidence id of the marker in order, upper-case, e.g. ["E2", "E1"]. */
  ids: string[];
  /** The ids written `unresolved: …`: cited, but matching no passage the run read. */
  unresolvedIds: string[];
  /** Every id of the marker is unresolved. */
  unresolved: boolean;
}

function marker(text: string, start: number): CitationMarker {
  const ids: string[] = [];
  const unresolvedIds: string[] = [];
  for (const [, unresolvedPrefix, id] of text.matchAll(ID_IN_MARKER)) {
    const normal = id.toUpperCase();
    ids.push(normal);
    if (unresolvedPrefix !== undefined) unresolvedIds.push(normal);
  }
  return { text, start, end: start + text.length, ids, unresolvedIds, unresolved: unresolvedIds.length === ids.length };
}

/** The markers of `text`, in order. */
export function parseCitationMarkers(text: string): CitationMarker[] {
  return [...text.matchAll(markerPattern())].map((match) => marker(match[0], match.index!));
}

/** The distinct ids `text` cites, in order of first citation (unresolved ones included). */
export function citedIds(text: string): string[] {
  return [...new Set(parseCitationMarkers(text).flatMap((found) => found.ids))];
}

/** Whether `text` holds at least one marker. */
export function hasCitationMarker(text: string): boolean {
  return markerPattern().test(text);
}

/**
 * `text` without its markers: "Oslo [E1]." → "Oslo.". With `replacement` (say " "), each marker and
 * the white space before it become that instead.
 */
export function stripCitationMarkers(text: string, replacement = ''): string {
  return text.replace(spacedMarkerPattern(), replacement);
}

/** `text` with every marker replaced by what `replace` makes of it. */
export function rewriteCitationMarkers(text: string, replace: (marker: CitationMarker) => string): string {
  return text.replace(markerPattern(), (whole: string, start: number) => replace(marker(whole, start)));
}

/** The canonical marker for `ids`: `[E1, unresolved: E5]`. */
export function formatCitationMarker(ids: readonly string[], unresolved: (id: string) => boolean = () => false): string {
  return `[${ids.map((id) => (unresolved(id) ? `unresolved: ${id}` : id)).join(', ')}]`;
}
