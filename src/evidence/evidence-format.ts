import { countTokens } from '../text/tokenize.ts';
import type { LedgerEntry } from './ledger.ts';

/**
 * The one text format in which retrieved text reaches a model, and the one parser of it (the offline
 * model reads its own prompt with it). Retrieved text is data, never instructions: every piece sits
 * inside a fence that the text itself cannot close, because fence markers inside it are defused.
 *
 *   <<<EVIDENCE E3 documentId=30 chunk=5 page=2 #1 weak "Staff directory" › Teams › Coastal Team
 *   …passage text… [… 412 characters left out] …more passage text…
 *   [cut: 412 characters left out; get_content documentId=30 from=5]
 *   EVIDENCE>>>
 *
 * Every attribute is explained to the model in the search tool's description (agent/tools/).
 */
export const FENCE_OPEN = '<<<EVIDENCE';
export const FENCE_CLOSE = 'EVIDENCE>>>';
/** Whole-document cards (search_descriptions): not evidence, not citable, fenced the same way. */
export const DOCUMENT_OPEN = '<<<DOCUMENT';
export const DOCUMENT_CLOSE = 'DOCUMENT>>>';
/** The knowledge graph's lines (search_graph): names and predicates read from the documents, so fenced like passages. */
export const GRAPH_OPEN = '<<<GRAPH';
export const GRAPH_CLOSE = 'GRAPH>>>';
/** Appended to a passage cut to its token budget by `cutToTokens`. */
const CUT_MARK = ' …';
/** A block's header and fence lines, in tokens, title and section included (so a budget counts what the model really reads). */
const BLOCK_OVERHEAD_TOKENS = 30;
/** A passage shown shorter than this is not worth showing: it is listed as "also found" instead. */
const MIN_PASSAGE_TOKENS = 40;
/** A passage with fewer than this share of the query's key terms is flagged `weak`. */
const WEAK_TERM_COVERAGE = 0.5;
/** A weak match is shown at most this long (around the query's terms): enough to judge it, little to wade through. */
const WEAK_PASSAGE_TOKENS = 80;
/** The best passage of a result is sent whole when it fits, the next ones up to this rank whole within a third of the budget each; later ones at most LATER_PASSAGE_TOKENS, around the query. */
const WHOLE_PASSAGES = 3;
const LATER_PASSAGE_TOKENS = 120;

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
  const units = unitsOf(text);
  let out = '';
  let used = 0;
  for (const unit of units) {
    const cost = countTokens(unit.text);
    if (used + cost > tokens) break;
    out += unit.text;
    used += cost;
  }
  if (!out)
    out = text
      .split(/\s+/)
      .slice(0, Math.max(1, Math.floor(tokens * 0.7)))
      .join(' ');
  return `${out.trimEnd()}${CUT_MARK}`;
}

/** A piece of a passage that is kept or left out whole: a sentence of prose, or one line of code. */
interface Unit {
  text: string;
  code: boolean;
  heading: boolean;
  /** For a line of a fenced code block: the indexes of its opening and closing fence lines. */
  fences?: [number, number];
}

/**
 * A passage's units, covering its text exactly (so what is kept keeps its layout): each line of a
 * fenced or indented code block, a Markdown heading line, and otherwise sentences (a hard-wrapped
 * line does not end one; a blank line does).
 */
