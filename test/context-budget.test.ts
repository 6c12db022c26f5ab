// The context budget across turns (issue 22 item 6), end to end: a scripted model behind the OpenAI
// protocol test server searches many times, then cites the first passage it was shown. With a small
// budget the early results are compacted in the requests it receives; the citation still resolves.
import assert from 'node:assert/strict';
import type { AgentEvent } from '../src/protocol/events.ts';
import { describe, it } from 'node:test';
import { runAgent } from '../src/agent/run-agent.ts';
import { parseEvidence } from '../src/evidence/evidence-format.ts';
import { resolveModel } from '../src/providers/index.ts';
import { call, regressionSuite, toolResults, type ChatBody } from './scripted-model.ts';

const QUERIES = [
  'When was Halvorsen Instruments founded?',
  'Where did the Tern-4 sea trial take place?',
  'Who leads the Coastal Team?',
  'What was the operating margin in 2024?',
  'What does the travel policy say about rail travel?',
  'Which products are in the catalog?',
];

describe('the context budget, through a real provider client and the protocol server', () => {
  const suite = regressionSuite();

  /** Searches each query in turn, then answers citing the first passage of the first result. */
  const run = async (contextTokens: number | undefined) => {
    let first: string | undefined;
    suite.openai.chat.enqueue(
      ((body: ChatBody) => {
        const results = toolResults(body);
        if (results.length === 1) first = parseEvidence(results[0])[0]?.id;
        if (results.length < QUERIES.length)
          return { type: 'tool-calls', calls: [call('search_knowledge', { query: QUERIES[results.length] })] };
        return { type: 'text', text: `Halvorsen Instruments was founded in 1987 [${first}].` };
      }) as never,
      20,
    );
    const events: AgentEvent[] = [];
    const result = await runAgent({
      knowledge: suite.dossier,
      onEvent: (event) => events.push(event),
      question: 'Tell me about Halvorsen Instruments.',
      model: await resolveModel('openai-compatible:scripted', { env: { DOSSIER_BASE_URL: suite.openai.baseURL } }),
      maxSteps: 10,
      stagnationSteps: 10,
      modelTimeoutMs: 5000,
      maxRetries: 0,
      ...(contextTokens !== undefined ? { contextTokens } : {}),
    });
    const bodies = suite.openai.chat.requests.map((request) => request.body as ChatBody);
    return { result, bodies, first: first!, events };
  };

  it('compacts the oldest results in later requests; a citation of a compacted passage still resolves to its chunk', async () => {
    const whole = await run(undefined);
    suite.openai.reset();
    const budgeted = await run(1500);
    for (const { result, bodies, first } of [whole, budgeted]) {
      assert.equal(result.finishReason, 'stop');
      assert.equal(bodies.length, QUERIES.length + 1);
      assert.equal(first, 'E1');
      assert.deepEqual(result.unresolvedCitations, []);
      assert.deepEqual(
        result.citations.map((c) => c.id),
        ['E1'],
      );
      assert.ok(result.citations[0].text.length > 0);
    }
    assert.deepEqual(budgeted.result.citations, whole.result.citations, 'the same chunk, resolved through the ledger');
    const last = (run: typeof whole) => toolResults(run.bodies.at(-1)!);
    // Without a budget (the default is larger than six results) nothing is compacted.
    assert.ok(last(whole).every((text) => !text.includes('compacted to stay within the context budget')));
    // With it, the first result is one line per passage, E1 with its address; the newest is whole.
    const [oldest] = last(budgeted);
    assert.ok(oldest.includes('compacted to stay within the context budget'));
    assert.equal(parseEvidence(oldest).length, 0);
    assert.match(oldest, /^E1 documentId=\d+ chunk=\d+ "/m);
    assert.ok(parseEvidence(last(budgeted).at(-1)!).length > 0, 'the newest round is never compacted');
    const size = (run: typeof whole) => JSON.stringify(run.bodies.at(-1)).length;
    const shown = (run: typeof whole) => last(run).join('').length;
    assert.ok(size(budgeted) < size(whole), `the last request is smaller: ${size(budgeted)} < ${size(whole)} characters`);
    assert.ok(shown(budgeted) < shown(whole), `its tool results are smaller: ${shown(budgeted)} < ${shown(whole)} characters`);
    // The trace says which model calls had compacted input, and by how much (what `--trace` and the event stream carry).
    const compactions = (run: typeof whole) =>
      run.events.flatMap((event) => (event.type === 'model-output' && event.compacted ? [event.compacted] : []));
    assert.deepEqual(compactions(whole), []);
    assert.ok(compactions(budgeted).length >= 1);
    for (const c of compactions(budgeted)) assert.ok(c.results >= 1 && c.tokensAfter < c.tokensBefore, JSON.stringify(c));
    // The first requests, before the budget is passed, are the same.
    assert.deepEqual(toolResults(budgeted.bodies[1]), toolResults(whole.bodies[1]));
  });
});
