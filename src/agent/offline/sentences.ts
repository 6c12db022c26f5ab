import { MIN_SENTENCE_CHARS } from './tuning.ts';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The sentences of a passage; hard-wrapped lines are one sentence, only blank lines and list items break one. */
export function sentencesOf(text: string): string[] {
  const unwrapped = text.replace(/([^\n])\n(?![\n\s]*(?:[-*•]|\d+[.)])\s)/g, '$1 ');
  return [...segmenter.segment(unwrapped)].map((s) => s.segment.trim()).filter((s) => s.length > MIN_SENTENCE_CHARS);
}
