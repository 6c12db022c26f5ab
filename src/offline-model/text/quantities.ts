import { MONTH_ABBREVIATIONS, MONTH_NAMES } from '../lexicon/months.ts';

/**
 * Numbers, amounts and dates as they are written in evidence: "55.2 million euros", "14 engineers",
 * "3,677 seated", "nine days", "11.4%", "max_depth_m: 3000", "born 7 October 1978", "1969 until 1974".
 * Values are exact decimals (a bigint and a scale), so sums and differences carry no float noise.
 */

/** An exact decimal: value = units / 10^scale. */
export interface Decimal {
  units: bigint;
  scale: number;
}

export function decimal(text: string): Decimal | undefined {
  const clean = text.replace(/[,\s]/g, '').replace(/^\+/, '');
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(clean);
  if (!match) return undefined;
  const fraction = match[3] ?? '';
  const units = BigInt(`${match[2]}${fraction}`) * (match[1] ? -1n : 1n);
  return { units, scale: fraction.length };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x - y, scale };
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** a / b rounded half away from zero to `places` decimals; undefined when b is 0. */
export function divide(a: Decimal, b: Decimal, places: number): Decimal | undefined {
  if (b.units === 0n) return undefined;
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale); scaled by 10^places
  let numerator = a.units * 10n ** BigInt(places + b.scale);
  let denominator = b.units * 10n ** BigInt(a.scale);
  if (denominator < 0n) {
    numerator = -numerator;
    denominator = -denominator;
  }
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  let quotient = magnitude / denominator;
  if ((magnitude % denominator) * 2n >= denominator) quotient += 1n;
  return { units: negative ? -quotient : quotient, scale: places };
}

