import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import type { Knowledge } from '../retrieve/knowledge.ts';
import type { AgentEvent, ToolCallRecord } from '../protocol/events.ts';
import { EvidenceLedger } from '../evidence/ledger.ts';
import { runToolCalls, ToolTimeoutError, type ToolRunContext, type ToolRunnerOptions } from './tool-runner.ts';
import { ToolRegistry } from './tools/registry.ts';
import type { AgentTool, ToolResult } from './tools/tool.ts';

const done = (text: string): ToolResult => ({ raw: {}, forModel: text, evidence: [], newEvidence: [], summary: text });
const call = (toolName: string, input: unknown = {}, id = toolName): ToolCallRecord => ({ toolCallId: id, toolName, input });
const waitForAbort = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

function harness(tools: AgentTool[], options: Partial<ToolRunnerOptions> = {}, context: Partial<ToolRunContext> = {}) {
  const events: AgentEvent[] = [];
  const run = (calls: ToolCallRecord[]) =>
    runToolCalls(
      calls,
      // The tools here never touch the engine.
      { knowledge: {} as Knowledge, scope: { collections: '*' }, ledger: new EvidenceLedger(), step: 1, resultTokens: 100, ...context },
      { tools: new ToolRegistry(tools), concurrency: 4, timeoutMs: 1_000, emit: (e) => events.push(e), ...options },
    );
  return { run, events };
}

describe('tool runner', () => {
  it('a timeout aborts the tool through context.signal, and the model gets an error result', async () => {
    const seen: { aborted?: boolean; reason?: unknown } = {};
    const slow: AgentTool = {
      name: 'slow',
      description: 'waits until stopped',
      inputSchema: z.object({}),
      async execute(_input, context) {
        await waitForAbort(context.signal);
        seen.aborted = context.signal.aborted;
        seen.reason = context.signal.reason;
        throw context.signal.reason;
      },
    };
    const started = performance.now();
    const [outcome] = await harness([slow], { timeoutMs: 50 }).run([call('slow')]);
    assert.ok(performance.now() - started < 1_000);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.text, 'slow timed out after 50 ms; no result. Try a narrower request.');
    assert.equal(seen.aborted, true, 'the tool saw its signal fire');
    assert.ok(seen.reason instanceof ToolTimeoutError);
  });

  it('a tool that ignores its signal still times out: the runner does not wait for it', async () => {
    const deaf: AgentTool = { name: 'deaf', description: 'never returns', inputSchema: z.object({}), execute: () => new Promise(() => {}) };
    const [outcome] = await harness([deaf], { timeoutMs: 30 }).run([call('deaf')]);
    assert.match(outcome.text, /deaf timed out after 30 ms/);
  });

  it('a run abort fires the signal of running calls; calls not yet started are not run', async () => {
    const controller = new AbortController();
    let started = 0;
    const waits: AgentTool = {
      name: 'waits',
      description: 'waits until stopped',
      inputSchema: z.object({}),
      async execute(_input, context) {
        started++;
        setTimeout(() => controller.abort(), 10);
        await waitForAbort(context.signal);
        throw new Error('stopped');
      },
    };
    const { run, events } = harness([waits], { concurrency: 1, signal: controller.signal, timeoutMs: 5_000 });
    const outcomes = await run([call('waits', {}, 'a'), call('waits', {}, 'b')]);
    assert.equal(started, 1);
    assert.deepEqual(
      outcomes.map((o) => [o.ok, o.text]),
      [
        [false, 'waits was stopped: the run was aborted'],
        [false, 'waits was not run: the run was aborted'],
      ],
    );
    assert.equal(events.filter((e) => e.type === 'tool-result').length, 2, 'every call still gets its result event');
  });

  it('runs at most `concurrency` calls at once and returns outcomes in call order', async () => {
    let running = 0;
    let most = 0;
    const sleepy: AgentTool = {
      name: 'sleepy',
      description: 'sleeps',
      inputSchema: z.object({ ms: z.number() }),
      async execute({ ms }: { ms: number }) {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, ms));
        running--;
        return done(`slept ${ms}`);
      },
    };
    const outcomes = await harness([sleepy], { concurrency: 2 }).run([40, 5, 30, 1, 20, 2].map((ms, i) => call('sleepy', { ms }, `c${i}`)));
    assert.equal(most, 2);
    assert.deepEqual(
      outcomes.map((o) => o.text),
      ['slept 40', 'slept 5', 'slept 30', 'slept 1', 'slept 20', 'slept 2'],
    );
  });

  it('unknown tools, invalid arguments, throws (also synchronous) and malformed results become error results', async () => {
    const strict: AgentTool = {
      name: 'strict',
      description: 'needs a word',
      inputSchema: z.object({ word: z.string() }),
      execute: async ({ word }: { word: string }) => done(word),
    };
    const throws: AgentTool = {
      name: 'throws',
      description: 'fails',
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error('disk\non fire');
      },
    };
    const syncThrows: AgentTool = {
      name: 'sync_throws',
      description: 'fails at once',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('no');
      },
    };
    const malformed: AgentTool = {
      name: 'malformed',
      description: 'returns junk',
      inputSchema: z.object({}),
      execute: async () => ({ text: 'hi' }) as unknown as ToolResult,
    };
    const { run, events } = harness([strict, throws, syncThrows, malformed]);
    const outcomes = await run([
      call('nope'),
      call('strict', { word: 3 }),
      { ...call('strict', {}, 'bad-json'), inputError: 'unexpected end of JSON' },
      call('throws'),
      call('sync_throws'),
      call('malformed'),
      call('strict', { word: 'fine' }, 'ok'),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.text),
      [
        'unknown tool "nope"; available tools: strict, throws, sync_throws, malformed',
        'invalid arguments for strict: word: Invalid input: expected string, received number',
        'invalid arguments for strict: unexpected end of JSON',
        'throws failed: disk on fire',
        'sync_throws failed: no',
        'malformed failed: returned no forModel text',
        'fine',
      ],
    );
    assert.deepEqual(
      outcomes.map((o) => o.ok),
      [false, false, false, false, false, false, true],
    );
    const results = events.filter((e) => e.type === 'tool-result');
    assert.equal(results.length, 7);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool-call').map((e) => e.type === 'tool-call' && e.toolCallId),
      outcomes.map((o) => o.call.toolCallId),
    );
  });

  it("a tool's generate() runs under the call's signal", async () => {
    let signalSeen: AbortSignal | undefined;
    const writer: AgentTool = {
      name: 'writer',
      description: 'asks the model',
      inputSchema: z.object({}),
      execute: async (_input, context) => done(await context.generate!('hello')),
    };
    const generate = async (prompt: string, signal: AbortSignal) => {
      signalSeen = signal;
      return `${prompt} back`;
    };
    const [outcome] = await harness([writer], {}, { generate }).run([call('writer')]);
    assert.equal(outcome.text, 'hello back');
    assert.ok(signalSeen && !signalSeen.aborted);
  });
});
