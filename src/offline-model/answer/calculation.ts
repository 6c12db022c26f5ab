import type { Tokenizer } from '../../text/tokenize.ts';
import { plainTitle, titledBy, type OfflineEvidence } from '../prompt-state.ts';
import {
  add,
  compare,
  dateOrder,
  datesIn,
  decimal,
  divide,
  familyOfMeasure,
  formatDecimal,
  inBaseUnit,
  lifeDates,
  multiply,
  PLURAL_NOUN,
  quantitiesIn,
  subtract,
  unitHead,
  type DateMention,
  type Decimal,
  type Quantity,
  type UnitFamily,
} from '../text/quantities.ts';
import type { QuestionAnalysis } from '../question/question.ts';
import { countriesNamedIn, countryIn, nationalityIn } from '../text/nationalities.ts';
import type { Segment } from '../text/sentences.ts';
import { MIN_OPERAND_MATCH, OWN_PASSAGE_DATE_BONUS, PERCENT_PLACES, PROPERTY_MIN_MARGIN, RATIO_PLACES } from '../tuning.ts';
import { NOT_FOUND_LEAD } from './not-found.ts';

/** A segment of the evidence as the reader sees it: where it is, how relevant it is, its terms. */
export interface ReaderSentence {
  evidence: OfflineEvidence;
  segment: Segment;
  /** How well the segment answers the question on its own (question coverage, chain, rank). */
  relevance: number;
  /** The same without the preference for the passages the support selection chose. */
  base: number;
  terms: string[];
  /** All segments of its passage (for what comes before and after it). */
  segments: Segment[];
  words: Array<{ term: string; start: number }>;
}

export interface Supporting {
  evidence: OfflineEvidence;
  segment: Segment;
  text: string;
}

export interface ReaderResult {
  /** The direct answer line, citations included. */
  line: string;
  support: Supporting[];
}

interface Operand {
  quantity: Quantity;
  sentence: ReaderSentence;
  score: number;
}

/** Stems match when equal or when one is a prefix of the other ("max" / "maximum", "employ" / "employe"). */
function termsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.startsWith(short);
}

function share(wanted: string[], have: string[]): number {
  if (wanted.length === 0) return 0;
  return wanted.filter((w) => have.some((h) => termsMatch(w, h))).length / wanted.length;
}

/** A reader sentence as a supporting line of an answer. */
export const support = (s: ReaderSentence): Supporting => ({ evidence: s.evidence, segment: s.segment, text: s.segment.text });

function cite(ids: string[]): string {
  return [...new Set(ids)].map((id) => `[${id}]`).join('');
}

/** The years a sentence is about: its own, else its passage's title or headings ("Annual report 2024"). */
function yearsOf(sentence: ReaderSentence): { own: string[]; context: string[] } {
  const own = [...sentence.segment.text.matchAll(/\b(1[5-9]\d\d|20\d\d)\b/g)].map((m) => m[1]);
  const context = [...`${sentence.evidence.title} ${sentence.evidence.at}`.matchAll(/\b(1[5-9]\d\d|20\d\d)\b/g)].map((m) => m[1]);
  return { own, context };
}

/** The best number for a described quantity ("revenue" in 2024, in million euros). */
function findOperand(
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
  want: {
    terms: string[];
    year?: string;
    unitTerms?: string[];
    family?: UnitFamily;
    owner?: string;
    exclude?: Quantity[];
    avoid?: string[];
    near?: ReaderSentence;
    minMatch?: number;
  },
): Operand | undefined {
  let best: Operand | undefined;
  for (const sentence of sentences) {
    if (sentence.segment.kind === 'code') continue;
    const quantities = quantitiesIn(sentence.segment.text);
    if (quantities.length === 0) continue;
    const sentenceTerms = sentence.terms;
    const contextTerms = tokenizer.terms(`${sentence.evidence.title} ${sentence.evidence.at}`);
    const years = yearsOf(sentence);
    let yearScore = 0;
    if (want.year) {
      if (years.own.includes(want.year)) yearScore = 1;
      else if (years.own.length === 0 && years.context.includes(want.year)) yearScore = 0.8;
      else continue;
    }
    if (want.owner && !ownedBy(sentence, want.owner, tokenizer)) continue;
    // A list item or row holding one number is all about that number ("- max_connections, maximum number of … (Default 100)").
    const whole = (sentence.segment.kind === 'item' || sentence.segment.kind === 'row') && quantities.filter((q) => !q.isYear).length === 1;
    for (const quantity of quantities) {
      if (quantity.isYear) continue;
      if (want.exclude?.some((q) => q.value === quantity.value && q.start === quantity.start && q.text === quantity.text)) continue;
      const own = whole ? sentence.terms : tokenizer.terms(`${quantity.context} ${quantity.unit ?? ''} ${quantity.after}`);
      const near = share(want.terms, own);
      const far = share(want.terms, sentenceTerms);
      const title = share(want.terms, contextTerms);
      // words that describe the other operand ("keep-alive" when this one is all connections) count against
      const avoided = want.avoid?.length ? share(want.avoid, own) : 0;
      const match = Math.max(near, 0.5 * far, 0.3 * title) - 0.5 * avoided;
      if (match < (want.minMatch ?? MIN_OPERAND_MATCH)) continue;
      let unitScore = 0;
      if (want.unitTerms?.length) {
        const unitTerms = tokenizer.terms(`${quantity.scale ?? ''} ${unitHead(quantity)} ${quantity.currency === '€' ? 'euro' : ''}`);
        unitScore = share(want.unitTerms, unitTerms) > 0 ? 0.5 : unitTerms.length ? -0.3 : 0;
      }
      if (want.family) {
        const family = inBaseUnit(quantity)?.family;
        unitScore += family === want.family ? 0.5 : family ? -0.5 : 0;
      }
      const beside = want.near && sentence.segment === want.near.segment ? 0.1 : 0; // operands compared in one sentence
      const score = match + yearScore + unitScore + beside + 0.05 * sentence.relevance;
      if (!best || score > best.score) best = { quantity, sentence, score };
    }
  }
  return best;
}

