import type { QuestionCoverage } from '../question/question-coverage.ts';
import { relevanceRank, type OfflineEvidence } from '../prompt-state.ts';
import { segmentsOf, type Segment } from '../text/sentences.ts';
import { LIST_MAX_ITEMS, RANK_TIE_BREAK } from '../tuning.ts';
import { openingOf } from './section-comparison.ts';

/**
 * A heading as the answer. Reference pages head each option, flag, environment variable or API name
 * with the name itself (`#### --preview`, `### BLACK_CACHE_DIR`, `### TestClient`) and say what it
 * does in the section below. When the question asks which such thing does something, the answer is
 * the heading of the section that says it: the name, then the section's opening sentence, cited.
 * When it asks for several ("What environment variables …?"), the answer is the names heading the
 * sections of one parent section, each with its opening sentence.
 */

/** What kind of named thing the question asks for, and the shape a heading naming one has. */
interface AskedKind {
  /** The question's words for it ("environment variables"), which say nothing about which one. */
  words: string;
  plural: boolean;
  fits: (name: string) => boolean;
}

const FLAG = /^--?[a-z0-9][\w-]*(?:[= ][\w<>[\].|-]+)?$/i;
const CONSTANT = /^\$?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const CLASS_NAME = /^(?:[a-z_][\w]*\.)*[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?:\(.*\))?$|^(?:[a-z_]\w*\.)+[A-Z]\w*(?:\(.*\))?$/;
const CALLABLE = /^(?:[A-Za-z_]\w*\.)*[a-z_]\w*(?:\(.*\))$|^(?:[A-Za-z_]\w*\.)+[a-z_]\w*$|^[a-z]+_[a-z0-9_]+$/;
const SETTING = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+$/;

/** Question nouns for a named thing, each with the heading shapes that name one. */
const KINDS: Array<[RegExp, (name: string) => boolean]> = [
  [/(?:command[- ]line )?(?:flag|switch)(?:es|s)?/, (name) => FLAG.test(name)],
  [/(?:environment |env )?variables?|env vars?/, (name) => CONSTANT.test(name)],
  [
    /(?:command[- ]line |cli |configuration |config )?(?:options?|settings?)/,
    (name) => FLAG.test(name) || SETTING.test(name) || CONSTANT.test(name),
  ],
  [/(?:classe?s|class|exceptions?|errors?)/, (name) => CLASS_NAME.test(name)],
  [/(?:functions?|methods?|decorators?)/, (name) => CALLABLE.test(name)],
];

/** Words that, before the kind noun, show the question is not "which <kind> …" ("What does the --check flag do?"). */
const NOT_A_MODIFIER = /^(?:is|are|was|were|does|do|did|can|could|should|will|would|the|this|that|a|an|of|about)$/;

/**
 * The kind of named thing a "which/what …" question asks for: "Which Black flag formats …" (a
 * flag), "What environment variables does … support?" (variables, several). The kind noun comes
 * within the question's opening words, after at most a few words that narrow it ("Black",
 * "command-line").
 */
export function askedKind(question: string): AskedKind | undefined {
  const words = question.trim().toLowerCase().replace(/[?]+$/, '').split(/\s+/);
  if (!/^(?:which|what)$/.test(words[0] ?? '')) return undefined;
  for (let end = 1; end <= Math.min(words.length - 1, 5); end++) {
    if (NOT_A_MODIFIER.test(words[end])) return undefined;
    const phrase = words.slice(1, end + 1).join(' ');
    for (const [noun, fits] of KINDS) {
      const match = new RegExp(`(?:^|\\s)(${noun.source})$`).exec(phrase);
      if (!match) continue;
      // "Which class attribute …": the noun goes on to name another kind of thing.
      const next = words[end + 1] ?? '';
      if (KINDS.some(([other]) => new RegExp(`^(?:${other.source})$`).test(next))) return undefined;
      const last = words[end];
      return { words: match[1], plural: /(?:s|es)$/.test(last) && !/(?:class|switch)$/.test(last), fits };
    }
  }
  return undefined;
}

