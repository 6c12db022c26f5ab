import { communityThemes } from './answer/community-themes.ts';
import { isCollectionQuestion } from './question/collection-question.ts';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { streamResult } from '../protocol/stream-result.ts';
import { Tokenizer } from '../text/tokenize.ts';
import { listReadBeforeAnswer, readAnswer } from './answer/answer-composer.ts';
import { mayRead, nextReads, nextSearches } from './plan/planner.ts';
import { readPromptState } from './prompt-state.ts';
import { researchTurn } from './plan/research-planner.ts';
import { ANSWER_SENTENCES, MAX_ROUNDS, QUERIES_PER_ROUND, QUESTION_SEARCH_K } from './tuning.ts';
import { isNotFoundAnswer } from './answer/not-found.ts';
import { type DossierModelMetadata, providerMetadataOf } from '../protocol/model-metadata.ts';

/**
 * The offline model: an extractive planner behind the AI SDK model interface, so the agent loop
 * never knows it is not a language model. It is stateless — every decision is derived from the
 * prompt it is given (question, its earlier tool calls, the evidence in tool results;
 * prompt-state.ts) — which also makes recorded runs replay exactly.
 *
 * Plan (planner.ts): round 1 decomposes the question into several searches at once (the whole
 * question plus the named entities and quoted phrases in it); later rounds follow bridge entities —
 * names that appear in the new evidence but not in the question — and stop when a round brings no
 * new evidence or after `maxRounds`.
 *
 * Read on (list-items.ts): before answering a list question whose list a search result cut, or
 * that runs on to the end of its chunk, it reads the rest with get_content (the chunk whole, or the
 * next one of the same section; at most LIST_READS).
 *
 * Answer (answer-composer.ts, the reader): the question is analysed first (question.ts: its type,
 * the answer type it expects, its entities, options, calculation and multi-hop chain); the
 * supporting sentences are chosen from the best chain of one or two passages; then the direct
 * answer comes first — a span of the expected type (spans.ts: names, places, dates, numbers with
 * their unit, identifiers), a computed value with every operand cited (calculation.ts,
 * quantities.ts: exact decimals), the winner of a comparison, yes/no, the command or code block of
 * a how-to, the items of a list — followed by at most three supporting sentences, each citing its
 * evidence; or "Not found in the documents: …" naming what is missing, or a partial answer.
 * Sentence splitting (sentences.ts) keeps code blocks, lists, rows, abbreviations, versions and
 * identifiers whole. The answer carries no banner: the result names the model (`model: "offline"`).
 * Tuned numbers live in tuning.ts.
 */
export interface OfflineModelOptions {
  /** Search rounds before answering. */
  maxRounds?: number;
  /** Searches issued per round at most. */
  queriesPerRound?: number;
  /** Passages asked for by the whole-question search. */
  k?: number;
  /** Sentences in an answer at most. */
  answerSentences?: number;
  language?: string;
}

export class OfflineModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'dossier';
  readonly modelId = 'offline';
  readonly supportedUrls = {};
  private readonly tokenizer: Tokenizer;
  private readonly options: Required<Omit<OfflineModelOptions, 'language'>>;

  constructor(options: OfflineModelOptions = {}) {
    this.tokenizer = new Tokenizer({ language: options.language ?? 'english' });
    this.options = {
      maxRounds: options.maxRounds ?? MAX_ROUNDS,
      queriesPerRound: options.queriesPerRound ?? QUERIES_PER_ROUND,
      k: options.k ?? QUESTION_SEARCH_K,
      answerSentences: options.answerSentences ?? ANSWER_SENTENCES,
    };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { content, answeredBy, questionRule, closest } = this.decide(options);
    const outputTokens = content.reduce((sum, part) => sum + (part.type === 'text' ? part.text.split(/\s+/).length : 20), 0);
    const inputTokens = Math.round(JSON.stringify(options.prompt).length / 4);
    const answer = content.length === 1 && content[0].type === 'text' ? content[0].text : undefined;
    return {
      content,
      finishReason: { unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
      // Said in structure too: a not-found answer (the run then ends `no-evidence` without reading
      // words), which answerer gave it and which rule read the question (evaluations report both).
      providerMetadata:
        answer === undefined ? undefined : providerMetadataOf({ notFound: isNotFoundAnswer(answer), answeredBy, questionRule, closest }),
      usage: {
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
      },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions) {
    return streamResult(await this.doGenerate(options));
  }

  private decide(options: LanguageModelV3CallOptions): { content: LanguageModelV3Content[] } & DossierModelMetadata {
    const state = readPromptState(options.prompt);
    // Research mode (the run offers the planner's tools): plan, nested agents, python, critique, report.
    if ((options.tools ?? []).some((tool) => tool.name === 'rag') && (options.tools ?? []).some((tool) => tool.name === 'plan'))
      return { content: researchTurn(options, state.question, state.lastUserText), answeredBy: 'research-report' };
    const offers = (name: string) => (options.tools ?? []).some((tool) => tool.type === 'function' && tool.name === name);
    // One round of calls to one tool.
    const calls = (toolName: string, inputs: readonly object[], id: (i: number) => string) => ({
      content: inputs.map((input, i) => ({ type: 'tool-call' as const, toolCallId: id(i), toolName, input: JSON.stringify(input) })),
    });
    // A question about the whole collection is answered from the knowledge graph's communities, when the run has a graph.
    if (offers('search_graph') && isCollectionQuestion(state.question)) {
      if (state.communities.length === 0 && state.rounds === 0)
        return calls('search_graph', [{ query: state.question }], (i) => `offline-graph-${i}`);
      const themes = communityThemes(state.communities);
      if (themes) return { content: [{ type: 'text', text: themes }], answeredBy: 'graph-communities' };
    }
    // Searching is over once a chunk has been read whole: reads come after the searches.
    const searches =
      state.reads.length === 0
        ? nextSearches(state, this.tokenizer, { ...this.options, canSearch: offers('search_knowledge') })
        : undefined;
    if (searches) return calls('search_knowledge', searches, (i) => `offline-${state.rounds + 1}-${i}`);
    // Searches done: the sections the answer needs whole (a named thing's cut argument list, the rest of a cut list).
    const reads = state.reads.length === 0 ? nextReads(state, offers('get_content')) : [];
    const listRead = reads.length === 0 && mayRead(state, offers('get_content')) ? listReadBeforeAnswer(state, this.tokenizer) : undefined;
    const toRead = listRead ? [listRead] : reads;
    if (toRead.length > 0) return calls('get_content', toRead, (i) => `offline-read-${state.reads.length + i + 1}`);
    const { text, answeredBy, questionRule, closest } = readAnswer(state, this.tokenizer, this.options.answerSentences);
    return { content: [{ type: 'text', text }], answeredBy, questionRule, closest };
  }
}

export function createOfflineModel(options?: OfflineModelOptions): OfflineModel {
  return new OfflineModel(options);
}