function unitsOf(text: string): Unit[] {
  const units: Unit[] = [];
  let prose = '';
  const flushProse = () => {
    if (!prose) return;
    for (const sentence of prose.match(/[\s\S]+?(?:[.!?]+(?=\s|$)|(?=\n[^\S\n]*\n)|$)\s*/g) ?? [prose])
      units.push({ text: sentence, code: false, heading: false });
    prose = '';
  };
  let inFence = false;
  let block: Unit[] = [];
  for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    const fence = /^\s*(?:```|~~~)/.test(line);
    if (inFence || fence) {
      flushProse();
      const unit: Unit = { text: line, code: true, heading: false };
      units.push(unit);
      block.push(unit);
      if (fence) inFence = !inFence;
      if (fence && !inFence) {
        // A code line kept is kept inside its fences, so the block still reads as code.
        const range: [number, number] = [units.length - block.length, units.length - 1];
        for (const member of block) member.fences = range;
        block = [];
      }
    } else if (/^#{1,6}\s/.test(line)) {
      flushProse();
      units.push({ text: line, code: false, heading: true });
    } else {
      prose += line;
    }
  }
  flushProse();
  return units;
}

/** What a cut left out, in the passage's own place: `[… 412 characters left out]`. */
const GAP = (chars: number) => `[… ${chars} characters left out]`;
/** The last line of a cut passage: how much is shown, and how to read the rest. */
const CUT_NOTE_PATTERN = /\n\[cut: [^\]\n]*\]$/;

function cutNote(entry: LedgerEntry, shownChars: number): string {
  const { chunk } = entry;
  const howToRead = chunk.id < 0 ? `web_scrape reads the page` : `get_content documentId=${chunk.documentId} from=${chunk.ordinal}`;
  return `[cut: ${chunk.text.length - shownChars} characters left out; ${howToRead}]`;
}

/**
 * A passage shortened to a token budget around the query: its heading stays, then the units that
 * carry the most of the query's terms, each with its neighbours, in their own order; each run left
 * out is marked where it was. Without query terms it keeps the lead. A code line is never cut.
 */
function focusedCut(
  text: string,
  budgetTokens: number,
  queryTerms: ReadonlySet<string>,
  terms: ((text: string) => string[]) | undefined,
): { text: string; shownChars: number } {
  const units = unitsOf(text);
  const cost = units.map((unit) => countTokens(unit.text));
  const keep = new Set<number>();
  let used = 0;
  const add = (i: number) => {
    keep.add(i);
    used += cost[i] + 6; // + a possible gap marker
  };
  const take = (i: number): boolean => {
    if (i < 0 || i >= units.length || keep.has(i)) return true;
    const fences = units[i].fences?.filter((f) => !keep.has(f) && f !== i) ?? [];
    if (used + cost[i] + 6 + fences.reduce((sum, f) => sum + cost[f] + 6, 0) > budgetTokens) return false;
    add(i);
    for (const f of fences) add(f);
    return true;
  };
  if (units[0]?.heading) take(0);
  const score = units.map((unit) => (terms && queryTerms.size ? new Set(terms(unit.text).filter((term) => queryTerms.has(term))).size : 0));
  const order = units
    .map((_, i) => i)
    .filter((i) => score[i] > 0)
    .sort((a, b) => score[b] - score[a] || a - b);
  for (const i of order) {
    if (!take(i)) continue;
    take(i + 1);
    take(i - 1);
  }
  // Room left (or nothing matched): the lead, in order.
  for (let i = 0; i < units.length; i++) if (!take(i)) break;
  if (keep.size === 0) {
    const words = cutToTokens(text, budgetTokens).slice(0, -CUT_MARK.length);
    return { text: `${words} ${GAP(text.length - words.length)}`, shownChars: words.length };
  }
  let out = '';
  let gap = 0;
  let shownChars = 0;
  units.forEach((unit, i) => {
    if (keep.has(i)) {
      if (gap) out += `${GAP(gap)}${unit.code || unit.heading || out.endsWith('\n') ? '\n' : ' '}`;
      gap = 0;
      out += unit.text;
      shownChars += unit.text.length;
    } else {
      gap += unit.text.length;
    }
  });
  if (gap) out = `${out.trimEnd()} ${GAP(gap)}`;
  return { text: out.trimEnd(), shownChars };
}

/**
 * Where in its document a passage sits: its heading path below the title. The path usually opens
 * with the title itself, which the block's title attribute already says, so it is not repeated.
 */
export function locationOf(entry: LedgerEntry): string {
  const path = entry.chunk.headingPath;
  const below = path[0]?.trim() === entry.chunk.title.trim() ? path.slice(1) : path;
  return below.join(' › ');
}

/** How a passage is shown in one tool result. */
export interface EvidenceShowing {
  /** 1 for the best passage of this result. */
  rank?: number;
  /** Few of the query's key terms, or a low score in its search. */
  weak?: boolean;
  /** Shown earlier in the run: this block only refers to it. */
  reference?: boolean;
  /** An earlier block of this result comes from the same document and carries its title. */
  titledAbove?: boolean;
}

/**
 * A block's header: its id, its address, its rank, flags, then its title in quotes and its section.
 * Values are bare and flags are words (`weak`), so the header costs few tokens; the title is quoted
 * (quotes inside it made single) so a parser knows where it ends, and the section runs to the line's end.
 */
export function evidenceHeader(entry: LedgerEntry, showing: EvidenceShowing = {}): string {
  const { chunk } = entry;
  const at = locationOf(entry);
  const attributes = [
    entry.id,
    // Web evidence (negative chunk ids) is no document of the index: it has no address to read.
    ...(chunk.id >= 0 ? [`documentId=${chunk.documentId}`, `chunk=${chunk.ordinal}`] : []),
    ...(chunk.page !== undefined ? [`page=${chunk.page}`] : []),
    ...(showing.rank !== undefined ? [`#${showing.rank}`] : []),
    ...(showing.weak ? ['weak'] : []),
    ...(showing.reference ? ['shown=above'] : []),
    ...(showing.titledAbove ? [] : [`"${defuseAttribute(chunk.title)}"`]),
    ...(at ? [`› ${defuse(at)}`] : []),
  ];
  return `${FENCE_OPEN} ${attributes.join(' ')}`;
}

