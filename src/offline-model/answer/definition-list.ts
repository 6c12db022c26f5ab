import { relevanceRank, type OfflineEvidence } from '../prompt-state.ts';
import type { QuestionCoverage } from '../question/question-coverage.ts';
import { segmentsOf, type Segment } from '../text/sentences.ts';

/**
 * Entries of documentation: a thing named, then what it is or does. Documentation writes them as
 * definition and parameter lists ("- max_age - Session expiry time in seconds.", "varargs: …",
 * ":param timeout: …") and as sections headed by the thing's name ("#### --check",
 * "### BLACK_CACHE_DIR"). A question about a named entry is answered by what its entry says; a
 * question for the entry that does something ("Which package is required for X?") by the entry
 * whose description says it.
 */
export interface Entry {
  name: string;
  /** What the entry says, sentence by sentence (a heading entry: its section's prose). */
  description: Segment[];
  evidence: OfflineEvidence;
  /** The list item the entry is, shown whole; absent for a heading entry. */
  item?: Segment;
}

/** "- `max_age` - Session …", "* name: …", ":param name: …", "name — …": a one-token name, a separator, a description. */
const ENTRY = /^(?:[-*•+]\s+)?(?::\w+\s+)?`?([\w.[\]-]*[\w\]](?:\(\))?)`?:?\s*(?:\s[-–—]\s+|:\s+)(\S.*)$/;
/** A name worth matching in a question: it looks like code (an underscore, a dash or dot inside, CamelCase, capitals, a flag). */
const IDENTIFIER = /^(?:--?[\w-]+|[\w.]*[_.][\w.]+|[A-Z][a-z]+[A-Z]\w*|[A-Z][A-Z0-9_]{2,}|\w+\(\))$/;
/** A description shorter than this many words is no description. */
const MIN_DESCRIPTION_WORDS = 3;

function looksLikeIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** The entries of a passage: its list and field entries, and the passage itself when its heading is a name. */
export function entriesOf(passage: OfflineEvidence): Entry[] {
  const segments = segmentsOf(passage.text);
  const entries: Entry[] = [];
  for (const segment of segments) {
    if (segment.kind !== 'item' && segment.kind !== 'sentence') continue;
    const match = ENTRY.exec(segment.text.trim());
    if (!match || match[2].split(/\s+/).length < MIN_DESCRIPTION_WORDS) continue;
    if (segment.kind === 'sentence' && !looksLikeIdentifier(match[1]) && !/^\s*[a-z_]\w*:/.test(segment.text)) continue;
    entries.push({
      name: match[1],
      description: [{ ...segment, text: match[2] }],
      evidence: passage,
      item: segment,
    });
  }
  const heading = (passage.at.split(' › ').pop() ?? '').replace(/`/g, '').trim();
  if (heading && !/\s/.test(heading) && looksLikeIdentifier(heading)) {
    const prose = segments.filter((segment) => segment.kind === 'sentence' || segment.kind === 'item');
    if (prose.length) entries.push({ name: heading, description: prose, evidence: passage });
  }
  return entries;
}

function tokensOf(question: string): string[] {
  return question
    .replace(/[?"“”`]/g, ' ')
    .split(/\s+/)
    .map((token) => token.replace(/^[('"]+|[)'",.;:!]+$/g, '').replace(/'s$/, ''))
    .filter(Boolean);
}

/** An entry as an answer line: "name: description", and the sentence that answers when it is not the first. */
export interface EntryAnswer {
  entry: Entry;
  /** The sentences of its description shown, best first. */
  shown: Segment[];
}

/**
 * The entry that answers the question: the one it names (exactly one named entry, its sentence that
 * covers the question best), or, when it names none, the one whose description covers the
 * question's code identifiers and more of its terms than any other.
 */
export function entryAnswer(question: string, evidence: OfflineEvidence[], score: QuestionCoverage): EntryAnswer | undefined {
  const tokens = tokensOf(question);
  const identifiers = tokens.filter(looksLikeIdentifier);
  const ranked = [...evidence].sort((a, b) => relevanceRank(a) - relevanceRank(b));
  const entries = ranked.flatMap(entriesOf);
  const named = entries.filter((entry) => identifiers.includes(entry.name));
  const namedNames = new Set(named.map((entry) => entry.name));
  if (identifiers.length === 0 || namedNames.size > 1) return undefined;
  const questionTerms = new Set(score.sentenceTerms(question));
  const phrases = bigramsOf(question);
  // How much of the question a sentence says: its terms, and its phrases word for word ("files would be reformatted").
  const match = (text: string) =>
    score.sentenceTerms(text).filter((term) => questionTerms.has(term)).length + [...bigramsOf(text)].filter((b) => phrases.has(b)).length;
  let about: (EntryAnswer & { value: number }) | undefined;
  if (namedNames.size === 1) {
    const entry = named[0];
    const values = entry.description.map((segment) => match(segment.text));
    const best = values.indexOf(Math.max(...values));
    const shown = best <= 0 ? entry.description.slice(0, 1) : [entry.description[0], entry.description[best]];
    about = { entry, shown, value: values[best] };
  }
  // For the entry that does what the question says: its description has every other code identifier the question names.
  let doing: (EntryAnswer & { value: number }) | undefined;
  for (const entry of entries) {
    if (tokens.includes(entry.name) || entry.item === undefined) continue;
    const text = entry.description.map((segment) => segment.text).join(' ');
    if (!identifiers.every((identifier) => text.includes(identifier))) continue;
    const value = match(text) - 0.01 * relevanceRank(entry.evidence);
    if (!doing || value > doing.value) doing = { entry, shown: entry.description.slice(0, 1), value };
  }
  // The question names the entry as what the asked thing is for ("the package for SessionMiddleware"): the entry that says so wins.
  const pick = doing && (!about || doing.value > about.value) ? doing : about;
  return pick && { entry: pick.entry, shown: pick.shown };
}

function bigramsOf(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_-]+/gu) ?? [];
  return new Set(words.slice(1).map((word, i) => `${words[i]} ${word}`));
}

/** The entry as answer lines: "name: description [E1]" (the answering sentence too, when it is not the first). */
export function renderEntry({ entry, shown }: EntryAnswer): string[] {
  const [first, ...rest] = shown;
  const lead = entry.item ? entry.item.text.trim().replace(/^(?:[-*•+]\s+)/, '') : `${entry.name}: ${first.text.trim()}`;
  return [`${lead} [${entry.evidence.id}]`, ...rest.map((segment) => `${segment.text.trim()} [${entry.evidence.id}]`)];
}
