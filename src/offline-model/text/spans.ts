import type { AnswerType, QuestionAnalysis } from '../question/types.ts';
import { datesIn, lifeDates, quantitiesIn } from './quantities.ts';
import { KIND_MODIFIERS, KIND_PHRASE_FIT, LIFE_EVENT_OTHER_DATE_FIT } from '../tuning.ts';
import { DEMONYM_WORDS } from '../lexicon/demonyms.ts';
import { MONTH_NAMES } from '../lexicon/months.ts';
import { NAME_CONNECTORS } from '../lexicon/name-connectors.ts';

/**
 * Candidate answer spans in a sentence, by answer type: runs of capitalised words and quoted titles
 * for persons, places and other entities; dates and years; numbers with their units. Each comes
 * with how well its form fits the expected answer type (0–1); the composer adds how well its
 * sentence answers the question.
 */
export interface Span {
  text: string;
  start: number;
  end: number;
  kind: 'name' | 'quoted' | 'date' | 'year' | 'number' | 'phrase';
  /** How well the span's form fits the expected answer type, 0–1. */
  fit: number;
}

const CONNECTORS = NAME_CONNECTORS;
/** Titles and roles before a name: "New York Governor Nelson Rockefeller" → "Nelson Rockefeller". */
const ROLE_TITLES =
  /^(?:Governor|President|Vice|King|Queen|Prince|Princess|Emperor|Empress|Senator|Congressman|Congresswoman|Representative|General|Colonel|Captain|Major|Lieutenant|Admiral|Commander|Sergeant|Director|Chancellor|Minister|Premier|Pope|Saint|St|Sir|Dame|Lord|Lady|Dr|Doctor|Professor|Prof|Judge|Justice|Mayor|CEO|Chairman|Chairwoman|Chief|Secretary|Ambassador|Bishop|Archbishop|Cardinal|Reverend|Rev|Father|Brother|Sister|Mr|Mrs|Ms|Miss|Coach|Producer|Officer|Deputy|Leader|Founder|Mister|Duke|Duchess|Earl|Count|Countess|Baron|Baroness|Sheikh|Sultan|Shah|Tsar|Czar)\.?$/;
const ARTICLE_START = /^(?:The|A|An)$/;
/** Capitalised words that never start a name on their own at the start of a sentence. */
const FUNCTION_CAPITALS = new Set(
  'The A An In On At Of For From By With As It Its This That These Those He She They His Her Their We Our You Your I After Before During Since Until When While Where Which Who What Why How There Here Although Though However Also Both Either Neither Each Every Some Many Most Other Another Such If Then Than Today Later Since Between Under Over Into Through Upon Among Following According Born Despite Unlike Like'.split(
    ' ',
  ),
);
const MONTHS = new RegExp(`^(?:${MONTH_NAMES.join('|')})$`);
export const ORG_WORDS =
  /\b(?:Company|Inc|Incorporated|Corporation|Corp|Ltd|Limited|LLC|PLC|Co|University|College|School|Academy|Institute|Records|Entertainment|Studios?|Pictures|Productions|Group|Team|Club|Association|Party|Council|Committee|Commission|Department|Ministry|Bank|Airlines?|Press|Society|Foundation|Agency|Church|Hospital|Museum|Theatre|Theater|Festival|Awards?|Cup|League|Championship|Conference|Series|Show|Network|Channel|Magazine|Times|News|Band|Orchestra|Army|Navy|Force|Corps|Office|Services|Systems|Technologies|Software|Games|Media|Publishing|Publishers|Books|Motors|Railway|Airways|Holdings|Partners|Capital|Fund|Trust|Union|Federation|Organization|Organisation|Administration|Government|Parliament|Senate|Court|Act|Award|Prize|Trophy|Tour|Album|Film|Novel|Song|Episode|Season|Project|Program|Programme|System|Agreement|Treaty|War|Battle|Revolution)\b/;
const PLACE_WORDS =
  /\b(?:City|County|State|Province|River|Lake|Mountains?|Mount|Mt|Island|Islands|Street|Avenue|Road|Drive|Boulevard|Park|Bay|Valley|Beach|Village|Town|Township|District|Region|Kingdom|Republic|Sea|Ocean|Strip|Square|Airport|Harbor|Harbour|Fjord|Coast|Peninsula|Desert|Forest|Canyon|Falls|Hills?|Heights|Springs|Port|Gulf|Channel|Strait|Borough|Parish|Prefecture|Territory|Municipality|Capital|Cross|Green|End|Gate|Bridge|Castle|Palace|Cathedral|Stadium|Arena|Field|Center|Centre|Hall)\b/;
