/**
 * A scripted model for the surface tests (server, client, MCP, chat, web page): the OpenAI protocol
 * test server (src/testing/protocol-server/) answering by a fixed script, so that a surface test
 * asserts what the surface does with an answer the script determines, never the offline reader's
 * wording. Dossier reaches it as `openai-compatible:scripted` (DOSSIER_MODEL and DOSSIER_BASE_URL in
 * `env`: give them to createDossier, or to a child process).
 *
 * The script:
 * - a RAG agent searches its question once (search_knowledge), then answers with the first sentence
 *   of the first passage it was shown, cited: `<sentence> [E1]`; shown no passage, it answers
 *   NOT_FOUND, citing nothing;
 * - the research planner plans `subQuestions(question)` (default: the question itself), asks `rag`
 *   for all of them in one turn, sends the nested answers joined as its draft to `critique`, and
 *   reports that draft;
 * - a critique model (a system prompt that starts "You check a research report claim by claim")
 *   finds every numbered claim supported.
 * Each answer is recorded in `answers`, with the question the agent was asked.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import type { Dossier } from '../src/dossier.ts';
import { parseEvidence, type ParsedEvidence } from '../src/evidence/evidence-format.ts';
import { citedIds, parseCitationMarkers } from '../src/protocol/citations.ts';
import { startOpenAIServer, type ChatTurn, type OpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { regressionIndex } from './helpers.ts';

/** What the scripted RAG agent says when it was shown no passage. */
export const NOT_FOUND = 'The scripted model found no passage for this.';

export const SCRIPTED_MODEL = 'openai-compatible:scripted';

/** The OpenAI chat request body as the scripted model sees it. */
export interface ChatBody {
  messages: Array<{ role: string; content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> }>;
}

export const contentText = (content: unknown) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => part?.text ?? '').join('')
      : JSON.stringify(content ?? '');
export const systemOf = (body: ChatBody) => contentText(body.messages.find((m) => m.role === 'system')?.content);
export const isPlanner = (body: ChatBody) => systemOf(body).includes('research planner');
export const toolResults = (body: ChatBody) => body.messages.filter((m) => m.role === 'tool').map((m) => contentText(m.content));
export const calledTools = (body: ChatBody) => body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
export const firstUser = (body: ChatBody) => contentText(body.messages.find((m) => m.role === 'user')?.content);
export const call = (name: string, input: unknown) => ({ name, arguments: JSON.stringify(input) });

/** The first sentence of a passage that is prose (not a heading or a table row), as the script quotes it. */
export function firstSentence(text: string): string {
  const prose = text.split('\n').find((line) => /^[\p{L}\p{N}]/u.test(line.trim()) && !line.includes('|')) ?? text;
  return (prose.trim().match(/^.*?[.!?](?=\s|$)/)?.[0] ?? prose.trim()).trim();
}

/** The scripted RAG agent's answer to what it was shown: the first passage's first sentence, cited. */
export function scriptedAnswer(evidence: readonly ParsedEvidence[]): string {
  const [first] = evidence;
  return first ? `${firstSentence(first.text)} [${first.id}]` : NOT_FOUND;
}

/**
 * The script's answer as a caller must receive it: word for word, with one citation for each id it
 * cites, in order, each one's chunk holding the sentence the script quoted before the marker.
 */
export function assertDelivered(
  received: { answer: string; citations: ReadonlyArray<{ id: string; text: string }> },
  scripted: string,
): void {
  assert.equal(received.answer, scripted);
  assert.deepEqual(
    received.citations.map((c) => c.id),
    citedIds(scripted),
    'one citation for each id the answer cites',
  );
  let from = 0;
  for (const marker of parseCitationMarkers(scripted)) {
    const sentence = scripted.slice(from, marker.start).trim();
    from = marker.end;
    for (const id of marker.ids)
      assert.ok(received.citations.find((c) => c.id === id)!.text.includes(sentence), `${id}'s chunk holds "${sentence}"`);
  }
}

export interface ScriptedModel {
  server: OpenAIServer;
  /** DOSSIER_MODEL and DOSSIER_BASE_URL: this model as Dossier's default. */
  env: { DOSSIER_MODEL: string; DOSSIER_BASE_URL: string };
  /** Every final answer the script gave (RAG agents and the planner), in order. */
  answers: Array<{ role: 'rag' | 'planner'; question: string; answer: string; evidence: ParsedEvidence[] }>;
  /** The answers of RAG agents asked exactly `question`. */
  answersTo(question: string): string[];
  /** Forgets requests, queued turns and answers; the script stays. */
  reset(): void;
  close(): Promise<void>;
}

