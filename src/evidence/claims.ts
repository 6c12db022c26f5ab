import { citedIds } from './citations.ts';
import type { ClaimCheck, Finding, PlanItem } from '../protocol/events.ts';
import { Tokenizer } from '../text/tokenize.ts';
import { stripCitationMarkers } from '../protocol/citations.ts';

/**
 * The critique: checks a draft against the evidence, claim by claim. A claim is a sentence of the
 * draft that states something (headings, "not found" statements and claims already marked
 * uncertain by their writer, meta sentences about the report itself are not claims to check). Each
 * is checked lexically against the passages it cites, heading paths included: its numbers (as
 * values: 1.40 million = 1,400,000) and names must be in them or in a result the run computed, and
 * most of its key terms; the question's own words need no support. This is the offline critique;
 * with a language model the critique asks the model instead (research/critique-model.ts).
 */
export interface Critique {
  checks: ClaimCheck[];
  /** Sub-questions of the plan the draft neither answers nor marks as open. */
  openQuestions: string[];
  /** What went wrong with the critique itself (a model's reply it could not read), stated, never thrown. */
  problems?: string[];
}

/** Text of a cited evidence id, or undefined when the id resolves to nothing. */
export type EvidenceText = (id: string) => string | undefined;

/** A result the run computed (a python run, `P1` …): support for the numbers it printed. */
export interface ComputedText {
  id: string;
  text: string;
}

/** What the offline critique reads besides the evidence: the question (its own words need no support) and the run's computed results. */
export interface CritiqueContext {
  question?: string;
  computed?: readonly ComputedText[];
}

/** The text a passage gives the critique: its title and heading path name things as much as its body does. */
export function passageText(chunk: { title?: string; headingPath?: readonly string[]; text: string }): string {
  return [chunk.title ?? '', ...(chunk.headingPath ?? []), chunk.text].filter(Boolean).join('\n');
}

