import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Dossier } from '../src/dossier.ts';
import type { AgentEvent } from '../src/protocol/events.ts';
import { Policy } from '../src/config/policy.ts';
import { resolveModel } from '../src/providers/index.ts';
import { runResearch, type ResearchOptions } from '../src/research/run-research.ts';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { regressionIndex, runCli, tempDir } from './helpers.ts';

/** The OpenAI chat request body as the scripted model sees it. */
interface ChatBody {
  messages: Array<{ role: string; content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> }>;
}

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));
const isPlanner = (body: ChatBody) => textOf(body.messages.find((m) => m.role === 'system')?.content).includes('research planner');
const toolResults = (body: ChatBody) => body.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));
const calledTools = (body: ChatBody) => body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
const evidenceIds = (text: string) => [...new Set([...text.matchAll(/<<<EVIDENCE (E\d+)/g)].map((m) => m[1]))];
const lastUser = (body: ChatBody) => textOf([...body.messages].reverse().find((m) => m.role === 'user')?.content);
const call = (name: string, input: unknown) => ({ name, arguments: JSON.stringify(input) });

/**
 * A scripted nested RAG agent: it searches its question once, then answers citing the first
 * passage it was shown. Slow enough (delay) that parallel nested agents overlap at the server.
 */
function nestedAgent(body: ChatBody) {
  const results = toolResults(body);
  const question = textOf(body.messages.find((m) => m.role === 'user')?.content);
  if (results.length === 0) return { type: 'tool-calls' as const, calls: [call('search_knowledge', { query: question })], delayMs: 150 };
  const [first] = evidenceIds(results.join('\n'));
  return {
    type: 'text' as const,
    text: first ? `From the documents: ${question.replace(/\?$/, '')} [${first}].` : 'Not found in the documents.',
  };
}

