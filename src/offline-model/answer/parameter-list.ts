import { relevanceRank, type OfflineEvidence } from '../prompt-state.ts';
import { segmentsOf, type Segment } from '../text/sentences.ts';
import { LIST_MAX_ITEMS } from '../tuning.ts';
import { headedBy, parameterOwner } from '../question/parameter-owner.ts';
import type { Quoted } from './procedure-steps.ts';

/**
 * Definition and parameter lists. "What arguments does X accept?", "List the X arguments": the answer
 * is the list that defines X's arguments — Markdown items that give a name and what it does
 * ("`max_age` - Session expiry time …"), a table of names and descriptions, or reStructuredText
 * fields (`:param max_age: …`) — read from X's own section: the section headed by X's name, or a
 * list whose introducing sentence names X; never the list of a section headed by another name.
 * However the question is worded, it is the same list.
 */

/** An item that defines a name: "`secret_key` - Should be a random string.", "timeout: seconds to wait". */
const DEFINITION_ITEM = /^(?:[-*•+]|\d+[.)])\s+`?([A-Za-z_][\w.]*)`?(?:\s*\([^)]*\))?\s*(?:[-–—:]|\s-\s)\s*\S/;
/** A table row whose first cell is one name and a later cell says what it is: "Argument: speed; Description: How fast …". */
const NAME_ROW = /^[^:;]{1,40}: `?[A-Za-z_][\w.]*`?; [^:;]{1,40}: \S/;
/** A reStructuredText field as parsed ("param max_age: …", ":param int max_age: …"). */
const FIELD = /^:?(?:param|parameter|arg|argument|key|keyword)\s+(?:[\w.[\]]+\s+)?([A-Za-z_]\w*):\s*\S/;

/** The passage's own heading: "SessionMiddleware", or "`Client`". */
const lastHeading = (passage: OfflineEvidence) => (passage.at.split(' › ').pop() ?? '').replace(/`/g, '').trim();

/** A heading that is one code name (an API reference's section for one class or function). */
const isCodeHeading = (heading: string) => /^[A-Za-z_][\w.]*(?:\(.*\))?$/.test(heading) && /[a-z][A-Z]|_|\.|\(/.test(heading);

/** Whether a sentence names the owner as a word of its own ("… to SessionMiddleware:", "Notebook(title=…)"). */
function names(text: string, owner: string): boolean {
  const escaped = owner.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?![\\w])`).test(text);
}

/** A definition list found for the owner: its items, the sentence introducing it, and how it is X's. */
export interface ParameterList {
  owner: string;
  items: Quoted[];
  lead?: Quoted;
}

interface Found extends ParameterList {
  /** 0: the section is headed by the owner; 1: its introducing sentence names it. */
  tier: number;
  rank: number;
}

/** The runs of definition items of a passage, each with the sentence before it. */
function definitionRuns(segments: Segment[]): Array<{ items: Segment[]; lead?: Segment }> {
  const runs: Array<{ items: Segment[]; lead?: Segment }> = [];
  for (let i = 0; i < segments.length; i++) {
    const defines = (segment: Segment | undefined) =>
      segment !== undefined &&
      ((segment.kind === 'item' && DEFINITION_ITEM.test(segment.text)) ||
        (segment.kind === 'row' && NAME_ROW.test(segment.text)) ||
        (segment.kind !== 'code' && FIELD.test(segment.text)));
    if (!defines(segments[i])) continue;
    let end = i;
    while (defines(segments[end + 1])) end++;
    const before = segments[i - 1];
    runs.push({ items: segments.slice(i, end + 1), ...(before && before.kind === 'sentence' ? { lead: before } : {}) });
    i = end;
  }
  return runs.filter((run) => run.items.length >= 2);
}

/**
 * The owner's parameter list in the evidence: from the section headed by its name first, else a
 * list whose introducing sentence (or the text before it in its section) names it; the best-ranked
 * passage among those.
 */
export function parameterList(question: string, evidence: OfflineEvidence[]): ParameterList | undefined {
  const asked = parameterOwner(question);
  if (!asked) return undefined;
  const owner = asked.name;
  let best: Found | undefined;
  for (const passage of evidence) {
    const heading = lastHeading(passage);
    const headed = headedBy(passage.at, owner);
    // A section headed by another code name holds that thing's list, whatever its text mentions.
    const another = !headed && isCodeHeading(heading);
    const segments = segmentsOf(passage.text);
    for (const run of definitionRuns(segments)) {
      const introduced = run.lead !== undefined && names(run.lead.text, owner);
      const before = segments.slice(0, run.items[0].index).some((segment) => names(segment.text, owner));
      if (!headed && (!asked.code || (!introduced && (another || !before)))) continue;
      const found: Found = {
        owner,
        items: run.items.slice(0, LIST_MAX_ITEMS).map((segment) => ({ evidence: passage, segment, text: segment.text })),
        ...(run.lead ? { lead: { evidence: passage, segment: run.lead, text: run.lead.text } } : {}),
        tier: headed ? 0 : 1,
        rank: relevanceRank(passage),
      };
      if (!best || found.tier < best.tier || (found.tier === best.tier && found.rank < best.rank)) best = found;
    }
  }
  return best && { owner: best.owner, items: best.items, ...(best.lead ? { lead: best.lead } : {}) };
}
