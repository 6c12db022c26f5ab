import type { QuestionCoverage } from '../question/question-coverage.ts';
import { relevanceRank, type ContentRead, type OfflineEvidence, type PromptState } from '../prompt-state.ts';
import { isLeadIn, segmentsOf, type Segment } from '../text/sentences.ts';
import {
  LIST_ENTRY_CHARS,
  LIST_LEAD_WEIGHT,
  LIST_MAX_ITEMS,
  LIST_MIN_VALUE,
  LIST_READS,
  LIST_SENTENCE_WEIGHT,
  RANK_TIE_BREAK,
} from '../tuning.ts';
import type { Quoted } from './procedure-steps.ts';

/** A list answer: its items, each quoted from the passage (chunk) it came from, and the sentence introducing them. */
export interface ListAnswer {
  items: Quoted[];
  lead?: Quoted;
}

/**
 * How a list is written: list items, paragraphs that read as entries after a lead-in, or one
 * enumerating sentence; `begun`, a lead-in whose list is not in the passage (cut away, or in the next chunk).
 */
type ListForm = 'items' | 'entries' | 'sentence' | 'begun';

/** A run of a list within one passage: its segments and the index of the last segment it takes up. */
interface Run {
  segments: Segment[];
  end: number;
}

interface Pick {
  passage: OfflineEvidence;
  form: ListForm;
  run: Run;
  /** The index of the lead-in, or of the first item when there is none: where the list starts. */
  start: number;
  lead?: Segment;
  /** The run had more items than are quoted: reading on would add none. */
  capped: boolean;
  value: number;
  /** The list chunk by chunk: this passage's share, then its continuation (`pieces`). */
  pieces: Piece[];
}