describe('research mode through a real provider client and the protocol server', () => {
  let dossier: Dossier;
  let cleanup: () => void;
  let openai: Awaited<ReturnType<typeof startOpenAIServer>>;

  before(async () => {
    ({ dossier, cleanup } = await regressionIndex());
    openai = await startOpenAIServer();
  });
  after(async () => {
    await openai.close();
    cleanup();
  });
  afterEach(() => openai.reset());

  const model = () => resolveModel('openai-compatible:scripted', { env: { DOSSIER_BASE_URL: openai.baseURL } });
  const research = async (planner: (body: ChatBody) => unknown, extra: Partial<ResearchOptions> = {}, nested = nestedAgent) => {
    openai.chat.enqueue(((body: ChatBody) => (isPlanner(body) ? planner(body) : nested(body))) as never, 200);
    const events: AgentEvent[] = [];
    const result = await runResearch({
      knowledge: dossier,
      question: 'Who founded Halvorsen Instruments, and where did the Tern-4 sea trial take place?',
      model: await model(),
      modelTimeoutMs: 5000,
      maxRetries: 0,
      // These tests script the planner; the gate here is the word-match critique (a model critic is test/research-critique.test.ts).
      critiqueModel: await resolveModel('offline'),
      ...extra,
      onEvent: (event) => events.push(event),
    });
    assert.equal(events.filter((e) => !e.path).at(-1)!.type, 'run-finish', 'every research run ends with its run-finish');
    return { result, events };
  };

  /** The planner: plan → both sub-questions at once → critique → the report (or what `report` returns). */
  const planner = (report: (body: ChatBody, ids: string[]) => string) => (body: ChatBody) => {
    const called = calledTools(body);
    if (!called.includes('plan'))
      return {
        type: 'tool-calls',
        calls: [
          call('plan', {
            brief: 'Two facts.',
            subQuestions: ['Who founded Halvorsen Instruments?', 'Where did the Tern-4 sea trial take place?'],
          }),
        ],
      };
    if (!called.includes('rag'))
      return {
        type: 'tool-calls',
        calls: [
          call('rag', { question: 'Who founded Halvorsen Instruments?', subQuestion: 'S1' }),
          call('rag', { question: 'Where did the Tern-4 sea trial take place?', subQuestion: 'S2' }),
        ],
      };
    const ids = evidenceIds(toolResults(body).join('\n'));
    if (!called.includes('critique')) return { type: 'tool-calls', calls: [call('critique', { draft: report(body, ids) })] };
    return { type: 'text', text: report(body, ids) };
  };

  it('plans, runs nested agents in parallel with their events tagged, and moves their citations into its ledger', async () => {
    const { result, events } = await research(
      planner((body) => {
        const rag = toolResults(body).filter((t) => t.startsWith('SUB-QUESTION'));
        const idOf = (sub: string) => evidenceIds(rag.find((t) => t.includes(`SUB-QUESTION ${sub}`)) ?? '')[0];
        return `Marit Halvorsen founded it [${idOf('S1')}]; the trial was in the Hardangerfjord [${idOf('S2')}].\n## S1. Who founded Halvorsen Instruments?\nHalvorsen Instruments was founded in 1987 by Marit Halvorsen [${idOf('S1')}].\n## S2. Where did the Tern-4 sea trial take place?\nThe Tern-4 sea trial took place in the Hardangerfjord [${idOf('S2')}].`;
      }),
    );
    assert.equal(result.finishReason, 'stop', result.answer);
    assert.deepEqual(
      result.plan.map((p) => [p.id, p.status]),
      [
        ['S1', 'answered'],
        ['S2', 'answered'],
      ],
    );
    assert.equal(result.subagents.length, 2);
    assert.ok(openai.chat.maxInFlight >= 2, 'the two nested agents ran at the same time');
    assert.ok(
      events.some((e) => e.type === 'plan' && e.items.length === 2),
      'a plan event',
    );
    for (const id of ['rag:1', 'rag:2']) {
      assert.ok(
        events.some((e) => e.type === 'tool-call' && e.toolName === 'search_knowledge' && e.path?.join('/') === `research/${id}`),
        `${id}'s searches reach the stream tagged with its path`,
      );
      assert.ok(
        events.some((e) => e.type === 'subagent-start' && e.id === id) && events.some((e) => e.type === 'subagent-finish' && e.id === id),
      );
    }
    assert.deepEqual(result.unresolvedCitations, []);
    assert.ok(result.citations.length >= 2);
    const texts = result.citations.map((c) => c.text).join('\n');
    assert.match(texts, /Marit Halvorsen/);
    assert.match(texts, /Hardangerfjord/);
    // The report's ids are the research ledger's, each naming the chunk the nested agent cited.
    for (const sub of result.subagents)
      for (const id of sub.citations) assert.ok(result.citations.some((c) => c.id === id) || result.evidence.some((e) => e.id === id));
    assert.ok(
      result.critique.checks.length >= 2 && result.critique.checks.every((c) => c.verdict === 'supported'),
      JSON.stringify(result.critique),
    );
  });

  it('a critique finding sends the draft back, and the final report has it fixed', async () => {
    let feedback = '';
    const { result, events } = await research(
      planner((body, ids) => {
        if (lastUser(body).startsWith('CRITIQUE of your answer')) {
          feedback = lastUser(body);
          return `Halvorsen Instruments was founded in 1987 by Marit Halvorsen [${ids[0]}].`;
        }
        return `Halvorsen Instruments was founded in 1999 by Marit Halvorsen [${ids[0]}].`;
      }),
    );
    assert.match(feedback, /unsupported.*1999/, 'the planner was told what was wrong');
    assert.ok(events.some((e) => e.type === 'critique' && e.checks.some((c) => c.verdict === 'unsupported')));
    assert.doesNotMatch(result.answer, /1999/);
    assert.match(result.answer, /1987/);
    assert.equal(result.critique.rounds, 1, 'the first answer went back once; the next one is final');
    assert.ok(result.critique.checks.every((c) => c.verdict === 'supported'));
  });

  it('what the critique still finds is reported beside the answer, never written into it, and open sub-questions are warnings', async () => {
    const { result } = await research((body) => {
      const called = calledTools(body);
      if (!called.includes('plan'))
        return {
          type: 'tool-calls',
          calls: [call('plan', { brief: 'b', subQuestions: ['Who founded Halvorsen Instruments?', 'What is the colour of the CEO car?'] })],
        };
      if (!called.includes('rag'))
        return { type: 'tool-calls', calls: [call('rag', { question: 'Who founded Halvorsen Instruments?', subQuestion: 'S1' })] };
      return { type: 'text', text: 'The founder was Sigrid Olsen [E1].' };
    });
    assert.equal(result.answer, 'The founder was Sigrid Olsen [E1].', 'the answer is delivered word for word');
    assert.ok(
      result.critique.findings.some((f) => f.by === 'critique' && f.claim.includes('Sigrid Olsen')),
      JSON.stringify(result.critique.findings),
    );
    assert.ok(
      result.warnings.some((w) => w.by === 'planner' && w.subQuestion === 'S2' && /colour of the CEO car/.test(w.message)),
      JSON.stringify(result.warnings),
    );
  });

  it('budgets: told to answer at 85%, cut off at the limit with a partial report naming open sub-questions', async () => {
    let told = false;
    let n = 0;
    const { result } = await research(
      (body) => {
        if (/budget is spent/.test(lastUser(body))) told = true;
        if (!calledTools(body).includes('plan'))
          return { type: 'tool-calls', calls: [call('plan', { brief: 'b', subQuestions: ['Who founded Halvorsen Instruments?'] })] };
        if (body.messages.at(-1)?.role === 'user' && /limit of this run/.test(lastUser(body)))
          return { type: 'text', text: 'Partial: nothing settled yet.' };
        return { type: 'tool-calls', calls: [call('search_knowledge', { query: `query ${n++}` })] };
      },
      { toolCallBudget: 10, stagnationSteps: 100 },
    );
    assert.ok(told, 'the planner was told to answer at 85% of its tool-call budget');
    assert.equal(result.finishReason, 'budget');
    assert.equal(result.partial, true);
    assert.ok(
      result.warnings.some((w) => w.subQuestion === 'S1' && /Who founded Halvorsen Instruments\?/.test(w.message)),
      JSON.stringify(result.warnings),
    );
  });

  it('a nested agent whose model fails: the report says which sub-question failed; the run does not crash', async () => {
    const { result, events } = await research(
      planner((body) => {
        const failed = toolResults(body).find((t) => /RESULT: failed/.test(t));
        const ok = toolResults(body).find((t) => /RESULT: answered/.test(t)) ?? '';
        return `${evidenceIds(ok).length ? `Marit Halvorsen founded it [${evidenceIds(ok)[0]}].` : ''}\n${failed ? `Open: S2 failed: ${/SUB-QUESTION S2 \(rag:\d\): (.*)/.exec(failed)?.[1]}` : ''}`;
      }),
      {},
      (body) =>
        (textOf(body.messages.find((m) => m.role === 'user')?.content).includes('Tern-4')
          ? { type: 'status', status: 500, headers: { 'retry-after-ms': '1' } }
          : nestedAgent(body)) as never,
    );
    assert.notEqual(result.finishReason, 'error');
    const failed = result.subagents.find((s) => s.question.includes('Tern-4'))!;
    assert.equal(failed.finishReason, 'error');
    assert.ok(failed.error?.message);
    assert.equal(result.plan.find((p) => p.id === 'S2')!.status, 'failed');
    assert.ok(events.some((e) => e.type === 'subagent-finish' && e.finishReason === 'error' && e.error));
    assert.match(result.answer, /S2/);
  });

  it('approval through a scripted model: the run pauses before its answer, then approve releases exactly that answer', async () => {
    const { dir, cleanup: clean } = tempDir();
    try {
      const report = (_body: ChatBody, ids: string[]) => `Halvorsen Instruments was founded in 1987 by Marit Halvorsen [${ids[0]}].`;
      const { result, events } = await research(planner(report), {
        holdForApproval: 'the question matches the high-risk pattern /founded/',
      });
      assert.equal(result.finishReason, 'needs-approval');
      assert.ok(events.some((e) => e.type === 'approval-required' && !e.path));
      assert.ok(
        !events.some((e) => e.type === 'final-answer' || e.type === 'text-delta'),
        "nothing of the held answer reached the stream, not even the nested agents' answers",
      );
      assert.match(result.held!.answer, /founded in 1987 by Marit Halvorsen \[E\d+\]/);
      assert.doesNotMatch(result.answer, /1987/);
      const { approve, toAskResult } = await import('../src/ask/ask.ts');
      const { PausedRuns } = await import('../src/ask/paused-runs.ts');
      const { reason, ...held } = result.held!;
      new PausedRuns(dir).save({
        runId: result.runId,
        question: 'q',
        mode: 'research',
        reason,
        pausedAt: new Date().toISOString(),
        index: await dossier.store.identity(),
        result: toAskResult(result, 'scripted'),
        held,
      });
      const released = await approve(dossier, result.runId, { runsDir: dir, by: 'carol' });
      assert.equal(released.finishReason, 'stop');
      assert.equal(released.answer, result.held!.answer);
      assert.deepEqual(released.citations, result.held!.citations);
    } finally {
      clean();
    }
  });

  it('permissions: a denied tool is not offered to the planner or to nested agents', async () => {
    const policy = new Policy({ permissions: { modes: { research: { deny: ['reasoning', 'get_content'] } } } });
    let offered: string[] = [];
    let nestedOffered: string[] = [];
    await research(
      planner((body) => {
        offered = JSON.stringify((body as unknown as { tools?: unknown }).tools ?? '').match(/"name":"(\w+)"/g) ?? [];
        return 'Nothing [E1].';
      }),
      { allowTool: (name) => policy.allowTool(name, 'research', '*') },
      (body) => {
        nestedOffered = JSON.stringify((body as unknown as { tools?: unknown }).tools ?? '').match(/"name":"(\w+)"/g) ?? [];
        return nestedAgent(body);
      },
    );
    assert.ok(offered.some((t) => t.includes('"rag"')));
    assert.ok(!offered.some((t) => t.includes('reasoning') || t.includes('get_content')), offered.join());
    assert.ok(
      nestedOffered.some((t) => t.includes('search_knowledge')) && !nestedOffered.some((t) => t.includes('get_content')),
      nestedOffered.join(),
    );
  });
});