/** The sentence's passage is the owner's own, titled by it ("Gone in 60 Seconds (2000 film)"), with or without a region ("Dover, New Hampshire"). */
function isOwnPassage(sentence: ReaderSentence, owner: string): boolean {
  return titledBy(sentence.evidence, owner) || plainTitle(sentence.evidence.title).toLowerCase() === owner.split(/,\s+/)[0].toLowerCase();
}

/** The sentence is about this owner: it names it, its passage is titled or headed by it, or a pronoun follows a sentence that names it. */
export function ownedBy(sentence: ReaderSentence, owner: string, tokenizer: Tokenizer): boolean {
  const lower = owner.toLowerCase();
  const text = sentence.segment.text.toLowerCase();
  if (text.includes(lower)) return true;
  if (/^\d{4}$/.test(owner)) return false;
  const ownerTerms = tokenizer.terms(owner);
  const about = tokenizer.terms(`${sentence.evidence.title} ${sentence.evidence.at}`);
  if (ownerTerms.length && share(ownerTerms, about) === 1) return true;
  const previous = sentence.segments[sentence.segment.index - 1];
  if (
    previous &&
    /^(?:it|he|she|they|its|his|her|their|the (?:company|team|group|product|firm|band))\b/i.test(sentence.segment.text) &&
    previous.text.toLowerCase().includes(lower)
  )
    return true;
  return false;
}

function unitOf(a: Quantity, b?: Quantity): string {
  const words = [a.scale, a.unit === '%' ? undefined : a.unit].filter(Boolean).join(' ');
  if (b && (b.scale !== a.scale || b.unit !== a.unit)) return words;
  return words;
}

function show(quantity: Quantity): string {
  return formatDecimal(quantity.value, quantity.value.scale);
}

function withUnit(value: string, unit: string | undefined): string {
  if (!unit) return value;
  return unit === '%' ? `${value}%` : `${value} ${unit}`;
}

function contentTerms(text: string, tokenizer: Tokenizer): string[] {
  return tokenizer.terms(text.replace(/\b(?:the|a|an|of|in|at|from|to|its|their|company)\b/gi, ' '));
}

