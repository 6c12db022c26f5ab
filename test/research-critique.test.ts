/**
 * Research mode's critique with a real model (issue 22, items 7 and 8), through the OpenAI protocol
 * test server with a scripted planner, nested agents and critique model: the gate judges claim by
 * claim with the model and runs at most once after the final answer; the answer reaches the caller
 * word for word with the findings beside it; a python result (P1) supports the number it printed;
 * nested agents are told the research question and the brief.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Dossier } from '../src/dossier.ts';
import type { AgentEvent } from '../src/protocol/events.ts';
import { resolveModel } from '../src/providers/index.ts';
import { createPythonTool } from '../src/research/python/index.ts';
import { runResearch, type ResearchOptions } from '../src/research/run-research.ts';
import { toAskResult } from '../src/ask/ask.ts';
import { parseEvidence } from '../src/evidence/evidence-format.ts';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { runQuestion } from '../src/eval/run-question.ts';
import { regressionIndex } from './helpers.ts';
import {
  call,
  calledTools,
  contentText,
  firstUser,
  isPlanner,
  scriptedAnswer,
  systemOf,
  toolResults,
  type ChatBody,
  SCRIPTED_MODEL,
  startScriptedModel,
} from './scripted-model.ts';

const QUESTION = 'Who founded Halvorsen Instruments, and when?';
const BRIEF = 'Name the founder and the year.';
const SUBS = ['Who founded Halvorsen Instruments?', 'What colour is the CEO car?'];
const evidenceIds = (text: string) => [...new Set([...text.matchAll(/<<<EVIDENCE (E\d+)/g)].map((m) => m[1]))];
const lastUser = (body: ChatBody) => contentText([...body.messages].reverse().find((m) => m.role === 'user')?.content);
const isCritic = (body: ChatBody) => systemOf(body).startsWith('You check a research report claim by claim');
const claimsOf = (body: ChatBody) =>
  [...(firstUser(body).split('\nCLAIMS:\n')[1]?.split('\nPASSAGES:')[0] ?? '').matchAll(/^(\d+)\. (.*)$/gm)].map((m) => m[2]);

describe('research critique with a real model, through the protocol server', () => {
  let dossier: Dossier;
  let cleanup: () => Promise<void>;
  let openai: Awaited<ReturnType<typeof startOpenAIServer>>;

  before(async () => {
    ({ dossier, cleanup } = await regressionIndex());
    openai = await startOpenAIServer();
  });
  after(async () => {
    await openai.close();
    await cleanup();
  });
  afterEach(() => openai.reset());

  /**
   * A run with a scripted planner (plan two sub-questions, ask rag for S1, then `answer`), scripted
   * nested agents (search once, quote the first passage) and a scripted critique model (`critic`).
   */
  const research = async (
    answer: (ids: string[], body: ChatBody) => unknown,
    critic: (claims: string[], body: ChatBody) => string,
    extra: Partial<ResearchOptions> = {},
  ) => {
    const planner = (body: ChatBody) => {
      const called = calledTools(body);
      if (!called.includes('plan')) return { type: 'tool-calls', calls: [call('plan', { brief: BRIEF, subQuestions: SUBS })] };
      if (!called.includes('rag')) return { type: 'tool-calls', calls: [call('rag', { question: SUBS[0], subQuestion: 'S1' })] };
      const reply = answer(evidenceIds(toolResults(body).join('\n')), body);
      return typeof reply === 'string' ? { type: 'text', text: reply } : reply;
    };
    const nested = (body: ChatBody) =>
      calledTools(body).includes('search_knowledge')
        ? { type: 'text', text: scriptedAnswer(parseEvidence(toolResults(body).join('\n'))) }
        : { type: 'tool-calls', calls: [call('search_knowledge', { query: firstUser(body) })] };
    openai.chat.otherwise(((body: ChatBody) =>
      isPlanner(body) ? planner(body) : isCritic(body) ? { type: 'text', text: critic(claimsOf(body), body) } : nested(body)) as never);
    const model = await resolveModel('openai-compatible:scripted', { env: { DOSSIER_BASE_URL: openai.baseURL } });
    const events: AgentEvent[] = [];
    const result = await runResearch({
      knowledge: dossier,
      question: QUESTION,
      model,
      modelTimeoutMs: 5000,
      maxRetries: 0,
      ...extra,
      onEvent: (e) => events.push(e),
    });
    const bodies = openai.chat.requests.map((r) => r.body as ChatBody);
    return { result, events, json: toAskResult(result, model.id), bodies, critiques: bodies.filter(isCritic) };
  };
  const verdicts = (...list: Array<'supported' | 'unsupported' | 'contradicted'>) =>
    JSON.stringify({ claims: list.map((verdict, i) => ({ n: i + 1, verdict, reason: `${verdict}, says the script` })) });

  it('the gate asks the critique model claim by claim; the answer is delivered word for word, the findings beside it, the gate run at most once after the final answer', async () => {
    let sentBack = '';
    const first = (id: string) =>
      `Marit Halvorsen founded Halvorsen Instruments [${id}]. It was founded in 1987 [${id}]. Its logo is green [${id}].`;
    const second = (id: string) => `Marit Halvorsen founded Halvorsen Instruments [${id}]. Its logo is green [${id}].`;
    const { result, events, json, critiques } = await research(
      (ids, body) => {
        if (lastUser(body).startsWith('CRITIQUE of your answer')) {
          sentBack = lastUser(body);
          return second(ids[0]);
        }
        return first(ids[0]);
      },
      (claims) => verdicts(...claims.map((c) => (/green/.test(c) ? ('unsupported' as const) : ('supported' as const)))),
    );
    // Judged by the model, claim by claim, against the cited passages.
    assert.equal(critiques.length, 2, 'one critique of the first answer, one of the final answer: no more');
    const prompt = firstUser(critiques[0]);
    assert.deepEqual(
      claimsOf(critiques[0]),
      first('E1')
        .split(/(?<=\.) /)
        .map((c) => `${c}`)
        .map((c) => c.replace('E1', result.citations[0]?.id ?? 'E1')),
    );
    assert.match(prompt, /QUESTION: Who founded Halvorsen Instruments, and when\?/);
    assert.match(prompt, /<<<EVIDENCE E\d+ [^\n]*"[^"]*"[\s\S]*Marit Halvorsen[\s\S]*EVIDENCE>>>/, 'the cited passage, fenced');
    assert.match(sentBack, /\[unsupported\] "Its logo is green[^"]*": unsupported, says the script/);
    // Delivered word for word: no "(uncertain …)", no "Open: …" appended.
    assert.equal(result.answer, second(result.citations[0].id));
    assert.doesNotMatch(result.answer, /uncertain|Open:/);
    // The findings and the open sub-question in their own fields, each with who raised it.
    assert.equal(json.critique?.model, 'openai-compatible:scripted');
    assert.deepEqual(
      json.critique?.findings.map((f) => [f.claim, f.finding, f.by, f.verdict]),
      [[`Its logo is green [${result.citations[0].id}].`, 'unsupported, says the script', 'critique', 'unsupported']],
    );
    assert.deepEqual(
      json.critique?.checks.map((c) => c.verdict),
      ['supported', 'unsupported'],
    );
    assert.deepEqual(json.warnings, [
      { by: 'planner', subQuestion: 'S2', message: 'S2: What colour is the CEO car? (not answered from the evidence)' },
    ]);
    // The stream: a critique event per critique run; the last, before the final answer, is the answer's, with the warnings.
    const critiqueEvents = events.filter((e) => e.type === 'critique' && !e.path);
    assert.equal(critiqueEvents.length, 2);
    const final = critiqueEvents.at(-1)!;
    assert.ok(final.type === 'critique' && final.final && final.findings?.length === 1 && final.warnings?.[0]?.by === 'planner');
    assert.ok(events.indexOf(final) < events.findIndex((e) => e.type === 'final-answer' && !e.path));
    assert.equal(result.critique.calls, 2);
    assert.ok(result.usage.inputTokens > 0);
  });

  it('a reply the critique model cannot read is a stated finding, never a crash; the answer stands as written', async () => {
    const answer = (id: string) => `Marit Halvorsen founded Halvorsen Instruments [${id}].`;
    const { result, json } = await research(
      (ids) => answer(ids[0]),
      () => 'Looks fine to me!',
    );
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.answer, answer(result.citations[0].id));
    assert.deepEqual(json.critique?.findings, [
      { claim: '', finding: 'the critique model\'s reply holds no JSON verdicts: "Looks fine to me!"', by: 'critique' },
    ]);
  });

  it('a number python computed is supported by its P entry (word-match and model critique alike)', async () => {
    const offline = await resolveModel('offline');
    for (const critiqueModel of [offline, undefined]) {
      const { result, critiques } = await research(
        (ids, body) => {
          if (!calledTools(body).includes('python'))
            return { type: 'tool-calls', calls: [call('python', { code: 'print(10, 1987 + 10)' })] };
          return `It was 10 in 1997 [${ids[0]}].`;
        },
        (claims) => verdicts(...claims.map(() => 'supported' as const)),
        { tools: [createPythonTool()], critiqueModel },
      );
      const computed = result.critique.checks.find((c) => c.claim.includes('10 in 1997'))!;
      assert.equal(computed.verdict, 'supported', computed.reason);
      if (critiqueModel) {
        assert.match(computed.reason, /computed in P1/);
        assert.equal(result.critique.model, 'offline');
      } else
        assert.match(
          firstUser(critiques[0]),
          /COMPUTED RESULTS[\s\S]*<<<EVIDENCE P1 [\s\S]*print\(10, 1987 \+ 10\)[\s\S]*1997/,
          'the critique model is shown P1',
        );
    }
  });

  it('nested agents are told the research question and the brief besides their sub-question', async () => {
    const { bodies } = await research(
      (ids) => `Marit Halvorsen founded Halvorsen Instruments [${ids[0]}].`,
      (claims) => verdicts(...claims.map(() => 'supported' as const)),
    );
    const nested = bodies.filter((b) => !isPlanner(b) && !isCritic(b));
    assert.ok(nested.length >= 2);
    for (const body of nested) {
      assert.equal(firstUser(body), SUBS[0], 'the sub-question is what it answers');
      assert.match(systemOf(body), /The research question: Who founded Halvorsen Instruments, and when\?/);
      assert.match(systemOf(body), /The research brief: Name the founder and the year\./);
      assert.match(systemOf(body), /This part: S1: Who founded Halvorsen Instruments\?/);
    }
  });

  it('an eval run takes its critique model apart from its answering model (eval research-dev --critique-model)', async () => {
    const scripted = await startScriptedModel();
    try {
      const model = await resolveModel(SCRIPTED_MODEL, { env: scripted.env });
      const asked = (critiqueModel?: Awaited<ReturnType<typeof resolveModel>>) =>
        runQuestion('research', { dossier, question: 'Who founded Halvorsen Instruments?', model, critiqueModel });
      const byModel = await asked();
      assert.equal(byModel.research?.critique.model, model.id);
      assert.ok(scripted.server.chat.requests.some((r) => isCritic(r.body as ChatBody)));
      scripted.reset();
      const byWords = await asked(await resolveModel('offline', {}));
      assert.equal(byWords.research?.critique.model, 'offline');
      assert.ok(byWords.research!.critique.checks.length >= 1, 'the word-match critique judged the claims');
      assert.equal(scripted.server.chat.requests.filter((r) => isCritic(r.body as ChatBody)).length, 0);
    } finally {
      await scripted.close();
    }
  });
});