export interface ScriptOptions {
  /** The research plan's sub-questions (default: the question itself). */
  subQuestions?: (question: string) => string[];
}

export async function startScriptedModel(options: ScriptOptions = {}): Promise<ScriptedModel> {
  const server = await startOpenAIServer();
  const answers: ScriptedModel['answers'] = [];
  const subQuestions = options.subQuestions ?? ((question: string) => [question]);

  const rag = (body: ChatBody): ChatTurn => {
    const question = firstUser(body);
    if (!calledTools(body).includes('search_knowledge'))
      return { type: 'tool-calls', calls: [call('search_knowledge', { query: question })] };
    const evidence = parseEvidence(toolResults(body).join('\n'));
    const answer = scriptedAnswer(evidence);
    answers.push({ role: 'rag', question, answer, evidence });
    return { type: 'text', text: answer };
  };

  const planner = (body: ChatBody): ChatTurn => {
    const question = firstUser(body);
    const called = calledTools(body);
    const subs = subQuestions(question);
    if (!called.includes('plan'))
      return { type: 'tool-calls', calls: [call('plan', { brief: `Answer: ${question}`, subQuestions: subs })] };
    if (!called.includes('rag'))
      return { type: 'tool-calls', calls: subs.map((sub, i) => call('rag', { question: sub, subQuestion: `S${i + 1}` })) };
    const results = toolResults(body).filter((text) => text.startsWith('SUB-QUESTION'));
    const nested = results
      .map((text) => /\nANSWER:\n([\s\S]*?)\nEND ANSWER/.exec(text)?.[1] ?? '')
      .filter((answer) => answer && answer !== NOT_FOUND);
    const draft = nested.length ? nested.join(' ') : NOT_FOUND;
    if (!called.includes('critique')) return { type: 'tool-calls', calls: [call('critique', { draft })] };
    answers.push({ role: 'planner', question, answer: draft, evidence: parseEvidence(results.join('\n')) });
    return { type: 'text', text: draft };
  };

  // A model critique: every numbered claim of its prompt is supported.
  const critic = (body: ChatBody): ChatTurn => {
    const claims =
      firstUser(body)
        .split('\nPASSAGES:')[0]!
        .match(/^\d+\. /gm) ?? [];
    return {
      type: 'text',
      text: JSON.stringify({ claims: claims.map((_, i) => ({ n: i + 1, verdict: 'supported', reason: 'scripted' })) }),
    };
  };

  // A search strategy's one-shot generation (query variants, HyDE): the prompt back, as one line.
  const helper = (body: ChatBody): ChatTurn => ({ type: 'text', text: firstUser(body).split('\n')[0] ?? '' });

  const script = (raw: unknown): ChatTurn => {
    const body = raw as ChatBody;
    if (isPlanner(body)) return planner(body);
    if (systemOf(body).startsWith('You help a search engine')) return helper(body);
    if (systemOf(body).startsWith('You check a research report claim by claim')) return critic(body);
    return rag(body);
  };
  const install = () => server.chat.otherwise(script);
  install();

  return {
    server,
    env: { DOSSIER_MODEL: SCRIPTED_MODEL, DOSSIER_BASE_URL: server.baseURL },
    answers,
    answersTo: (question) => answers.filter((a) => a.role === 'rag' && a.question === question).map((a) => a.answer),
    reset: () => {
      server.reset();
      answers.length = 0;
      install();
    },
    close: () => server.close(),
  };
}

/**
 * For a suite (call it inside `describe`): the regression index and the protocol test server, set up
 * before the suite and closed after it, the server's script cleared after each test.
 */
export function regressionSuite(): { readonly dossier: Dossier; readonly openai: OpenAIServer } {
  const state = {} as { dossier: Dossier; openai: OpenAIServer; cleanup: () => Promise<void> };
  before(async () => {
    ({ dossier: state.dossier, cleanup: state.cleanup } = await regressionIndex());
    state.openai = await startOpenAIServer();
  });
  after(async () => {
    await state.openai.close();
    await state.cleanup();
  });
  afterEach(() => state.openai.reset());
  return state;
}
