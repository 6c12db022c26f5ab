/**
 * Two-part questions ("Which flag turns it on, and what do I need to install for it?"): two
 * questions joined by "and", each opening with its own question word. Each part is answered on its
 * own and the answers are shown part by part; a part that repeats no subject borrows the first
 * part's (its "it" is the first part's subject).
 */

/** Words that open a question (or a part of one). */
const QUESTION_OPENING =
  /^(?:what|what's|which|who|whom|whose|where|when|why|how|does|do|did|is|are|was|were|can|could|should|will|would|in which|from which|at which|on which|to which)\b/i;

/** The two parts of a two-part question, each a question of its own; undefined for any other question. */
export function questionParts(question: string): [string, string] | undefined {
  const q = question.trim();
  if (!QUESTION_OPENING.test(q)) return undefined;
  // Split at the last ", and <question word>" (or "; <question word>"): the second part is a question of its own.
  const joint =
    /(?:,\s*and|;\s*(?:and\s+)?)\s+(?=(?:what|what's|which|who|whose|where|when|why|how|does|do|did|is|are|was|were|can|in which|from which)\b)/gi;
  let at: { index: number; length: number } | undefined;
  for (const match of q.matchAll(joint)) at = { index: match.index!, length: match[0].length };
  if (!at) return undefined;
  const first = q.slice(0, at.index).trim();
  const second = q.slice(at.index + at.length).trim();
  if (first.split(/\s+/).length < 3 || second.split(/\s+/).length < 3) return undefined;
  const asQuestion = (part: string) => `${part.charAt(0).toUpperCase()}${part.slice(1).replace(/\?*$/, '')}?`;
  return [asQuestion(first), asQuestion(second)];
}

/**
 * The clauses of a question that asks several things ("Which exception is raised, what is its
 * parent class, and which base class catches both?"): split where a comma, a semicolon or "and"
 * is followed by a question word. One clause for a question that asks one thing.
 */
export function questionClauses(question: string): string[] {
  return question
    .trim()
    .split(
      /(?:[,;]\s*(?:and\s+)?|\s+and\s+)(?=(?:what|what's|which|who|whose|where|when|why|how|does|do|did|is|are|was|were|can|in which|from which)\b)/i,
    )
    .map((clause) => clause.trim())
    .filter((clause) => clause.length > 0);
}
