/**
 * Fail loudly, never wrongly: runs whose model fails, through the real OpenAI-compatible and
 * Anthropic clients against the protocol server. Each ends with finish reason `error`, an
 * `error: {code, message}` on the result and an `error` event, and an answer that says the run
 * failed — never "not found in the documents".
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dossier } from '../src/dossier.ts';
import type { AgentEvent } from '../src/protocol/events.ts';
import { runAgent, type AgentOptions, type AgentResult } from '../src/agent/run-agent.ts';
import { resolveModel, type ResolvedModel } from '../src/providers/index.ts';
import { startAnthropicServer } from '../src/testing/protocol-server/anthropic.ts';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import type { Route } from '../src/testing/protocol-server/server.ts';
import type { ChatTurn } from '../src/testing/protocol-server/chat.ts';
import { regressionIndex } from './helpers.ts';

const QUESTION = 'Who leads the team that built the Tern-4 salinity sensor?';
const search = (query: string) => ({ name: 'search_knowledge', arguments: JSON.stringify({ query }) });

function assertFailedLoudly(result: AgentResult, events: AgentEvent[], code: string): void {
  assert.equal(result.finishReason, 'error');
  assert.equal(result.error?.code, code, JSON.stringify(result.error));
  assert.ok(result.error!.message.length > 0 && !result.error!.message.includes('\n'));
  assert.doesNotMatch(result.answer, /not found in the documents/i);
  assert.match(result.answer, /^The run failed: /);
  assert.equal(result.answer.split('\n')[0], `The run failed: ${result.error!.message}`);
  const error = events.find((e) => e.type === 'error');
  assert.ok(error?.type === 'error' && error.code === code && error.message === result.error!.message, JSON.stringify(error));
  const finish = events.at(-1);
  assert.ok(finish?.type === 'run-finish' && finish.finishReason === 'error');
}

describe('a run whose model fails ends with finish reason error and says why', () => {
  let dossier: Dossier;
  let cleanup: () => void;
  let openai: Awaited<ReturnType<typeof startOpenAIServer>>;
  let anthropic: Awaited<ReturnType<typeof startAnthropicServer>>;
  let closedURL: string;

  before(async () => {
    ({ dossier, cleanup } = await regressionIndex());
    openai = await startOpenAIServer();
    anthropic = await startAnthropicServer();
    const closed = await startOpenAIServer();
    closedURL = closed.baseURL;
    await closed.close();
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
    cleanup();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  const run = async (model: ResolvedModel, extra: Partial<AgentOptions> = {}) => {
    const events: AgentEvent[] = [];
    const result = await runAgent({
      knowledge: dossier,
      question: QUESTION,
      model,
      modelTimeoutMs: 5_000,
      maxRetries: 2,
      onEvent: (e) => events.push(e),
      ...extra,
    });
    return { result, events };
  };

  const providers: Array<{ name: string; route: () => Route<ChatTurn>; model: (baseURL?: string) => Promise<ResolvedModel> }> = [
    {
      name: 'OpenAI-compatible',
      route: () => openai.chat,
      model: (baseURL) => resolveModel('openai-compatible:scripted', { env: { DOSSIER_BASE_URL: baseURL ?? openai.baseURL } }),
    },
    {
      name: 'Anthropic',
      route: () => anthropic.messages,
      model: (baseURL) =>
        resolveModel('anthropic:claude-scripted', { env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: baseURL ?? anthropic.baseURL } }),
    },
  ];

  for (const provider of providers) {
    describe(provider.name, () => {
      it('connection refused: remote-unreachable within 2 s, default retries notwithstanding', async () => {
        const model = await provider.model(closedURL);
        const started = Date.now();
        const { result, events } = await run(model, { maxRetries: 3 });
        const ms = Date.now() - started;
        assertFailedLoudly(result, events, 'remote-unreachable');
        assert.ok(ms <= 2_000, `took ${ms} ms`);
        assert.equal(result.model, model.id);
        assert.equal(result.partial, true);
        assert.deepEqual(result.citations, []);
      });

      it('401 and 403: remote-auth after exactly one request', async () => {
        for (const status of [401, 403]) {
          provider.route().reset();
          provider.route().enqueue({ type: 'status', status, headers: { 'retry-after-ms': '1' } }, 5);
          const { result, events } = await run(await provider.model(), { maxRetries: 3 });
          assertFailedLoudly(result, events, 'remote-auth');
          assert.match(result.error!.message, new RegExp(`HTTP ${status}`));
          assert.equal(provider.route().requests.length, 1, `${status} was retried`);
        }
      });

      it('5xx after the retries: remote-failed, saying how many attempts were made', async () => {
        provider.route().enqueue({ type: 'status', status: 500, headers: { 'retry-after-ms': '1' } }, 3);
        const { result, events } = await run(await provider.model(), { maxRetries: 2 });
        assertFailedLoudly(result, events, 'remote-failed');
        assert.match(result.error!.message, /HTTP 500.*gave up after 3 attempts/);
        assert.equal(provider.route().requests.length, 3);
      });

      it('a malformed stream: remote-failed', async () => {
        provider.route().enqueue({ type: 'malformed' }, 3);
        const { result, events } = await run(await provider.model(), { maxRetries: 0 });
        assertFailedLoudly(result, events, 'remote-failed');
      });

      it('a hanging server: remote-timeout, bounded by the model timeout', async () => {
        provider.route().enqueue({ type: 'hang' });
        const started = Date.now();
        const { result, events } = await run(await provider.model(), { modelTimeoutMs: 300, maxRetries: 0 });
        assertFailedLoudly(result, events, 'remote-timeout');
        assert.match(result.error!.message, /timed out after 300 ms/);
        assert.ok(Date.now() - started < 2_000);
      });
    });
  }

  it('a failure after evidence was found still finishes with error, quoting the evidence, cited', async () => {
    openai.chat.enqueue({ type: 'tool-calls', calls: [search('Tern-4 salinity sensor')] });
    openai.chat.enqueue({ type: 'status', status: 503, headers: { 'retry-after-ms': '1' } }, 3);
    const { result, events } = await run(await providers[0].model());
    assertFailedLoudly(result, events, 'remote-failed');
    assert.ok(result.citations.length > 0);
    assert.ok(result.evidence.length > 0);
  });

  it('a model that fails when asked for the final answer at a limit finishes with error, not max-steps', async () => {
    openai.chat.enqueue({ type: 'tool-calls', calls: [search('Tern-4 salinity sensor')] });
    openai.chat.enqueue({ type: 'status', status: 401 });
    const { result, events } = await run(await providers[0].model(), { maxSteps: 1 });
    assertFailedLoudly(result, events, 'remote-auth');
    assert.equal(result.steps, 1);
  });

  it('an aborted run says it was aborted, never "not found", and carries error code aborted', async () => {
    openai.chat.enqueue({ type: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { result, events } = await run(await providers[0].model(), { signal: controller.signal });
    assert.equal(result.finishReason, 'aborted');
    assert.deepEqual(result.error, { code: 'aborted', message: 'the run was aborted' });
    assert.doesNotMatch(result.answer, /not found/i);
    assert.match(result.answer, /aborted/);
    assert.equal(events.at(-1)?.type, 'run-finish');
  });
});