/** A sentence that enumerates: "These are connect, read, write, and pool timeouts." */
const ENUMERATION = /(?:[^,;]+,\s*){1,}[^,;]*\b(?:and|or)\b\s+[^,;]+/;
/** An entry paragraph that opens with its label: "varargs: …", "class jinja2.FileSystemLoader: …". */
const ENTRY_LABEL = /^[\w.\-`'"{}%#()[\]]+(?:\s[\w.-]+)?:\s/;

/** The run of list items from `start` (one or more). */
function itemRun(segments: Segment[], start: number): Run {
  let end = start - 1;
  while (end + 1 < segments.length && segments[end + 1].kind === 'item') end++;
  return { segments: segments.slice(start, end + 1), end };
}

/**
 * Paragraphs from `start` that read as entries (a label and its text, or a short paragraph): the
 * sentences after an entry's first, in its own paragraph, belong to it; labelled entries end at the
 * first paragraph without a label (`labelled`: every entry must have one).
 */
function entryRun(segments: Segment[], start: number, labelled = false): Run {
  const entries: Segment[] = [];
  let end = start - 1;
  for (let k = start; k < segments.length; k++) {
    const next = segments[k];
    // List items are a run of their own (itemRun).
    if (next.kind === 'code' || next.kind === 'item') break;
    if (next.block === entries.at(-1)?.block) {
      end = k;
      continue;
    }
    const hasLabel = ENTRY_LABEL.test(next.text);
    if (!hasLabel && next.text.length > LIST_ENTRY_CHARS) break;
    // Entries written "label: text" end at the first paragraph that is not.
    if (!hasLabel && (labelled || (entries.length > 0 && entries.every((entry) => ENTRY_LABEL.test(entry.text))))) break;
    entries.push(next);
    end = k;
  }
  return { segments: entries, end };
}

/**
 * The list each passage offers that best covers the question with its lead-in (undefined below the
 * minimum), quoted on into the next chunks of its section when the run has read them (`pieces`).
 * `reading`: the planner asks which list to read on, so a list the passage only begins counts too:
 * a lead-in whose list (or all but its first item) was cut away, or that ends the chunk.
 */
function bestList(evidence: OfflineEvidence[], score: QuestionCoverage, reading = false): Pick | undefined {
  let pick: Pick | undefined;
  for (const passage of evidence) {
    const segments = segmentsOf(passage.text);
    const gapsBefore = gapIndexes(passage);
    // The list may go on after this segment: the passage ends there, or the cut left out what followed it.
    const open = (index: number) => index === segments.length - 1 || gapsBefore.has(index + 1);
    const consider = (form: ListForm, run: Run, start: number, lead: Segment | undefined, weight: number, begun = false) => {
      const candidate: Pick = {
        passage,
        form,
        run: { segments: run.segments.slice(0, LIST_MAX_ITEMS), end: run.end },
        start,
        ...(lead ? { lead } : {}),
        capped: run.segments.length > LIST_MAX_ITEMS,
        value: 0,
        pieces: [],
      };
      candidate.pieces = pieces(candidate, evidence);
      const items = candidate.pieces.flatMap((piece) => piece.segments);
      // A list the passage only begins answers once the next chunk has given it its items.
      if (begun && !reading && items.length < 2) return;
      const itemTerms = items.flatMap((s) => score.sentenceTerms(s.text));
      const leadTerms = lead ? score.sentenceTerms(lead.text) : [];
      const together = score.gain([...new Set([...itemTerms, ...leadTerms])], new Set(), passage);
      candidate.value =
        together * weight +
        LIST_LEAD_WEIGHT * (lead ? score.gain(leadTerms, new Set(), passage) : 0) +
        RANK_TIE_BREAK / (1 + relevanceRank(passage));
      if (!pick || candidate.value > pick.value) pick = candidate;
    };
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      if (segment.kind === 'item') {
        const run = itemRun(segments, i);
        const lead = segments[i - 1]?.kind === 'sentence' ? segments[i - 1] : undefined;
        if (run.segments.length > 1) consider('items', run, lead ? i - 1 : i, lead, 1);
        else if (lead && isLeadIn(lead.text) && open(run.end)) consider('items', run, i - 1, lead, 1, true);
        i = run.end;
      } else if (segment.kind === 'sentence' && isLeadIn(segment.text)) {
        // Paragraphs after a lead-in that read as entries ("varargs: …", "class jinja2.FileSystemLoader") are its items.
        const run = segments[i + 1]?.block === segment.block ? undefined : entryRun(segments, i + 1);
        if (run && run.segments.length >= 2) consider('entries', run, i, segment, 1);
        else if (run?.segments.length === 1 && open(run.end)) consider('entries', run, i, segment, 1, true);
        else if (open(i)) consider('begun', { segments: [], end: i }, i, segment, 1, true);
      }
      if (segment.kind === 'sentence' && ENUMERATION.test(segment.text)) {
        const lead = segments[i - 1]?.kind === 'sentence' ? segments[i - 1] : undefined;
        consider('sentence', { segments: [segment], end: i }, lead ? i - 1 : i, lead, LIST_SENTENCE_WEIGHT);
      }
    }
  }
  return pick && pick.value >= LIST_MIN_VALUE ? pick : undefined;
}

/** The passage's segments that follow a gap (its length, for a gap at the end): a gap becomes a paragraph break, so the segments before it are those of the text before it. */
function gapIndexes(passage: OfflineEvidence): Set<number> {
  if (!passage.cut || !passage.gaps?.length) return new Set();
  return new Set(passage.gaps.map((gap) => segmentsOf(passage.text.slice(0, gap)).length));
}

/** One passage's share of a list: the passage and the segments of the list it holds. */
interface Piece {
  passage: OfflineEvidence;
  segments: Segment[];
  /** All the passage's segments, and the index of the last one the list takes up. */
  all: Segment[];
  end: number;
}

/** The chunk after a passage in its document, when the run has read it. */
function nextChunk(passage: OfflineEvidence, evidence: readonly OfflineEvidence[]): OfflineEvidence | undefined {
  if (passage.documentId === undefined || passage.ordinal === undefined) return undefined;
  return evidence.find((e) => e.documentId === passage.documentId && e.ordinal === passage.ordinal! + 1);
}

/** Its text runs to the end of its chunk: nothing after it was left out. */
function endsWhole(passage: OfflineEvidence): boolean {
  return !(passage.gaps ?? []).includes(passage.text.length);
}

/** A gap (text left out) lies inside the list: between its start and the segment after its last. */
function cutInside(piece: Piece, start: number): boolean {
  return [...gapIndexes(piece.passage)].some((before) => before > start && before <= piece.end + 1);
}

/**
 * The list in the order the document gives it: the pick's passage, then, while the list runs to the
 * end of a chunk (shown whole), the list items that open the next chunk of the same section — its
 * heading path — when the run has read it. A chunk's opening overlap with the one before is skipped.
 */
function pieces(pick: Pick, evidence: readonly OfflineEvidence[]): Piece[] {
  const first: Piece = { passage: pick.passage, segments: pick.run.segments, all: segmentsOf(pick.passage.text), end: pick.run.end };
  const out = [first];
  if (pick.form === 'sentence' || pick.capped) return out;
  let count = first.segments.length;
  const listed = [...first.segments];
  for (let last = first; count < LIST_MAX_ITEMS && last.end === last.all.length - 1 && endsWhole(last.passage); ) {
    const next = nextChunk(last.passage, evidence);
    // The same section: the same headings (a page break within it does not end it).
    if (!next || (next.section ?? next.at) !== (last.passage.section ?? last.passage.at)) break;
    const all = segmentsOf(next.text);
    const seen = new Set(last.all.map((s) => s.text));
    let start = 0;
    while (start < all.length && seen.has(all[start].text)) start++;
    // A list the passage only began goes on as items, or as labelled entries; entries go on as they began.
    const labelled = pick.form === 'begun' || (listed.length > 0 && listed.every((s) => ENTRY_LABEL.test(s.text)));
    const form = pick.form === 'begun' ? (all[start]?.kind === 'item' ? 'items' : 'entries') : pick.form;
    const run = form === 'items' ? (all[start]?.kind === 'item' ? itemRun(all, start) : undefined) : entryRun(all, start, labelled);
    if (!run || run.segments.length === 0) break;
    const segments = run.segments.slice(0, LIST_MAX_ITEMS - count);
    count += segments.length;
    listed.push(...segments);
    last = { passage: next, segments, all, end: run.end };
    out.push(last);
  }
  return out;
}

/**
 * List: the run of list items, the entries after a lead-in, or the sentence that enumerates them,
 * that best covers the question together with the sentence introducing it ("There are four
 * different types of timeouts …"); a list that runs on into the next chunk of its section (read with
 * get_content) is quoted whole, each item citing the chunk it came from.
 */
export function listItems(evidence: OfflineEvidence[], score: QuestionCoverage): ListAnswer | undefined {
  const pick = bestList(evidence, score);
  if (!pick) return undefined;
  const items = pick.pieces.flatMap((piece) => piece.segments.map((segment) => ({ evidence: piece.passage, segment, text: segment.text })));
  return { items, ...(pick.lead ? { lead: { evidence: pick.passage, segment: pick.lead, text: pick.lead.text } } : {}) };
}

/**
 * The get_content read that would show more of the list a list question is answered with: its chunk
 * whole when the search result cut it inside the list, or the next chunk when the list runs to the
 * end of its chunk. At most LIST_READS per run, never the same read twice; undefined when the list
 * is whole (or ends its section, or its document).
 */
export function listReadOn(state: PromptState, score: QuestionCoverage): ContentRead | undefined {
  if (state.reads.length >= LIST_READS) return undefined;
  const pick = bestList(state.evidence, score, true);
  if (!pick || pick.form === 'sentence' || pick.capped) return undefined;
  const chain = pick.pieces;
  const last = chain[chain.length - 1];
  const { documentId, ordinal } = last.passage;
  if (documentId === undefined || ordinal === undefined) return undefined;
  const made = (read: ContentRead) => state.reads.some((r) => r.documentId === read.documentId && r.from <= read.from && r.to >= read.to);
  const count = chain.reduce((sum, piece) => sum + piece.segments.length, 0);
  let read: ContentRead | undefined;
  if (cutInside(last, chain.length === 1 ? pick.start : 0)) read = { documentId, from: ordinal, to: ordinal };
  else if (
    endsWhole(last.passage) &&
    count < LIST_MAX_ITEMS &&
    last.end === last.all.length - 1 &&
    !nextChunk(last.passage, state.evidence)
  ) {
    const chunks = state.chunkCounts.get(documentId);
    if (chunks !== undefined && ordinal + 1 >= chunks) return undefined;
    // Without the document's chunk count, reading from this chunk on cannot ask for one past the end.
    read = { documentId, from: chunks === undefined ? ordinal : ordinal + 1, to: ordinal + 1 };
  }
  return read && !made(read) ? read : undefined;
}
