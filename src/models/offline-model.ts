import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { FENCE_CLOSE, FENCE_OPEN } from '../agent/tools/format.ts';
import { Tokenizer } from '../text/tokenize.ts';
import { streamResult } from './stream-result.ts';

/**
 * The offline model: an extractive planner behind the AI SDK model interface, so the agent loop
 * never knows it is not a language model. It is stateless — every decision is derived from the
 * prompt it is given (question, its earlier tool calls, the evidence in tool results) — which
 * also makes recorded runs replay exactly.
 *
 * Plan: round 1 decomposes the question into several searches at once (the whole question plus
 * the named entities and quoted phrases in it); later rounds follow bridge entities — names that
 * appear in the new evidence but not in the question — and stop when a round brings no new
 * evidence or after `maxRounds`. The answer is extractive: the sentences of the evidence that best
 * cover the question's terms, each citing the evidence it came from, or "not found in the
 * documents" when nothing relevant exists.
 */
export interface OfflineModelOptions {
  /** Search rounds before answering. */
  maxRounds?: number;
  /** Searches issued per round at most. */
  queriesPerRound?: number;
  /** Passages asked per search. */
  k?: number;
  /** Sentences in an answer at most. */
  answerSentences?: number;
  language?: string;
}

interface Evidence {
  id: string;
  title: string;
  text: string;
  /** Round in which it first appeared (1-based). */
  round: number;
  /** Best rank it had in any search's results (0 = first). */
  rank: number;
  /** Rank in the search for the whole question, if that search returned it. */
  questionRank?: number;
  /** Heading path of the passage within its document ("Staff directory › Coastal Team"). */
  at: string;
  /** Queries whose results included it. */
  foundBy: string[];
}

const OFFLINE_NOTICE = 'Offline extractive answer (Dossier offline model, no language model configured):';
const NOT_FOUND = 'Not found in the documents: none of the retrieved passages answers the question.';

