/** Nationalities a passage gives a person or a thing, and the countries they name. */

const COUNTRY_OF: Record<string, string> = {
  American: 'United States', British: 'United Kingdom', English: 'England', Scottish: 'Scotland', Welsh: 'Wales', Irish: 'Ireland',
  French: 'France', German: 'Germany', Italian: 'Italy', Spanish: 'Spain', Portuguese: 'Portugal', Dutch: 'Netherlands', Belgian: 'Belgium',
  Swiss: 'Switzerland', Austrian: 'Austria', Swedish: 'Sweden', Norwegian: 'Norway', Danish: 'Denmark', Finnish: 'Finland', Icelandic: 'Iceland',
  Polish: 'Poland', Czech: 'Czech Republic', Slovak: 'Slovakia', Hungarian: 'Hungary', Romanian: 'Romania', Bulgarian: 'Bulgaria', Greek: 'Greece',
  Turkish: 'Turkey', Russian: 'Russia', Ukrainian: 'Ukraine', Canadian: 'Canada', Mexican: 'Mexico', Brazilian: 'Brazil', Argentine: 'Argentina',
  Argentinian: 'Argentina', Chilean: 'Chile', Colombian: 'Colombia', Peruvian: 'Peru', Cuban: 'Cuba', Australian: 'Australia', 'New Zealand': 'New Zealand',
  Chinese: 'China', Japanese: 'Japan', Korean: 'Korea', 'South Korean': 'South Korea', Indian: 'India', Pakistani: 'Pakistan', Bangladeshi: 'Bangladesh',
  Iranian: 'Iran', Iraqi: 'Iraq', Israeli: 'Israel', Egyptian: 'Egypt', Nigerian: 'Nigeria', Kenyan: 'Kenya', 'South African': 'South Africa',
  Filipino: 'Philippines', Indonesian: 'Indonesia', Thai: 'Thailand', Vietnamese: 'Vietnam', Malaysian: 'Malaysia', Singaporean: 'Singapore',
  Jamaican: 'Jamaica', Haitian: 'Haiti', Dominican: 'Dominican Republic', 'Puerto Rican': 'Puerto Rico', Venezuelan: 'Venezuela', Ecuadorian: 'Ecuador',
  Bolivian: 'Bolivia', Uruguayan: 'Uruguay', Paraguayan: 'Paraguay', Ghanaian: 'Ghana', Ethiopian: 'Ethiopia', Somali: 'Somalia', Sudanese: 'Sudan',
  Ugandan: 'Uganda', Tanzanian: 'Tanzania', Moroccan: 'Morocco', Algerian: 'Algeria', Tunisian: 'Tunisia', Libyan: 'Libya', Lebanese: 'Lebanon',
  Syrian: 'Syria', Jordanian: 'Jordan', Saudi: 'Saudi Arabia', Afghan: 'Afghanistan', Nepalese: 'Nepal', 'Sri Lankan': 'Sri Lanka', Burmese: 'Myanmar',
  Cambodian: 'Cambodia', Mongolian: 'Mongolia', Taiwanese: 'Taiwan', Serbian: 'Serbia', Croatian: 'Croatia', Bosnian: 'Bosnia and Herzegovina',
  Slovenian: 'Slovenia', Albanian: 'Albania', Macedonian: 'North Macedonia', Estonian: 'Estonia', Latvian: 'Latvia', Lithuanian: 'Lithuania',
  Georgian: 'Georgia', Armenian: 'Armenia', Belarusian: 'Belarus', Kazakh: 'Kazakhstan', Uzbek: 'Uzbekistan', Cypriot: 'Cyprus', Maltese: 'Malta',
  Senegalese: 'Senegal', Cameroonian: 'Cameroon', Zimbabwean: 'Zimbabwe', Zambian: 'Zambia', Congolese: 'Congo', Angolan: 'Angola',
};

// Longest first, so "South Korean" wins over "Korean".
const NATIONALITY_WORD = new RegExp(`\\b(${Object.keys(COUNTRY_OF).sort((a, b) => b.length - a.length).join('|')})\\b`, 'g');

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
  return COUNTRY_OF[nationality];
}

/** The countries a text's nationalities name ("a Canadian synthpop band" → ["Canada"]): "from Canada" is said as "Canadian". */
export function countriesNamedIn(text: string): string[] {
  return [...text.matchAll(NATIONALITY_WORD)].map((m) => COUNTRY_OF[m[1]]);
}

const COUNTRY_NAME = new RegExp(`\\b(${[...new Set(Object.values(COUNTRY_OF))].sort((a, b) => b.length - a.length).join('|')})\\b`);

/** The first country a text places something in, named or by its nationality ("a lake in central Ontario, Canada" → Canada; "a Canadian band" → Canada). */
export function countryIn(text: string): string | undefined {
  const named = COUNTRY_NAME.exec(text);
  const nationality = nationalityIn(text);
  const nationalityAt = nationality ? text.indexOf(nationality) : -1;
  if (named && (nationalityAt < 0 || named.index! <= nationalityAt)) return named[1];
  return nationality ? countryOf(nationality) : undefined;
}
