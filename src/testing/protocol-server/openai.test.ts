import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64ToFloat32, deterministicEmbedding, startOpenAIServer } from './openai.ts';

// The server itself, spoken to with plain fetch: the wire format the clients rely on.
test('embeddings endpoint speaks the OpenAI wire format, float and base64', async () => {
  const server = await startOpenAIServer({ dimensions: 12 });
  try {
    const post = (body: unknown) =>
      fetch(`${server.baseURL}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    // Replies are checked field by field below, so a loose type is enough here.
    const json = async (response: Response) => (await response.json()) as any;
    const floatReply = await json(await post({ model: 'm', input: ['a b', 'c'] }));
    assert.equal(floatReply.object, 'list');
    assert.equal(floatReply.model, 'm');
    assert.deepEqual(floatReply.usage, { prompt_tokens: 3, total_tokens: 3 });
    assert.deepEqual(
      floatReply.data.map((d: { index: number; object: string }) => [d.object, d.index]),
      [
        ['embedding', 0],
        ['embedding', 1],
      ],
    );
    assert.deepEqual(floatReply.data[0].embedding, Array.from(deterministicEmbedding('a b', 12)));

    const b64Reply = await json(await post({ model: 'm', input: 'a b', encoding_format: 'base64', dimensions: 5 }));
    assert.deepEqual(base64ToFloat32(b64Reply.data[0].embedding), deterministicEmbedding('a b', 5));

    const bad = await post({ model: 'm', input: [] });
    assert.equal(bad.status, 400);
    assert.equal((await json(bad)).error.type, 'invalid_request_error');

    server.embeddings.enqueue({ type: 'status', status: 429, headers: { 'retry-after': '3' } });
    const limited = await post({ model: 'm', input: 'x' });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '3');
    assert.equal((await json(limited)).error.type, 'rate_limit_exceeded');

    assert.equal(server.embeddings.requests.length, 4);
    assert.equal((await fetch(`${server.url}/v1/nothing`, { method: 'POST' })).status, 404);
  } finally {
    await server.close();
  }
});

test('words shared between texts bring their vectors closer', () => {
  const cos = (a: Float32Array, b: Float32Array) => {
    let dot = 0,
      na = 0,
      nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] ** 2;
      nb += b[i] ** 2;
    }
    return dot / Math.sqrt(na * nb);
  };
  const base = deterministicEmbedding('solar panels convert sunlight', 128);
  assert.ok(
    cos(base, deterministicEmbedding('sunlight and solar panels', 128)) > cos(base, deterministicEmbedding('the stock market fell', 128)),
  );
});

test("a route's otherwise turn answers whenever its queue is empty; queued turns go first; reset forgets it", async () => {
  const server = await startOpenAIServer();
  try {
    const ask = async () => {
      const response = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      return response.status === 200 ? ((await response.json()) as any).choices[0].message.content : response.status;
    };
    server.chat.otherwise((body) => ({ type: 'text', text: `echo ${(body as any).messages[0].content}` }));
    server.chat.enqueue({ type: 'status', status: 503 });
    assert.deepEqual([await ask(), await ask(), await ask()], [503, 'echo hi', 'echo hi']);
    server.reset();
    assert.equal(await ask(), 'Hello from the protocol server.');
  } finally {
    await server.close();
  }
});