const QUESTION_WORDS = new Set(
  'what which who whom whose when where why how is are was were do does did the a an in of on for to and or by with from at as that this these those name'.split(' '),
);

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
      maxRounds: options.maxRounds ?? 2,
      queriesPerRound: options.queriesPerRound ?? 8, // 5, 6, 8 tried on HotpotQA dev questions 0–99; 8 read the most gold paragraphs
      k: options.k ?? 6,
      answerSentences: options.answerSentences ?? 3,
    };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const content = this.decide(options);
    const outputTokens = content.reduce((sum, part) => sum + (part.type === 'text' ? part.text.split(/\s+/).length : 20), 0);
    const inputTokens = Math.round(JSON.stringify(options.prompt).length / 4);
    return {
      content,
      finishReason: { unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
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


  private decide(options: LanguageModelV3CallOptions): LanguageModelV3Content[] {
    const state = readPrompt(options.prompt);
    const canSearch = (options.tools ?? []).some((tool) => tool.type === 'function' && tool.name === 'search_knowledge');
    const wantsAnswer = !canSearch || state.lastUserText !== state.question;
    if (!wantsAnswer && state.rounds < this.options.maxRounds) {
      const planned = state.rounds === 0 ? this.firstQueries(state.question) : this.bridgeQueries(state);
      const fresh = planned.filter((search) => !state.queries.has(normalise(search.query))).slice(0, this.options.queriesPerRound);
      const lastRoundAddedEvidence = state.rounds === 0 || state.evidence.some((e) => e.round === state.rounds);
      if (fresh.length > 0 && lastRoundAddedEvidence) {
        return fresh.map((search, i) => ({
          type: 'tool-call' as const,
          toolCallId: `offline-${state.rounds + 1}-${i}`,
          toolName: 'search_knowledge',
          input: JSON.stringify(search),
        }));
      }
    }
    return [{ type: 'text', text: this.compose(state) }];
  }

  /** The whole question, plus each named entity or quoted phrase in it as its own, narrower search. */
  private firstQueries(question: string): { query: string; k: number }[] {
    return [{ query: question, k: this.options.k }, ...entitiesIn(question).slice(0, 3).map((entity) => ({ query: entity, k: 3 }))];
  }

  /**
   * Names in the evidence most relevant to the question that the question does not mention: the
   * hop to the next document (the "bridge"). Searched by name alone, since a document about a
   * thing usually carries its name in its title.
   */
  private bridgeQueries(state: PromptState): { query: string; k: number }[] {
    const questionTerms = new Set(this.tokenizer.terms(state.question));
    const sources = [...state.evidence].sort((a, b) => relevanceRank(a) - relevanceRank(b)).slice(0, 3);
    const candidates = new Map<string, number>();
    sources.forEach((evidence, position) => {
      const weight = 1 / (1 + position);
      const ownTitle = new Set(this.tokenizer.terms(evidence.title));
      for (const [i, name] of entitiesIn(evidence.text).entries()) {
        const terms = this.tokenizer.terms(name);
        if (terms.length === 0 || terms.every((term) => questionTerms.has(term))) continue;
        if (terms.filter((term) => ownTitle.has(term)).length * 2 >= terms.length) continue; // the passage naming itself
        if (state.evidence.some((e) => normalise(e.title) === normalise(name))) continue; // already read
        // Multi-word names are far likelier to be the next document's title than a lone word ("American").
        const specificity = terms.length > 1 ? 1 : 0.4;
        candidates.set(name, (candidates.get(name) ?? 0) + (weight * specificity) / (1 + 0.1 * i));
      }
    });
    return [...candidates.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, this.options.queriesPerRound)
      .map(([name]) => ({ query: name, k: 2 }));
  }

  private compose(state: PromptState): string {
    if (state.evidence.length === 0) return `${OFFLINE_NOTICE} ${NOT_FOUND}`;
    const score = this.scorer(state);
    // The best chain of two passages: one that matches the question, and one that it leads to
    // (its title is named in the first) or that the question names too (comparisons).
    const questionLower = state.question.toLowerCase();
    let best: { first: Evidence; second?: Evidence; value: number } = { first: state.evidence[0], value: -Infinity };
    for (const first of state.evidence) {
      const single = score.passage(first) + 0.15 / (1 + relevanceRank(first));
      if (single > best.value) best = { first, value: single };
      for (const second of state.evidence) {
        if (second === first) continue;
        // Linked when the first passage names the second's title, or names what the second is about
        // (a bridge search whose name is the second passage's title or heading).
        const about = `${second.title} ${second.at}`.toLowerCase();
        const bridged = Math.max(
          linkStrength(first.text, second.title),
          // Only names taken from evidence count: a name the question itself gives links nothing.
          ...second.foundBy.filter((q) => !questionLower.includes(q.toLowerCase()) && about.includes(q.toLowerCase())).map((q) => linkStrength(first.text, q)),
        );
        const named = questionLower.includes(second.title.toLowerCase()) && questionLower.includes(first.title.toLowerCase()) ? 1 : 0;
        const link = Math.max(bridged, named);
        if (link === 0) continue;
        const value = single + 0.8 * score.passage(second, first) + 0.3 * link;
        if (value > best.value) best = { first, second, value };
      }
    }
    const chain = [best.first, ...(best.second ? [best.second] : [])];
    // Half or more of the question's weight, two terms at least, missing from every passage: it asks
    // about something the documents lack (one missing word is more often a synonym than a gap).
    const absent = score.absent();
    if ((absent.share > 0.5 && absent.terms >= 2) || score.coverage(chain) < 0.25) return `${OFFLINE_NOTICE} ${NOT_FOUND}`;
    // Sentences chosen greedily by what they add to the question's coverage: the chain's passages
    // first (a multi-hop answer needs both hops), then any other passage that still adds something.
    const pool = [...chain, ...state.evidence.filter((e) => !chain.includes(e))];
    // The names that led from the first hop to the second: the sentence that names them is the answer's hinge.
    const bridgeNames = best.second ? [best.second.title.replace(/\s*\([^)]*\)\s*$/, ''), ...best.second.foundBy].map((name) => name.toLowerCase()).filter((name) => name !== state.question.toLowerCase()) : [];
    const chosen: { evidence: Evidence; text: string }[] = [];
    const covered = new Set<string>();
    for (let round = 0; round < this.options.answerSentences; round++) {
      let pick: { evidence: Evidence; text: string; gain: number; terms: string[] } | undefined;
      for (const evidence of pool) {
        const inChain = chain.includes(evidence);
        for (const sentence of sentencesOf(evidence.text)) {
          if (chosen.some((c) => c.text === sentence)) continue;
          const terms = score.sentenceTerms(evidence, sentence);
          const namesBridge = evidence === best.second && bridgeNames.some((name) => sentence.toLowerCase().includes(name));
          const gain =
            score.gain(terms, covered, evidence) * (inChain ? 1 : 0.7) +
            (inChain && !chosen.some((c) => c.evidence === evidence) ? 0.05 : 0) +
            (namesBridge && !chosen.some((c) => c.evidence === evidence) ? 0.15 : 0) +
            // Ties go to the passage the search ranked higher for the whole question.
            0.02 / (1 + relevanceRank(evidence));
          if (!pick || gain > pick.gain) pick = { evidence, text: sentence, gain, terms };
        }
      }
      if (!pick || pick.gain < (round === 0 ? 0.05 : 0.12)) break;
      chosen.push(pick);
      for (const term of [...pick.terms, ...score.context(pick.evidence)]) covered.add(term);
    }
    if (chosen.length === 0) return `${OFFLINE_NOTICE} ${NOT_FOUND}`;
    return `${OFFLINE_NOTICE}\n${chosen.map((item) => `${item.text.trim()} [${item.evidence.id}]`).join('\n')}`;
  }

  /** Term-overlap scoring with weights from the evidence at hand (rare question terms weigh more). */
  private scorer(state: PromptState) {
    const termsOf = new Map<Evidence, Set<string>>();
    const documentFrequency = new Map<string, number>();
    for (const evidence of state.evidence) {
      const terms = new Set(this.tokenizer.terms(`${evidence.title} ${evidence.at} ${evidence.text}`));
      termsOf.set(evidence, terms);
      for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    const n = state.evidence.length;
    const weight = (term: string) => Math.log(1 + (n + 1) / ((documentFrequency.get(term) ?? 0) + 0.5));
    const wanted = new Map(this.tokenizer.terms(state.question).map((term) => [term, weight(term)]));
    const total = [...wanted.values()].reduce((a, b) => a + b, 0) || 1;
    const covered = (terms: Set<string>, exclude?: Set<string>) => {
      let sum = 0;
      for (const [term, w] of wanted) if (terms.has(term) && !exclude?.has(term)) sum += w;
      return sum / total;
    };
    const everything = new Set(state.evidence.flatMap((e) => [...termsOf.get(e)!]));
    const contextTerms = new Map(state.evidence.map((e) => [e, new Set(this.tokenizer.terms(`${e.title} ${e.at}`))]));
    return {
      /** Share of the question's weight that no evidence mentions at all: the question asks about something else. */
      /** Share of the question's weight no evidence mentions, and how many distinct terms that is. */
      absent: () => {
        let weight = 0;
        let terms = 0;
        for (const [term, w] of wanted) {
          if (everything.has(term)) continue;
          weight += w;
          terms++;
        }
        return { share: weight / total, terms };
      },
      sentenceTerms: (_evidence: Evidence, sentence: string) => [...new Set(this.tokenizer.terms(sentence))],
      context: (evidence: Evidence) => contextTerms.get(evidence)!,
      /** Question weight a sentence adds beyond what is covered; its passage's title and headings count half. */
      gain: (terms: string[], already: Set<string>, evidence: Evidence) => {
        let sum = 0;
        const own = new Set(terms);
        for (const [term, w] of wanted) {
          if (already.has(term)) continue;
          if (own.has(term)) sum += w;
          else if (contextTerms.get(evidence)!.has(term)) sum += w / 2;
        }
        return sum / total;
      },
      /** Share of the question's weight this passage covers (not counting what `after` already covers). */
      passage: (evidence: Evidence, after?: Evidence) => covered(termsOf.get(evidence)!, after ? termsOf.get(after) : undefined),
      coverage: (chain: Evidence[]) => covered(new Set(chain.flatMap((e) => [...termsOf.get(e)!]))),
      bestSentence: (evidence: Evidence, after?: Evidence) => {
        const exclude = after ? termsOf.get(after) : undefined;
        const titleTerms = new Set(this.tokenizer.terms(evidence.title));
        let best = { text: evidence.text.slice(0, 300), coverage: 0 };
        for (const sentence of sentencesOf(evidence.text)) {
          const terms = new Set([...this.tokenizer.terms(sentence), ...titleTerms]);
          const coverage = covered(terms, exclude) + (after ? 0.01 : 0);
          if (coverage > best.coverage) best = { text: sentence, coverage };
        }
        return best;
      },
    };
  }
}

/** How strongly a passage names another passage's title: 1 for the full title, less for most of its words. */
function linkStrength(text: string, title: string): number {
  const plain = title.replace(/\s*\([^)]*\)\s*$/, '').trim(); // "Kiss and Tell (1945 film)" → "Kiss and Tell"
  if (plain.length < 3) return 0;
  if (text.toLowerCase().includes(plain.toLowerCase())) return 1;
  const words = plain.split(/\s+/).filter((w) => w.length > 3);
  if (words.length < 2) return 0;
  const found = words.filter((w) => text.toLowerCase().includes(w.toLowerCase())).length;
  return found / words.length >= 0.75 ? 0.5 : 0;
}

