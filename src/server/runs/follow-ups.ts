import { entitiesIn } from '../../offline-model/index.ts';
import type { MessageRecord } from '../state/index.ts';
import { stripCitationMarkers } from '../../protocol/citations.ts';

const PERSON_PRONOUN = /\b(?:he|she|him|his|her|hers)\b/i;
const THING_PRONOUN = /\b(?:it|its|they|them|their|theirs)\b/i;

/**
 * A follow-up as a standalone question, without a model: "it", "its", "they", "their" become the
 * entity the last question was about; "he", "she", "his", "her" the person the last answer named
 * (else that entity). "Who founded Halvorsen Instruments?" → "When was it founded?" → "When was
 * Halvorsen Instruments founded?". A question with no such pronoun is already standalone.
 */
export function standaloneQuestion(question: string, history: readonly MessageRecord[]): string {
  const lastUser = [...history].reverse().find((m) => m.role === 'user');
  if (!lastUser || !(PERSON_PRONOUN.test(question) || THING_PRONOUN.test(question))) return question;
  const lastAnswer = [...history].reverse().find((m) => m.role === 'assistant');
  const topic = entitiesIn(lastUser.content)[0];
  const person = lastAnswer
    ? entitiesIn(stripCitationMarkers(lastAnswer.content.split('\n')[0] ?? '')).find((name) => name.includes(' '))
    : undefined;
  let out = question;
  const replace = (pattern: RegExp, name: string | undefined) => {
    if (!name) return;
    out = out.replace(new RegExp(pattern.source, 'i'), (word) => (/^(?:its|their|theirs|his|her|hers)$/i.test(word) ? `${name}'s` : name));
  };
  replace(THING_PRONOUN, topic);
  replace(PERSON_PRONOUN, person ?? topic);
  return out;
}