export function fenceEvidence(entry: LedgerEntry, text: string, showing: EvidenceShowing = {}): string {
  return `${evidenceHeader(entry, showing)}\n${showing.reference ? `(shown above in this run; cite it as [${entry.id}])` : defuse(text)}\n${FENCE_CLOSE}`;
}

export interface FormatEvidenceOptions {
  /** The search's query: a passage that must be shortened keeps the sentences carrying its terms, and matches are rated against it. */
  query?: string;
  /** A text's index terms (the Knowledge port's tokenizer): how the query's terms are found in a passage. */
  terms?: (text: string) => string[];
  /**
   * Passages shown whole earlier in the run come back as a reference, and each passage shown is
   * recorded here (`EvidenceLedger.markShown`): one copy per run.
   */
  shown?: { wasShownWhole(id: string): boolean; markShown(id: string, whole: boolean): void };
  /** The passages were asked for by address (get_content), not matched: none is cut short as a weak match. */
  read?: boolean;
}

/**
 * Ledger entries within a total token budget, best first. Each block carries its address (document
 * id, chunk ordinal, page), its rank in this result and a weak-match flag. The top passages are sent
 * whole while the budget allows; the rest share what is left, each cut around the query with a note
 * saying what was left out and how to read it; a weak match is cut short. A passage shown whole before in the run is a one-line
 * reference. What does not fit at all is listed by id.
 */