/** The names a heading gives: "-l, --line-length" → ["-l", "--line-length"]; "--color / --no-color". */
function headingNames(heading: string): string[] {
  return heading
    .replace(/`/g, '')
    .split(/\s*(?:,|\s\/\s|\bor\b)\s*/)
    .map((name) => name.trim())
    .filter(Boolean);
}

const lastHeading = (passage: OfflineEvidence) => passage.at.split(' › ').pop() ?? '';
const parentPath = (passage: OfflineEvidence) => passage.at.split(' › ').slice(0, -1).join(' › ');

/** One named section as shown: the heading's name and what its section says first. */
export interface NamedSection {
  name: string;
  evidence: OfflineEvidence;
  description: Segment[];
  /** The list the opening introduces ("… will exit with:" and its items), if it ends with one. */
  items: Segment[];
}

/** The heading answer: one name, or the names of several sibling sections, and the parent's lead sentence. */
export interface HeadingAnswer {
  sections: NamedSection[];
  lead?: { evidence: OfflineEvidence; segment: Segment };
}

/** The least share of the question a section must answer for its name to be the answer. */
const MIN_SECTION_GAIN = 0.45;
/** The least share of the question several named sections, their parent and its opening must cover together. */
const MIN_GROUP_GAIN = 0.45;

export function headingAnswer(question: string, evidence: OfflineEvidence[], score: QuestionCoverage): HeadingAnswer | undefined {
  const kind = askedKind(question);
  if (!kind) return undefined;
  const kindTerms = new Set(score.sentenceTerms(kind.words));
  const value = (passage: OfflineEvidence, own: string) =>
    // What the section itself says (its name and text) about the rest of the question; its parents count part.
    score.gain(
      score.sentenceTerms(own).filter((term) => !kindTerms.has(term)),
      kindTerms,
      passage,
    ) +
    RANK_TIE_BREAK / (1 + relevanceRank(passage));
  const headed = evidence
    .filter((passage) => {
      const names = headingNames(lastHeading(passage));
      return names.length > 0 && names.every(kind.fits);
    })
    .map(
      (passage): Candidate => ({
        passage,
        name: lastHeading(passage).replace(/`/g, ''),
        parent: parentPath(passage),
        value: value(passage, `${lastHeading(passage)}\n${passage.text}`),
        ...openingWithList(segmentsOf(passage.text)),
      }),
    );
  const described = evidence.flatMap((passage) =>
    describedEntries(passage, kind).map(
      (entry): Candidate => ({
        passage,
        name: entry.name,
        parent: passage.at,
        value: value(passage, `${entry.name}\n${entry.body.map((segment) => segment.text).join('\n')}`),
        description: openingOf(entry.body),
        items: [],
      }),
    ),
  );
  const candidates = [...headed, ...described].filter((candidate) => candidate.description.length > 0).sort((a, b) => b.value - a.value);
  if (kind.plural) return severalSections(kindTerms, candidates, evidence, score);
  const best = candidates[0];
  return best && best.value >= MIN_SECTION_GAIN ? { sections: [named(best)] } : undefined;
}

interface Candidate {
  passage: OfflineEvidence;
  /** The name the section or entry is headed by. */
  name: string;
  /** The heading path it sits under: named things under one parent are listed together. */
  parent: string;
  value: number;
  description: Segment[];
  items: Segment[];
}

/** A section's opening sentences, and the items right after them when the opening ends by introducing a list. */
function openingWithList(segments: Segment[]): { description: Segment[]; items: Segment[] } {
  const description = openingOf(segments);
  const last = description[description.length - 1];
  const items: Segment[] = [];
  if (last && /:$/.test(last.text.trim()))
    for (let k = last.index + 1; k < segments.length && segments[k].kind === 'item' && items.length < LIST_MAX_ITEMS; k++)
      items.push(segments[k]);
  return { description, items };
}

/** Sphinx's object descriptions as parsed: "class Frame(width)", "@cached", the signature's name. */
const SIGNATURE_PREFIX = /^(?:class|exception|property|classmethod|staticmethod|data|attribute|function|method)\s+|^@/;

/**
 * Entries a passage describes the way Sphinx object descriptions (`.. option::`, `.. envvar::`,
 * `.. class::`) come out of parsing: a paragraph that is only a name of the kind asked for
 * ("--fast", "GADGET_HOME", "class Frame(width)"), then the paragraphs that describe it, up to the
 * next such name.
 */