/** Evidence from the whole-question search ranks by that search; everything else after it. */
function relevanceRank(evidence: Evidence): number {
  return evidence.questionRank ?? 10 + evidence.rank;
}

export function createOfflineModel(options?: OfflineModelOptions): OfflineModel {
  return new OfflineModel(options);
}

interface PromptState {
  question: string;
  lastUserText: string;
  rounds: number;
  queries: Set<string>;
  evidence: Evidence[];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
  return '';
}

/** Reads what the agent has done so far from the prompt alone. */
function readPrompt(prompt: LanguageModelV3Prompt): PromptState {
  const users = prompt.filter((message) => message.role === 'user');
  const question = textOf(users[0]?.content ?? '').trim();
  const lastUserText = textOf(users[users.length - 1]?.content ?? '').trim();
  let rounds = 0;
  const queries = new Set<string>();
  const queryOfCall = new Map<string, string>();
  const evidence = new Map<string, Evidence>();
  for (const message of prompt) {
    if (message.role === 'assistant') {
      const calls = message.content.filter((part) => part.type === 'tool-call');
      if (calls.length === 0) continue;
      rounds++;
      for (const call of calls) {
        const input = typeof call.input === 'string' ? safeJson(call.input) : call.input;
        const query = (input as { query?: unknown } | undefined)?.query;
        if (typeof query === 'string') {
          queries.add(normalise(query));
          queryOfCall.set(call.toolCallId, query);
        }
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const output = part.output;
        const text = output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
        const query = queryOfCall.get(part.toolCallId) ?? '';
        const isQuestion = normalise(query) === normalise(question);
        parseEvidence(text).forEach((block, rank) => {
          const known = evidence.get(block.id);
          if (known) {
            known.rank = Math.min(known.rank, rank);
            if (isQuestion) known.questionRank = Math.min(known.questionRank ?? rank, rank);
            if (query && !known.foundBy.includes(query)) known.foundBy.push(query);
          } else evidence.set(block.id, { ...block, round: rounds, rank, foundBy: query ? [query] : [], ...(isQuestion ? { questionRank: rank } : {}) });
        });
      }
    }
  }
  return { question, lastUserText, rounds, queries, evidence: [...evidence.values()] };
}

