import type { QuestionCoverage } from '../question/question-coverage.ts';
import { relevanceRank, type OfflineEvidence } from '../prompt-state.ts';
import { segmentsOf, type Segment } from '../text/sentences.ts';
import { HOWTO_CODE_WEIGHT, HOWTO_ITEM_WEIGHT, HOWTO_MAX_ITEMS, HOWTO_MAX_STEPS, HOWTO_MIN_VALUE, RANK_TIE_BREAK } from '../tuning.ts';

/** A segment of a passage quoted in an answer. */
export interface Quoted {
  evidence: OfflineEvidence;
  segment: Segment;
  text: string;
}

/** One step of a procedure: its instruction (a code block, or a run of items with inline code) and the sentence that introduces it. */
export interface Step {
  body: Quoted[];
  lead?: Quoted;
}

/** A how-to answer: the steps in the order the section gives them (one, unless the section is a procedure). */
export interface Procedure {
  steps: Step[];
}

/** A lead that says where it sits in a sequence: "First, …", "Then …", "Next, …", "Finally, …", "Step 2: …". */
const SEQUENCE_LEAD =
  /^(?:\d+[.)]\s+|(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|next|after(?:wards| that)?|finally|lastly|now|step\s+\d+)\b)/i;

interface Candidate {
  passage: OfflineEvidence;
  /** Index of the instruction's first segment, for reading order. */
  at: number;
  body: Segment[];
  lead?: Segment;
  isItem: boolean;
  sequenced: boolean;
  value: number;
}

/**
 * The paragraph that introduces an instruction: the sentences (or the one list item, as in a
 * numbered procedure whose item holds the code) right before it, never the previous step's code.
 */
function introduction(segments: Segment[], at: number): Segment[] {
  const before = segments[at - 1];
  if (!before || before.kind === 'code' || before.kind === 'row') return [];
  if (before.kind === 'item') return [before];
  const paragraph: Segment[] = [];
  for (let k = at - 1; k >= 0 && segments[k].kind === 'sentence' && segments[k].block === before.block; k--) paragraph.unshift(segments[k]);
  return paragraph.slice(-3);
}

/** Every instruction of a passage with the paragraph that introduces it, scored against the question. */
function candidates(passage: OfflineEvidence, score: QuestionCoverage): Candidate[] {
  const segments = segmentsOf(passage.text);
  const out: Candidate[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const isItem = segment.kind === 'item' && /[=()[\]_]|\$ |\w\.\w/.test(segment.text);
    if (segment.kind !== 'code' && !isItem) continue;
    // a run of items is one unit
    let end = i;
    if (isItem) while (end + 1 < segments.length && segments[end + 1].kind === 'item') end++;
    let body = segments.slice(i, end + 1);
    if (isItem && body.length > HOWTO_MAX_ITEMS) {
      // a long list: only the items that match the question best
      const gains = body.map((item) => score.gain(score.sentenceTerms(item.text), new Set(), passage));
      const cut = [...gains].sort((x, y) => y - x)[HOWTO_MAX_ITEMS - 1];
      body = body.filter((_, k) => gains[k] >= cut && gains[k] > 0).slice(0, HOWTO_MAX_ITEMS);
    }
    const start = i;
    i = end;
    if (body.length === 0) continue;
    const leads = introduction(segments, start);
    // The sentence shown with the instruction: the one right before it; the whole paragraph counts for the question.
    const lead = leads[leads.length - 1];
    const bodyTerms = body.flatMap((s) => score.sentenceTerms(s.text));
    const leadTerms = leads.flatMap((s) => score.sentenceTerms(s.text));
    const together = score.gain([...new Set([...bodyTerms, ...leadTerms])], new Set(), passage);
    const own = score.gain([...new Set(bodyTerms)], new Set(), passage);
    const value = (together + HOWTO_CODE_WEIGHT * own) * (isItem ? HOWTO_ITEM_WEIGHT : 1) + RANK_TIE_BREAK / (1 + relevanceRank(passage));
    out.push({
      passage,
      at: start,
      body,
      ...(lead ? { lead } : {}),
      isItem,
      sequenced: leads.length > 0 && SEQUENCE_LEAD.test(leads[0].text),
      value,
    });
  }
  return out;
}

const quoted = (passage: OfflineEvidence, segment: Segment): Quoted => ({ evidence: passage, segment, text: segment.text });

function stepOf(candidate: Candidate): Step {
  return {
    body: candidate.body.map((s) => quoted(candidate.passage, s)),
    ...(candidate.lead ? { lead: quoted(candidate.passage, candidate.lead) } : {}),
  };
}

/**
 * How-to: the instruction the evidence gives — a code block or command, or the list items that
 * carry inline code — chosen by how well it and the paragraph that introduces it cover the
 * question together. When the section it comes from is a procedure (two or more code blocks, each
 * introduced by a sentence or item, a later one by a number or a sequence word: "Then …"), the answer is that
 * procedure's steps in order, each with its own code block; otherwise the one instruction.
 */
export function procedureSteps(evidence: OfflineEvidence[], score: QuestionCoverage): Procedure | undefined {
  let best: Candidate | undefined;
  let section: Candidate[] = [];
  for (const passage of evidence) {
    const found = candidates(passage, score);
    for (const candidate of found) {
      if (!best || candidate.value > best.value) {
        best = candidate;
        section = found;
      }
    }
  }
  if (!best || best.value < HOWTO_MIN_VALUE) return undefined;
  // A procedure: the section's code blocks that each have an introduction, one after the first saying it comes next.
  const procedure = section.filter((c) => !c.isItem && c.lead);
  if (best.isItem || procedure.length < 2 || !procedure.includes(best) || !procedure.slice(1).some((c) => c.sequenced))
    return { steps: [stepOf(best)] };
  return { steps: procedure.slice(0, HOWTO_MAX_STEPS).map(stepOf) };
}
