import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { parseEvidence, parseGraphCommunities, type GraphCommunityLine } from '../evidence/evidence-format.ts';
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
  /** Its heading path alone, without a page ("Teams › Coastal Team"): two chunks of one section share it. */
  section?: string;
  /** Its address in the index (what get_content reads): document id and chunk ordinal. */
  documentId?: number;
  ordinal?: number;
  /** Its fullest text seen was cut to a budget; `gaps` are where in `text` something was left out. */
  cut?: boolean;
  gaps?: number[];
}

/** A get_content call made: the chunks of one document it asked for. */
export interface ContentRead {
  documentId: number;
  from: number;
  to: number;
}

/** Everything the offline model knows: what it reads back from the prompt alone (it keeps no state). */
export interface PromptState {
  question: string;
  lastUserText: string;
  /** Search rounds so far (assistant turns with tool calls other than get_content). */
  rounds: number;
  /** get_content calls made so far, in order. */
  reads: ContentRead[];
  /** Chunks per document, as get_content results said ("has 12 chunks"). */
  chunkCounts: Map<number, number>;
  /** Queries already searched, normalised. */
  queries: Set<string>;
  evidence: OfflineEvidence[];
  /** Communities of the knowledge graph that search_graph showed, with the evidence ids their summaries cite. */
  communities: GraphCommunityLine[];
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
  const queryOfCall = new Map<string, string>();
  const readCalls = new Set<string>();
  const reads: ContentRead[] = [];
  const chunkCounts = new Map<number, number>();
  const evidence = new Map<string, OfflineEvidence>();
  const communities: GraphCommunityLine[] = [];
  for (const message of prompt) {
    if (message.role === 'assistant') {
      const calls = message.content.filter((part) => part.type === 'tool-call');
      if (calls.length === 0) continue;
      // Reading chunks whole is no search round: the rounds count what the planner searched.
      if (calls.some((call) => call.toolName !== 'get_content')) rounds++;
      for (const call of calls) {
        const input = typeof call.input === 'string' ? safeJson(call.input) : call.input;
        if (call.toolName === 'get_content') {
          const read = readOf(input);
          if (read) reads.push(read);
          readCalls.add(call.toolCallId);
          continue;
        }
        const query = (input as { query?: unknown } | undefined)?.query;
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
        const isRead = readCalls.has(part.toolCallId);
        const count = isRead ? /^Document (\d+) .* has (\d+) chunks/.exec(text) : null;
        if (count) chunkCounts.set(Number(count[1]), Number(count[2]));
        communities.push(...parseGraphCommunities(text));
        parseEvidence(text).forEach((block, rank) => {
          const known = evidence.get(block.id);
          // A reference (shown above) adds no text: only that this search found the passage too.
          if (block.reference && !known) return;
          if (known) {
            // The same passage may be shown cut to different budgets: keep the fullest text seen.
            if (block.text.length > known.text.length) Object.assign(known, { text: block.text, cut: block.cut, gaps: block.gaps });
            // A chunk read whole ranks as its searches ranked it: reading it is no search.
            if (isRead) return;
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
              section: block.headingPath.join(' › '),
              ...(block.documentId !== undefined ? { documentId: block.documentId } : {}),
              ...(block.ordinal !== undefined ? { ordinal: block.ordinal } : {}),
              cut: block.cut,
              gaps: block.gaps,
            });
          }
        });
      }
    }
  }
  return { question, lastUserText, rounds, reads, chunkCounts, queries, evidence: [...evidence.values()], communities };
}

/** A get_content call's input as the chunks it reads (`to` defaults to `from`, as the tool reads it). */
function readOf(input: unknown): ContentRead | undefined {
  const { documentId, from, to } = (input ?? {}) as { documentId?: unknown; from?: unknown; to?: unknown };
  if (typeof documentId !== 'number' || typeof from !== 'number') return undefined;
  return { documentId, from, to: typeof to === 'number' ? to : from };
}
