/**
 * The offline reader's one wording for "the documents do not answer this". Its answers that open with
 * it are declared not found to the agent in structure (protocol/not-found.ts), so nothing outside
 * the offline model reads the words.
 */
export const NOT_FOUND_LEAD = 'Not found in the documents';

export function isNotFoundAnswer(text: string): boolean {
  return text.startsWith(NOT_FOUND_LEAD);
}
