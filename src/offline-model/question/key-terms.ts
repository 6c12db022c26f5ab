import type { Tokenizer } from '../../text/tokenize.ts';
import type { QuestionAnalysis } from './types.ts';

/**
 * A term the passage an answer comes from must cover: a thing the question names ("PHP",
 * "SessionMiddleware"), or a code identifier it writes (`max_age`, `httpx.get()`, `--preview`,
 * `BLACK_CACHE_DIR`). `terms` are its index terms; all of them must be present.
 */
export interface KeyTerm {
  text: string;
  kind: 'name' | 'identifier';
  terms: string[];
}

/**
 * What a how-to question asks to do something to: the object of its verb, up to the preposition
 * that ends it ("a maximum cyclomatic complexity" in "How do I configure a maximum cyclomatic
 * complexity with Black?"). Undefined for other questions.
 */
export function howToObject(analysis: QuestionAnalysis): string | undefined {
  if (analysis.type !== 'how-to') return undefined;
  return /^how (?:do|can|should|would|could) (?:i|you|we|one) \w+(?: (?:off|up|out|on|in))? (?:(?:a|an|the|my|our|your|every|each|all|any) )?(.+?)(?=,| (?:and|or|with|in|for|from|to|over|on|by|when|without|so|that|into|using|via|through|at|as|inside|within)\b|\?|$)/i.exec(
    analysis.question.trim(),
  )?.[1];
}

/**
 * Code identifiers as documentation writes them: `backticked`, dotted names (`requests.Session`,
 * `httpx.get()`), calls (`url_for()`), command-line flags (`--preview`), snake_case names,
 * CamelCase names (`TestClient`), and upper-case names with underscores (`BLACK_CACHE_DIR`).
 */
const IDENTIFIER =
  /`([^`]+)`|(?<![\w-])(--?[a-z][\w-]*)|\b([A-Za-z_]\w*(?:\.\w+)+)(?:\(\))?|\b([A-Za-z_]\w*)\(\)|\b([a-z]\w*_\w+)\b|\b([A-Z][a-z0-9]+[A-Z]\w*)\b|\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b/g;

/** A dotted name's own part is its last one: the module before it is where it lives (`httpx.TimeoutException`). */
function ownPart(identifier: string): string {
  const parts = identifier.replace(/\(\)$/, '').split('.');
  return /^\d/.test(parts[parts.length - 1]) ? identifier : parts[parts.length - 1];
}

/**
 * The question's key terms: its named things (a conjunction or a possessive splits a name in two:
 * "Starlette's TestClient" names Starlette and TestClient) and its code identifiers. Versions and
 * other numbers are not key terms: a passage about another version still names the thing.
 */
export function keyTermsOf(analysis: QuestionAnalysis, tokenizer: Tokenizer): KeyTerm[] {
  const keys: KeyTerm[] = [];
  const add = (text: string, kind: KeyTerm['kind']) => {
    const terms = tokenizer.terms(text).filter((term) => !/^\d/.test(term));
    if (terms.length === 0) return;
    const key = terms.join(' ');
    if (keys.some((known) => known.terms.join(' ') === key)) return;
    keys.push({ text, kind, terms });
  };
  for (const entity of analysis.entities)
    for (const part of entity.split(/['’]s\s+|\s+(?:and|or|vs\.?|versus)\s+/)) add(part.trim(), 'name');
  for (const match of analysis.question.matchAll(IDENTIFIER)) {
    const found = match.slice(1).find((group) => group !== undefined);
    if (found) add(ownPart(found), 'identifier');
  }
  return keys;
}
