import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAnthropicServer } from './anthropic.ts';
import { startOpenAIServer } from './openai.ts';
import { SseParser } from '../../client/sse.ts';

// The chat protocols on the wire, spoken to with plain fetch: what the real clients rely on.

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** SSE events as [event name | undefined, parsed data (or the raw string)]. */
async function readSse(response: Response): Promise<Array<[string | undefined, any]>> {
  const parser = new SseParser();
  return [...parser.feed(await response.text()), ...parser.end()].map((message) => [
    message.event === 'message' ? undefined : message.event,
    message.data === '[DONE]' ? message.data : JSON.parse(message.data),
  ]);
}

test('chat completions: JSON answers, SSE with split tool arguments, usage on request, function turns', async () => {
  const server = await startOpenAIServer();
  try {
    const url = `${server.baseURL}/chat/completions`;
    const messages = [{ role: 'user', content: 'hi' }];
    const calls = [
      { name: 'search', arguments: '{"query":"the tallest tower"}' },
      { name: 'get', arguments: '{"id":1}' },
    ];

    server.chat.enqueue({ type: 'tool-calls', calls });
    const json = (await (await post(url, { model: 'm', messages })).json()) as any;
    assert.equal(json.object, 'chat.completion');
    assert.equal(json.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(
      json.choices[0].message.tool_calls.map((c: any) => [c.function.name, c.function.arguments]),
      calls.map((c) => [c.name, c.arguments]),
    );
    assert.ok(json.usage.prompt_tokens > 0);

    server.chat.enqueue({ type: 'tool-calls', calls });
    const events = await readSse(await post(url, { model: 'm', messages, stream: true, stream_options: { include_usage: true } }));
    assert.equal(events.at(-1)?.[1], '[DONE]');
    const chunks = events.slice(0, -1).map(([, data]) => data);
    const pieces = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).filter((t: any) => t.index === 0 && !t.id);
    assert.ok(pieces.length >= 3, 'arguments arrive in several chunks');
    assert.equal(pieces.map((p: any) => p.function.arguments).join(''), calls[0].arguments);
    assert.equal(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls');
    assert.ok(chunks.at(-1).usage.completion_tokens > 0);

    // No include_usage: no usage chunk, like the real API.
    const plain = await readSse(await post(url, { model: 'm', messages, stream: true }));
    assert.ok(plain.every(([, data]) => data === '[DONE]' || data.usage === undefined));

    server.chat.enqueue((body) => ({ type: 'text', text: `model was ${(body as { model: string }).model}` }));
    const echoed = (await (await post(url, { model: 'echo-me', messages })).json()) as any;
    assert.equal(echoed.choices[0].message.content, 'model was echo-me');
    assert.deepEqual(server.chat.requests.at(-1)?.turn, { type: 'text', text: 'model was echo-me' });

    server.chat.enqueue({ type: 'status', status: 429, headers: { 'retry-after': '1' } });
    const limited = await post(url, { model: 'm', messages });
    assert.equal(limited.status, 429);
    assert.equal(((await limited.json()) as any).error.type, 'rate_limit_exceeded');
    assert.equal((await post(url, { model: 'm', messages: [] })).status, 400);
  } finally {
    await server.close();
  }
});

test('anthropic messages: JSON and the SSE event sequence with split input_json_delta', async () => {
  const server = await startAnthropicServer({ apiKey: 'k' });
  try {
    const url = `${server.baseURL}/messages`;
    const request = { model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
    const auth = { 'x-api-key': 'k' };
    assert.equal((await post(url, request)).status, 401);

    server.messages.enqueue({ type: 'tool-calls', text: 'Looking.', calls: [{ name: 'search', arguments: '{"query":"tall towers"}' }] });
    const json = (await (await post(url, request, auth)).json()) as any;
    assert.equal(json.stop_reason, 'tool_use');
    assert.deepEqual(json.content, [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_1_0', name: 'search', input: { query: 'tall towers' } },
    ]);

    server.messages.enqueue({ type: 'tool-calls', text: 'Looking.', calls: [{ name: 'search', arguments: '{"query":"tall towers"}' }] });
    const events = await readSse(await post(url, { ...request, stream: true }, auth));
    const names = events.map(([event]) => event);
    assert.equal(names[0], 'message_start');
    assert.deepEqual(names.slice(-2), ['message_delta', 'message_stop']);
    for (const [event, data] of events) assert.equal(data.type, event);
    const partial = events.filter(([, d]) => d.delta?.type === 'input_json_delta').map(([, d]) => d.delta.partial_json);
    assert.ok(partial.length >= 3);
    assert.equal(partial.join(''), '{"query":"tall towers"}');
    assert.equal(events.at(-2)?.[1].delta.stop_reason, 'tool_use');

    server.messages.enqueue({ type: 'status', status: 529 });
    const overloaded = await post(url, request, auth);
    assert.equal(overloaded.status, 529);
    assert.equal(((await overloaded.json()) as any).error.type, 'overloaded_error');
  } finally {
    await server.close();
  }
});