function describedEntries(passage: OfflineEvidence, kind: AskedKind): Array<{ name: string; body: Segment[] }> {
  const segments = segmentsOf(passage.text);
  const signature = (segment: Segment | undefined) => {
    if (!segment || segment.text.includes('\n') || segment.text.length > 80) return undefined;
    const text = segment.text.trim();
    const declared = /^(?:class|exception)\s/.test(text) && /class|exception|error/.test(kind.words);
    const name = text.replace(SIGNATURE_PREFIX, '');
    const names = headingNames(name.replace(/\(.*\)$/, ''));
    return names.length > 0 && (declared || names.every(kind.fits)) ? name : undefined;
  };
  const entries: Array<{ name: string; body: Segment[] }> = [];
  for (let i = 0; i < segments.length; i++) {
    const name = signature(segments[i]);
    const next = segments[i + 1];
    if (!name || !next || next.kind !== 'sentence' || next.block === segments[i].block) continue;
    let end = i + 1;
    while (end < segments.length && segments[end].kind !== 'code' && !signature(segments[end])) end++;
    entries.push({ name, body: segments.slice(i + 1, end) });
    i = end - 1;
  }
  return entries;
}

const named = (candidate: Candidate): NamedSection => ({
  name: candidate.name,
  evidence: candidate.passage,
  description: candidate.description,
  items: candidate.items,
});

/**
 * Several named things: the sections headed by names under one parent heading, the parent naming the
 * kind asked for ("Environment variable options") in its heading or its opening sentence; the group
 * whose parent, opening and sections cover the question best, each section shown with its opening.
 */
function severalSections(
  kindTerms: Set<string>,
  candidates: Candidate[],
  evidence: OfflineEvidence[],
  score: QuestionCoverage,
): HeadingAnswer | undefined {
  let best: { value: number; answer: HeadingAnswer } | undefined;
  for (const parent of new Set(candidates.map((c) => c.parent))) {
    const members = candidates.filter((c) => c.parent === parent);
    if (members.length < 2) continue;
    const parentPassage = evidence.find((passage) => passage.at === parent && passage.title === members[0].passage.title);
    const opening = parentPassage ? openingOf(segmentsOf(parentPassage.text))[0] : undefined;
    // Entries described in the parent's own passage: its opening is the first entry's name, no lead.
    const lead = opening && !members.some((m) => opening.text.trim().replace(SIGNATURE_PREFIX, '') === m.name) ? opening : undefined;
    const parentWords = `${parent.split(' › ').pop() ?? ''}\n${lead?.text ?? ''}`;
    if (!score.sentenceTerms(parentWords).some((term) => kindTerms.has(term))) continue;
    const terms = score.sentenceTerms([parentWords, ...members.map((m) => `${m.name}\n${m.passage.text}`)].join('\n'));
    const value = score.gain(terms, new Set(), members[0].passage);
    if (best && value <= best.value) continue;
    // The sections that say as much about the question as the best of them does (half of it, at least).
    const top = members[0].value;
    const shown = members.filter((m) => m.value >= top / 2).slice(0, LIST_MAX_ITEMS);
    best = {
      value,
      answer: {
        sections: shown.map(named),
        ...(lead && parentPassage ? { lead: { evidence: parentPassage, segment: lead } } : {}),
      },
    };
  }
  return best && best.value >= MIN_GROUP_GAIN ? best.answer : undefined;
}

/** The answer's lines: each name with its section's opening, cited ("--ipynb: Format all input files …"). */
export function renderHeadingAnswer(answer: HeadingAnswer): string[] {
  // Each sentence of the opening ends as one, so that two of them read as two ("Valid values: a URL. It sets …").
  const describe = (description: Segment[]) =>
    description
      .map((segment) =>
        segment.text
          .trim()
          .replace(/\s+/g, ' ')
          .replace(/:$/, '.')
          .replace(/([^.!?])$/, '$1.'),
      )
      .join(' ');
  if (answer.sections.length === 1) {
    // One name: its opening, and the list the opening introduces, item by item.
    const [section] = answer.sections;
    const id = section.evidence.id;
    const opening = section.description.map((segment) => segment.text.trim().replace(/\s+/g, ' ')).join(' ');
    return [
      `${section.name} [${id}]`,
      `${section.items.length ? opening : describe(section.description)} [${id}]`,
      ...section.items.map((item) => `${item.text.trim()} [${id}]`),
    ];
  }
  // Several: each name's opening on its line, without a lead-in whose list is not shown.
  const shown = (section: NamedSection) =>
    section.items.length && section.description.length > 1 ? section.description.slice(0, -1) : section.description;
  return [
    ...answer.sections.map((section) => `- ${section.name}: ${describe(shown(section))} [${section.evidence.id}]`),
    ...(answer.lead ? [`${answer.lead.segment.text.trim().replace(/:$/, '.')} [${answer.lead.evidence.id}]`] : []),
  ];
}