export function formatEvidence(entries: readonly LedgerEntry[], budgetTokens: number, options: FormatEvidenceOptions = {}): string {
  if (entries.length === 0) return 'No matching passages.';
  const queryTerms = new Set(options.query && options.terms ? options.terms(options.query) : []);
  const coverage = (entry: LedgerEntry) => {
    if (!options.terms || queryTerms.size === 0) return 1;
    const own = new Set(options.terms([entry.chunk.title, ...entry.chunk.headingPath, entry.chunk.text].join('\n')));
    return [...queryTerms].filter((term) => own.has(term)).length / queryTerms.size;
  };
  const parts: string[] = [];
  const omitted: LedgerEntry[] = [];
  let remaining = budgetTokens;
  const references = entries.filter((entry) => options.shown?.wasShownWhole(entry.id));
  remaining -= references.length * BLOCK_OVERHEAD_TOKENS;
  const fresh = entries.filter((entry) => !references.includes(entry));
  let freshLeft = fresh.length;
  const titled = new Set<number>();
  entries.forEach((entry, index) => {
    const showing: EvidenceShowing = {
      rank: index + 1,
      weak: !options.read && (entry.lowConfidence || coverage(entry) < WEAK_TERM_COVERAGE),
      // Web evidence has no document of its own: every page keeps its title.
      titledAbove: entry.chunk.id >= 0 && titled.has(entry.chunk.documentId),
    };
    // Only a block that is shown carries the title for the blocks after it (an omitted one is listed by id).
    const titles = () => entry.chunk.id >= 0 && titled.add(entry.chunk.documentId);
    if (references.includes(entry)) {
      parts.push(fenceEvidence(entry, '', { ...showing, reference: true }));
      titles();
      return;
    }
    const whole = countTokens(entry.chunk.text);
    // A fair share of what is left for this and every passage after it; the whole text when it fits.
    const share = Math.floor(remaining / freshLeft) - BLOCK_OVERHEAD_TOKENS;
    freshLeft--;
    const room = remaining - BLOCK_OVERHEAD_TOKENS - freshLeft * (MIN_PASSAGE_TOKENS + BLOCK_OVERHEAD_TOKENS);
    // Short only when both signals say so: few of the query's terms and a low score (a bridge passage of a multi-hop question has few of them but ranks well).
    // The best passage comes whole; the next ones whole up to a third of the budget each, so one long chunk cannot crowd out the rest.
    const limit =
      showing.weak && entry.lowConfidence
        ? Math.min(WEAK_PASSAGE_TOKENS, share)
        : index === 0
          ? Math.max(share, room)
          : index < WHOLE_PASSAGES
            ? Math.min(Math.max(share, room), Math.floor(budgetTokens / WHOLE_PASSAGES))
            : Math.min(LATER_PASSAGE_TOKENS, Math.max(share, room));
    if (whole <= limit) {
      parts.push(fenceEvidence(entry, entry.chunk.text, showing));
      titles();
      options.shown?.markShown(entry.id, true);
      remaining -= whole + BLOCK_OVERHEAD_TOKENS;
      return;
    }
    if (share < MIN_PASSAGE_TOKENS) {
      omitted.push(entry);
      return;
    }
    const cut = focusedCut(entry.chunk.text, limit, queryTerms, options.terms);
    parts.push(fenceEvidence(entry, `${cut.text}\n${cutNote(entry, cut.shownChars)}`, showing));
    titles();
    options.shown?.markShown(entry.id, false);
    remaining -= countTokens(cut.text) + BLOCK_OVERHEAD_TOKENS + 20;
  });
  if (omitted.length) {
    const ids = omitted.map((entry) => entry.id).join(', ');
    parts.push(
      `(also found, not shown for space: ${ids}; ${omitted.some((entry) => entry.chunk.id < 0) ? 'read documents with get_content, web pages with web_scrape' : 'read them with get_content'})`,
    );
  }
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
  return documents
    .map(
      (d) =>
        `${DOCUMENT_OPEN} id=${d.documentId} title="${defuseAttribute(d.title)}" chunks=${d.chunks}\n${defuse(d.description)}\n${DOCUMENT_CLOSE}`,
    )
    .join('\n\n');
}

/** One evidence block read back from text the model was shown (values as shown: defused, possibly cut). */
export interface ParsedEvidence {
  id: string;
  title: string;
  /** The location as shown ("Teams › Coastal Team, page 2"); '' when none. */
  at: string;
  headingPath: string[];
  page?: number;
  /** The text as shown, without the cut's markers (a gap becomes a paragraph break); '' for a reference. */
  text: string;
  lowConfidence: boolean;
  /** The text was cut to the token budget. */
  cut: boolean;
  /** Where in `text` something was left out (a gap, or the cut end), as character offsets, in order. */
  gaps: number[];
  /** The passage's address: its document id and chunk ordinal (what get_content reads). */
  documentId?: number;
  ordinal?: number;
  /** Its rank in the result that showed it. */
  rank?: number;
  /** A reference to a passage shown earlier in the run (no text of its own). */
  reference?: boolean;
}