const REGION_NAMES = new Set(
  (
    'Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria Azerbaijan Bahamas Bahrain Bangladesh Barbados Belarus Belgium Belize Benin Bhutan Bolivia Bosnia Botswana Brazil Brunei Bulgaria Burma Burundi Cambodia Cameroon Canada Chad Chile China Colombia Congo Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica Ecuador Egypt England Eritrea Estonia Ethiopia Fiji Finland France Gabon Gambia Georgia Germany Ghana Greece Grenada Guatemala Guinea Guyana Haiti Honduras Hungary Iceland India Indonesia Iran Iraq Ireland Israel Italy Jamaica Japan Jordan Kazakhstan Kenya Korea Kosovo Kuwait Kyrgyzstan Laos Latvia Lebanon Lesotho Liberia Libya Liechtenstein Lithuania Luxembourg Madagascar Malawi Malaysia Maldives Mali Malta Mauritania Mauritius Mexico Moldova Monaco Mongolia Montenegro Morocco Mozambique Myanmar Namibia Nauru Nepal Netherlands Nicaragua Niger Nigeria Norway Oman Pakistan Palau Palestine Panama Paraguay Peru Philippines Poland Portugal Qatar Romania Russia Rwanda Samoa Scotland Senegal Serbia Seychelles Singapore Slovakia Slovenia Somalia Spain Sudan Suriname Sweden Switzerland Syria Taiwan Tajikistan Tanzania Thailand Togo Tonga Tunisia Turkey Turkmenistan Tuvalu Uganda Ukraine Uruguay Uzbekistan Vanuatu Venezuela Vietnam Wales Yemen Zambia Zimbabwe ' +
    'Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming Europe Asia Africa America Antarctica Oceania Scandinavia'
  ).split(' '),
);
const CITY_NAMES = new Set(
  'London Paris Berlin Rome Madrid Tokyo Beijing Moscow Sydney Melbourne Toronto Chicago Boston Atlanta Dallas Houston Seattle Denver Miami Philadelphia Detroit Manhattan Brooklyn Hollywood Oslo Bergen Trondheim Stockholm Copenhagen Helsinki Vienna Prague Warsaw Budapest Dublin Edinburgh Glasgow Manchester Liverpool Birmingham Amsterdam Brussels Lisbon Athens Istanbul Cairo Mumbai Delhi Kolkata Chennai Shanghai Seoul Bangkok Singapore Jakarta Manila Hanoi Lagos Nairobi Johannesburg Rio Lima Bogotá Santiago Havana Montreal Vancouver Ottawa Auckland Wellington Perth Brisbane Adelaide Munich Hamburg Frankfurt Milan Naples Venice Florence Barcelona Seville Lyon Marseille Geneva Zurich Ålesund'.split(
    ' ',
  ),
);
const PLACE_NAMES = new Set([...REGION_NAMES, ...CITY_NAMES]);
/** Places whose names are several words. */
const MULTIWORD_PLACES =
  /^(?:United States(?: of America)?|United Kingdom|United Arab Emirates|New York(?: City)?|New Zealand|South Africa|Hong Kong|Soviet Union|Sri Lanka|Saudi Arabia|North Korea|South Korea|New Jersey|New Mexico|New Hampshire|North Carolina|South Carolina|North Dakota|South Dakota|West Virginia|Rhode Island|Los Angeles|San Francisco|San Diego|San Jose|San Antonio|New Orleans|Las Vegas|Buenos Aires|Rio de Janeiro|São Paulo|Mexico City|New Delhi|Tel Aviv|Kuala Lumpur|St\.? Petersburg|Saint Petersburg|Czech Republic|Costa Rica|Puerto Rico|El Salvador|Ivory Coast|Papua New Guinea|Great Britain|Northern Ireland|East Germany|West Germany|Washington, D\.C\.|Salt Lake City|Kansas City|Quebec City|Cape Town|Abu Dhabi)$/;
const COUNTRY_LIKE = /\b(?:country|nation|state|province|region|continent|territory)\b/;
/** Nationalities and other demonyms, a word at a time (a closed list, lexicon/demonyms.ts: "-i" or "-an" endings alone catch "Mumbai" and "Kansan"). */
export const NATIONALITY = new RegExp(`^(?:${DEMONYM_WORDS.join('|')})$`);
/** A country, US state or other region by name ("Minnesota", "New Hampshire"): what follows a place's name after a comma. */
export function isRegionName(text: string): boolean {
  return REGION_NAMES.has(text) || MULTIWORD_PLACES.test(text);
}