export function compare(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function fromInteger(value: number): Decimal {
  return { units: BigInt(Math.trunc(value)), scale: 0 };
}

/** The decimal written out; trailing zeros beyond `minScale` are dropped ("7.20" → "7.2"). */
export function formatDecimal(value: Decimal, minScale = 0, grouping = false): string {
  let { units, scale } = value;
  while (scale > minScale && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  let whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? digits.slice(digits.length - scale) : '';
  if (grouping && whole.length > 4) whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '−' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export function toNumber(value: Decimal): number {
  return Number(value.units) / 10 ** value.scale;
}

const SMALL_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  dozen: 12,
};

/** A plural noun that a count can be of ("albums", "members", "species"), not a verb or pronoun in -s. */
export const PLURAL_NOUN =
  /^(?!(?:is|was|has|its|this|his|hers|thus|plus|yes|us|as|gas|bus|always|perhaps|whereas|across|various|famous|previous|numerous|serious|less|unless|bass)$)[a-z][a-z-]*[^su']s$|^(?:people|men|women|children|species|series)$/i;

/** A unit is its head noun: "three engineering teams" counts teams, not engineers. */
export function unitHead(quantity: Pick<Quantity, 'unit'>): string {
  return quantity.unit?.split(/\s+/).pop() ?? '';
}

/** Words after a number that are not its unit. */
const NOT_UNITS = new Set(
  'a an the and or of in on at to by for from with as than that which who when while is are was were be been has have had it its this these those than then also each per into onto over under after before since until about around between during through across against among without within up down out off not no nor but so if because where how what whom whose there here'.split(
    ' ',
  ),
);

export interface Quantity {
  /** The exact value, scale words applied ("55.2 million" keeps 55.2; see `scale`). */
  value: Decimal;
  /** The number as written ("3,677", "55.2", "nine"). */
  number: string;
  /** "million", "billion" … when written after the number. */
  scale?: string;
  /** "%" for percentages; otherwise the word(s) after the number ("euros", "engineers", "seated"). */
  unit?: string;
  /** Currency sign before the number ("€", "$"). */
  currency?: string;
  /** The whole amount as written ("55.2 million euros", "3,677 seated", "nine days"). */
  text: string;
  start: number;
  end: number;
  /** Words before the number in its clause ("had revenue of"), or the field name of a row. */
  context: string;
  /** Words after the amount, to the end of its clause ("timeout for connecting" in "a 60s timeout for connecting,"). */
  after: string;
  /** The number is a year (1500–2099, written without separators or decimals, in a year position). */
  isYear: boolean;
  /** The field name when the number is a value of a row ("max_depth_m" in "max_depth_m: 3000"). */
  field?: string;
}

const NUMBER = /(?<![\w.,/-])([$€£¥]\s?)?(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(?![\w.]*\d)(?:\s*(%|percent\b|per cent\b))?/g;
const WORD_NUMBER = new RegExp(`\\b(${Object.keys(SMALL_NUMBERS).join('|')})\\b`, 'gi');

/** The amounts in a sentence (or a "key: value; key: value" row), left to right. */

/** "the 2010 census", "the 1998 season": a year naming an event is no count of it. */
function yearOfEvent(numberText: string, before: string, unit: string): boolean {
  if (/[,\s]/.test(numberText)) return false; // "1,800-seat": a year has no thousands separator
  return !PLURAL_NOUN.test(unit) || /\b(?:the|in|of|since|until|by|from|during|after|before)\s*$/i.test(before); // "a 2001 census": no count of censuses
}

export function quantitiesIn(sentence: string): Quantity[] {
  const out: Quantity[] = [];
  const row = /^[^:;\n]{1,60}: [^;\n]*(?:; [^:;\n]{1,60}: [^;\n]*)+$/.test(sentence.trim());
  const push = (
    start: number,
    numberText: string,
    value: Decimal,
    currency: string | undefined,
    percent: string | undefined,
    afterIndex: number,
    isWord: boolean,
  ) => {
    let end = afterIndex;
    let scale: string | undefined;
    let unit: string | undefined;
    const rest = sentence.slice(end);
    const scaleMatch = /^\s+(thousand|million|billion|trillion|bn)\b/i.exec(rest);
    if (scaleMatch) {
      scale = scaleMatch[1].toLowerCase();
      end += scaleMatch[0].length;
    }
    const hyphenated = /^-([a-z][a-z]+)\b(?!-)/.exec(sentence.slice(end)); // "a 1,800-seat arena", "a 60-member choir"
    if (percent) unit = '%';
    else if (hyphenated && !scale) {
      unit = hyphenated[1];
      end += hyphenated[0].length;
    } else if (!row) {
      const unitMatch = /^\s+([A-Za-z\u00C0-\u024F][\w\u00C0-\u024F-]*)/.exec(sentence.slice(end));
      const word = unitMatch?.[1];
      // a unit is a lower-case word that is not a function word ("14 engineers", "80 euros", "nine days")
      if (word && !NOT_UNITS.has(word.toLowerCase()) && !/^\p{Lu}\p{Ll}/u.test(word)) {
        unit = word;
        end += unitMatch![0].length;
        const second = /^\s+([a-z][\w-]*)/.exec(sentence.slice(end));
        // "square miles"; "six studio albums": a count's noun after one modifier
        const countNoun = second && !/s$/i.test(word) && PLURAL_NOUN.test(second[1]) && !NOT_UNITS.has(second[1].toLowerCase());
        if (second && (/^(?:square|cubic|US|metric|nautical|light)$/i.test(word) || countNoun) && !NOT_UNITS.has(second[1])) {
          unit = `${word} ${second[1]}`;
          end += second[0].length;
        }
      }
    }
    // After an earlier amount, its clause ends at a closing bracket or an "and": "62 acres (0.25 km²) in area and up to 13 feet"
    const previousEnd = out.length ? out[out.length - 1].end : 0;
    const joined = out.length
      ? Math.max(
          sentence.lastIndexOf(')', start - 1),
          ...[...sentence.slice(previousEnd, start).matchAll(/\sand\s/g)].map((m) => previousEnd + m.index! + m[0].length - 1),
        )
      : -1;
    const clauseStart = Math.max(
      ...[';', ',', '(', ':', '.', '—', '–'].map((mark) => sentence.lastIndexOf(mark, start - 1)),
      previousEnd,
      joined,
    );
    let context = sentence
      .slice(Math.max(clauseStart, 0), start)
      .replace(/^[;,(:.—–\s]+/, '')
      .trim();
    const field = row ? /([^:;]+):\s*$/.exec(sentence.slice(0, start))?.[1]?.trim() : undefined;
    if (field) context = field;
    const digits = numberText.replace(/[,\s]/g, '');
    const yearField =
      field !== undefined &&
      /\b(?:year|launched|founded|established|released|opened|built|born|died|date|since|from|until|start|end)\b/i.test(
        field.replace(/_/g, ' '),
      );
    const isYear =
      !isWord &&
      !currency &&
      !percent &&
      !scale &&
      /^(1[5-9]\d\d|20\d\d)$/.test(digits) &&
      (!row || yearField) &&
      !/^\s+(?:people|persons|employees|engineers|members|students|units|copies|km|m|kg|metres|meters|miles|feet|euros|dollars|pounds|seats|seated|inhabitants|residents)\b/i.test(
        sentence.slice(afterIndex),
      );
    const fullText = `${currency ?? ''}${sentence.slice(start + (currency?.length ?? 0), end)}`.trim();
    // a conversion in brackets is not the end of the clause: "13 feet (4 m) deep"
    const following = sentence.slice(end).replace(/^\s*\([^()]*\)/, '');
    const after = /^[^,;:.()\d]*/.exec(following)![0].trim();
    out.push({
      value,
      number: numberText,
      ...(scale ? { scale } : {}),
      ...(unit ? { unit: unit.toLowerCase() === 'percent' ? '%' : unit } : {}),
      ...(currency ? { currency: currency.trim() } : {}),
      text: fullText,
      start,
      end,
      context,
      after,
      isYear: isYear && (!unit || /^(?:and|to|until|till|through)$/i.test(unit) || yearOfEvent(numberText, sentence.slice(0, start), unit)),
      ...(field ? { field } : {}),
    });
  };
  const found: Array<{ index: number; run: () => void }> = [];
  for (const match of sentence.matchAll(NUMBER)) {
    const value = decimal(match[2]);
    if (!value) continue;
    found.push({
      index: match.index!,
      run: () => push(match.index!, match[2], value, match[1], match[3], match.index! + match[0].length, false),
    });
  }
  for (const match of sentence.matchAll(WORD_NUMBER)) {
    const word = match[1].toLowerCase();
    // "one of the", "one day" as an article: only count words followed by a plural noun or a unit
    const next = /^\s+([a-z][\w-]*)/i.exec(sentence.slice(match.index! + match[0].length))?.[1] ?? '';
    // a modifier may come between ("six studio albums", "four original members")
    const afterNext = /^\s+[a-z][\w-]*\s+([a-z][\w-]*)/i.exec(sentence.slice(match.index! + match[0].length))?.[1] ?? '';
    const counted =
      /s$|^(?:people|men|women|children|feet|hundred|thousand|million)$/i.test(next) ||
      (PLURAL_NOUN.test(afterNext) && !NOT_UNITS.has(afterNext.toLowerCase()));
    if (word === 'one' || !next || NOT_UNITS.has(next.toLowerCase()) || !counted) continue;
    found.push({
      index: match.index!,
      run: () => push(match.index!, match[1], fromInteger(SMALL_NUMBERS[word]), undefined, undefined, match.index! + match[0].length, true),
    });
  }
  found.sort((a, b) => a.index - b.index).forEach((f) => f.run());
  return out;
}

const MONTH = `(?:${[...MONTH_NAMES, ...MONTH_ABBREVIATIONS].join('|')})\\.?`;
const DAY = '(?:[12]\\d|3[01]|0?[1-9])(?:st|nd|rd|th)?';
const YEAR = '(?:1[0-9]\\d\\d|20\\d\\d)';

export interface DateMention {
  text: string;
  start: number;
  end: number;
  /** Year, and month/day when written (for ordering). */
  year: number;
  month?: number;
  day?: number;
  /** A range ("1969 until 1974", "from 1986 to 2013"). */
  range: boolean;
  /** Only a month (and day) with no year: "March and April", "every May". */
  monthOnly?: boolean;
}

const MONTH_INDEX: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

function monthNumber(name: string): number {
  return MONTH_INDEX[name.slice(0, 3).toLowerCase()] ?? 0;
}

/** Dates and years in a sentence, longest form first at each position (ranges, full dates, month–year, years). */
export function datesIn(sentence: string): DateMention[] {
  const patterns: Array<{ re: RegExp; read: (m: RegExpExecArray) => Omit<DateMention, 'text' | 'start' | 'end'> }> = [
    // "1921–29", but not the "1921 – 29" of "8 April 1921 – 29 October 2003"
    {
      re: new RegExp(`\\b(?:from\\s+)?(${YEAR})\\s*(?:–|-|—|to|until|till|through|and)\\s*(${YEAR}|\\d\\d(?!\\s+${MONTH}\\b))\\b`, 'g'),
      read: (m) => ({ year: Number(m[1]), range: true }),
    },
    {
      re: new RegExp(`\\b(${DAY})\\s+(${MONTH})\\s*,?\\s+(${YEAR})\\b`, 'g'),
      read: (m) => ({ year: Number(m[3]), month: monthNumber(m[2]), day: parseInt(m[1], 10), range: false }),
    },
    {
      re: new RegExp(`\\b(${MONTH})\\s+(${DAY}),?\\s+(${YEAR})\\b`, 'g'),
      read: (m) => ({ year: Number(m[3]), month: monthNumber(m[1]), day: parseInt(m[2], 10), range: false }),
    },
    {
      re: new RegExp(`\\b(${MONTH})\\s+(?:of\\s+)?(${YEAR})\\b`, 'g'),
      read: (m) => ({ year: Number(m[2]), month: monthNumber(m[1]), range: false }),
    },
    {
      re: new RegExp(`\\b(${MONTH}(?:\\s+(?:and|or|to|–|-)\\s+${MONTH})?)\\b(?!\\s*\\d)`, 'g'),
      read: (m) => ({ year: 0, month: monthNumber(m[1]), range: false, monthOnly: true }),
    },
    {
      re: new RegExp(
        `(?<![\\d,.$€£#-])(${YEAR})s?(?![\\d,.]\\d|\\s*(?:people|persons|employees|engineers|members|km|m\\b|kg|metres|meters|miles|feet|euros|dollars|seats|seated))`,
        'g',
      ),
      read: (m) => ({ year: Number(m[1]), range: false }),
    },
  ];
  const out: DateMention[] = [];
  for (const { re, read } of patterns) {
    for (const match of sentence.matchAll(re)) {
      const start = match.index!;
      const end = start + match[0].length;
      if (out.some((d) => start < d.end && end > d.start)) continue;
      // A bare month name that is a word ("May" as a verb, "March" as a noun) only counts next to time words.
      if (
        re === patterns[4].re &&
        /^(?:May|March)$/.test(match[1]) &&
        !/\b(?:in|every|each|of|during|until|since|by|from|early|late|mid)\s*$/i.test(sentence.slice(0, start))
      )
        continue;
      out.push({ text: match[0].replace(/^from\s+/i, (f) => f), start, end, ...read(match as RegExpExecArray) });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Orders dates: earlier first (year, then month, then day; unknown parts count as the start). */
export function dateOrder(a: DateMention, b: DateMention): number {
  return a.year - b.year || (a.month ?? 0) - (b.month ?? 0) || (a.day ?? 0) - (b.day ?? 0);
}

const SECONDS: Record<string, bigint> = { second: 1n, minute: 60n, hour: 3600n, day: 86400n, week: 604800n };

function timeUnit(word: string): string | undefined {
  const w = word.toLowerCase().replace(/s$/, '');
  if (/^(?:s|sec|second)$/.test(w)) return 'second';
  if (/^(?:min|minute)$/.test(w)) return 'minute';
  if (/^(?:h|hr|hour)$/.test(w)) return 'hour';
  if (/^day$/.test(w)) return 'day';
  if (/^week$/.test(w)) return 'week';
  return undefined;
}

/**
 * An amount of time in the unit the question asks for: "300 seconds" asked in minutes → "5 minutes"
 * (exact, up to 2 decimals); undefined when no conversion applies.
 */
export function convertTime(amount: string, wanted: string): string | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z]+)$/.exec(amount.trim());
  const to = timeUnit(wanted);
  const from = match ? timeUnit(match[2]) : undefined;
  if (!match || !to || !from || to === from) return undefined;
  const value = decimal(match[1])!;
  const converted = divide(multiply(value, { units: SECONDS[from], scale: 0 }), { units: SECONDS[to], scale: 0 }, 2)!;
  const shown = formatDecimal(converted);
  return `${shown} ${to}${shown === '1' ? '' : 's'}`;
}

/** Units of length, area and mass, each as a factor to one base unit (metre, square metre, kilogram). */
const UNIT_FACTORS: Record<'length' | 'area' | 'mass', Array<[RegExp, string]>> = {
  length: [
    [/^(?:mm|millimet(?:re|er)s?)$/, '0.001'],
    [/^(?:cm|centimet(?:re|er)s?)$/, '0.01'],
    [/^(?:m|met(?:re|er)s?)$/, '1'],
    [/^(?:km|kilomet(?:re|er)s?)$/, '1000'],
    [/^(?:in|inch|inches)$/, '0.0254'],
    [/^(?:ft|foot|feet)$/, '0.3048'],
    [/^(?:yd|yards?)$/, '0.9144'],
    [/^(?:mi|miles?)$/, '1609.344'],
  ],
  area: [
    [/^(?:acres?)$/, '4046.8564224'],
    [/^(?:ha|hectares?)$/, '10000'],
    [/^(?:square (?:km|kilomet(?:re|er)s?)|sq km|km²)$/, '1000000'],
    [/^(?:square (?:mi|miles?)|sq mi)$/, '2589988.110336'],
    [/^(?:square (?:m|met(?:re|er)s?)|m²)$/, '1'],
    [/^(?:square (?:ft|foot|feet)|sq ft)$/, '0.09290304'],
  ],
  mass: [
    [/^(?:g|grams?)$/, '0.001'],
    [/^(?:kg|kilograms?)$/, '1'],
    [/^(?:t|tonnes?|metric tons?)$/, '1000'],
    [/^(?:lbs?|pounds?)$/, '0.45359237'],
    [/^(?:oz|ounces?)$/, '0.028349523125'],
  ],
};

export type UnitFamily = keyof typeof UNIT_FACTORS;

/** The family of a quantity's unit and its amount in the family's base unit ("13 feet" → length, 3.9624 m). */
export function inBaseUnit(quantity: Quantity): { family: UnitFamily; value: Decimal } | undefined {
  const unit = quantity.unit?.toLowerCase();
  if (!unit || quantity.scale) return undefined;
  for (const [family, units] of Object.entries(UNIT_FACTORS) as Array<[UnitFamily, Array<[RegExp, string]>]>) {
    const factor = units.find(([pattern]) => pattern.test(unit))?.[1];
    if (factor) return { family, value: multiply(quantity.value, decimal(factor)!) };
  }
  return undefined;
}

/** The unit family a compared measure is given in: heights and depths in lengths, sizes in areas, weights in masses. */
export function familyOfMeasure(attribute: string): UnitFamily | undefined {
  if (/\b(?:height|length|depth|width|tall|long|deep|wide|high)\b/.test(attribute)) return 'length';
  if (/\barea\b/.test(attribute)) return 'area';
  if (/\b(?:weight|heavy|mass)\b/.test(attribute)) return 'mass';
  return undefined;
}

/** "(April 23, 1928 – February 10, 2014)": a life's two dates, as a biography's first sentence gives them. */
export function lifeDates(text: string): { born: DateMention; died: DateMention } | undefined {
  const dates = datesIn(text)
    .filter((d) => d.year > 0 && !d.range)
    .sort((a, b) => a.start - b.start);
  for (let i = 0; i + 1 < dates.length; i++) {
    const between = text.slice(dates[i].end, dates[i + 1].start);
    // "(15 February 1910 in Muncie, Indiana – 16 March 1974)": a birthplace may sit between the dates
    if (
      /^\s*(?:(?:in|at)\s+[^–—()\d-]{1,60}?)?\s*(?:[–—-]|to)\s*(?:(?:presumably|probably|possibly|c\.|circa|about)\s+)?(?:(?:on|in)\s+)?(?:or\s+(?:after|before)\s+)?$/.test(
        between,
      ) &&
      dateOrder(dates[i], dates[i + 1]) < 0
    )
      return { born: dates[i], died: dates[i + 1] };
  }
  return undefined;
}