/** Share of a claim's key terms its cited passages must contain. */
const MIN_TERM_SUPPORT = 0.5;
/** A claim marked like this has been addressed: it is shown as uncertain, not as fact. */
export const UNCERTAIN_MARK = '(uncertain';
const NOT_A_CLAIM =
  /^(?:#|Open:|Not found in the documents|The run (?:failed|stopped|was aborted)|Waiting for approval|Sources\b|Offline reasoning\b)/i;
/**
 * Sentences about the report rather than the world ("Here is the report.", "In summary:", "The
 * documents do not say …", a line that only introduces what follows): not claims to check.
 */
const META_SENTENCE =
  /^(?:(?:here(?:'s| is| are)|below (?:is|are)|the following (?:is|are))\b|(?:in summary|to summari[sz]e|summary|overall|in short)\s*[:,.]?\s*$|this (?:report|answer|summary) (?:answers|covers|summari[sz]es|is based)\b|i (?:could not|couldn't|cannot|can't|did not|didn't|was unable to) (?:find|confirm|determine)\b|(?:the )?(?:documents?|evidence|sources?|passages?) (?:do(?:es)? not|don't|doesn't|never) (?:say|state|mention|give|contain|cover|include)\b|[^.!?]*:\s*$)/i;
const NUMBER = /(?<![\w.])\d+(?:[.,]\d+)*(?![\w])/g;
/** A number and the scale word after it: "1.40 million", "1,400,000", "3 bn". */
const QUANTITY = /(?<![\w.])(\d+(?:[.,]\d+)*)(?:\s*(thousand|million|billion|trillion|bn|mn)\b)?(?![\w])/gi;
const SCALE: Record<string, number> = { thousand: 1e3, million: 1e6, mn: 1e6, billion: 1e9, bn: 1e9, trillion: 1e12 };
/** Capitalised words inside a sentence (not its first word): names the cited passage must carry. */
const NAME = /(?<=\s)\p{Lu}[\p{L}\d'’-]+/gu;

const tokenizer = new Tokenizer({ language: 'english' });

/** The claims of a draft: its sentences with their citation ids, code and headings left out. */
export function claimsOf(draft: string): Array<{ claim: string; citations: string[] }> {
  const claims: Array<{ claim: string; citations: string[] }> = [];
  let inCode = false;
  for (const rawLine of draft.split('\n')) {
    const line = rawLine.trim();
    if (line.startsWith('```')) {
      inCode = !inCode;
      continue;
    }
    if (inCode || !line || NOT_A_CLAIM.test(line)) continue;
    // Sentences end at . ! ? before a capital or a citation-free end; citations right after the stop stay with it.
    const sentences = line
      .replace(/^[-*]\s+|^\d+[.)]\s+/, '')
      .split(/(?<=[.!?](?:\s*\[[^\]]*\])*)\s+(?=[\p{Lu}"“(])/u)
      .map((s) => s.trim())
      .filter((s) => stripCitationMarkers(s).trim().length >= 3 && !NOT_A_CLAIM.test(s));
    // Citations at the end of a line cover the sentences before them on that line ("A. B. [E1]").
    let inherited: string[] = [];
    const own = sentences.map((s) => citedIds(s));
    const lineClaims: Array<{ claim: string; citations: string[] }> = [];
    for (let i = sentences.length - 1; i >= 0; i--) {
      if (own[i].length) inherited = own[i];
      lineClaims.unshift({ claim: sentences[i], citations: own[i].length ? own[i] : inherited });
    }
    claims.push(...lineClaims);
  }
  return claims;
}

/** Lower case, one kind of minus, one space; "%" and "per cent" read as "percent" (7% = 7 percent). */
function normalise(text: string): string {
  return units(text.toLowerCase())
    .replace(/[\u2212\u2013]/g, '-')
    .replace(/\s+/g, ' ');
}

function units(text: string): string {
  return text.replace(/(\d)\s*%/g, '$1 percent').replace(/\bper\s+cent\b/gi, 'percent');
}

/** A number's value as a key ("1,400,000", "1.40 million" and "1400000" are one), or its text when it is not one number ("3.11.2"). */
function valueKey(digits: string, scale?: string): string {
  const plain = digits.replace(/,(?=\d{3}(?!\d))/g, '');
  if (!/^\d+(?:[.,]\d+)?$/.test(plain)) return plain;
  const value = Number(plain.replace(',', '.')) * (scale ? SCALE[scale.toLowerCase()] : 1);
  return String(Number(value.toPrecision(12)));
}

/** The values of the numbers in a text, scaled by their scale words; `raw` adds each number's own value too. */
function valuesIn(text: string, raw = false): Set<string> {
  const values = new Set<string>();
  for (const m of stripCitationMarkers(text, ' ').matchAll(QUANTITY)) {
    values.add(valueKey(m[1], m[2]));
    if (raw && m[2]) values.add(valueKey(m[1]));
  }
  return values;
}

/** Numbers as written, without thousands separators ("1,462" and "1462" are the same number). */
function numbersIn(text: string): string[] {
  return [...stripCitationMarkers(text, ' ').matchAll(NUMBER)].map((m) => m[0].replace(/,(?=\d{3}\b)/g, ''));
}

/** The claim's numbers (with their scale words) that neither the cited text nor a computed result has; those a computed result has, by its id. */
function unsupportedNumbers(quoted: string, source: string, computed: readonly ComputedText[]): { absent: string[]; computedBy: string[] } {
  const sourceValues = valuesIn(source, true);
  const sourceNumbers = new Set(numbersIn(source));
  const lowered = normalise(source);
  const absent: string[] = [];
  const computedBy = new Set<string>();
  for (const m of stripCitationMarkers(quoted, ' ').matchAll(QUANTITY)) {
    const key = valueKey(m[1], m[2]);
    const plain = m[1].replace(/,(?=\d{3}\b)/g, '');
    if (sourceValues.has(key) || (!m[2] && (sourceNumbers.has(plain) || lowered.includes(plain)))) continue;
    const by = computed.find((c) => valuesIn(c.text).has(key));
    if (by) computedBy.add(by.id);
    else absent.push(m[2] ? `${plain} ${m[2]}` : plain);
  }
  return { absent, computedBy: [...computedBy] };
}

/** The question's words, which a claim may repeat without the evidence having them. */
function questionTerms(question: string | undefined): Set<string> {
  return new Set(question ? tokenizer.terms(units(question)) : []);
}

/** One claim against the passages it cites (and the run's computed results, which support the numbers they printed). */
export function checkClaim(claim: string, citations: string[], evidence: EvidenceText, context: CritiqueContext = {}): ClaimCheck {
  if (claim.toLowerCase().includes(UNCERTAIN_MARK))
    return { claim, citations, verdict: 'supported', reason: 'the answer itself marks it uncertain' };
  const computed = context.computed ?? [];
  const bare = stripCitationMarkers(claim, ' ');
  // A calculation's result is computed, not quoted: only its operands (left of "=") must be in the sources.
  const quoted = bare.includes('=') ? bare.slice(0, bare.lastIndexOf('=')) : bare;
  if (citations.length === 0) {
    // A claim that states only what the run computed is supported by that result.
    const { absent, computedBy } = unsupportedNumbers(quoted, '', computed);
    if (computedBy.length && !absent.length)
      return { claim, citations, verdict: 'supported', reason: `its numbers were computed in ${computedBy.join(', ')}` };
    return { claim, citations, verdict: 'uncited', reason: 'no evidence id is cited' };
  }
  const missing = citations.filter((id) => evidence(id) === undefined);
  if (missing.length)
    return {
      claim,
      citations,
      verdict: 'unresolved',
      reason: `${missing.join(', ')} ${missing.length > 1 ? 'resolve' : 'resolves'} to no evidence`,
    };
  const cited = citations.map((id) => evidence(id)!);
  const joined = cited.join('\n');
  const source = normalise(joined);
  const { absent: absentNumbers, computedBy } = unsupportedNumbers(quoted, joined, computed);
  if (absentNumbers.length)
    return {
      claim,
      citations,
      verdict: 'unsupported',
      reason: `the cited evidence has no ${absentNumbers.map((n) => `"${n}"`).join(', ')}`,
    };
  const asked = questionTerms(context.question);
  const sourceTerms = new Set(tokenizer.terms(units(joined)));
  const askedText = normalise(context.question ?? '');
  // A capital that starts the claim, or a phrase after a colon or bracket, is a sentence's, not a name's ("Sales: Increase of 7%").
  const named = ` ${quoted}`.replace(/^\s*[\p{Lu}][\p{L}\d'’-]*/u, ' ').replace(/([:(“"]\s*)\p{Lu}[\p{L}\d'’-]*/gu, '$1');
  const absentNames = [...new Set([...named.matchAll(NAME)].map((m) => m[0].replace(/['’]s$/, '')))].filter((name) => {
    if (/^(?:I|The|A|An)$/.test(name) || source.includes(name.toLowerCase()) || askedText.includes(name.toLowerCase())) return false;
    // An ordinary word written with a capital ("Increase", "Age") is in the source as that word.
    const [term] = tokenizer.terms(name);
    return !term || !(sourceTerms.has(term) || asked.has(term));
  });
  if (absentNames.length)
    return {
      claim,
      citations,
      verdict: 'unsupported',
      reason: `the cited evidence does not name ${absentNames.map((n) => `"${n}"`).join(', ')}`,
    };
  // The question's words, and what a computed result printed, need no passage.
  const printed = new Set(computed.flatMap((c) => tokenizer.terms(c.text)));
  const terms = [...new Set(tokenizer.terms(units(quoted)))].filter((term) => !asked.has(term) && !printed.has(term));
  const found = terms.filter((term) => sourceTerms.has(term)).length;
  if (terms.length > 0 && found / terms.length < MIN_TERM_SUPPORT) {
    return { claim, citations, verdict: 'unsupported', reason: `only ${found} of its ${terms.length} key terms are in the cited evidence` };
  }
  const conflict = contradiction(quoted, cited);
  if (conflict) return { claim, citations, verdict: 'contradicted', reason: conflict };
  const computedNote = computedBy.length ? `; computed in ${computedBy.join(', ')}` : '';
  return {
    claim,
    citations,
    verdict: 'supported',
    reason: `its numbers, names and ${found} of ${terms.length} key terms are in ${citations.join(', ')}${computedNote}`,
  };
}

/**
 * Two cited passages that give different numbers for the same thing ("revenue of 55.2 million
 * euros" and "revenue of 54.9 million euros"): the number followed by the same unit word, after
 * the same key term, differs.
 */
function contradiction(claim: string, cited: string[]): string | undefined {
  if (cited.length < 2) return undefined;
  const claimTerms = new Set(tokenizer.terms(claim));
  const readings = new Map<string, Set<string>>();
  for (const text of cited) {
    for (const match of text.matchAll(/([\p{L}-]+)\s+(?:of|was|is|were|at|to)?\s*(?:€|\$|£)?(\d+(?:[.,]\d+)*)\s*([\p{L}%]+)/gu)) {
      const [subject] = tokenizer.terms(match[1]);
      const [unit] = tokenizer.terms(match[3]) ?? [];
      if (!subject || !claimTerms.has(subject)) continue;
      const key = `${subject} ${unit ?? match[3]}`;
      if (!readings.has(key)) readings.set(key, new Set());
      readings.get(key)!.add(match[2].replace(/,(?=\d{3}\b)/g, ''));
    }
  }
  for (const [key, values] of readings)
    if (values.size > 1) return `the cited passages disagree on ${key.split(' ')[0]}: ${[...values].join(' vs ')}`;
  return undefined;
}

/**
 * Every claim of the draft, and the plan's sub-questions it leaves unanswered without saying so.
 * Meta sentences are not claims; a claim written twice is checked (and reported) once.
 */
export function critiqueDraft(
  draft: string,
  evidence: EvidenceText,
  plan: readonly PlanItem[] = [],
  context: CritiqueContext = {},
): Critique {
  const seen = new Set<string>();
  const checks: ClaimCheck[] = [];
  for (const { claim, citations } of claimsOf(draft)) {
    if (isMetaSentence(claim)) continue;
    const check = checkClaim(claim, citations, evidence, context);
    const key = `${normalise(stripCitationMarkers(claim, ' ')).trim()}|${check.verdict}|${check.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    checks.push(check);
  }
  const text = normalise(draft);
  const openQuestions = plan
    .filter((item) => item.status !== 'answered')
    .filter((item) => !text.includes(`open: ${item.id.toLowerCase()}`) && !text.includes(normalise(item.question)))
    .map((item) => `${item.id}: ${item.question}`);
  return { checks, openQuestions };
}

/** A sentence about the report, not the world ("Here is what the documents say:"). */
export function isMetaSentence(claim: string): boolean {
  return META_SENTENCE.test(stripCitationMarkers(claim, ' ').trim());
}

export function hasFindings(critique: Critique): boolean {
  return (
    critique.openQuestions.length > 0 ||
    (critique.problems?.length ?? 0) > 0 ||
    critique.checks.some((check) => check.verdict !== 'supported')
  );
}

/** The critique's findings as the result reports them (`critique.findings`): one a claim, each once, and what went wrong with the critique itself. */
export function findingsOf(critique: Critique): Finding[] {
  const findings: Finding[] = critique.checks
    .filter((check) => check.verdict !== 'supported')
    .map((check) => ({ claim: check.claim, finding: check.reason, by: 'critique', verdict: check.verdict, citations: check.citations }));
  for (const problem of critique.problems ?? []) findings.push({ claim: '', finding: problem, by: 'critique' });
  return findings;
}

/** What the model must address, one finding a line. */
export function describeFindings(critique: Critique): string {
  const lines = critique.checks
    .filter((c) => c.verdict !== 'supported')
    .map((c, i) => `${i + 1}. [${c.verdict}] "${c.claim.slice(0, 200)}": ${c.reason}`);
  for (const problem of critique.problems ?? []) lines.push(`${lines.length + 1}. [critique] ${problem}`);
  for (const open of critique.openQuestions)
    lines.push(
      `${lines.length + 1}. [unanswered] sub-question ${open}: answer it from evidence or say it remains open ("Open: ${open.split(':')[0]} …")`,
    );
  return lines.join('\n');
}

/**
 * Marks every claim still not supported as uncertain (with why), and lists every sub-question left
 * unanswered as open. Only a model revising its own text may use this (the offline planner does);
 * Dossier never writes into a model's answer: the research run reports findings beside it.
 */
export function markFindings(draft: string, critique: Critique): string {
  let out = draft;
  let from = 0;
  for (const check of critique.checks) {
    // Claims come in draft order: each is looked for after the one before, so a repeated claim is marked where it is.
    let at = out.indexOf(check.claim, from);
    // Headings are not claims: a claim's text inside one ("## S1. … in 2024?") is not where it is.
    while (at >= 0 && /^#/.test(out.slice(out.lastIndexOf('\n', at) + 1))) at = out.indexOf(check.claim, at + 1);
    if (at < 0) continue;
    from = at + check.claim.length;
    if (check.verdict === 'supported') continue;
    const note = ` ${UNCERTAIN_MARK}: ${check.reason})`;
    // Inside the sentence, before its full stop, so the mark stays with the claim it qualifies.
    const stop = /[.!?](?=(?:\s*\[[^\]]*\])*\s*$)/.exec(check.claim);
    const cut = at + (stop ? stop.index : check.claim.length);
    out = out.slice(0, cut) + note + out.slice(cut);
    from += note.length;
  }
  if (critique.openQuestions.length)
    out += `\n\n${critique.openQuestions.map((q) => `Open: ${q} (not answered from the evidence)`).join('\n')}`;
  return out;
}
