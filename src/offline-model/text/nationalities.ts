/** Nationalities a passage gives a person or a thing, and the countries they name. */
import { COUNTRY_OF_DEMONYM } from '../lexicon/demonyms.ts';

// Longest first, so "South Korean" wins over "Korean".
const NATIONALITY_WORD = new RegExp(
  `\\b(${Object.keys(COUNTRY_OF_DEMONYM)
    .sort((a, b) => b.length - a.length)
    .join('|')})\\b`,
  'g',
);

/** "Central American", "Latin American": a region, no nationality. */
const REGION_BEFORE = /\b(?:Central|Latin|North|South|Pan|Meso)[\s-]$/;

/** The first nationality a text gives ("… is an Italian physicist" → "Italian"; "a Jamaican boxer … Central American title" → "Jamaican"). */
export function nationalityIn(text: string): string | undefined {
  for (const match of text.matchAll(NATIONALITY_WORD)) {
    if (!REGION_BEFORE.test(text.slice(0, match.index))) return match[1];
  }
  return undefined;
}

/** The country a nationality names ("Italian" → "Italy"). */
export function countryOf(nationality: string): string | undefined {
  return COUNTRY_OF_DEMONYM[nationality];
}

/** The countries a text's nationalities name ("a Canadian synthpop band" → ["Canada"]): "from Canada" is said as "Canadian". */
export function countriesNamedIn(text: string): string[] {
  return [...text.matchAll(NATIONALITY_WORD)].map((m) => COUNTRY_OF_DEMONYM[m[1]]);
}

const COUNTRY_NAME = new RegExp(`\\b(${[...new Set(Object.values(COUNTRY_OF_DEMONYM))].sort((a, b) => b.length - a.length).join('|')})\\b`);

/** The first country a text places something in, named or by its nationality ("a lake in central Ontario, Canada" → Canada; "a Canadian band" → Canada). */
export function countryIn(text: string): string | undefined {
  const named = COUNTRY_NAME.exec(text);
  const nationality = nationalityIn(text);
  const nationalityAt = nationality ? text.indexOf(nationality) : -1;
  if (named && (nationalityAt < 0 || named.index! <= nationalityAt)) return named[1];
  return nationality ? countryOf(nationality) : undefined;
}