const EVIDENCE_BLOCK = new RegExp(`${FENCE_OPEN} id=(E\\d+) title="([^"]*)"(?: at="([^"]*)")?[^\\n]*\\n([\\s\\S]*?)\\n${FENCE_CLOSE}`, 'g');

function parseEvidence(text: string): { id: string; title: string; at: string; text: string }[] {
  return [...text.matchAll(EVIDENCE_BLOCK)].map((match) => ({ id: match[1], title: match[2], at: match[3] ?? '', text: match[4].replace(/ …$/, '') }));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function normalise(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

const MONTHS = /^(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)$/;
const CONNECTORS = new Set(['of', 'the', 'for', 'and', 'de', 'von', 'van', 'la', 'le', 'du', 'del', 'da', 'di', '&']);

/**
 * Named entities the cheap way: quoted phrases and runs of capitalised words (allowing "of", "the",
 * "and", "de" … inside, like "Bank of England"). A run never crosses a sentence end; leading
 * numbers ("17-year-old"), dates and a lone sentence-initial word are dropped.
 */
export function entitiesIn(text: string): string[] {
  const found: string[] = [];
  const add = (entity: string) => {
    const clean = entity.replace(/^[\s"“'‘(]+|[\s"”'’),;:]+$/g, '').replace(/\.$/, (dot) => (/\b[A-Z]\.$/.test(entity) ? dot : '')).trim();
    if (clean.length < 3 || found.includes(clean)) return;
    if (/^[\d\s,.–-]+$/.test(clean) || clean.split(/\s+/).every((word) => MONTHS.test(word) || /^\d/.test(word))) return;
    found.push(clean);
  };
  for (const match of text.matchAll(/["“]([^"”]{2,80})["”]/g)) add(match[1]);
  for (const sentence of text.split(/(?<=[.!?])\s+(?=[A-Z"“])/)) {
    const words = sentence.split(/\s+/);
    let run: string[] = [];
    const flush = (index: number) => {
      while (run.length && CONNECTORS.has(run[run.length - 1].toLowerCase())) run.pop();
      while (run.length && /^\d/.test(run[0])) run.shift(); // "17-year-old Shirley Temple" → "Shirley Temple"
      const startsSentence = index - run.length === 0;
      if (run.length > 1 || (run.length === 1 && !startsSentence && !QUESTION_WORDS.has(run[0].toLowerCase()))) add(run.join(' '));
      run = [];
    };
    words.forEach((raw, index) => {
      const word = raw.replace(/^[("“‘]+/, '');
      const capital = /^\p{Lu}/u.test(word) && !(run.length === 0 && /^(The|A|An)$/.test(word));
      const connector = run.length > 0 && CONNECTORS.has(word.toLowerCase());
      if (capital || connector) {
        run.push(word.replace(/[,;:)"”’]+$/, ''));
        if (/[,;:)"”]$/.test(word) || (/[.!?]$/.test(word) && !/^(?:[A-Z]\.)+$/.test(word))) flush(index + 1);
      } else flush(index);
    });
    flush(words.length);
  }
  return found.slice(0, 10);
}

function contentWords(question: string): string {
  return question
    .replace(/[?!.,;:"“”()]/g, ' ')
    .split(/\s+/)
    .filter((word) => word && !QUESTION_WORDS.has(word.toLowerCase()))
    .slice(0, 8)
    .join(' ');
}

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
function sentencesOf(text: string): string[] {
  // Hard-wrapped lines are one sentence; only blank lines and list items break one.
  const unwrapped = text.replace(/([^\n])\n(?![\n\s]*(?:[-*•]|\d+[.)])\s)/g, '$1 ');
  return [...sentenceSegmenter.segment(unwrapped)].map((s) => s.segment.trim()).filter((s) => s.length > 15);
}