const GAP_MARK = / ?\[… \d+ characters left out\] ?\n?/g;

/** A block's body as text without the cut's markers (a gap becomes a paragraph break), and where each gap was. */
function shownText(body: string): { text: string; gaps: number[] } {
  let rest = body.replace(CUT_NOTE_PATTERN, '');
  const cutEnd = rest.endsWith(CUT_MARK);
  if (cutEnd) rest = rest.slice(0, -CUT_MARK.length);
  const gaps: number[] = [];
  let text = '';
  let from = 0;
  for (const mark of rest.matchAll(GAP_MARK)) {
    text += rest.slice(from, mark.index);
    gaps.push(text.length);
    text += '\n\n';
    from = mark.index + mark[0].length;
  }
  text = (text + rest.slice(from)).trimEnd();
  // Cut short at the end ("…"): what follows the text is left out too.
  if (cutEnd && gaps.at(-1) !== text.length) gaps.push(text.length);
  return { text, gaps: gaps.map((gap) => Math.min(gap, text.length)) };
}

const EVIDENCE_BLOCK = new RegExp(`${FENCE_OPEN} ([^\\n]*)\\n([\\s\\S]*?)\\n${FENCE_CLOSE}`, 'g');
/** A header: the id, then `name=value` attributes and flag words, then an optional "title", then an optional `› section`. */
const HEADER = /^(\S+)((?: [a-zA-Z]+=\S+| [a-z]+| #\d+)*)(?: "([^"]*)")?(?: › (.*))?$/;
/** `name=value`, a flag word (value `yes`), or the rank `#3` (name `#`). */
const ATTRIBUTE = / (#|[a-zA-Z]+)(?:=?(\S+))?/g;

/** Every evidence block in a text, in order. */
export function parseEvidence(text: string): ParsedEvidence[] {
  const blocks: ParsedEvidence[] = [];
  // A document's title is said on its first block of a result only.
  const titleOf = new Map<string, string>();
  for (const match of text.matchAll(EVIDENCE_BLOCK)) {
    const header = HEADER.exec(match[1]);
    const id = header?.[1];
    if (!header || !id || !/^E\d+$/.test(id)) continue;
    const attributes = new Map([...header[2].matchAll(ATTRIBUTE)].map((a) => [a[1], a[2] ?? 'yes']));
    const heading = header[4] ?? '';
    const page = attributes.has('page') ? Number(attributes.get('page')) : undefined;
    const reference = attributes.get('shown') === 'above';
    const body = match[2];
    const cut = CUT_NOTE_PATTERN.test(body) || body.endsWith(CUT_MARK);
    const shown = reference ? { text: '', gaps: [] } : shownText(body);
    const number = (name: string) => (attributes.has(name) ? Number(attributes.get(name)) : undefined);
    const documentId = attributes.get('documentId');
    const title = header[3] ?? (documentId !== undefined ? titleOf.get(documentId) : undefined) ?? '';
    if (documentId !== undefined && header[3] !== undefined) titleOf.set(documentId, title);
    blocks.push({
      id,
      title,
      at: [heading, page !== undefined ? `page ${page}` : ''].filter(Boolean).join(', '),
      headingPath: heading ? heading.split(' › ') : [],
      ...(page !== undefined ? { page } : {}),
      text: shown.text,
      lowConfidence: attributes.has('weak'),
      cut,
      gaps: shown.gaps,
      ...(number('documentId') !== undefined ? { documentId: number('documentId') } : {}),
      ...(number('chunk') !== undefined ? { ordinal: number('chunk') } : {}),
      ...(number('#') !== undefined ? { rank: number('#') } : {}),
      ...(reference ? { reference } : {}),
    });
  }
  return blocks;
}
