import { segmentsOf, splitSentences } from './sentences.ts';
import { MAX_ENTITIES } from '../tuning.ts';
import { MONTH_ABBREVIATIONS, MONTH_NAMES } from '../lexicon/months.ts';
import { NAME_CONNECTORS } from '../lexicon/name-connectors.ts';

/** Words that start questions or join clauses: never an entity on their own. */
const QUESTION_WORDS = new Set(
  'what which who whom whose when where why how is are was were do does did the a an in of on for to and or by with from at as that this these those name list'.split(
    ' ',
  ),
);

/** Abbreviations inside names: "Ken St. Andre", "Edgar Kaiser Jr.", "Dr. Seuss". */
const ABBREVIATED = /^(?:St|Sr|Jr|Dr|Mr|Mrs|Ms|Mt|Ft|Gen|Col|Lt|Capt|Sgt|Rev|Hon|Gov|Sen|Prof|Bros)\.$/;

const MONTHS = new RegExp(`^(${[...MONTH_NAMES, ...MONTH_ABBREVIATIONS].join('|')})$`);
const CONNECTORS = NAME_CONNECTORS;
/** "Rostker v. Goldberg": a court case is one name. */
const VERSUS = /^(?:v|vs)\.$/;

/**
 * Words that open an instruction ("See Using TestClient", "Use Starlette"): at the start of a
 * sentence they are not part of the name that follows.
 */
const DIRECTIVES = new Set(
  'see use note read refer call pass set run install add create import return make try check visit consult'.split(' '),
);

/**
 * A code word in prose, "Starlette(routes=routes" or "JSONResponse({'hello'": its identifier is the
 * name; what follows the bracket or operator is code, never part of a name.
 */
const CODE_WORD = /^([\p{L}_][\p{L}\p{N}_.]*?)\.?[([{=<]/u;

/**
 * Named entities the cheap way: quoted phrases and runs of capitalised words (allowing "of", "the",
 * "and", "de" … inside, like "Bank of England"). A run never crosses a sentence end; leading
 * numbers ("17-year-old"), dates and a lone sentence-initial word are dropped. Code blocks are not
 * read: a follow-up search for "Starlette(routes=routes" finds nothing a search for "Starlette" does not.
 */
export function entitiesIn(text: string): string[] {
  const prose = segmentsOf(text)
    .filter((segment) => segment.kind !== 'code')
    .map((segment) => segment.text)
    .join('\n\n');
  const found: string[] = [];
  const add = (entity: string) => {
    const clean = entity
      .replace(/^[\s"“'‘(]+|[\s"”'’),;:]+$/g, '')
      .replace(/\.$/, (dot) => (/\b[A-Z]\.$/.test(entity) ? dot : ''))
      .trim();
    if (clean.length < 3 || found.includes(clean)) return;
    if (/^[\d\s,.–-]+$/.test(clean) || clean.split(/\s+/).every((word) => MONTHS.test(word) || /^\d/.test(word))) return;
    found.push(clean);
  };
  for (const match of prose.matchAll(/["“]([^"”]{2,80})["”]/g)) add(match[1]);
  for (const sentence of splitSentences(prose)) {
    const words = sentence.split(/\s+/);
    let run: string[] = [];
    const flush = (index: number) => {
      const opensSentence = index - run.length === 0;
      while (run.length && (CONNECTORS.has(run[run.length - 1].toLowerCase()) || VERSUS.test(run[run.length - 1]))) run.pop();
      while (run.length && /^\d/.test(run[0])) run.shift(); // "17-year-old Shirley Temple" → "Shirley Temple"
      if (run.length > 1 && opensSentence && DIRECTIVES.has(run[0].toLowerCase())) run.shift(); // "See Using TestClient"
      while (run.length > 1 && QUESTION_WORDS.has(run[0].toLowerCase())) run.shift(); // "Which Halvorsen sensor" → "Halvorsen"
      const startsSentence = index - run.length === 0;
      if (run.length > 1 || (run.length === 1 && !startsSentence && !QUESTION_WORDS.has(run[0].toLowerCase()))) add(run.join(' '));
      run = [];
    };
    words.forEach((raw, index) => {
      const code = CODE_WORD.exec(raw.replace(/^[("“‘`]+/, ''));
      if (code) {
        // the identifier ends the name run: "Starlette(routes=routes" → "Starlette"
        if (/^\p{Lu}/u.test(code[1])) run.push(code[1]);
        flush(index + 1);
        return;
      }
      const word = raw.replace(/^[("“‘]+/, '').replace(/[?!]+$/, '');
      const capital = /^\p{Lu}/u.test(word) && !(run.length === 0 && /^(The|A|An)$/.test(word));
      const connector = run.length > 0 && (CONNECTORS.has(word.toLowerCase()) || VERSUS.test(word));
      if (capital || connector) {
        // "Blake Shelton's single" names Blake Shelton: a possessive before a lower-case word ends the name
        const owner = /['’]s$/.test(word) && /^\p{Ll}/u.test(words[index + 1] ?? '');
        run.push(owner ? word.slice(0, -2) : word.replace(/[,;:)"”’]+$/, ''));
        if (owner) flush(index + 1);
        else if (
          /[,;:)"”]$/.test(word) ||
          (/[.!?]$/.test(word) && !/^(?:[A-Z]\.)+$/.test(word) && !ABBREVIATED.test(word) && !VERSUS.test(word))
        )
          flush(index + 1);
      } else flush(index);
    });
    flush(words.length);
  }
  return found.slice(0, MAX_ENTITIES);
}
