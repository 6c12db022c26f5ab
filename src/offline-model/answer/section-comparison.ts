import { relevanceRank, type OfflineEvidence } from '../prompt-state.ts';
import { segmentsOf, type Segment } from '../text/sentences.ts';

/**
 * Comparisons of two named things in documentation ("the difference between BackgroundTask and
 * BackgroundTasks", "How does --preview differ from --unstable?"). Documentation describes each thing
 * in its own section, headed by its name; so each side is read from its own section (its opening
 * sentence, and the lines of its code that the other side's code does not have), or, when no section
 * is headed by it, from the sentence that says most about it. Both sides are shown side by side,
 * each citing its passage.
 */

/** One side of the comparison as shown: its name, what its passage says, the code lines that set it apart. */
export interface ComparedSide {
  name: string;
  evidence: OfflineEvidence;
  description: Segment[];
  distinctCode: string[];
}

/** Code lines that say nothing about either side: imports, elisions, closing brackets, blank lines. */
const GENERIC_CODE_LINE = /^(?:$|#|\/\/|import\s|from\s+\S+\s+import\s|\.\.\.|…|[)\]}],?$|(?:›››|>>>|\.\.\.)\s*$)/;
/** How many lines of distinct code each side shows at most. */
const DISTINCT_CODE_LINES = 3;
/** An opening sentence shorter than this is shown with the next one. */
const SHORT_DESCRIPTION_CHARS = 60;

/** The two named things a comparison question asks about, or undefined when it is not one. */
export function comparedNames(question: string): [string, string] | undefined {
  const q = question
    .trim()
    .replace(/\?+$/, '')
    .replace(/[`"“”]/g, '');
  const patterns = [
    /\bdifferences? between (?:the )?(.+?) and (?:the )?(.+)$/i,
    /\bhow (?:does|do|is|are) (?:the )?(.+?) differ(?:ent)? from (?:the )?(.+)$/i,
    /\bcompare (?:the )?(.+?) (?:and|with|to) (?:the )?(.+)$/i,
    /^(?:what is |what's )?(?:the )?(\S+) (?:vs\.?|versus) (?:the )?(\S+)/i,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(q);
    if (!match) continue;
    // The product the question is set in ("… in Black") is not part of the second name.
    const first = match[1].trim();
    const second = match[2].replace(/\s+(?:in|for|of|with) [\w .-]+$/i, '').trim();
    const firstWords = first.split(/\s+/);
    const secondWords = second.split(/\s+/);
    // "basic and digest authentication": the words after the second name are the head both share.
    const secondName = firstWords.length === 1 && secondWords.length > 1 ? secondWords[0] : second;
    if (!first || !secondName || first.toLowerCase() === secondName.toLowerCase()) return undefined;
    if (firstWords.length > 4 || secondName.split(/\s+/).length > 4) return undefined;
    return [first, secondName];
  }
  return undefined;
}

function compact(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}_]/gu, '');
}

/** The last heading of the passage names the thing: "Background Task" for BackgroundTask, "Basic authentication" for basic (when the question says authentication). */
function headedBy(passage: OfflineEvidence, name: string, questionLower: string): boolean {
  const heading = passage.at.split(' › ').pop() ?? '';
  if (!heading) return false;
  if (compact(heading) === compact(name)) return true;
  const headingWords = heading.toLowerCase().split(/\s+/);
  const nameWords = name.toLowerCase().split(/\s+/);
  if (headingWords.length <= nameWords.length) return false;
  if (!nameWords.every((word, i) => compact(headingWords[i]) === compact(word))) return false;
  return headingWords.slice(nameWords.length).every((word) => questionLower.includes(word));
}

function namePattern(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, /^[a-z\s]+$/.test(name) ? 'i' : '');
}

/** The opening of a section: its first sentence or item, with the next one when the first is short. */
export function openingOf(segments: Segment[]): Segment[] {
  const prose = segments.filter((segment) => segment.kind === 'sentence' || segment.kind === 'item');
  if (prose.length === 0) return [];
  return prose[0].text.length < SHORT_DESCRIPTION_CHARS && prose[1] ? prose.slice(0, 2) : prose.slice(0, 1);
}

function codeLines(segments: Segment[]): string[] {
  return segments.filter((segment) => segment.kind === 'code').flatMap((segment) => segment.text.split('\n').map((line) => line.trim()));
}

/**
 * The sentence that best describes a thing no section is headed by: one that names it (early), in a
 * well-ranked passage; a sentence naming both sides as one ("with both X and Y disabled") says
 * nothing about how they differ.
 */
function describingSentence(
  evidence: OfflineEvidence[],
  name: string,
  other: string,
  taken: Set<string>,
): { evidence: OfflineEvidence; segment: Segment } | undefined {
  const own = namePattern(name);
  const theOther = namePattern(other);
  const conjoined = new RegExp(
    `${own.source}\\s*(?:,|and|or)\\s*${theOther.source}|${theOther.source}\\s*(?:,|and|or)\\s*${own.source}`,
    own.flags,
  );
  let best: { evidence: OfflineEvidence; segment: Segment; value: number } | undefined;
  for (const passage of evidence) {
    for (const segment of segmentsOf(passage.text)) {
      if (segment.kind === 'code' || taken.has(segment.text)) continue;
      const at = segment.text.search(own);
      if (at < 0) continue;
      const position = segment.text.slice(0, at).split(/\s+/).length;
      const value =
        -0.1 * relevanceRank(passage) - 0.05 * position + (theOther.test(segment.text) ? 0.3 : 0) - (conjoined.test(segment.text) ? 1 : 0);
      if (!best || value > best.value) best = { evidence: passage, segment, value };
    }
  }
  return best;
}

/** Both sides of a comparison the evidence can show, or undefined when it cannot show both. */
export function compareSections(question: string, evidence: OfflineEvidence[]): [ComparedSide, ComparedSide] | undefined {
  const names = comparedNames(question);
  if (!names) return undefined;
  const questionLower = question.toLowerCase();
  const ranked = [...evidence].sort((a, b) => relevanceRank(a) - relevanceRank(b));
  const sections = names.map((name) => ranked.find((passage) => headedBy(passage, name, questionLower)));
  // Two names heading the same passage is no pair of sections.
  if (sections[0] && sections[0] === sections[1]) sections[1] = undefined;
  const taken = new Set<string>();
  const sides: ComparedSide[] = [];
  for (const [i, name] of names.entries()) {
    const section = sections[i];
    if (section) {
      const description = openingOf(segmentsOf(section.text));
      if (description.length === 0) return undefined;
      for (const segment of description) taken.add(segment.text);
      sides.push({ name, evidence: section, description, distinctCode: [] });
    }
  }
  for (const [i, name] of names.entries()) {
    if (sections[i]) continue;
    const found = describingSentence(ranked, name, names[1 - i], taken);
    if (!found) return undefined;
    taken.add(found.segment.text);
    sides.splice(i, 0, { name, evidence: found.evidence, description: [found.segment], distinctCode: [] });
  }
  if (sections[0] && sections[1]) {
    // What one side's code does that the other's does not: the lines only it has.
    const [firstCode, secondCode] = sections.map((section) => codeLines(segmentsOf(section!.text)));
    const only = (mine: string[], theirs: string[]) =>
      [...new Set(mine.filter((line) => !GENERIC_CODE_LINE.test(line) && !theirs.includes(line)))].slice(0, DISTINCT_CODE_LINES);
    sides[0].distinctCode = only(firstCode, secondCode);
    sides[1].distinctCode = only(secondCode, firstCode);
  }
  return [sides[0], sides[1]];
}

/** The comparison as answer lines: each side its own bullet with its description and distinct code, cited. */
export function renderComparison(sides: [ComparedSide, ComparedSide]): string[] {
  const lines: string[] = [];
  for (const side of sides) {
    const description = side.description
      .map((segment) =>
        segment.text
          .trim()
          .replace(/^(?:[-*•+]|\d+[.)])\s+/, '')
          .replace(/:$/, '.'),
      )
      .join(' ');
    lines.push(`- ${side.name}: ${description} [${side.evidence.id}]`);
    if (side.distinctCode.length) lines.push(`\`\`\`\n${side.distinctCode.join('\n')}\n\`\`\` [${side.evidence.id}]`);
  }
  return lines;
}
