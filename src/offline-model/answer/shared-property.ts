import type { Tokenizer } from '../../text/tokenize.ts';
import { ownedBy, support, type ReaderResult, type ReaderSentence } from './calculation.ts';
import { countryOf, nationalityIn } from '../text/nationalities.ts';
import { plainTitle } from '../prompt-state.ts';
import type { QuestionAnalysis } from '../question/question.ts';

/** Words of a definition that say where or when, not what: they end the noun phrase. */
const PHRASE_END =
  /^(?:who|whom|which|that|whose|best|known|from|in|of|for|with|by|at|on|based|born|active|and\s+(?:is|was)|since|during|until|noted|famous|widely|mostly|mainly|primarily|currently|formerly|also)$/i;

/** Female forms named by the male one, so "voice actress" and "voice actor" share their noun. */
const COMMON_FORM: Record<string, string> = {
  actress: 'actor',
  actresses: 'actors',
  hostess: 'host',
  waitress: 'waiter',
  comedienne: 'comedian',
  stewardess: 'steward',
  authoress: 'author',
  poetess: 'poet',
};

/**
 * "What profession do A and B have in common?", "A and B are both what?", "What type of musician are
 * both A and B?", "Which country are A and B both from?": what each option's own defining sentence
 * ("X (born 1952) is an American voice actor and singer") says it is, and what of that they share.
 * Undefined when the question is not of this shape or the definitions share nothing.
 */
export function sharedProperty(analysis: QuestionAnalysis, sentences: ReaderSentence[], tokenizer: Tokenizer): ReaderResult | undefined {
  if (analysis.type === 'yes-no' || !/\b(?:in common|share[sd]?|both)\b/i.test(analysis.question)) return undefined;
  const options = optionsOf(analysis);
  if (!options) return undefined;
  const defined = options.map((option) => ({ option, found: definitionOf(option, sentences, tokenizer) }));
  if (defined.some((d) => !d.found)) return undefined;
  const [a, b] = defined.map((d) => d.found!);
  const cite = (found: Definition) => `[${found.sentence.evidence.id}]`;
  const supports = defined.map((d) => support(d.found!.sentence));
  const focus = (analysis.focus ?? '').toLowerCase();
  // "What nationality were both …?" is the comparison reader's; the country they share is read here
  if (/\b(?:nationality|citizenship)\b/.test(focus)) return undefined;
  if (/\b(?:country|nation)\b/.test(focus)) {
    const [first, second] = [nationalityIn(a.sentence.segment.text), nationalityIn(b.sentence.segment.text)];
    const country = first && first === second ? countryOf(first) : undefined;
    return country ? { line: `${country} ${cite(a)}${cite(b)}`, support: supports } : undefined;
  }
  if (analysis.answerType !== 'entity') return undefined;
  // "What sport did both A and B play?": the sport each definition names ("a retired basketball player")
  if (/\bsports?\b/.test(focus)) {
    const [first, second] = [a, b].map((found) => SPORT.exec(found.sentence.segment.text)?.[0].toLowerCase());
    return first && first === second ? { line: `${first} ${cite(a)}${cite(b)}`, support: supports } : undefined;
  }
  const kindOf = /\b(?:type|kind|sort|form)s?\s+of\b/i.test(analysis.question);
  const shared = sharedNoun(a.items, b.items, focus, kindOf, tokenizer);
  return shared ? { line: `${shared} ${cite(a)}${cite(b)}`, support: supports } : undefined;
}

/** Sports by name, compounds first ("American football" before "football"). */
const SPORT =
  /\b(?:American football|Australian rules football|association football|ice hockey|field hockey|table tennis|track and field|auto racing|motor racing|basketball|football|soccer|baseball|hockey|tennis|golf|cricket|rugby(?: union| league)?|boxing|wrestling|volleyball|handball|swimming|cycling|athletics|gymnastics|skiing|snowboarding|surfing|skateboarding|rowing|sailing|fencing|judo|karate|taekwondo|badminton|squash|lacrosse|softball|bowling|snooker|polo|archery|figure skating|speed skating|curling|netball|water polo|motorsport)\b/i;

/** Nouns that ask what a thing is ("what profession", "what type of …"), not something it has or did. */
const CATEGORY_FOCUS = /^(?:profession|occupation|job|career|work|role|type|kind|sort|form|category|field)$/;

/** The two options: "A or B" offered, or the two names of "A and B". */
function optionsOf(analysis: QuestionAnalysis): [string, string] | undefined {
  if (analysis.candidates.length === 2) return [analysis.candidates[0], analysis.candidates[1]];
  for (const entity of analysis.entities) {
    const sides = entity.split(/\s+and\s+/);
    if (sides.length === 2 && sides.every((side) => side.trim().length >= 3)) return [sides[0].trim(), sides[1].trim()];
  }
  return undefined;
}

