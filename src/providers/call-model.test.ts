/**
 * callModel driving the real AI SDK clients (OpenAI chat, OpenAI-compatible, Anthropic) over real
 * HTTP against the protocol test server. Every provider runs the same cases.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { DossierError } from '../errors/index.ts';
import { startAnthropicServer } from '../testing/protocol-server/anthropic.ts';
import type { ChatTurn } from '../testing/protocol-server/chat.ts';
import { startOpenAIServer } from '../testing/protocol-server/openai.ts';
import type { Route } from '../testing/protocol-server/server.ts';
import { callModel, type CallModelParams } from './call-model.ts';
import type { LanguageModelObject } from './types.ts';

interface Harness {
  model: LanguageModelObject;
  route: Route<ChatTurn>;
  reset(): void;
  close(): Promise<void>;
}

const providers: Array<{ name: string; reasoning: boolean; start(): Promise<Harness> }> = [
  {
    name: 'openai (chat completions)',
    reasoning: false, // @ai-sdk/openai's chat model does not read reasoning_content.
    async start() {
      const server = await startOpenAIServer();
      const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test' }).chat('gpt-test');
      return { model, route: server.chat, reset: server.reset, close: server.close };
    },
  },
  {
    name: 'openai-compatible',
    reasoning: true,
    async start() {
      const server = await startOpenAIServer();
      const model = createOpenAICompatible({ name: 'compat', baseURL: server.baseURL, includeUsage: true }).chatModel('local-test');
      return { model, route: server.chat, reset: server.reset, close: server.close };
    },
  },
  {
    name: 'anthropic',
    reasoning: true,
    async start() {
      const server = await startAnthropicServer();
      const model = createAnthropic({ baseURL: server.baseURL, apiKey: 'test' }).messages('claude-test');
      return { model, route: server.messages, reset: server.reset, close: server.close };
    },
  },
];

const tools = {
  search: {
    description: 'Search the knowledge base.',
    inputSchema: z.object({ query: z.string(), k: z.number().int().optional() }),
  },
  get_content: {
    description: 'Read a document.',
    inputSchema: z.object({ id: z.string() }),
  },
};

const question: ModelMessage[] = [{ role: 'user', content: 'Where is the Eiffel Tower?' }];

for (const provider of providers) {
  describe(`callModel via ${provider.name}`, () => {
    let harness: Harness;
    before(async () => {
      harness = await provider.start();
    });
    after(async () => {
      await harness.close();
    });
    beforeEach(() => harness.reset());

    const call = (overrides: Partial<CallModelParams> = {}) =>
      // maxOutputTokens: Anthropic's client warns on every call for a model id it does not know otherwise.
      callModel({
        model: harness.model,
        system: 'Be brief.',
        messages: question,
        tools,
        timeoutMs: 5_000,
        maxOutputTokens: 1_000,
        ...overrides,
      });

    test('streams text in several deltas, in order, with usage', async () => {
      const text = 'The Eiffel Tower stands in Paris, on the Champ de Mars.';
      harness.route.enqueue({ type: 'text', text });
      const deltas: string[] = [];
      const result = await call({ onTextDelta: (d) => deltas.push(d) });
      assert.ok(deltas.length >= 5, `expected several deltas, got ${deltas.length}`);
      assert.equal(deltas.join(''), text);
      assert.equal(result.text, text);
      assert.deepEqual(result.toolCalls, []);
      assert.equal(result.finishReason, 'stop');
      assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0, JSON.stringify(result.usage));
      const sent = harness.route.requests[0].body as { stream?: boolean };
      assert.equal(sent.stream, true);
      assert.equal(result.rawOutput.messages.at(-1)?.role, 'assistant');
    });

    test('reassembles tool-call arguments split across chunks; two calls in one turn', async () => {
      const long = JSON.stringify({ query: 'height of the Eiffel Tower in metres and feet', k: 5 });
      harness.route.enqueue({
        type: 'tool-calls',
        text: 'Let me look.',
        calls: [
          { name: 'search', arguments: long },
          { name: 'get_content', arguments: '{"id":"doc-7"}' },
        ],
      });
      const result = await call();
      assert.equal(result.finishReason, 'tool-calls');
      assert.equal(result.text, 'Let me look.');
      assert.deepEqual(
        result.toolCalls.map(({ toolName, input, inputError }) => ({ toolName, input, inputError })),
        [
          { toolName: 'search', input: JSON.parse(long), inputError: undefined },
          { toolName: 'get_content', input: { id: 'doc-7' }, inputError: undefined },
        ],
      );
      assert.equal(new Set(result.toolCalls.map((c) => c.toolCallId)).size, 2);
      // The tools really went out with their schemas.
      assert.match(JSON.stringify(harness.route.requests[0].body), /"search".*"query"/s);
    });

    test('malformed JSON, a schema mismatch and an unknown tool come back as inputError, not a throw', async () => {
      harness.route.enqueue({
        type: 'tool-calls',
        calls: [
          { name: 'search', arguments: '{"query": "paris' },
          { name: 'search', arguments: '{"query": 42}' },
          { name: 'delete_everything', arguments: '{}' },
          { name: 'get_content', arguments: '{"id":"ok"}' },
        ],
      });
      const result = await call();
      assert.equal(result.toolCalls.length, 4);
      const [broken, mismatched, unknown, fine] = result.toolCalls;
      assert.match(broken.inputError ?? '', /JSON|parse/i);
      assert.match(mismatched.inputError ?? '', /query|string|type/i);
      assert.match(unknown.inputError ?? '', /delete_everything/);
      assert.equal(fine.inputError, undefined);
      assert.deepEqual(fine.input, { id: 'ok' });
      for (const e of [broken, mismatched, unknown]) assert.doesNotMatch(e.inputError!, /\n/);
    });

    test('a turn can answer from what the model was sent (tool result round trip)', async () => {
      harness.route.enqueue({ type: 'tool-calls', calls: [{ name: 'get_content', arguments: '{"id":"doc-1"}' }] });
      const first = await call();
      const [toolCall] = first.toolCalls;
      harness.route.enqueue((body) => {
        const found = JSON.stringify(body).match(/evidence-(\d+)/);
        return { type: 'text', text: found ? `It is in Paris [${found[0]}].` : 'nothing found' };
      });
      const second = await call({
        messages: [
          ...question,
          ...first.rawOutput.messages,
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: toolCall.toolCallId,
                toolName: toolCall.toolName,
                output: { type: 'text', value: 'evidence-17: The tower is in Paris.' },
              },
            ],
          },
        ],
      });
      assert.equal(second.text, 'It is in Paris [evidence-17].');
    });

    test('429 then success: retried by the SDK, honouring Retry-After', async () => {
      harness.route.enqueue({ type: 'status', status: 429, headers: { 'retry-after': '0' } });
      harness.route.enqueue({ type: 'text', text: 'Paris.' });
      const result = await call();
      assert.equal(result.text, 'Paris.');
      assert.equal(harness.route.requests.length, 2);
    });

    test('500 then success is retried; persistent 500 fails with one line after the retries', async () => {
      // retry-after-ms keeps the SDK's 2 s backoff out of the test; the retry decision is the SDK's.
      const fault: ChatTurn | { type: 'status'; status: number; headers: Record<string, string> } = {
        type: 'status',
        status: 500,
        headers: { 'retry-after-ms': '1' },
      };
      harness.route.enqueue(fault);
      harness.route.enqueue({ type: 'text', text: 'Paris.' });
      assert.equal((await call()).text, 'Paris.');

      harness.reset();
      harness.route.enqueue(fault, 10);
      const error = await call({ maxRetries: 2 }).then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e,
      );
      assert.ok(DossierError.isInstance(error), String(error));
      assert.equal(error.code, 'remote-failed');
      assert.match(error.message, new RegExp(`^${harness.model.provider} .*HTTP 500.*scripted 500.*3 attempts`));
      assert.doesNotMatch(error.message, /\n/);
      assert.equal(harness.route.requests.length, 3);
    });

    test('a 400 is not retried', async () => {
      harness.route.enqueue({ type: 'status', status: 400 }, 5);
      await assert.rejects(call(), (e: unknown) => DossierError.isInstance(e) && /HTTP 400/.test(e.message));
      assert.equal(harness.route.requests.length, 1);
    });

    test('401 and 403 fail at once as remote-auth: one request each, never retried', async () => {
      for (const status of [401, 403]) {
        harness.reset();
        harness.route.enqueue({ type: 'status', status, headers: { 'retry-after-ms': '1' } }, 5);
        const error = await call({ maxRetries: 3 }).then(
          () => assert.fail('expected a failure'),
          (e: unknown) => e,
        );
        assert.ok(DossierError.isInstance(error), String(error));
        assert.equal(error.code, 'remote-auth');
        assert.match(error.message, new RegExp(`HTTP ${status}`));
        assert.equal(harness.route.requests.length, 1, `${status} was retried`);
      }
    });

    test('a 503 that persists past the timeout budget gives up with the HTTP failure, not a timeout', async () => {
      // Retry-After 30 s cannot fit into a 1 s call: no point waiting for it.
      harness.route.enqueue({ type: 'status', status: 503, headers: { 'retry-after': '30' } }, 3);
      const started = Date.now();
      await assert.rejects(
        call({ timeoutMs: 1_000 }),
        (e: unknown) => DossierError.isInstance(e) && e.code === 'remote-failed' && /HTTP 503/.test(e.message),
      );
      assert.ok(Date.now() - started < 900);
      assert.equal(harness.route.requests.length, 1);
    });

    test('a hanging server hits the timeout', async () => {
      harness.route.enqueue({ type: 'hang' });
      const started = Date.now();
      await assert.rejects(
        call({ timeoutMs: 300 }),
        (e: unknown) => DossierError.isInstance(e) && e.code === 'remote-timeout' && /timed out after 300 ms/.test(e.message),
      );
      assert.ok(Date.now() - started < 2_000);
    });

    test('a stream that stalls midway hits the timeout', async () => {
      harness.route.enqueue({ type: 'text', text: 'one two three four five', interrupt: { afterEvents: 6, mode: 'hang' } });
      const deltas: string[] = [];
      await assert.rejects(call({ timeoutMs: 300, onTextDelta: (d) => deltas.push(d) }), /timed out after 300 ms/);
      assert.ok(deltas.length >= 1, 'the first deltas still streamed');
    });

    test('an abort by the caller stops the call with an AbortError', async () => {
      harness.route.enqueue({ type: 'hang' });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      await assert.rejects(call({ abortSignal: controller.signal }), (e: unknown) => e instanceof Error && e.name === 'AbortError');
      assert.ok(Date.now() - started < 2_000);
      // Already aborted: no request at all.
      harness.reset();
      await assert.rejects(call({ abortSignal: AbortSignal.abort() }), { name: 'AbortError' });
      assert.equal(harness.route.requests.length, 0);
    });

    test('an empty reply gives empty text and a finish reason', async () => {
      harness.route.enqueue({ type: 'empty' });
      const result = await call();
      assert.equal(result.text, '');
      assert.deepEqual(result.toolCalls, []);
      assert.equal(result.finishReason, 'stop');
    });

    test('a dropped connection, mid-stream cut and malformed stream are one-line errors', async () => {
      harness.route.enqueue({ type: 'drop' });
      await assert.rejects(
        call({ maxRetries: 0 }),
        (e: unknown) => DossierError.isInstance(e) && e.code === 'remote-failed' && !e.message.includes('\n'),
      );
      harness.route.enqueue({ type: 'text', text: 'one two three four', interrupt: { afterEvents: 3, mode: 'drop' } });
      await assert.rejects(call({ maxRetries: 0 }), (e: unknown) => DossierError.isInstance(e) && e.code === 'remote-failed');
      harness.route.enqueue({ type: 'malformed' });
      await assert.rejects(call({ maxRetries: 0 }), (e: unknown) => DossierError.isInstance(e) && e.code === 'remote-failed');
    });

    if (provider.reasoning) {
      test('reasoning streams to onReasoningDelta, apart from the text', async () => {
        harness.route.enqueue({ type: 'text', reasoning: 'The user asks about a landmark.', text: 'Paris.' });
        const thoughts: string[] = [];
        const result = await call({ onReasoningDelta: (d) => thoughts.push(d) });
        assert.ok(thoughts.length >= 2);
        assert.equal(thoughts.join(''), 'The user asks about a landmark.');
        assert.equal(result.reasoning, 'The user asks about a landmark.');
        assert.equal(result.text, 'Paris.');
      });
    }
  });
}

test('a dropped connection is retried (network errors are retryable)', async () => {
  // One provider is enough: the retry is the SDK's, and without Retry-After it waits its fixed 2 s.
  const server = await startOpenAIServer();
  try {
    server.chat.enqueue({ type: 'drop' });
    server.chat.enqueue({ type: 'text', text: 'Paris.' });
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'test' }).chat('gpt-test');
    const result = await callModel({ model, messages: question, maxRetries: 1, timeoutMs: 5_000 });
    assert.equal(result.text, 'Paris.');
    assert.equal(server.chat.requests.length, 2);
  } finally {
    await server.close();
  }
});

test('connection refused fails fast as remote-unreachable, without retries', async () => {
  // A port that was just listening and is now closed refuses connections.
  const server = await startOpenAIServer();
  const baseURL = server.baseURL;
  await server.close();
  for (const model of [
    createOpenAICompatible({ name: 'compat', baseURL }).chatModel('local-test'),
    createAnthropic({ baseURL, apiKey: 'test' }).messages('claude-test'),
  ]) {
    const started = Date.now();
    const error = await callModel({ model, messages: question, maxRetries: 3, maxOutputTokens: 1_000, timeoutMs: 30_000 }).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    const ms = Date.now() - started;
    assert.ok(DossierError.isInstance(error), String(error));
    assert.equal(error.code, 'remote-unreachable');
    assert.match(error.message, /ECONNREFUSED/);
    assert.doesNotMatch(error.message, /attempts/);
    assert.ok(ms <= 2_000, `took ${ms} ms`);
  }
});

test('an unknown host fails as remote-unreachable', async () => {
  const model = createOpenAICompatible({ name: 'compat', baseURL: 'http://no-such-host.invalid/v1' }).chatModel('local-test');
  // `.invalid` never resolves (RFC 2606); the resolver's speed is not ours to test, only that the host is not retried.
  await assert.rejects(
    callModel({ model, messages: question, timeoutMs: 10_000 }),
    (e: unknown) => DossierError.isInstance(e) && e.code === 'remote-unreachable' && !/attempts/.test(e.message),
  );
});