/** "Lady", "King", "President" …: a title or role written before a name. */
export function isRoleTitle(word: string): boolean {
  return ROLE_TITLES.test(word);
}

/** "Chairman of Berkshire Hathaway" → "Berkshire Hathaway": the organisation a role belongs to (unchanged when no role leads). */
export function withoutRoleOf(text: string): string {
  const match = /^(\S+)\s+of\s+(?:the\s+)?(\p{Lu}.*)$/u.exec(text);
  return match && ROLE_TITLES.test(match[1]) ? match[2] : text;
}

/** Only demonyms: "American", "South Korean", "Italian American" — a nationality, no name to search or follow. */
export function isDemonym(text: string): boolean {
  return text.split(/\s+/).every((word) => NATIONALITY.test(word));
}
const COLOURS =
  /\b(?:red|orange|yellow|green|blue|purple|violet|pink|brown|black|white|grey|gray|gold|golden|silver|crimson|scarlet|maroon|navy|teal|turquoise|beige|ivory|magenta|cyan|indigo)\b/gi;

/** Runs of capitalised words (with "of", "the", "de" … inside) and quoted titles, with their offsets. */
export function nameSpans(sentence: string): Span[] {
  const spans: Span[] = [];
  // A nickname in quotes inside a name ('John "John John" Alexander Florence') is part of the name.
  sentence = sentence.replace(/(?<=\p{Lu}[\p{Ll}.]+ )["“](\p{Lu}[^"”]{0,30})["”](?= \p{Lu})/gu, (_, nick: string) => ` ${nick} `);
  for (const match of sentence.matchAll(/["“]([^"”]{2,80})["”]/g)) {
    const start = match.index! + 1;
    spans.push({ text: match[1].trim(), start, end: start + match[1].length, kind: 'quoted', fit: 0 });
  }
  const words = [...sentence.matchAll(/[^\s]+/g)].map((m) => ({ raw: m[0], start: m.index! }));
  let run: Array<{ word: string; start: number; end: number }> = [];
  const emit = (runWords: Array<{ word: string; start: number; end: number }>) => {
    let kept = [...runWords];
    while (kept.length && CONNECTORS.has(kept[kept.length - 1].word.toLowerCase())) kept.pop();
    while (kept.length && (ARTICLE_START.test(kept[0].word) || CONNECTORS.has(kept[0].word) || /^\d/.test(kept[0].word))) kept.shift();
    // "United States President Bill Clinton" → "Bill Clinton": the name after the last role title
    const lastRole = kept.map((r) => ROLE_TITLES.test(r.word)).lastIndexOf(true);
    if (lastRole >= 0 && lastRole < kept.length - 2 && /^\p{Lu}/u.test(kept[lastRole + 1].word)) kept = kept.slice(lastRole + 1);
    if (kept.length) {
      const first = kept[0];
      const text = sentence.slice(first.start, kept[kept.length - 1].end).replace(/\s{2,}/g, ' ');
      const sentenceStart = first.start === 0 || /^[\s"“'‘(]*$/.test(sentence.slice(0, first.start));
      const lone = kept.length === 1;
      if (
        !(lone && FUNCTION_CAPITALS.has(first.word)) &&
        !(lone && sentenceStart && FUNCTION_CAPITALS.has(first.word)) &&
        !/^\d+$/.test(text) &&
        !(lone && MONTHS.test(first.word))
      ) {
        spans.push({ text, start: first.start, end: kept[kept.length - 1].end, kind: 'name', fit: 0 });
      }
    }
  };
  const flush = () => {
    emit(run);
    run = [];
  };
  for (const { raw, start } of words) {
    const lead = /^[("“‘[]+/.exec(raw)?.[0].length ?? 0;
    const word = raw.slice(lead).replace(/[,;:)"”’\]!?]+$|(?<![A-Z])\.$|'s$|’s$/g, '');
    if (run.length && /^(?:Inc|Ltd|LLC|PLC|Co|Corp|L\.P|S\.A|AG|GmbH)\.?,?$/.test(word) && /,\s*$/.test(sentence.slice(0, start))) {
      // "Mondelez International, Inc." keeps its legal suffix
      run.push({ word, start: start + lead, end: start + lead + raw.slice(lead).replace(/,$/, '').length });
      flush();
      continue;
    }
    if (!word) {
      flush();
      continue;
    }
    const wordStart = start + lead;
    const capital =
      /^[\p{Lu}\d]/u.test(word) &&
      /\p{L}/u.test(word) &&
      !(run.length === 0 && FUNCTION_CAPITALS.has(word) && !/^(?:The|A|An)$/.test(word));
    const connector =
      run.length > 0 &&
      raw === word &&
      (CONNECTORS.has(word.toLowerCase()) ||
        (word === 'to' &&
          /^(?:Ambassador|Envoy|Minister|Secretary|Advisor|Adviser|Representative|Delegate|Commissioner|Consul)$/.test(
            run[run.length - 1].word,
          )));
    if (lead > 0 && run.length) flush();
    if (run.length && MONTHS.test(word)) flush(); // "Hardangerfjord in May": a month starts no name and ends one
    if (capital || connector || (run.length === 0 && /^(?:The|A|An)$/.test(word))) {
      run.push({ word, start: wordStart, end: wordStart + word.length });
      const tail = raw.slice(lead + word.length);
      const legalSuffix =
        /^,$/.test(tail) && /^\s+(?:Inc|Ltd|LLC|PLC|Co|Corp|L\.P|S\.A|AG|GmbH)\b/.test(sentence.slice(start + raw.length));
      if (legalSuffix) continue;
      // a middle initial goes on into the name ("Henry J. Kaiser"); another full stop ends it
      const nextIsName = /^\s+\p{Lu}\p{Ll}/u.test(sentence.slice(start + raw.length));
      const initial =
        nextIsName &&
        ((/^\p{Lu}\.$/u.test(word) && run.length > 1) ||
          /^(?:St|Mt|Ft|Dr|Mr|Mrs|Ms|Gen|Col|Lt|Capt|Sgt|Rev|Hon|Gov|Sen|Prof|Bros|Jr|Sr)\.$/.test(raw.slice(lead)));
      if (/[,;:)"”!?]/.test(tail) || (/\.$/.test(raw) && !initial && !/^(?:\p{Lu}\.)+$/u.test(`${word}.`) && !/^\p{Lu}$/u.test(word)))
        flush();
      else if (/'s$|’s$/.test(raw)) {
        // "World's Best Goalkeeper" continues; "Poison's album" ends the name
        const next = sentence.slice(start + raw.length).match(/^\s+(\S)/)?.[1] ?? '';
        if (/\p{Lu}/u.test(next)) {
          // "Governor Nelson Rockefeller's Committee" also names its owner, Nelson Rockefeller
          if (run.length >= 2) emit(run);
          run[run.length - 1].end = start + raw.length;
        } else flush();
      }
    } else flush();
  }
  flush();
  return spans;
}

/**
 * The names a coordination joins: "George Abbott and John Cecil Holm", "World War I and World War II"
 * (each side two to four capitalised words, "of"/"the" between them); "Procter and Gamble" (one word
 * a side) is one name.
 */
export function namesJoinedByAnd(text: string): string[] {
  const sides = text.split(/\s+and\s+/);
  const named = (side: string) =>
    /^\p{Lu}[\p{L}.'’-]*(?:\s+(?:of|the|de|van|von)){0,2}(?:\s+\p{Lu}[\p{L}.'’-]*(?:\s+(?:of|the|de|van|von))?){0,2}\s+\p{Lu}[\p{L}'’-]*$/u.test(
      side,
    );
  return sides.length > 1 && sides.every(named) ? sides : [];
}

/** A coordinated name span also offers each name in it, at its place in the sentence. */
function coordinatedNames(span: Span): Span[] {
  if (span.kind !== 'name') return [];
  let from = 0;
  return namesJoinedByAnd(span.text).map((name) => {
    const at = span.text.indexOf(name, from);
    from = at + name.length;
    return { ...span, text: name, start: span.start + at, end: span.start + at + name.length };
  });
}

/** Shape checks used by the type fit. */
export function looksLikePerson(text: string): boolean {
  const words = text.split(/\s+/);
  if (MULTIWORD_PLACES.test(text)) return false;
  if (words.length < 2 || words.length > 5) return false;
  if (ORG_WORDS.test(text) || PLACE_WORDS.test(text)) return false;
  if (words.some((w) => PLACE_NAMES.has(w)) && words.length === 2) return false;
  // pronouns and verbs belong to titles, not names: "Love Him" (of "To Know Him Is to Love Him"), "Be My Baby"
  if (
    words.some((w) =>
      /^(?:Me|My|Mine|You|Your|Yours|He|Him|His|She|Her|Hers|It|Its|We|Us|Our|They|Them|Their|Is|Are|Was|Were|Be|Been|Am|Do|Does|Did|Not|Yes|Oh)$/.test(
        w,
      ),
    )
  )
    return false;
  return words.every((w) =>
    /^(?:\p{Lu}[\p{Ll}'’-]+|\p{Lu}\.|(?:\p{Lu}\.)+|de|van|von|der|da|di|del|la|le|bin|ibn|Mc\p{Lu}\p{Ll}+|Mac\p{Lu}\p{Ll}+|O'\p{Lu}\p{Ll}+|Jr\.?|Sr\.?|II|III|IV)$/u.test(
      w,
    ),
  );
}

export function looksLikePlace(text: string, sentence: string, start: number, focus = ''): number {
  const words = text.split(/\s+/);
  const head = focus.split(/\s+/).pop() ?? '';
  const settlement = /^(?:city|town|village|hometown|birthplace|suburb|capital|seat)$/.test(head); // a county seat is a town
  // "Virginia Commonwealth University" names an institution, not the city or country it is in
  if ((settlement || COUNTRY_LIKE.test(head)) && ORG_WORDS.test(text) && !/\b(?:City|Town|Village)\b/.test(text)) return 0.15;
  if (settlement) {
    if (
      /\b(?:City|Town|Village)\b/.test(text) ||
      words.some((w) => CITY_NAMES.has(w)) ||
      /^(?:New York|Los Angeles|San Francisco|Las Vegas|New Orleans|Mexico City|Tel Aviv|Kuala Lumpur|Buenos Aires|Rio de Janeiro)$/.test(
        text,
      )
    )
      return 1;
    if ((words.length === 1 && REGION_NAMES.has(text)) || MULTIWORD_PLACES.test(text)) return 0.3;
    if (/\b(?:County|State|Province|Region|District|Kingdom|Republic|Country)\b/.test(text)) return 0.3;
  } else if (COUNTRY_LIKE.test(head)) {
    if (REGION_NAMES.has(text) || MULTIWORD_PLACES.test(text)) return 1;
    if (words.length === 1 && CITY_NAMES.has(text)) return 0.3;
  } else if (
    head &&
    /^(?:county|river|lake|island|mountain|district|borough|parish|street|road|avenue|bay|sea|ocean|park|valley|province|prefecture|municipality)$/.test(
      head,
    )
  ) {
    // "what county" → a name with "County" in it
    if (new RegExp(`\\b${head}\\b`, 'i').test(text)) return 1;
    if (PLACE_NAMES.has(text) || MULTIWORD_PLACES.test(text)) return 0.4;
  }
  if (MULTIWORD_PLACES.test(text)) return 1;
  if (words.some((w) => PLACE_NAMES.has(w))) return 1;
  if (PLACE_WORDS.test(text)) return 0.9;
  const before = sentence.slice(Math.max(0, start - 24), start);
  const after = sentence.slice(start + text.length, start + text.length + 30);
  let fit = 0.3;
  if (/\b(?:in|at|from|near|to|of|outside|across|around|based in|located in|born in|headquartered in)\s+(?:the\s+)?$/i.test(before))
    fit += 0.35;
  else if (
    /\b(?:seat|capital|headquarters)\b(?:\s+and\s+(?:largest|most\s+populous|biggest)\s+(?:city|town))?\s+(?:is|was|are|were)\s+(?:in\s+)?$/i.test(
      sentence.slice(Math.max(0, start - 60), start),
    )
  )
    fit += 0.5; // "Its county seat (and most populous city) is Newport"
  if (/^,\s*\p{Lu}/u.test(after)) fit += 0.25; // "Bergen, Norway"
  if (ORG_WORDS.test(text)) fit -= 0.3;
  if (looksLikePerson(text) && !/\b(?:in|at|from|near)\s+$/i.test(before)) fit -= 0.2;
  return Math.max(0, Math.min(1, fit));
}

/** Spans of the expected answer type in one sentence, each with its type fit. */
const MEASURE_UNITS =
  /^(?:%|m|km|cm|mm|kg|g|mg|lb|lbs|t|metres?|meters?|kilometres?|kilometers?|miles?|feet|foot|ft|inches?|yards?|acres?|hectares?|tonnes?|tons?|pounds?|ounces?|litres?|liters?|gallons?|euros?|dollars?|pounds?|yen|kroner?|francs?|rupees?|degrees?|°c|°f|percent|seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries|century|mph|km\/h|kb|mb|gb|tb|ms|s|px|psu)$/i;

function sameWord(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const n = Math.max(3, Math.min(x.length, y.length) - 2);
  return x.slice(0, n) === y.slice(0, n);
}

/** What the question is, for span fit: its analysis, its stemmed terms, and the stemmer. */
/** How well a code identifier fits an entity answer (a person answer gets half). */
const IDENTIFIER_FIT = 0.7;

export interface SpanContext {
  analysis: QuestionAnalysis;
  questionTerms: Set<string>;
  stem: (word: string) => string;
}

export function candidateSpans(sentence: string, context: SpanContext): Span[] {
  const { analysis, questionTerms, stem } = context;
  const type: AnswerType = analysis.answerType;
  const focus = analysis.focus ?? '';
  if (type === 'date' || type === 'year') {
    const dates = datesIn(sentence);
    return dates.map((d) => {
      let fit = 1;
      let text = d.text;
      if (type === 'year' && !d.range) {
        // "In what year" asks for the year alone
        text = String(d.year);
        fit = d.monthOnly ? 0 : 1;
      }
      if (type === 'date' && d.monthOnly) fit = focus === 'month' ? 1 : 0.4;
      if (focus === 'month' && !d.month) fit = 0.2;
      if ((focus === 'years' || focus === 'timeframe' || focus === 'period') && !d.range) fit = 0.5;
      if (type === 'year' && d.range && focus !== 'years') fit = 0.6;
      // A birth or death date in a biography's parenthesis answers only a question about birth or death.
      const before = sentence.slice(Math.max(0, d.start - 30), d.start);
      const life = lifeDates(sentence);
      const lifeDate =
        /\b(?:born|b\.|died|d\.)\s*(?:on\s+|in\s+)?$/i.test(before) ||
        (/\(\s*(?:[^()]*;\s*)?$/.test(before) && /^\s*[–-]|^[^()]*[–-][^()]*\)/.test(sentence.slice(d.end, d.end + 40))) ||
        (life !== undefined && (d.start === life.born.start || d.start === life.died.start));
      const asksLife = /\b(?:born|birth|die|died|death|age|old)\b/i.test(analysis.question);
      if (lifeDate && !asksLife) fit *= 0.4;
      // "(8 April 1921 – 29 October 2003)": the first date is the birth, the second the death
      const asksBirth = /\b(?:born|birth)\b/i.test(analysis.question);
      const asksDeath = /\b(?:die|died|death|dead)\b/i.test(analysis.question);
      if (life && asksBirth !== asksDeath && d.start === (asksBirth ? life.died : life.born).start) fit *= 0.2;
      // a sentence that gives the life's dates answers "when was … born / did … die" with them, not with its other dates
      if (life && asksBirth !== asksDeath && !lifeDate) fit *= 0.3;
      if (
        !lifeDate &&
        asksDeath &&
        !asksBirth &&
        !/\b(?:died|death|killed|dead)\b/i.test(sentence.slice(Math.max(0, d.start - 60), d.start))
      )
        fit *= LIFE_EVENT_OTHER_DATE_FIT;
      if (
        !lifeDate &&
        /\b(?:born|birth)\b/i.test(analysis.question) &&
        !/\bborn\b/i.test(sentence.slice(Math.max(0, d.start - 60), d.start))
      )
        fit *= LIFE_EVENT_OTHER_DATE_FIT;
      return { text, start: d.start, end: d.end, kind: d.range || d.month ? 'date' : 'year', fit } satisfies Span;
    });
  }
  if (type === 'number') {
    // the unit the question counts in: its "how many" noun, else the head of the noun asked for (not "number", "amount" …)
    const unitWords = (analysis.unit ?? focus.split(/\s+/).pop() ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w && !/^(?:number|numbers|amount|count|total|value|default|maximum|minimum|max|min|size|long|old|many|much)$/.test(w));
    const counted = unitWords[0];
    return quantitiesIn(sentence)
      .filter((q) => !q.isYear)
      .map((q) => {
        let fit = 0.6;
        const unit = (q.unit ?? '').toLowerCase();
        const unitStem = unit ? stem(unit) : '';
        if (unitWords.length && unit && unitWords.some((w) => sameWord(w, unit))) fit = 1;
        else if (unitStem && questionTerms.has(unitStem))
          fit = 1; // "can seat how many" → "3,677 seated"
        else if (q.scale || q.currency || unit === '%' || (unit && MEASURE_UNITS.test(unit))) fit = 0.8;
        else if (
          !unit &&
          unitWords.length &&
          unitWords.every((w) => sentence.toLowerCase().includes(w.slice(0, Math.max(3, w.length - 2))))
        )
          fit = 0.9; // "- max_keepalive_connections, number of allowable keep-alive connections … (Defaults 20)"
        if (/^(?:long)$/.test(focus) && /^(?:days?|weeks?|months?|years?|hours?|minutes?|seconds?|centuries|decades?)$/.test(unit)) fit = 1;
        if (/^(?:old|age)$/.test(focus) && /^(?:years?)$/.test(unit)) fit = 1;
        if (
          /^(?:tall|high|deep|far|long|wide|big|large|heavy)$/.test(focus) &&
          /^(?:m|km|metres?|meters?|feet|ft|miles?|inches|cm|mm|kg|tonnes?|tons?|pounds?|lbs?)$/.test(unit)
        )
          fit = 1;
        if (q.field) {
          // a row's value: its field name is its unit ("max_depth_m: 3000")
          const fieldTerms = q.field
            .toLowerCase()
            .split(/[^a-z]+/)
            .filter((w) => w.length > 1)
            .map(stem);
          fit = fieldTerms.some((t) => questionTerms.has(t) || unitWords.some((w) => sameWord(w, t))) ? 1 : 0.3;
        }
        // The counted noun the question already names is dropped ("how many tournaments" → "230");
        // units of measure, money and scale words stay ("80 euros", "250 million").
        let text = q.text;
        const start = q.start;
        if (counted && unit && sameWord(counted, unit) && !q.currency && !MEASURE_UNITS.test(unit))
          text = text.slice(0, text.length - (q.unit ?? '').length).trim();
        return { text, start, end: q.end, kind: 'number', fit } satisfies Span;
      });
  }
  const names = nameSpans(sentence)
    .filter((s) => !/^\d/.test(s.text) || /\p{L}/u.test(s.text))
    .flatMap((s) => [s, ...coordinatedNames(s)]);
  const spans: Span[] = [];
  if (/\bversions?\b/.test(focus)) {
    // "Which Python version …" → "3.9+"
    for (const m of sentence.matchAll(/(?<![\w.])v?\d+\.\d+(?:\.\d+)*\+?(?![\w.]*\d)/g))
      spans.push({ text: m[0], start: m.index!, end: m.index! + m[0].length, kind: 'phrase', fit: 1 });
    return spans;
  }
  if (type === 'entity' || type === 'person') {
    // identifiers: httpx.Client, next_request, response.is_success, jinja2.ext.babel_extract, select_autoescape()
    for (const m of sentence.matchAll(
      /(?<![\w./:-])(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z]+_[A-Za-z_]\w*(?:\(\))?|[A-Za-z_]\w*\(\))(?![\w.]*\w)/g,
    )) {
      if (/^(?:e\.g|i\.e|a\.k\.a|etc)$/i.test(m[0]) || /\.(?:com|org|net|io|html?|md|rst|py|txt)$/i.test(m[0])) continue;
      spans.push({
        text: m[0],
        start: m.index!,
        end: m.index! + m[0].length,
        kind: 'phrase',
        fit: type === 'entity' ? IDENTIFIER_FIT : IDENTIFIER_FIT / 2,
      });
    }
  }
  if (/\bnationality\b/.test(focus)) {
    // "Italian American", "Irish-American": two demonyms together are one nationality
    for (const m of sentence.matchAll(/\b\p{Lu}\p{Ll}+(?:[\s-]\p{Lu}\p{Ll}+)?\b/gu)) {
      const words = m[0].split(/[\s-]/);
      if (words.every((word) => NATIONALITY.test(word)))
        spans.push({ text: m[0], start: m.index!, end: m.index! + m[0].length, kind: 'name', fit: 1 });
      else if (NATIONALITY.test(words[0]))
        spans.push({ text: words[0], start: m.index!, end: m.index! + words[0].length, kind: 'name', fit: 1 });
      else if (words.length > 1 && NATIONALITY.test(words[1]))
        spans.push({ text: words[1], start: m.index! + m[0].length - words[1].length, end: m.index! + m[0].length, kind: 'name', fit: 1 });
    }
    return spans;
  }
  if (/\bcolou?r\b/.test(focus)) {
    for (const m of sentence.matchAll(COLOURS))
      spans.push({ text: m[0].toLowerCase(), start: m.index!, end: m.index! + m[0].length, kind: 'phrase', fit: 1 });
    return spans;
  }
  if (type === 'entity' && focus && KIND_QUESTION.test(analysis.question)) spans.push(...kindPhrases(sentence, focus, stem, questionTerms));
  for (const span of names) {
    let fit = 0.5;
    // A lone capitalised word opening a sentence before a lower-case word is usually a common noun ("Management consulting is …").
    const commonStart =
      span.kind === 'name' &&
      !span.text.includes(' ') &&
      /^[\s"“'‘(]*$/.test(sentence.slice(0, span.start)) &&
      /^\s+\p{Ll}/u.test(sentence.slice(span.end)) &&
      !PLACE_NAMES.has(span.text);
    if (type === 'person') {
      fit = looksLikePerson(span.text)
        ? 1
        : span.text.split(/\s+/).length === 1 && !PLACE_NAMES.has(span.text) && !NATIONALITY.test(span.text)
          ? 0.45
          : ORG_WORDS.test(span.text)
            ? 0.35
            : 0.25;
      if (span.kind === 'quoted') fit = 0.15;
      if (NATIONALITY.test(span.text)) fit = 0.05;
    } else if (type === 'place') {
      fit = span.kind === 'quoted' ? 0.1 : looksLikePlace(span.text, sentence, span.start, focus);
      if (NATIONALITY.test(span.text)) fit = Math.min(fit, 0.1);
    } else {
      // entity: any name; titles in quotes fit works (films, songs, books)
      fit = span.kind === 'quoted' ? 0.8 : 0.6;
      if (NATIONALITY.test(span.text) && !/\bnationality|language\b/.test(focus)) fit = 0.15;
      // a country or state answers "which way", "what airplane" … only when a place is asked for
      if (
        (REGION_NAMES.has(span.text) || MULTIWORD_PLACES.test(span.text) || /^(?:U\.S\.?|U\.K\.?|US|UK|USA)$/.test(span.text)) &&
        !COUNTRY_LIKE.test(focus)
      )
        fit = 0.3;
      if (MONTHS.test(span.text.split(' ')[0])) fit = 0.2;
    }
    if (commonStart) fit *= 0.3;
    spans.push({ ...span, fit });
  }
  return spans;
}

/** "What type of …", "what kind of …", "what sort of …": the answer is a kind, often a common noun phrase. */
const KIND_QUESTION = /\b(?:what|which)\s+(?:type|kind|sort|genre|form|variety|style)s?\s+of\b/i;
/** Words that end a noun phrase's modifiers when read backwards from its head. */
const PHRASE_STOP =
  /^(?:a|an|the|of|in|on|at|to|for|from|by|with|and|or|but|as|is|are|was|were|be|been|being|has|have|had|its|his|her|their|this|that|these|those|which|who|whom|whose|it|he|she|they|also|not|very|most|more|than|such|other|many|some|any|all|both|each|one|two|three|first|known|called|named)$/i;

/**
 * The noun phrases of a sentence ending in the noun the question asks the kind of ("what sort of
 * products" → "IT products"; "what type of plant" → "flowering plants"): up to three modifiers before it,
 * none of them a word of the question ("provides" in "Viglen provides IT products").
 */
function kindPhrases(sentence: string, focus: string, stem: (word: string) => string, questionTerms: Set<string>): Span[] {
  const head = focus.split(/\s+/).pop() ?? '';
  if (!head) return [];
  const headStem = stem(head);
  const words = [...sentence.matchAll(/[\p{L}\d][\p{L}\d'’-]*/gu)].map((m) => ({
    text: m[0],
    start: m.index!,
    end: m.index! + m[0].length,
  }));
  const spans: Span[] = [];
  for (let i = 1; i < words.length; i++) {
    if (stem(words[i].text.toLowerCase()) !== headStem) continue;
    let j = i;
    while (
      j > 0 &&
      i - j < KIND_MODIFIERS &&
      !(PHRASE_STOP.test(words[j - 1].text) && !/^\p{Lu}{2,}$/u.test(words[j - 1].text)) &&
      !questionTerms.has(stem(words[j - 1].text.toLowerCase())) &&
      !/[,;:()"“”]/.test(sentence.slice(words[j - 1].end, words[j].start))
    )
      j--;
    if (j === i) continue;
    // a coordinated head goes with it: "IT products and services"
    const coordinated = /^ and (\p{Ll}[\p{L}-]*)(?=\s*[,.;:)]|\s*$)/u.exec(sentence.slice(words[i].end));
    const end = coordinated && !PHRASE_STOP.test(coordinated[1]) ? words[i].end + coordinated[0].length : words[i].end;
    spans.push({ text: sentence.slice(words[j].start, end), start: words[j].start, end, kind: 'phrase', fit: KIND_PHRASE_FIT });
  }
  return spans;
}

/** How well a passage title fits the expected answer type. */
export function titleFit(title: string, analysis: QuestionAnalysis): number {
  if (analysis.answerType === 'person') return looksLikePerson(title) ? 1 : 0.45;
  if (analysis.answerType === 'place') return looksLikePlace(title, title, 0, analysis.focus ?? '');
  return 0.6;
}
