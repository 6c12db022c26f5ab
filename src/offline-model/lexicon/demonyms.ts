/**
 * Demonyms and the country each names (null: a people, region or past state with no one country).
 * The offline reader's one list of them: nationalities (text/nationalities.ts) and the demonym
 * words that names are told apart by (text/spans.ts) both come from it.
 */
export const DEMONYMS: Readonly<Record<string, string | null>> = {
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
  Azerbaijani: 'Azerbaijan', Emirati: 'United Arab Emirates', Kuwaiti: 'Kuwait', Laotian: 'Laos', Malian: 'Mali', Montenegrin: 'Montenegro',
  Namibian: 'Namibia', Omani: 'Oman', Palestinian: 'Palestine', Qatari: 'Qatar', Rwandan: 'Rwanda', Yemeni: 'Yemen',
  African: null, Anglo: null, Arab: null, Arabic: null, Asian: null, Basque: null, Bavarian: null, Bengali: null, Byzantine: null, Californian: null,
  Catalan: null, European: null, Flemish: null, Hawaiian: null, Hispanic: null, Inuit: null, Jewish: null, Latin: null, Maori: null, 'Māori': null,
  Persian: null, Prussian: null, Punjabi: null, Roman: null, Scandinavian: null, Soviet: null, Tamil: null, Texan: null,
};

/** Words of multi-word demonyms that are ordinary name words on their own ("New Zealand", "South Korean"). */
const NAME_WORDS = new Set(['New', 'Zealand', 'South']);

/** Words that mark a demonym, one at a time ("Italian", "Puerto" and "Rican"). */
export const DEMONYM_WORDS: readonly string[] = [...new Set(Object.keys(DEMONYMS).flatMap((demonym) => demonym.split(' ')))].filter((word) => !NAME_WORDS.has(word));

/** The demonyms that name a country, and the country each names. */
export const COUNTRY_OF_DEMONYM: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(DEMONYMS).filter((entry): entry is [string, string] => entry[1] !== null));
