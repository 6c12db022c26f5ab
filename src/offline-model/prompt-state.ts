import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { parseEvidence } from '../evidence/evidence-format.ts';
import { OTHER_SEARCH_RANK_OFFSET } from './tuning.ts';

/** One evidence passage the agent has shown the model, with how the searches found it. */
export interface OfflineEvidence {
  id: string;
  title: string;
  text: string;
  /** Heading path of the passage within its document ("Staff directory › Coastal Team"). */
  at: string;
  /** Round in which it first appeared (1-based). */
  round: number;
  /** Best rank it had in any search's results (0 = first). */
  rank: number;
  /** Rank in the search for the whole question, if that search returned it. */
  questionRank?: number;
  /** Queries whose results included it. */
  foundBy: string[];
  /** Shown cut to a token budget (its fullest showing so far). */
  cut?: boolean;
  /** Where get_content reads it: its document and chunk ordinal. */
  address?: { documentId: number; ordinal: number };
}

/** Everything the offline model knows: what it reads back from the prompt alone (it keeps no state). */
export interface PromptState {
  question: string;
  lastUserText: string;
  /** Search rounds so far (assistant turns with tool calls). */
  rounds: number;
  /** Queries already searched, normalised. */
  queries: Set<string>;
  /** Passages already asked for whole with get_content ("documentId:from"). */
  reads: Set<string>;
  evidence: OfflineEvidence[];
}

/** A passage title without its disambiguation suffix: "Kiss and Tell (1945 film)" → "Kiss and Tell". */
export function plainTitle(title: string): string {
  return title.replace(/\s*\([^)]*\)\s*$/, '');
}

/** The passage is titled by the name, or by the name and the region that tells it apart ("Boston, Lincolnshire"). */
export function titledBy(passage: Pick<OfflineEvidence, 'title'>, name: string): boolean {
  const title = plainTitle(passage.title).toLowerCase();
  return title === name.toLowerCase() || title.split(/,\s+/)[0] === name.toLowerCase();
}

export function normaliseQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Evidence from the whole-question search ranks by that search; everything else after it. */
export function relevanceRank(evidence: OfflineEvidence): number {
  return evidence.questionRank ?? OTHER_SEARCH_RANK_OFFSET + evidence.rank;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : ''))
      .join('');
  return '';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads what the agent has done so far: the question, the searches made, the evidence they returned. */
export function readPromptState(prompt: LanguageModelV3Prompt): PromptState {
  const users = prompt.filter((message) => message.role === 'user');
  const question = textOf(users[0]?.content ?? '').trim();
  const lastUserText = textOf(users[users.length - 1]?.content ?? '').trim();
  let rounds = 0;
  const queries = new Set<string>();
  const reads = new Set<string>();
  const queryOfCall = new Map<string, string>();
  const evidence = new Map<string, OfflineEvidence>();
  for (const message of prompt) {
    if (message.role === 'assistant') {
      const calls = message.content.filter((part) => part.type === 'tool-call');
      if (calls.length === 0) continue;
      rounds++;
      for (const call of calls) {
        const input = typeof call.input === 'string' ? safeJson(call.input) : call.input;
        const query = (input as { query?: unknown } | undefined)?.query;
        const { documentId, from } = (input ?? {}) as { documentId?: unknown; from?: unknown };
        if (call.toolName === 'get_content' && typeof documentId === 'number')
          reads.add(`${documentId}:${typeof from === 'number' ? from : 0}`);
        if (typeof query === 'string') {
          queries.add(normaliseQuery(query));
          queryOfCall.set(call.toolCallId, query);
        }
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const output = part.output;
        const text = output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
        const query = queryOfCall.get(part.toolCallId) ?? '';
        const isQuestion = normaliseQuery(query) === normaliseQuery(question);
        parseEvidence(text).forEach((block, rank) => {
          const known = evidence.get(block.id);
          // A reference (shown above) adds no text: only that this search found the passage too.
          if (block.reference && !known) return;
          if (known) {
            // The same passage may be shown cut to different budgets: keep the fullest text seen.
            if (block.text.length > known.text.length) {
              known.text = block.text;
              known.cut = block.cut;
            }
            known.rank = Math.min(known.rank, rank);
            if (isQuestion) known.questionRank = Math.min(known.questionRank ?? rank, rank);
            if (query && !known.foundBy.includes(query)) known.foundBy.push(query);
          } else {
            evidence.set(block.id, {
              id: block.id,
              title: block.title,
              at: block.at,
              text: block.text,
              round: rounds,
              rank,
              foundBy: query ? [query] : [],
              ...(isQuestion ? { questionRank: rank } : {}),
              ...(block.cut ? { cut: true } : {}),
              ...(block.documentId !== undefined && block.ordinal !== undefined
                ? { address: { documentId: block.documentId, ordinal: block.ordinal } }
                : {}),
            });
          }
        });
      }
    }
  }
  return { question, lastUserText, rounds, queries, reads, evidence: [...evidence.values()] };
}
