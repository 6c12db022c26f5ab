/**
 * Questions for the arguments of a named thing: "What arguments does SessionMiddleware accept?",
 * "List the SessionMiddleware arguments", "Which parameters does url_for take?" — all ask for the
 * same list, the one of the thing they name.
 */

/** The question's noun for what X takes. */
const PARAMETER_NOUN = /\b(?:arguments?|args|parameters?|params|keyword arguments|kwargs|options)\b/i;

/** A name in the question that reads as code: CamelCase, snake_case, dotted, called, or quoted in backticks. */
const CODE_NAME = /^(?:[A-Za-z_][\w]*\.)*(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z0-9]*_\w+|[A-Za-z_]\w*\.\w+|[A-Za-z_]\w*\(\))$/;

/** The thing the question asks the arguments of ("SessionMiddleware"), when it asks for them; `code` when it reads as code. */
export function parameterOwner(question: string): { name: string; code: boolean } | undefined {
  if (!PARAMETER_NOUN.test(question)) return undefined;
  const words = question
    .replace(/[?!.,;]+$/, '')
    .split(/\s+/)
    .map((word) => word.replace(/^[`'"“(]+|[`'"”),:;]+$|'s$/g, ''))
    .filter((word, i) => i > 0 && !PARAMETER_NOUN.test(word));
  const code = words.filter((word) => CODE_NAME.test(word));
  if (code.length === 1) return { name: code[0], code: true };
  // A plain capitalised name ("Margin") counts only for a section headed by it.
  const capitalised = words.filter((word) => /^\p{Lu}\p{Ll}+$/u.test(word));
  return code.length === 0 && capitalised.length === 1 ? { name: capitalised[0], code: false } : undefined;
}

const nameOf = (name: string) =>
  name
    .replace(/\(.*\)$/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_]/gu, '');

/** A section is the owner's when its own heading (the last of its heading path) is the owner's name, or a word of it is. */
export function headedBy(at: string, owner: string): boolean {
  const heading = (at.split(' › ').pop() ?? '').replace(/`/g, '').trim();
  return nameOf(heading) === nameOf(owner) || heading.split(/\s+/).some((word) => nameOf(word) === nameOf(owner));
}
