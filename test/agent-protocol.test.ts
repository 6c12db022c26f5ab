import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import type { Dossier } from '../src/dossier.ts';
import type { AgentEvent } from '../src/protocol/events.ts';
import { runAgent } from '../src/agent/run-agent.ts';
import { ToolRegistry, loadUserTools, ragTools } from '../src/agent/tools/registry.ts';
import { ReplayModel, readTrace, TraceWriter } from '../src/agent/trace.ts';
import { resolveModel } from '../src/providers/index.ts';
import { startAnthropicServer } from '../src/testing/protocol-server/anthropic.ts';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { regressionIndex, tempDir } from './helpers.ts';

/** Finds the evidence ids the agent showed the model in the last tool results of a request body. */
function evidenceIdsIn(body: unknown): string[] {
  return [...new Set([...JSON.stringify(body).matchAll(/<<<EVIDENCE (E\d+)/g)].map((m) => m[1]))];
}

const search = (query: string) => ({ name: 'search_knowledge', arguments: JSON.stringify({ query }) });

describe('agent through real provider clients and the protocol server', () => {
  let dossier: Dossier;
  let cleanup: () => void;
  let openai: Awaited<ReturnType<typeof startOpenAIServer>>;
  let anthropic: Awaited<ReturnType<typeof startAnthropicServer>>;

  before(async () => {
    ({ dossier, cleanup } = await regressionIndex());
    openai = await startOpenAIServer();
    anthropic = await startAnthropicServer();
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
    cleanup();
  });

  const compatible = (suffix = '') => resolveModel(`openai-compatible:scripted${suffix}`, { env: { DOSSIER_BASE_URL: openai.baseURL } });
  const claude = () =>
    resolveModel('anthropic:claude-scripted', { env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.baseURL } });

  const run = async (model: Awaited<ReturnType<typeof compatible>>, extra: Partial<Parameters<typeof runAgent>[0]> = {}) => {
    const events: AgentEvent[] = [];
    const result = await runAgent({
      knowledge: dossier,
      question: 'Who leads the team that built the Tern-4 salinity sensor?',
      model,
      modelTimeoutMs: 5000,
      maxRetries: 1,
      ...extra,
      onEvent: (e) => {
        events.push(e);
        extra.onEvent?.(e);
      },
    });
    assert.equal(events.at(-1)!.type, 'run-finish', 'every run ends with run-finish');
    return { result, events };
  };

  for (const [name, setup] of [
    ['OpenAI-compatible (streaming chat completions)', () => ({ route: openai.chat, model: compatible() })],
    ['Anthropic Messages', () => ({ route: anthropic.messages, model: claude() })],
  ] as const) {
    it(`${name}: searches in parallel, cites what it was shown, citations resolve`, async () => {
      const { route, model } = setup();
      route.enqueue({ type: 'tool-calls', calls: [search('Tern-4 salinity sensor built by'), search('Coastal Team lead')] });
      route.enqueue((body) => {
        const ids = evidenceIdsIn(body);
        return { type: 'text', text: `The Coastal Team built it and is led by Ingrid Maalen [${ids[0]}, ${ids[1]}]. Also [E99].` };
      });
      const { result, events } = await run(await model);
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.toolCalls, 2);
      assert.equal(result.citations.length, 2);
      assert.deepEqual(result.unresolvedCitations, ['E99'], 'an id the model invented is reported, not shown as a source');
      assert.match(result.answer, /\[unresolved: E99\]/);
      assert.ok(events.some((e) => e.type === 'citation-unresolved' && e.id === 'E99'));
      assert.ok(events.filter((e) => e.type === 'text-delta').length > 3, 'the answer streamed in pieces');
      const last = route.requests.at(-1)!;
      assert.match(JSON.stringify(last.body), /<<<EVIDENCE/, 'evidence reached the model fenced');
    });
  }

  it('retries a 429 and then succeeds', async () => {
    openai.chat.enqueue({ type: 'status', status: 429, headers: { 'retry-after-ms': '1' } });
    openai.chat.enqueue({ type: 'text', text: 'No search needed.' });
    const { result } = await run(await compatible());
    assert.equal(result.finishReason, 'no-evidence');
    assert.equal(result.answer, 'No search needed.');
  });

  it('persistent 500s end the run with finish reason error and a fallback answer, no crash', async () => {
    openai.chat.enqueue({ type: 'tool-calls', calls: [search('Tern-4')] });
    for (let i = 0; i < 6; i++) openai.chat.enqueue({ type: 'status', status: 500, headers: { 'retry-after-ms': '1' } });
    const { result, events } = await run(await compatible());
    assert.equal(result.finishReason, 'error');
    assert.equal(result.partial, true);
    assert.ok(result.citations.length > 0, 'the fallback quotes the evidence already found, cited');
    assert.ok(events.some((e) => e.type === 'error' && /500/.test(e.message)));
    openai.reset();
  });

  it('a model that hangs times out: finish reason error', async () => {
    openai.chat.enqueue({ type: 'hang' });
    const { result } = await run(await compatible(), { modelTimeoutMs: 300, maxRetries: 0 });
    assert.equal(result.finishReason, 'error');
    openai.reset();
  });

  it('an empty reply ends with an explicit finish reason', async () => {
    openai.chat.enqueue({ type: 'empty' });
    const { result } = await run(await compatible());
    assert.equal(result.finishReason, 'no-evidence');
    assert.match(result.answer, /not found/i);
  });

  it('malformed tool JSON and an unknown tool come back to the model as error results', async () => {
    openai.chat.enqueue({
      type: 'tool-calls',
      calls: [
        { name: 'search_knowledge', arguments: '{"query": "Tern' },
        { name: 'delete_everything', arguments: '{}' },
      ],
    });
    let seen = '';
    openai.chat.enqueue((body) => {
      seen = JSON.stringify(body);
      return { type: 'text', text: 'I could not search.' };
    });
    const { result, events } = await run(await compatible());
    const failures = events.filter((e) => e.type === 'tool-result' && !e.ok);
    assert.equal(failures.length, 2);
    assert.match(seen, /invalid arguments for search_knowledge/);
    assert.match(seen, /unknown tool \\"delete_everything\\"/);
    assert.ok(['stop', 'no-evidence'].includes(result.finishReason));
  });

  it('Anthropic: malformed tool JSON goes back as an error result and the next request stays valid', async () => {
    anthropic.messages.enqueue({ type: 'tool-calls', calls: [{ name: 'search_knowledge', arguments: '{"query": "Tern' }] });
    anthropic.messages.enqueue((body) => ({
      type: 'text',
      text: JSON.stringify(body).includes('invalid arguments for search_knowledge') ? 'Retried nothing.' : 'missing error',
    }));
    const { result } = await run(await claude());
    assert.equal(result.answer, 'Retried nothing.');
    const toolUse = JSON.stringify(anthropic.messages.requests.at(-1)!.body).match(/"type":"tool_use"[^}]*"input":(\{[^}]*\})/);
    assert.ok(toolUse, 'the earlier call is in the history');
    assert.equal(toolUse[1], '{}', 'with an object input, as the Messages API requires');
  });

  it('a tool that throws is an error result the model can act on', async () => {
    const tools = new ToolRegistry([
      ...ragTools(),
      {
        name: 'flaky',
        description: 'always fails',
        inputSchema: z.object({}),
        execute: async () => {
          throw new Error('disk on fire');
        },
      },
      { name: 'slow', description: 'never returns', inputSchema: z.object({}), execute: () => new Promise(() => {}) },
    ]);
    openai.chat.enqueue({
      type: 'tool-calls',
      calls: [{ name: 'flaky', arguments: '{}' }, { name: 'slow', arguments: '{}' }, search('Tern-4')],
    });
    let seen = '';
    openai.chat.enqueue((body) => {
      seen = JSON.stringify(body);
      return { type: 'text', text: `Found it [${evidenceIdsIn(body)[0]}].` };
    });
    const { result } = await run(await compatible(), { tools, toolTimeoutMs: 200 });
    assert.match(seen, /flaky failed: disk on fire/);
    assert.match(seen, /slow timed out after 200 ms/);
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.citations.length, 1);
  });

  it('a model that never stops calling tools ends at max steps with an answer from the evidence', async () => {
    for (let i = 0; i < 4; i++)
      openai.chat.enqueue({
        type: 'tool-calls',
        calls: [search(`query number ${i} Tern-4 team ${['Coastal', 'Deep', 'Harbour', 'trial'][i]}`)],
      });
    openai.chat.enqueue((body) => ({ type: 'text', text: `Best effort [${evidenceIdsIn(body)[0]}].` }));
    const { result } = await run(await compatible(), { maxSteps: 4 });
    assert.equal(result.finishReason, 'max-steps');
    assert.equal(result.partial, true);
    assert.equal(result.citations.length, 1);
    const finalRequest = JSON.stringify(openai.chat.requests.at(-1)!.body);
    assert.match(finalRequest, /A limit of this run has been reached/);
  });

  it('searches that keep finding nothing new stop the run for stagnation', async () => {
    for (let i = 0; i < 3; i++) openai.chat.enqueue({ type: 'tool-calls', calls: [search('Tern-4 salinity sensor')] });
    openai.chat.enqueue((body) => ({ type: 'text', text: `Tern-4 [${evidenceIdsIn(body)[0]}].` }));
    const { result } = await run(await compatible());
    assert.equal(result.finishReason, 'stagnation');
    assert.equal(result.steps, 3);
  });

  it('text tool protocol: JSON actions in plain text, slightly malformed, repaired', async () => {
    openai.chat.enqueue({
      type: 'text',
      text: '```json\n{"type": "tool", "calls": [{"name": "search_knowledge", "input": {"query": "Tern-4 sea trial",}}]}\n```',
    });
    openai.chat.enqueue({ type: 'text', text: 'not json at all {' });
    openai.chat.enqueue((body) => ({ type: 'text', text: `{"type":"final","answer":"Hardangerfjord [${evidenceIdsIn(body)[0]}]"}` }));
    const { result } = await run(await compatible('#text-tools'), { question: 'Where was the Tern-4 sea trial?' });
    assert.equal(result.finishReason, 'stop');
    assert.match(result.answer, /^Hardangerfjord \[E\d+\]$/);
    assert.equal(result.citations.length, 1);
    const requests = openai.chat.requests.slice(-3).map((r) => JSON.stringify(r.body));
    assert.doesNotMatch(requests[0], /"tools"/, 'no native tools are sent in text mode');
    assert.match(requests[2], /Error: the JSON needs/, 'an unusable reply goes back to the model as a clear error');
  });

  it('user tools load from a folder and run like built-in ones; a malformed tool file is a clear error', async () => {
    const tools = new ToolRegistry([...ragTools(), ...(await loadUserTools(join(import.meta.dirname, 'fixtures', 'user-tools')))]);
    openai.chat.enqueue({ type: 'tool-calls', calls: [{ name: 'word_count', arguments: '{"text":"one two three"}' }] });
    let seen = '';
    openai.chat.enqueue((body) => {
      seen = JSON.stringify(body);
      return { type: 'text', text: 'Three words.' };
    });
    await run(await compatible(), { tools });
    assert.match(seen, /3 words/);
    assert.match(JSON.stringify(openai.chat.requests.at(-2)!.body), /"word_count"/, 'the user tool is offered to the model');
    await assert.rejects(
      loadUserTools(join(import.meta.dirname, 'fixtures', 'bad-tools')),
      /broken\.ts must default-export a tool with a description, a zod inputSchema, an execute function/,
    );
  });

  it('search_descriptions finds whole documents; their descriptions are not citable evidence', async () => {
    openai.chat.enqueue({
      type: 'tool-calls',
      calls: [{ name: 'search_descriptions', arguments: JSON.stringify({ query: 'travel policy meal allowance' }) }],
    });
    let seen = '';
    openai.chat.enqueue((body) => {
      seen = JSON.stringify(body);
      return { type: 'text', text: 'See the travel policy [E1].' };
    });
    const { result } = await run(await compatible());
    assert.match(seen, /<<<DOCUMENT id=\d+ title=\\"Travel policy\\"/);
    assert.deepEqual(result.unresolvedCitations, ['E1'], 'a description is not evidence: citing it resolves to nothing');
  });

  it('get_content reads a document range as citable evidence', async () => {
    const document = (await dossier.store.listDocuments({ collections: '*' })).find((d) => d.source.endsWith('staff-directory.md'))!;
    openai.chat.enqueue({
      type: 'tool-calls',
      calls: [{ name: 'get_content', arguments: JSON.stringify({ documentId: document.id, fromChunk: 0, toChunk: 9 }) }],
    });
    openai.chat.enqueue((body) => ({ type: 'text', text: `Teams [${evidenceIdsIn(body).join(', ')}].` }));
    const { result } = await run(await compatible());
    assert.equal(result.citations.length, document.chunkCount);
    assert.ok(result.citations.every((c) => c.documentId === document.id));
  });

  it('RAG-Fusion asks the model for query variants and fuses their results', async () => {
    openai.chat.enqueue({
      type: 'tool-calls',
      calls: [{ name: 'search_knowledge', arguments: JSON.stringify({ query: 'who runs the coastal engineers', strategy: 'rag-fusion' }) }],
    });
    openai.chat.enqueue({ type: 'text', text: 'Coastal Team lead\nIngrid Maalen\nÅlesund factory engineers' });
    openai.chat.enqueue((body) => ({ type: 'text', text: `Ingrid Maalen [${evidenceIdsIn(body)[0]}].` }));
    const { result, events } = await run(await compatible());
    assert.equal(result.finishReason, 'stop');
    const toolResult = events.find((e) => e.type === 'tool-result');
    assert.ok(toolResult?.type === 'tool-result' && toolResult.ok, JSON.stringify(toolResult));
    assert.match(JSON.stringify(openai.chat.requests.at(-2)!.body), /Write 3 different search queries/);
  });

  it('HyDE searches with a model-written hypothetical passage', async () => {
    openai.chat.enqueue({
      type: 'tool-calls',
      calls: [{ name: 'search_knowledge', arguments: JSON.stringify({ query: 'Who runs the Ålesund engineers?', strategy: 'hyde' }) }],
    });
    openai.chat.enqueue({ type: 'text', text: 'The Coastal Team works from the Ålesund factory and is led by its team lead.' });
    openai.chat.enqueue((body) => ({ type: 'text', text: `Ingrid Maalen [${evidenceIdsIn(body)[0]}].` }));
    const { result } = await run(await compatible());
    assert.equal(result.citations.length, 1);
    assert.match(JSON.stringify(openai.chat.requests.at(-2)!.body), /hypothetical|Write one short factual paragraph/);
  });

  it('a token budget ends the run with finish reason budget', async () => {
    openai.chat.enqueue({ type: 'tool-calls', calls: [search('Tern-4')], usage: { input: 5000, output: 10 } });
    openai.chat.enqueue((body) => ({ type: 'text', text: `Partial [${evidenceIdsIn(body)[0]}].` }));
    const { result } = await run(await compatible(), { tokenBudget: 1000 });
    assert.equal(result.finishReason, 'budget');
    assert.equal(result.partial, true);
    assert.equal(result.citations.length, 1);
  });

  it('a text-protocol run replays to the same answer', async () => {
    const events: AgentEvent[] = [];
    openai.chat.enqueue({
      type: 'text',
      text: '{"type":"tool","calls":[{"name":"search_knowledge","input":{"query":"Tern-4 sea trial"}}]}',
    });
    openai.chat.enqueue((body) => ({ type: 'text', text: `{"type":"final","answer":"Hardangerfjord [${evidenceIdsIn(body)[0]}]"}` }));
    const { result } = await run(await compatible('#text-tools'), {
      question: 'Where was the Tern-4 sea trial?',
      onEvent: (e) => events.push(e),
    });
    const start = events[0];
    assert.ok(start.type === 'run-start' && start.textTools);
    const model = ReplayModel.fromTrace(events.map((e) => ({ ...e, time: '' })));
    const replayed = await runAgent({
      knowledge: dossier,
      question: 'Where was the Tern-4 sea trial?',
      model: { model, id: 'replay', supportsTools: false },
    });
    assert.equal(replayed.answer, result.answer);
  });

  it('a text-protocol run with an unreadable turn replays to the same answer (every turn is recorded)', async () => {
    const events: AgentEvent[] = [];
    openai.chat.enqueue({ type: 'text', text: '{"type":"dance"}' });
    openai.chat.enqueue({
      type: 'text',
      text: '{"type":"tool","calls":[{"name":"search_knowledge","input":{"query":"Tern-4 sea trial"}}]}',
    });
    openai.chat.enqueue((body) => ({ type: 'text', text: `{"type":"final","answer":"Hardangerfjord [${evidenceIdsIn(body)[0]}]"}` }));
    const { result } = await run(await compatible('#text-tools'), {
      question: 'Where was the Tern-4 sea trial?',
      onEvent: (e) => events.push(e),
    });
    assert.equal(result.steps, 3);
    assert.equal(events.filter((e) => e.type === 'model-output').length, 3);
    const model = ReplayModel.fromTrace(events.map((e) => ({ ...e, time: '' })));
    const replayed = await runAgent({
      knowledge: dossier,
      question: 'Where was the Tern-4 sea trial?',
      model: { model, id: 'replay', supportsTools: false },
    });
    assert.equal(replayed.answer, result.answer);
  });

  it('a recorded run replays to the same answer', async () => {
    const temp = tempDir();
    try {
      const path = join(temp.dir, 'trace.jsonl');
      const trace = new TraceWriter(path);
      openai.chat.enqueue({ type: 'tool-calls', calls: [search('Coastal Team lead')] });
      openai.chat.enqueue((body) => ({ type: 'text', text: `Ingrid Maalen [${evidenceIdsIn(body)[0]}].` }));
      const { result } = await run(await compatible(), { onEvent: (e) => trace.write(e) });
      const events = readTrace(path);
      assert.ok(events.every((e) => typeof e.time === 'string'));
      const model = ReplayModel.fromTrace(events);
      const replayed = await runAgent({
        knowledge: dossier,
        question: 'Who leads the team that built the Tern-4 salinity sensor?',
        model: { model, id: 'replay', supportsTools: true },
      });
      assert.equal(replayed.answer, result.answer);
      assert.deepEqual(
        replayed.citations.map((c) => c.chunkId),
        result.citations.map((c) => c.chunkId),
      );
    } finally {
      temp.cleanup();
    }
  });
});