/** Arithmetic over numbers in the evidence, exact, with every operand cited; or what is missing. */
export function calculate(analysis: QuestionAnalysis, sentences: ReaderSentence[], tokenizer: Tokenizer): ReaderResult | undefined {
  const spec = analysis.calculation;
  if (!spec) return undefined;
  const unitTerms = spec.unit ? tokenizer.terms(spec.unit) : undefined;
  const quantityTerms = contentTerms(spec.quantity, tokenizer);

  if (spec.events) {
    // Years between two events: "How many years after the founding did the company move …"
    const [a, b] = spec.events.map((event) => findEventDate(event, sentences, tokenizer));
    const missing = [!a ? spec.events[0] : undefined, !b ? spec.events[1] : undefined].filter(Boolean) as string[];
    if (missing.length)
      return missingOperands(
        missing.map((m) => `the year of ${m}`),
        [a, b].filter(Boolean) as Array<{ date: DateMention; sentence: ReaderSentence }>,
      );
    const later = Math.max(a!.date.year, b!.date.year);
    const earlier = Math.min(a!.date.year, b!.date.year);
    const [first, second] = a!.date.year <= b!.date.year ? [a!, b!] : [b!, a!];
    const unit = spec.unit && /^(?:years|months|days|decades)$/.test(spec.unit) ? spec.unit : 'years';
    const value =
      unit === 'decades' ? formatDecimal(divide(decimal(String(later - earlier))!, decimal('10')!, 1)!) : String(later - earlier);
    return {
      line: `${later} − ${earlier} = ${value} ${unit === 'decades' ? 'decades' : 'years'} ${cite([second.sentence.evidence.id, first.sentence.evidence.id])}`,
      support: [support(first.sentence), support(second.sentence)],
    };
  }

  if (spec.op === 'sum' || spec.op === 'average') {
    const found: Operand[] = [];
    const seen = new Set<string>();
    for (const sentence of sentences) {
      if (sentence.segment.kind === 'code') continue;
      for (const quantity of quantitiesIn(sentence.segment.text)) {
        if (quantity.isYear) continue;
        const own = tokenizer.terms(unitHead(quantity));
        if (share(quantityTerms, own) === 0 && share(quantityTerms, tokenizer.terms(quantity.context)) === 0) continue;
        const key = `${sentence.segment.text}|${show(quantity)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push({ quantity, sentence, score: sentence.relevance });
      }
    }
    if (found.length === 0) return missingOperands([`numbers of ${spec.quantity}`], []);
    let operands = found;
    if (spec.expected && found.length > spec.expected)
      operands = [...found]
        .sort((x, y) => y.score - x.score)
        .slice(0, spec.expected)
        .sort((x, y) => found.indexOf(x) - found.indexOf(y));
    const total = operands.reduce((sum, o) => add(sum, o.quantity.value), { units: 0n, scale: 0 } as Decimal);
    const unit = unitOf(operands[0].quantity) || spec.quantity;
    const terms = operands.map((o) => show(o.quantity)).join(' + ');
    const ids = operands.map((o) => o.sentence.evidence.id);
    const partial =
      spec.expected && operands.length < spec.expected
        ? ` (only ${operands.length} of the ${spec.expected} values are in the documents)`
        : '';
    if (spec.op === 'average') {
      const mean = divide(total, { units: BigInt(operands.length), scale: 0 }, 2)!;
      return {
        line: `(${terms}) / ${operands.length} = ${withUnit(formatDecimal(mean), unit)} ${cite(ids)}${partial}`,
        support: operands.map((o) => support(o.sentence)),
      };
    }
    return {
      line: `${terms} = ${withUnit(formatDecimal(total, total.scale), unit)} ${cite(ids)}${partial}`,
      support: operands.map((o) => support(o.sentence)),
    };
  }

  if (spec.op === 'expression' && spec.expression) return evaluateExpression(spec.expression, sentences);

  if ((spec.op === 'difference' || spec.op === 'times') && spec.base && spec.years.length < 2) {
    // Two described quantities: "how many more connections than keep-alive connections", "how many times longer is A than B"
    const baseTerms = contentTerms(spec.base, tokenizer);
    const whole = findOperand(sentences, tokenizer, { terms: baseTerms });
    const extra = baseTerms.filter((t) => !quantityTerms.includes(t));
    const part = findOperand(sentences, tokenizer, {
      terms: quantityTerms,
      ...(whole ? { exclude: [whole.quantity], near: whole.sentence } : {}),
      avoid: extra,
    });
    if (!part || !whole)
      return missingOperands(
        [!part ? `the ${spec.quantity}` : '', !whole ? `the ${spec.base}` : ''].filter(Boolean),
        [part, whole].filter(Boolean) as Operand[],
      );
    const ids = [part.sentence.evidence.id, whole.sentence.evidence.id];
    const supportOf = [...new Set([part.sentence, whole.sentence])].map(support);
    if (spec.op === 'times') {
      const ratio = divide(part.quantity.value, whole.quantity.value, RATIO_PLACES);
      if (!ratio) return missingOperands([`a non-zero ${spec.base}`], [part]);
      return { line: `${show(part.quantity)} / ${show(whole.quantity)} = ${formatDecimal(ratio)} times ${cite(ids)}`, support: supportOf };
    }
    const difference = subtract(part.quantity.value, whole.quantity.value);
    return {
      line: `${show(part.quantity)} − ${show(whole.quantity)} = ${withUnit(formatDecimal(difference), unitOf(part.quantity) || spec.unit)} ${cite(ids)}`,
      support: supportOf,
    };
  }

  if (spec.op === 'percentage' || spec.op === 'ratio') {
    const year = spec.years[0];
    const part = findOperand(sentences, tokenizer, { terms: quantityTerms, ...(year ? { year } : {}) });
    const whole = findOperand(sentences, tokenizer, {
      terms: contentTerms(spec.base ?? '', tokenizer),
      ...(year ? { year } : {}),
      ...(part ? { exclude: [part.quantity] } : {}),
    });
    if (!part || !whole)
      return missingOperands(
        [!part ? describe(spec.quantity, year) : '', !whole ? describe(spec.base ?? '', year) : ''].filter(Boolean),
        [part, whole].filter(Boolean) as Operand[],
      );
    const ids = [part.sentence.evidence.id, whole.sentence.evidence.id];
    if (spec.op === 'ratio') {
      const ratio = divide(part.quantity.value, whole.quantity.value, RATIO_PLACES);
      if (!ratio) return missingOperands([`a non-zero ${spec.base}`], [part]);
      return {
        line: `${show(part.quantity)} / ${show(whole.quantity)} = ${formatDecimal(ratio)} ${cite(ids)}`,
        support: [support(part.sentence), support(whole.sentence)],
      };
    }
    const percent = divide(multiply(part.quantity.value, decimal('100')!), whole.quantity.value, PERCENT_PLACES);
    if (!percent) return missingOperands([`a non-zero ${spec.base}`], [part]);
    return {
      line: `${show(part.quantity)} / ${show(whole.quantity)} = ${formatDecimal(percent)}% ${cite(ids)}`,
      support: [support(part.sentence), support(whole.sentence)],
    };
  }

  // difference and percent change between two years (or two described quantities)
  const years = [...new Set(spec.years)];
  if (years.length >= 2) {
    const [fromYear, toYear] = years;
    const from = findOperand(sentences, tokenizer, { terms: quantityTerms, year: fromYear, ...(unitTerms ? { unitTerms } : {}) });
    const to = findOperand(sentences, tokenizer, { terms: quantityTerms, year: toYear, ...(unitTerms ? { unitTerms } : {}) });
    if (!from || !to)
      return missingOperands(
        [!from ? describe(spec.quantity, fromYear) : '', !to ? describe(spec.quantity, toYear) : ''].filter(Boolean),
        [from, to].filter(Boolean) as Operand[],
      );
    const ids = [to.sentence.evidence.id, from.sentence.evidence.id];
    if (spec.op === 'percent-change') {
      const change = divide(
        multiply(subtract(to.quantity.value, from.quantity.value), decimal('100')!),
        from.quantity.value,
        PERCENT_PLACES,
      );
      if (!change) return missingOperands([`a non-zero ${describe(spec.quantity, fromYear)}`], [to]);
      return {
        line: `(${show(to.quantity)} − ${show(from.quantity)}) / ${show(from.quantity)} = ${formatDecimal(change)}% ${cite(ids)}`,
        support: [support(from.sentence), support(to.sentence)],
      };
    }
    const difference = subtract(to.quantity.value, from.quantity.value);
    const unit = unitOf(to.quantity, from.quantity) || spec.unit;
    return {
      line: `${show(to.quantity)} − ${show(from.quantity)} = ${withUnit(formatDecimal(difference, Math.max(to.quantity.value.scale, from.quantity.value.scale) && difference.scale), unit)} ${cite(ids)}`,
      support: [support(from.sentence), support(to.sentence)],
    };
  }
  return undefined;
}

function describe(quantity: string, year?: string): string {
  return `the ${quantity}${year ? ` in ${year}` : ''}`;
}

/** Names what is missing, and shows what was found (cited), so the reader sees how far it got. */
function missingOperands(missing: string[], found: Array<Operand | { date: DateMention; sentence: ReaderSentence }>): ReaderResult {
  const shown = found.map((f) =>
    'quantity' in f ? `${f.quantity.text} [${f.sentence.evidence.id}]` : `${f.date.text} [${f.sentence.evidence.id}]`,
  );
  const line = `${NOT_FOUND_LEAD}: ${missing.join(' and ')}, so it cannot be computed.${shown.length ? ` Found: ${shown.join('; ')}.` : ''}`;
  return { line, support: found.map((f) => support(f.sentence)) };
}

const EVENT_DATE_WORDS =
  /\b(?:born|founded|established|formed|released|opened|built|created|launched|started|began|died|moved|became|won|published|completed|introduced|acquired|merged|joined|retired)\b/i;

/** The year of an event described in words ("the founding", "the company moved its headquarters to Trondheim"). */
function findEventDate(
  event: string,
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
): { date: DateMention; sentence: ReaderSentence } | undefined {
  const terms = contentTerms(event, tokenizer);
  let best: { date: DateMention; sentence: ReaderSentence; score: number } | undefined;
  for (const sentence of sentences) {
    const dates = datesIn(sentence.segment.text).filter((d) => d.year > 0);
    if (dates.length === 0) continue;
    const matched = share(terms, sentence.terms);
    if (matched < MIN_OPERAND_MATCH) continue;
    // the date nearest to the event's words
    const positions = sentence.words.filter((w) => terms.some((t) => termsMatch(t, w.term))).map((w) => w.start);
    const date = dates.reduce((a, b) => (nearest(a, positions) <= nearest(b, positions) ? a : b));
    const score = matched + (EVENT_DATE_WORDS.test(sentence.segment.text) ? 0.1 : 0) + 0.05 * sentence.relevance;
    if (!best || score > best.score) best = { date, sentence, score };
  }
  return best;
}

function nearest(date: DateMention, positions: number[]): number {
  return positions.length ? Math.min(...positions.map((p) => Math.abs(p - date.start))) : 0;
}

/** The value of one attribute for each option of a comparison; the winner, or yes/no for "same"/"both". */
export function compareCandidates(analysis: QuestionAnalysis, sentences: ReaderSentence[], tokenizer: Tokenizer): ReaderResult | undefined {
  const spec = analysis.comparison;
  const candidates = analysis.candidates;
  if (!spec || candidates.length < 2) return undefined;
  // "Is A older than B?" answers whether the first option wins; otherwise the winner is named
  const verdict = (winner: string, values: string) => `${spec.firstWins ? (winner === candidates[0] ? 'Yes' : 'No') : winner}\n${values}`;
  if (spec.event === 'lifespan') {
    const lives = candidates.map((candidate) => ({ candidate, found: candidateLife(candidate, sentences, tokenizer) }));
    if (lives.some((l) => !l.found))
      return partialComparison(
        lives.filter((l) => !l.found).map((l) => l.candidate),
        [],
        'the dates of birth and death',
      );
    const sorted = [...lives].sort((a, b) => a.found!.days - b.found!.days);
    const winner = spec.direction === 'min' ? sorted[0] : sorted[sorted.length - 1];
    const values = lives
      .map((l) => `${l.candidate}: ${l.found!.born.text} – ${l.found!.died.text} [${l.found!.sentence.evidence.id}]`)
      .join('; ');
    return { line: verdict(winner.candidate, values), support: lives.map((l) => support(l.found!.sentence)) };
  }
  if (spec.byDate) {
    const dated = candidates.map((candidate) => ({
      candidate,
      found: candidateDate(candidate, sentences, tokenizer, spec.event === 'death'),
    }));
    const what = spec.event === 'death' ? 'a date of death' : 'a date';
    if (dated.some((d) => !d.found))
      return partialComparison(
        dated.filter((d) => !d.found).map((d) => d.candidate),
        dated.filter((d) => d.found).map((d) => ({ candidate: d.candidate, value: d.found!.date.text, sentence: d.found!.sentence })),
        what,
      );
    const sorted = [...dated].sort((a, b) => dateOrder(a.found!.date, b.found!.date));
    const winner = spec.direction === 'min' ? sorted[0] : sorted[sorted.length - 1];
    const values = dated.map((d) => `${d.candidate}: ${d.found!.date.text} [${d.found!.sentence.evidence.id}]`).join('; ');
    return { line: verdict(winner.candidate, values), support: dated.map((d) => support(d.found!.sentence)) };
  }
  if (spec.direction === 'same') {
    // "Were A and B of the same nationality?" / "Are both A and B types of plant?"
    const attributeTerms = tokenizer.terms(spec.attribute === 'value' ? '' : spec.attribute);
    const predicate = predicateTerms(analysis, tokenizer);
    // each option's own passage first (its opening sentence first), then sentences that name it
    const about = candidates.map((candidate) => {
      const own = sentences
        .filter((s) => ownedBy(s, candidate, tokenizer))
        .sort(
          (a, b) =>
            Number(isOwnPassage(b, candidate)) - Number(isOwnPassage(a, candidate)) ||
            Number(b.segment.index === 0) - Number(a.segment.index === 0) ||
            b.relevance - a.relevance,
        );
      return { candidate, own };
    });
    if (about.some((a) => a.own.length === 0))
      return partialComparison(
        about.filter((a) => a.own.length === 0).map((a) => a.candidate),
        [],
        spec.attribute,
      );
    if (/^(?:nationality|country|citizenship)$/.test(spec.attribute)) {
      // "the same country": where each is, named or by nationality ("in central Ontario, Canada")
      const read = spec.attribute === 'country' ? countryIn : nationalityIn;
      const values = about.map((a) => ({ ...a, value: a.own.map((s) => read(s.segment.text)).find(Boolean) }));
      if (values.some((v) => !v.value))
        return partialComparison(
          values.filter((v) => !v.value).map((v) => v.candidate),
          [],
          spec.attribute,
        );
      const same = values.every((v) => v.value === values[0].value);
      // "What nationality were both A and B?" asks for the nationality; "Were A and B …?" for yes or no
      const answered =
        analysis.type === 'yes-no' ? (same ? 'Yes' : 'No') : same ? values[0].value! : values.map((v) => v.value).join(' and ');
      const source = (v: (typeof values)[number]) => v.own.find((s) => read(s.segment.text))!;
      return {
        line: `${answered}\n${values.map((v) => `${v.candidate}: ${v.value} [${source(v).evidence.id}]`).join('; ')}`,
        support: values.map((v) => support(source(v))),
      };
    }
    // "Are A and B in the same county?": each one's county, by name ("Strafford County" is not "Sullivan County")
    if (/^(?:county|district|province|region|parish|borough|prefecture|municipality|department|canton)$/.test(spec.attribute)) {
      const placed = about.map((a) => {
        const source = a.own.find((s) => unitNamedIn(s.segment.text, spec.attribute, a.candidate));
        return { ...a, source, value: source && unitNamedIn(source.segment.text, spec.attribute, a.candidate) };
      });
      if (placed.every((p) => p.value)) {
        const same = placed.every((p) => p.value!.toLowerCase() === placed[0].value!.toLowerCase());
        const line =
          analysis.type === 'yes-no' ? (same ? 'Yes' : 'No') : same ? placed[0].value! : placed.map((p) => p.value).join(' and ');
        return {
          line: `${line}\n${placed.map((p) => `${p.candidate}: ${p.value} [${p.own[0].evidence.id}]`).join('; ')}`,
          support: placed.map((p) => support(p.source!)),
        };
      }
    }
    // "What award did both A and B receive?" asks for a thing, not whether they share it
    if (/^\s*(?:what|which|who|whom|where|when|how)\b/i.test(analysis.question)) return undefined;
    const wanted = attributeTerms.length ? attributeTerms : predicate;
    const checks = about.map((a) => {
      const hit = a.own.find((s) => share(wanted, s.terms) >= 0.5);
      return { ...a, hit };
    });
    const yes = checks.every((c) => c.hit);
    return { line: yes ? 'Yes' : 'No', support: checks.map((c) => support(c.hit ?? c.own[0])) };
  }
  // "Which boxer is American, A or B?": each one's nationality, from its own passage's definition
  // ("a Jamaican boxer … Central American title" is Jamaican)
  const askedNationality = spec.byProperty
    ? nationalityIn(candidates.reduce((text, c) => text.split(c).join(' '), analysis.question))
    : undefined;
  if (askedNationality) {
    const given = candidates.map((candidate) => {
      const own =
        sentences.filter((s) => isOwnPassage(s, candidate) && s.segment.index === 0)[0] ??
        sentences.find((s) => ownedBy(s, candidate, tokenizer) && nationalityIn(s.segment.text));
      return { candidate, own, nationality: own ? nationalityIn(own.segment.text) : undefined };
    });
    const fitting = given.filter((g) => g.nationality === askedNationality);
    if (fitting.length === 1 && given.every((g) => g.nationality))
      return { line: fitting[0].candidate, support: given.map((g) => support(g.own!)) };
  }
  if (spec.byProperty && !/^\d{4}$/.test(candidates[0])) {
    // "Which poet was from Scotland, A or B?": the option whose own sentences together say most of the description
    const predicate = predicateTerms(analysis, tokenizer);
    const fits = candidates.map((candidate) => {
      const lower = candidate.toLowerCase();
      const own = sentences.filter((s) => ownedBy(s, candidate, tokenizer) || plainTitle(s.evidence.title).toLowerCase() === lower);
      const says = (s: ReaderSentence) => [
        ...s.terms,
        ...tokenizer.terms(s.evidence.title),
        ...countriesNamedIn(s.segment.text).flatMap((country) => tokenizer.terms(country)),
      ];
      const scored = own.map((s) => ({ s, fit: share(predicate, says(s)) })).sort((a, b) => b.fit - a.fit);
      // what all its own sentences say together, shown by the one that says most
      const fit = share(predicate, [...new Set(own.flatMap(says))]);
      return { candidate, best: scored[0] ? { s: scored[0].s, fit } : undefined };
    });
    const ranked = fits.filter((f) => f.best).sort((a, b) => b.best!.fit - a.best!.fit);
    if (ranked.length === candidates.length && ranked[0].best!.fit - ranked[1].best!.fit >= PROPERTY_MIN_MARGIN) {
      return { line: ranked[0].candidate, support: ranked.map((f) => support(f.best!.s)) };
    }
  }
  // a numeric attribute: "more engineers", "greater maximum depth", "revenue higher in 2023 or in 2024"
  const attributeTerms = contentTerms(spec.attribute, tokenizer);
  // "Which is deeper?" is read in lengths. Read again in a given unit, the unit is half the evidence:
  // the attribute's words may sit further off.
  const measured = familyOfMeasure(spec.attribute);
  // "more studio albums" counts albums: "six studio albums", not "eighteen singles" in the same sentence
  const counted = !measured && PLURAL_NOUN.test(spec.attribute.split(/\s+/).pop() ?? '');
  const operandOf = (candidate: string, unit?: Unit) =>
    findOperand(sentences, tokenizer, {
      terms: attributeTerms,
      ...(/^\d{4}$/.test(candidate) ? { year: candidate } : { owner: candidate }),
      ...(unit
        ? { ...unit, minMatch: MIN_OPERAND_MATCH / 2 }
        : measured
          ? { family: measured }
          : counted
            ? { unitTerms: attributeTerms }
            : {}),
    });
  const values = sameUnits(
    candidates.map((candidate) => ({ candidate, operand: operandOf(candidate) })),
    operandOf,
    tokenizer,
  );
  if (values.some((v) => !v.operand)) {
    const found = values.filter((v) => v.operand);
    return partialComparison(
      values.filter((v) => !v.operand).map((v) => v.candidate),
      found.map((v) => ({ candidate: v.candidate, value: v.operand!.quantity.text, sentence: v.operand!.sentence })),
      spec.attribute,
    );
  }
  const sorted = [...values].sort((a, b) => compareAmounts(a.operand!.quantity, b.operand!.quantity));
  const winner = spec.direction === 'min' ? sorted[0] : sorted[sorted.length - 1];
  const shown = values.map((v) => `${v.candidate}: ${v.operand!.quantity.text} [${v.operand!.sentence.evidence.id}]`).join('; ');
  return { line: verdict(winner.candidate, shown), support: values.map((v) => support(v.operand!.sentence)) };
}

type Unit = { unitTerms: string[] } | { family: UnitFamily };

/** Two amounts in one family of units compare in its base unit ("13 feet" < "25 m"); others as written. */
function compareAmounts(a: Quantity, b: Quantity): number {
  const [x, y] = [inBaseUnit(a), inBaseUnit(b)];
  return x && y && x.family === y.family ? compare(x.value, y.value) : compare(a.value, b.value);
}

/**
 * Options are compared in one unit: "13 feet" deep against "135 acre" in area is no comparison. When
 * the best operands' units differ, each option is read again in the other's unit (or its family of
 * units), and the pair that agrees with the higher score wins; with no such pair the first reading stands.
 */
function sameUnits(
  values: Array<{ candidate: string; operand: Operand | undefined }>,
  operandOf: (candidate: string, unit?: Unit) => Operand | undefined,
  tokenizer: Tokenizer,
): Array<{ candidate: string; operand: Operand | undefined }> {
  const unitTerms = (operand: Operand) => tokenizer.terms(`${operand.quantity.scale ?? ''} ${operand.quantity.unit ?? ''}`);
  const agree = (a: Operand, b: Operand) => {
    const [fa, fb] = [inBaseUnit(a.quantity)?.family, inBaseUnit(b.quantity)?.family];
    if (fa && fb) return fa === fb;
    const [x, y] = [unitTerms(a), unitTerms(b)];
    return (x.length === 0 && y.length === 0) || x.some((t) => y.includes(t));
  };
  if (values.length !== 2 || !values[0].operand || !values[1].operand || agree(values[0].operand, values[1].operand)) return values;
  let best: { values: typeof values; score: number } | undefined;
  for (const [keep, other] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const kept = values[keep].operand!;
    const family = inBaseUnit(kept.quantity)?.family;
    const wanted = unitTerms(kept);
    if (!family && wanted.length === 0) continue;
    const reread = operandOf(values[other].candidate, family ? { family } : { unitTerms: wanted });
    if (!reread || !agree(kept, reread)) continue;
    const score = kept.score + reread.score;
    const pair = [...values];
    pair[other] = { candidate: values[other].candidate, operand: reread };
    if (!best || score > best.score) best = { values: pair, score };
  }
  return best?.values ?? values;
}

function partialComparison(
  missing: string[],
  found: Array<{ candidate: string; value: string; sentence: ReaderSentence }>,
  what: string,
): ReaderResult {
  const shown = found.map((f) => `${f.candidate}: ${f.value} [${f.sentence.evidence.id}]`).join('; ');
  return {
    line: `${NOT_FOUND_LEAD}: ${what === 'value' ? 'the facts' : what} for ${missing.join(' and ')}, so they cannot be compared.${shown ? ` Found: ${shown}.` : ''}`,
    support: found.map((f) => support(f.sentence)),
  };
}

/** The administrative unit a sentence places something in, by its name: "… a city in Strafford County, …" → "Strafford County" (never the option itself). */
function unitNamedIn(text: string, unit: string, option: string): string | undefined {
  const noun = unit.charAt(0).toUpperCase() + unit.slice(1);
  for (const match of text.matchAll(new RegExp(`\\b(?:in|of)\\s+(?:the\\s+)?((?:\\p{Lu}[\\w.'’-]*\\s+){1,3}${noun})\\b`, 'gu'))) {
    if (!option.toLowerCase().startsWith(match[1].toLowerCase())) return match[1];
  }
  return undefined;
}

/** The question's words that are neither its options nor question words ("types of plant"). */
function predicateTerms(analysis: QuestionAnalysis, tokenizer: Tokenizer): string[] {
  const optionTerms = new Set(analysis.candidates.flatMap((c) => tokenizer.terms(c)));
  return tokenizer.terms(analysis.question).filter((t) => !optionTerms.has(t) && !/^(?:both|same|also|one)$/.test(t));
}

/**
 * A candidate's date for an age or order comparison, in a sentence about it: a birth (or founding,
 * release) date, or with `death` the date it died ("(1881 – 1927)", "died in 1927").
 */
function candidateDate(
  candidate: string,
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
  death = false,
): { date: DateMention; sentence: ReaderSentence } | undefined {
  // The option's own passage gives its dates; only without one is a passage that names it read
  // ("He was born … 1942 and is the grandson of Henry J. Kaiser" gives the grandson's birth)
  const own = sentences.filter((s) => isOwnPassage(s, candidate) && datesIn(s.segment.text).some((d) => d.year > 0));
  let best: { date: DateMention; sentence: ReaderSentence; score: number } | undefined;
  for (const sentence of own.length ? own : sentences) {
    if (!ownedBy(sentence, candidate, tokenizer)) continue;
    const text = sentence.segment.text;
    const dates = datesIn(text)
      .filter((d) => d.year > 0)
      .sort((a, b) => a.start - b.start);
    if (dates.length === 0) continue;
    let date: DateMention | undefined;
    let marked = false;
    if (death) {
      const died = /\b(?:died|death|killed|executed|passed away)\b/i.exec(text);
      date = lifeDates(text)?.died ?? (died ? dates.find((d) => d.start >= died.index) : undefined);
      marked = date !== undefined;
      if (!date) continue;
    } else {
      // "born", or "b." before a date ("(b. 1956)"), not the initials of "H.B. Halicki"
      const born = /\bborn\b\s*|(?<![\p{L}.])b\.\s*(?=\d|\p{Lu}\p{Ll}+\.?\s+\d)/iu.exec(text);
      // "X is a 2000 American action film": the year a definition gives is the thing's own
      const defining = dates.find((d) => /\b(?:is|was)\s+(?:a|an)\s+$/i.test(text.slice(0, d.start)));
      date = born ? (dates.find((d) => d.start >= born.index) ?? dates[0]) : (lifeDates(text)?.born ?? defining ?? dates[0]);
      marked = born !== null || (defining !== undefined && date === defining);
    }
    // the option's own passage ("Henry J. Kaiser") gives its dates; another that names it ("… grandson of Henry J. Kaiser") may give someone else's
    const score =
      (marked ? 1 : 0) +
      (EVENT_DATE_WORDS.test(text) ? 0.3 : 0) +
      (sentence.segment.index === 0 ? 0.2 : 0) +
      (date.month ? 0.1 : 0) +
      (isOwnPassage(sentence, candidate) ? OWN_PASSAGE_DATE_BONUS : 0) +
      0.05 * sentence.relevance;
    if (!best || score > best.score) best = { date, sentence, score };
  }
  return best;
}

/** How long a candidate lived, from the two dates of a sentence about it. */
function candidateLife(
  candidate: string,
  sentences: ReaderSentence[],
  tokenizer: Tokenizer,
): { born: DateMention; died: DateMention; days: number; sentence: ReaderSentence } | undefined {
  for (const sentence of [...sentences].sort(
    (a, b) =>
      Number(isOwnPassage(b, candidate)) - Number(isOwnPassage(a, candidate)) ||
      a.segment.index - b.segment.index ||
      b.relevance - a.relevance,
  )) {
    if (!ownedBy(sentence, candidate, tokenizer)) continue;
    const life = lifeDates(sentence.segment.text);
    if (!life) continue;
    const day = (d: DateMention) => d.year * 372 + ((d.month ?? 7) - 1) * 31 + (d.day ?? 15);
    return { ...life, days: day(life.died) - day(life.born), sentence };
  }
  return undefined;
}

/** "How many people … at the end of 2023 and at the end of 2024?": one value per year, each cited. */
export function multipleValues(analysis: QuestionAnalysis, sentences: ReaderSentence[], tokenizer: Tokenizer): ReaderResult | undefined {
  const years = [...new Set(analysis.years)];
  if (years.length < 2) return undefined;
  const terms = contentTerms(`${analysis.unit ?? ''}`, tokenizer);
  const predicate = predicateTerms(analysis, tokenizer).filter((t) => !years.includes(t));
  const found = years.map((year) => ({
    year,
    operand: findOperand(sentences, tokenizer, { terms: terms.length ? terms : predicate, year }),
  }));
  if (found.every((f) => !f.operand)) return undefined;
  const parts = found.map((f) =>
    f.operand ? `${f.operand.quantity.text} in ${f.year} [${f.operand.sentence.evidence.id}]` : `not found in the documents for ${f.year}`,
  );
  return { line: parts.join('; '), support: found.filter((f) => f.operand).map((f) => support(f.operand!.sentence)) };
}

/**
 * "What does 3**3**3 evaluate to?": when the evidence restates the expression ("{{ 3**3**3 }} is
 * evaluated as (3**3)**3 in Jinja"), the restatement is computed; otherwise the expression itself,
 * with the usual precedence. Integers are exact (BigInt); other values are rounded to 6 decimals.
 */
function evaluateExpression(expression: string, sentences: ReaderSentence[]): ReaderResult | undefined {
  const compact = (text: string) => text.replace(/\s+/g, '');
  for (const sentence of sentences) {
    const text = sentence.segment.text;
    if (!compact(text).includes(expression)) continue;
    const restated =
      /\b(?:evaluated|interpreted|computed|parsed|treated|read)\s+as\s+([\d\s()+\-*/^.×÷%]+?)(?=\s+(?:in|by|but|and|while|whereas)\b|[,;]|$|\.(?:\s|$))/.exec(
        text,
      );
    const target = restated ? compact(restated[1]) : expression;
    const value = evaluate(target);
    if (value !== undefined) return { line: `${target} = ${value} [${sentence.evidence.id}]`, support: [support(sentence)] };
  }
  const value = evaluate(expression);
  return value === undefined ? undefined : { line: `${expression} = ${value}`, support: [] };
}

/** A small exact evaluator: + − * / % ** ^ and parentheses. */
function evaluate(expression: string): string | undefined {
  const tokens = expression
    .replace(/×/g, '*')
    .replace(/÷/g, '/')
    .match(/\*\*|\d+(?:\.\d+)?|[-+*/^%()]/g);
  if (!tokens) return undefined;
  let position = 0;
  type Value = { int?: bigint; real: number };
  const fromText = (t: string): Value => (/^\d+$/.test(t) ? { int: BigInt(t), real: Number(t) } : { real: Number(t) });
  const combine = (a: Value, b: Value, op: string): Value => {
    if (a.int !== undefined && b.int !== undefined) {
      if (op === '+') return { int: a.int + b.int, real: a.real + b.real };
      if (op === '-') return { int: a.int - b.int, real: a.real - b.real };
      if (op === '*') return { int: a.int * b.int, real: a.real * b.real };
      if ((op === '**' || op === '^') && b.int >= 0n && b.int < 10000n) return { int: a.int ** b.int, real: a.real ** b.real };
      if (op === '%' && b.int !== 0n) return { int: a.int % b.int, real: a.real % b.real };
      if (op === '/' && b.int !== 0n && a.int % b.int === 0n) return { int: a.int / b.int, real: a.real / b.real };
    }
    const real =
      op === '+'
        ? a.real + b.real
        : op === '-'
          ? a.real - b.real
          : op === '*'
            ? a.real * b.real
            : op === '/'
              ? a.real / b.real
              : op === '%'
                ? a.real % b.real
                : a.real ** b.real;
    return { real };
  };
  const primary = (): Value | undefined => {
    const token = tokens[position++];
    if (token === '(') {
      const inner = sum();
      if (tokens[position++] !== ')') return undefined;
      return inner;
    }
    if (token === '-') {
      const inner = primary();
      return inner && combine({ int: 0n, real: 0 }, inner, '-');
    }
    return token !== undefined && /^\d/.test(token) ? fromText(token) : undefined;
  };
  const power = (): Value | undefined => {
    const base = primary();
    if (base && (tokens[position] === '**' || tokens[position] === '^')) {
      const op = tokens[position++];
      const exponent = power(); // right-associative, as in Python
      return exponent && combine(base, exponent, op);
    }
    return base;
  };
  const product = (): Value | undefined => {
    let left = power();
    while (left && ['*', '/', '%'].includes(tokens[position])) {
      const op = tokens[position++];
      const right = power();
      left = right && combine(left, right, op);
    }
    return left;
  };
  const sum = (): Value | undefined => {
    let left = product();
    while (left && ['+', '-'].includes(tokens[position])) {
      const op = tokens[position++];
      const right = product();
      left = right && combine(left, right, op);
    }
    return left;
  };
  const result = sum();
  if (!result || position !== tokens.length) return undefined;
  if (result.int !== undefined) return result.int.toString();
  if (!Number.isFinite(result.real)) return undefined;
  return String(Math.round(result.real * 1e6) / 1e6);
}
