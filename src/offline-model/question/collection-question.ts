/**
 * A question about the collection as a whole rather than about a thing in it: its main themes or
 * topics, what the documents are about, an overview. GraphRAG calls these global questions; they are
 * answered from the knowledge graph's community summaries, not from a passage that names the answer.
 */
const THEMES = /\b(?:main|key|major|central|common|recurring|principal)\s+(?:themes?|topics?|subjects?|ideas?|areas?)\b/i;
const ABOUT_THE_WHOLE =
  /\bwhat\s+(?:are|is)\s+(?:these|this|the|all)\s+(?:documents?|docs|documentation|collection|corpus|files?|texts?)\b[^?]*\babout\b/i;
const OVERVIEW =
  /\b(?:give|write|provide)\s+(?:me\s+)?an?\s+overview\b|\bsummari[sz]e\s+(?:these|the|this|all)\s+(?:documents?|docs|documentation|collection|corpus)\b/i;

export function isCollectionQuestion(question: string): boolean {
  return THEMES.test(question) || ABOUT_THE_WHOLE.test(question) || OVERVIEW.test(question);
}