describe('approval: a high-risk question pauses before its answer; approve releases it, deny ends it', () => {
  it('pauses, saves the run, and `dossier approve` decides once, recorded in the trace', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', 'eval/regression/corpus', '--db', db, '--json'])).status, 0);
      const config = join(dir, 'dossier.config.json');
      writeFileSync(config, JSON.stringify({ approval: { patterns: ['headquarters'] } }));
      const trace = join(dir, 'run.jsonl');
      const asked = await runCli([
        'ask',
        'When did the company move its headquarters to Trondheim?',
        '--mode',
        'research',
        '--config',
        config,
        '--trace',
        trace,
        '--db',
        db,
        '--json',
      ]);
      assert.equal(asked.status, 0, asked.stderr);
      assert.equal(asked.json.finishReason, 'needs-approval');
      assert.doesNotMatch(asked.json.answer, /2004/, 'nothing of the answer is shown before approval');
      assert.deepEqual(asked.json.citations, []);
      const runId = asked.json.runId;
      assert.ok(existsSync(join(`${db}.runs`, `${runId}.json`)));
      const events = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.ok(events.some((e) => e.type === 'approval-required'));
      assert.ok(!events.some((e) => e.type === 'final-answer' && !e.path), 'the trace holds no final answer yet');

      const approved = await runCli(['approve', runId, '--by', 'alice', '--db', db, '--json']);
      assert.equal(approved.status, 0, approved.stderr);
      assert.equal(approved.json.finishReason, 'stop');
      assert.equal(approved.json.by, 'alice');
      assert.match(approved.json.answer, /2004/);
      assert.ok(approved.json.citations.length > 0);
      const after = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        after.slice(-3).map((e) => e.type),
        ['approval', 'final-answer', 'run-finish'],
      );
      assert.equal(after.at(-3).by, 'alice');

      const again = await runCli(['approve', runId, '--deny', '--by', 'bob', '--db', db]);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /already approved by alice/);

      const second = await runCli(['ask', 'Where are the headquarters?', '--config', config, '--db', db, '--json']);
      assert.equal(second.json.finishReason, 'needs-approval', 'rag mode pauses too');
      const denied = await runCli(['approve', second.json.runId, '--deny', '--by', 'bob', '--db', db, '--json']);
      assert.equal(denied.json.finishReason, 'aborted');
      assert.equal(denied.json.decision, 'denied');
      assert.doesNotMatch(denied.json.answer, /Trondheim/);
    } finally {
      cleanup();
    }
  });

  it('a bad policy file is a one-line config error naming it', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const config = join(dir, 'bad.json');
      writeFileSync(config, JSON.stringify({ approval: { patterns: ['('] } }));
      const result = await runCli(['ask', 'x', '--config', config, '--db', join(dir, 'i.db')]);
      assert.equal(result.status, 1);
      assert.equal(result.stderr.trim().split('\n').length, 1);
      assert.match(result.stderr, /bad\.json: approval pattern "\(" is not a valid regular expression/);
    } finally {
      cleanup();
    }
  });
});
