import { citedIds } from './citations.ts';
import type { ClaimCheck, PlanItem } from '../protocol/events.ts';
import { Tokenizer } from '../text/tokenize.ts';
import { stripCitationMarkers } from '../protocol/citations.ts';

/**
 * The critique: checks a draft against the evidence, claim by claim. A claim is a sentence of the
 * draft that states something (headings, "not found" statements and claims already marked
 * uncertain are not claims to check). Each is checked lexically against the passages it cites: its
 * numbers and names must be in them, and most of its key terms. This is what the offline critique
 * does, and what gates every research answer whatever the model; a language model's own critique
 * (the `critique` tool with a real model) adds to it, never replaces it.
 */
export interface Critique {
  checks: ClaimCheck[];
  /** Sub-questions of the plan the draft neither answers nor marks as open. */
  openQuestions: string[];
}

/** Text of a cited evidence id, or undefined when the id resolves to nothing. */
export type EvidenceText = (id: string) => string | undefined;

/** Share of a claim's key terms its cited passages must contain. */
const MIN_TERM_SUPPORT = 0.5;
/** A claim marked like this has been addressed: it is shown as uncertain, not as fact. */
export const UNCERTAIN_MARK = '(uncertain';
const NOT_A_CLAIM = /^(?:#|Open:|Not found in the documents|The run (?:failed|stopped|was aborted)|Waiting for approval|Sources\b|Offline reasoning\b)/i;
const NUMBER = /(?<![\w.])\d+(?:[.,]\d+)*(?![\w])/g;
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

function normalise(text: string): string {
  return text.toLowerCase().replace(/[\u2212\u2013]/g, '-').replace(/\s+/g, ' ');
}

/** Numbers as written, without thousands separators ("1,462" and "1462" are the same number). */
function numbersIn(text: string): string[] {
  return [...stripCitationMarkers(text, ' ').matchAll(NUMBER)].map((m) => m[0].replace(/,(?=\d{3}\b)/g, ''));
}

/** One claim against the passages it cites. */
export function checkClaim(claim: string, citations: string[], evidence: EvidenceText): ClaimCheck {
  if (claim.toLowerCase().includes(UNCERTAIN_MARK)) return { claim, citations, verdict: 'supported', reason: 'marked uncertain by the draft' };
  if (citations.length === 0) return { claim, citations, verdict: 'uncited', reason: 'no evidence id is cited' };
  const missing = citations.filter((id) => evidence(id) === undefined);
  if (missing.length) return { claim, citations, verdict: 'unresolved', reason: `${missing.join(', ')} ${missing.length > 1 ? 'resolve' : 'resolves'} to no evidence` };
  const cited = citations.map((id) => evidence(id)!);
  const source = normalise(cited.join('\n'));
  const sourceNumbers = new Set(numbersIn(cited.join('\n')));
  const bare = stripCitationMarkers(claim, ' ');
  // A calculation's result is computed, not quoted: only its operands (left of "=") must be in the sources.
  const quoted = bare.includes('=') ? bare.slice(0, bare.lastIndexOf('=')) : bare;
  const absentNumbers = numbersIn(quoted).filter((n) => !sourceNumbers.has(n) && !source.includes(n));
  if (absentNumbers.length) return { claim, citations, verdict: 'unsupported', reason: `the cited evidence has no ${absentNumbers.map((n) => `"${n}"`).join(', ')}` };
  const absentNames = [...new Set([...` ${quoted}`.matchAll(NAME)].map((m) => m[0].replace(/['’]s$/, '')))].filter((name) => !source.includes(name.toLowerCase()) && !/^(?:I|The|A|An)$/.test(name));
  if (absentNames.length) return { claim, citations, verdict: 'unsupported', reason: `the cited evidence does not name ${absentNames.map((n) => `"${n}"`).join(', ')}` };
  const terms = [...new Set(tokenizer.terms(quoted))];
  const sourceTerms = new Set(tokenizer.terms(cited.join('\n')));
  const found = terms.filter((term) => sourceTerms.has(term)).length;
  if (terms.length > 0 && found / terms.length < MIN_TERM_SUPPORT) {
    return { claim, citations, verdict: 'unsupported', reason: `only ${found} of its ${terms.length} key terms are in the cited evidence` };
  }
  const conflict = contradiction(quoted, cited);
  if (conflict) return { claim, citations, verdict: 'contradicted', reason: conflict };
  return { claim, citations, verdict: 'supported', reason: `its numbers, names and ${found} of ${terms.length} key terms are in ${citations.join(', ')}` };
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
  for (const [key, values] of readings) if (values.size > 1) return `the cited passages disagree on ${key.split(' ')[0]}: ${[...values].join(' vs ')}`;
  return undefined;
}

/** Every claim of the draft, and the plan's sub-questions it leaves unanswered without saying so. */
export function critiqueDraft(draft: string, evidence: EvidenceText, plan: readonly PlanItem[] = []): Critique {
  const checks = claimsOf(draft).map(({ claim, citations }) => checkClaim(claim, citations, evidence));
  const text = normalise(draft);
  const openQuestions = plan
    .filter((item) => item.status !== 'answered')
    .filter((item) => !text.includes(`open: ${item.id.toLowerCase()}`) && !text.includes(normalise(item.question)))
    .map((item) => `${item.id}: ${item.question}`);
  return { checks, openQuestions };
}

export function hasFindings(critique: Critique): boolean {
  return critique.openQuestions.length > 0 || critique.checks.some((check) => check.verdict !== 'supported');
}

/** What the model must address, one finding a line. */
export function describeFindings(critique: Critique): string {
  const lines = critique.checks.filter((c) => c.verdict !== 'supported').map((c, i) => `${i + 1}. [${c.verdict}] "${c.claim.slice(0, 200)}": ${c.reason}`);
  for (const open of critique.openQuestions) lines.push(`${lines.length + 1}. [unanswered] sub-question ${open}: answer it from evidence or say it remains open ("Open: ${open.split(':')[0]} …")`);
  return lines.join('\n');
}

/**
 * Addresses what is left after the review rounds: every claim still not supported is marked as
 * uncertain (with why), and every sub-question left unanswered is listed as open.
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
  if (critique.openQuestions.length) out += `\n\n${critique.openQuestions.map((q) => `Open: ${q} (not answered from the evidence)`).join('\n')}`;
  return out;
}