interface Definition {
  sentence: ReaderSentence;
  /** The nouns it defines its subject as, each with its modifiers: ["American voice actor", "singer"]. */
  items: string[];
}

/** The option's own defining sentence: its passage's first sentence first, else any sentence it owns that says "is a …". */
function definitionOf(option: string, sentences: ReaderSentence[], tokenizer: Tokenizer): Definition | undefined {
  const lower = option.toLowerCase();
  const own = sentences.filter((s) => ownedBy(s, option, tokenizer));
  const titled = (s: ReaderSentence) => plainTitle(s.evidence.title).toLowerCase() === lower;
  const ordered = [...own].sort(
    (x, y) => Number(titled(y) && y.segment.index === 0) - Number(titled(x) && x.segment.index === 0) || y.relevance - x.relevance,
  );
  for (const sentence of ordered) {
    const items = definedAs(sentence.segment.text);
    if (items.length) return { sentence, items };
  }
  return undefined;
}

/** "… is an American voice actress, singer and pianist, who …" → ["American voice actress", "singer", "pianist"]. */
function definedAs(sentence: string): string[] {
  const match =
    /\b(?:is|was|are|were|has been|had been)\s+(?:(?:a|an|the|one of the|also|currently|formerly|former)\s+)+([^;()."“”]*)/i.exec(sentence);
  if (!match) return [];
  const words: string[] = [];
  for (const word of match[1].split(/\s+/)) {
    const bare = word.replace(/[,:]$/, '');
    if (!bare || PHRASE_END.test(bare) || /^\d/.test(bare)) break;
    words.push(word);
    if (words.length >= 12) break;
  }
  return words
    .join(' ')
    .split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+/)
    .map((item) => item.trim())
    .filter((item) => item && /\p{Ll}/u.test(item));
}

/**
 * The noun two definitions share, with the modifiers they share before it ("voice actor" from
 * "American voice actor" and "voice actress"). Nationalities are not part of what they do. When the
 * shared noun is the one asked for ("what type of band"), the shared modifiers are the answer.
 */
function sharedNoun(first: string[], second: string[], focus: string, kindOf: boolean, tokenizer: Tokenizer): string | undefined {
  const words = (item: string) =>
    item
      .split(/\s+/)
      .map((w) => COMMON_FORM[w.toLowerCase()] ?? w)
      .filter((w) => !/^\p{Lu}/u.test(w) || !isNationality(w));
  const stem = (w: string) => tokenizer.terms(w)[0] ?? w.toLowerCase();
  const focusHead = focus.split(/\s+/).pop();
  const focusStem = focusHead ? stem(focusHead) : undefined;
  for (const x of first.map(words)) {
    for (const y of second.map(words)) {
      if (!x.length || !y.length || stem(x[x.length - 1]) !== stem(y[y.length - 1])) continue;
      // the longest run of words the two end with
      let shared = 1;
      while (shared < Math.min(x.length, y.length) && stem(x[x.length - 1 - shared]) === stem(y[y.length - 1 - shared])) shared++;
      const phrase = x.slice(x.length - shared);
      // "What type of band are both?": the noun asked for is shared, its shared modifiers answer
      if (focusStem && stem(phrase[phrase.length - 1]) === focusStem)
        return phrase.length > 1 ? phrase.slice(0, -1).join(' ').toLowerCase() : undefined;
      // "What award did both win?" is not answered by what both are; "what type of musician" is ("singer")
      if (focusHead && !kindOf && !CATEGORY_FOCUS.test(focusHead)) return undefined;
      return phrase.join(' ').toLowerCase();
    }
  }
  if (focusHead && !kindOf && !CATEGORY_FOCUS.test(focusHead)) return undefined;
  // "psychologist" and "psychology professor": one field, named by the word for the person in it
  for (const x of first.flatMap(words)) {
    for (const y of second.flatMap(words)) {
      if (commonPrefix(x.toLowerCase(), y.toLowerCase()) < FIELD_PREFIX) continue;
      const agent = [x, y].find((w) => /(?:ist|er|or|ian)s?$/i.test(w));
      if (agent) return agent.toLowerCase();
    }
  }
  return undefined;
}

/** Letters two words must share from their start to name one field ("psycholog-"). */
const FIELD_PREFIX = 7;

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function isNationality(word: string): boolean {
  return nationalityIn(word) === word;
}
