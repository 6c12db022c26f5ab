import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import OpenAI from 'openai';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { optionalRouteGroups } from '../src/server/groups.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState } from '../src/server/state/index.ts';
import { tempDir, parseFrames } from './helpers.ts';
import { type ChatBody, NOT_FOUND, type ScriptedModel, startScriptedModel, systemOf } from './scripted-model.ts';

// The chat endpoints read by the clients people will point at them: the AI SDK's own transport and
// message reader for /v1/chat, the official OpenAI client for /v1/chat/completions.

type Server = Awaited<ReturnType<typeof startServer>>;

// Runs are answered by the scripted model (test/scripted-model.ts): the tests check how the chat
// endpoints carry an answer the script determines, never the offline reader's wording.
let model: ScriptedModel;
before(async () => (model = await startScriptedModel()));
after(async () => model.close());
afterEach(() => model.reset());
/** The scripted model's one answer to `question` (asked exactly once since the last reset). */
function scripted(question: string): string {
  const answers = model.answersTo(question);
  assert.equal(answers.length, 1, `the model was asked "${question}" once`);
  return answers[0]!;
}

async function indexedServer(options: { auth?: 'keys'; before?: (db: string) => Promise<void>; model?: string } = {}) {
  const temp = tempDir();
  const db = join(temp.dir, 'index.db');
  const dossier: Dossier = await createDossier({ db, env: { ...process.env, ...model.env } });
  await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
  await options.before?.(db);
  const server = await startServer({
    dossier,
    db,
    port: 0,
    auth: options.auth,
    ...(options.model ? { ask: { model: options.model } } : {}),
    extra: await optionalRouteGroups(),
  });
  return {
    server,
    close: async () => {
      await server.close();
      await dossier.close();
      temp.cleanup();
    },
  };
}

const userMessage = (text: string, id = 'u1'): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

/** One chat turn through DefaultChatTransport: every chunk, and the message readUIMessageStream assembles from them. */
async function chat(server: Server, messages: UIMessage[], options: { body?: object; headers?: Record<string, string> } = {}) {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/chat`, headers: options.headers, body: options.body });
  const stream = await transport.sendMessages({
    chatId: 'chat-1',
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  const errors: string[] = [];
  let message: UIMessage | undefined;
  const replay = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const state of readUIMessageStream<UIMessage>({ stream: replay, onError: (error) => errors.push((error as Error).message) }))
    message = state;
  assert.ok(message, 'the stream assembled a message');
  return { chunks, message, errors };
}

const textOf = (message: UIMessage) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
const partsOf = <T extends string>(message: UIMessage, type: T) => message.parts.filter((part) => part.type === type) as any[];

describe('POST /v1/chat: the AI SDK UI message stream', () => {
  let s: Awaited<ReturnType<typeof indexedServer>>;
  before(async () => (s = await indexedServer()));
  after(async () => s.close());

  it('speaks the protocol: header, start, text, sources, data-run, finish', async () => {
    const raw = await fetch(`${s.server.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'c', messages: [userMessage('Where did the Tern-4 sea trial take place?')], trigger: 'submit-message' }),
    });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    // SSE comments (the keep-alive's `: stream-open`) are not frames.
    const frames = parseFrames(await raw.text());
    assert.equal(frames.at(-1)?.data, '[DONE]');
    assert.equal(frames[0]!.data.type, 'start');
    const doc: any = await (await fetch(`${s.server.url}/openapi.json`)).json();
    for (const path of ['/v1/chat', '/v1/chat/completions', '/v1/models', '/mcp']) assert.ok(doc.paths[path], path);
    assert.ok(doc.paths['/v1/chat'].post.responses['200'].content['text/event-stream']);
  });

  it('assembles into an assistant message with the cited answer, its source documents, tool parts and the run', async () => {
    const { chunks, message, errors } = await chat(s.server, [userMessage('Where did the Tern-4 sea trial take place?')]);
    assert.deepEqual(errors, []);
    assert.equal(message.role, 'assistant');
    assert.equal(chunks.at(-1)!.type, 'finish');
    assert.equal((chunks.at(-1) as any).finishReason, 'stop');
    const text = textOf(message);
    assert.equal(text, scripted('Where did the Tern-4 sea trial take place?'));
    assert.match(text, /\[E\d+\]/);

    // Every id cited in the text is a source-document part naming its chunk.
    const sources = partsOf(message, 'source-document');
    const cited = new Set([...text.matchAll(/E\d+/g)].map((m) => m[0]));
    assert.deepEqual(new Set(sources.map((p) => p.sourceId)), cited);
    const trial = sources[0];
    assert.equal(trial.title, 'Field notes from the Tern-4 sea trial');
    assert.equal(trial.mediaType, 'text/markdown');
    assert.match(trial.filename, /field-notes-injected\.md$/);
    assert.equal(typeof trial.providerMetadata.dossier.chunkId, 'number');
    assert.match(trial.providerMetadata.dossier.text, /Hardangerfjord/);

    // The searches as tool parts, each with its output.
    const tools = partsOf(message, 'dynamic-tool');
    assert.ok(
      tools.some((p) => p.toolName === 'search_knowledge' && p.state === 'output-available'),
      JSON.stringify(tools.map((p) => [p.toolName, p.state])),
    );

    // data-run: the run id and its finish; the stored run's answer is exactly the last text part.
    const [run] = partsOf(message, 'data-run');
    assert.equal(run.data.status, 'finished');
    assert.equal(run.data.finishReason, 'stop');
    assert.deepEqual((message.metadata as any).runId, run.data.runId);
    const stored: any = await (await fetch(`${s.server.url}/v1/runs/${run.data.runId}`)).json();
    assert.equal(partsOf(message, 'text').at(-1).text, stored.result.answer);
    assert.deepEqual(
      stored.result.citations.map((c: any) => c.chunkId),
      sources.map((p) => p.providerMetadata.dossier.chunkId),
    );
  });

  it('rewrites a follow-up from the earlier messages', async () => {
    const { message } = await chat(s.server, [
      userMessage('Who founded Halvorsen Instruments?', 'u1'),
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Marit Halvorsen [E1]' }] },
      userMessage('When was it founded?', 'u2'),
    ]);
    const [run] = partsOf(message, 'data-run');
    assert.equal(run.data.question, 'When was Halvorsen Instruments founded?');
    assert.equal(textOf(message), scripted('When was Halvorsen Instruments founded?'));
  });

  it('continues a server conversation given conversationId, and records the turns', async () => {
    const { id } = (await (
      await fetch(`${s.server.url}/v1/conversations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as any;
    await chat(s.server, [userMessage('Who founded Halvorsen Instruments?')], { body: { conversationId: id } });
    // The client sends only the new turn: the context is the conversation stored on the server.
    const { message } = await chat(s.server, [userMessage('When was it founded?')], { body: { conversationId: id } });
    assert.equal(partsOf(message, 'data-run')[0].data.question, 'When was Halvorsen Instruments founded?');
    assert.equal(textOf(message), scripted('When was Halvorsen Instruments founded?'));
    const { messages } = (await (await fetch(`${s.server.url}/v1/conversations/${id}/messages`)).json()) as any;
    assert.deepEqual(
      messages.map((m: any) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
  });

  it('research mode streams the plan, the sub-agents and the critique as data parts', async () => {
    const { message, errors } = await chat(s.server, [userMessage('Who leads the team that built the Tern-4 salinity sensor?')], {
      body: { mode: 'research' },
    });
    assert.deepEqual(errors, []);
    const [plan] = partsOf(message, 'data-plan');
    assert.ok(plan.data.items.length >= 1);
    assert.equal(typeof plan.data.items[0].question, 'string');
    const subagents = partsOf(message, 'data-subagent');
    assert.ok(subagents.length >= 1);
    // One part per sub-agent, updated in place when it finishes.
    assert.ok(
      subagents.every((p) => p.data.status === 'finished'),
      JSON.stringify(subagents),
    );
    assert.ok(partsOf(message, 'data-critique').length >= 1);
    // The report is the planner's; every id it cites is a source part.
    const report = model.answers.filter((a) => a.role === 'planner').map((a) => a.answer);
    assert.equal(report.length, 1);
    assert.equal(partsOf(message, 'text').at(-1).text, report[0]);
    const cited = new Set([...report[0]!.matchAll(/E\d+/g)].map((m) => m[0]));
    assert.ok(cited.size >= 1);
    assert.deepEqual(new Set(partsOf(message, 'source-document').map((p) => p.sourceId)), cited);
    assert.equal(partsOf(message, 'data-run')[0].data.finishReason, 'stop');
    // Nested agents' searches are tool parts too, named by their agent.
    assert.ok(partsOf(message, 'dynamic-tool').some((p) => /^rag:\d+: search_knowledge$/.test(p.title ?? '')));
  });

  it('POST /v1/ask critiqueModel picks the model that judges the draft; it needs research mode', async () => {
    const critiques = () =>
      model.server.chat.requests.filter((r) => systemOf(r.body as ChatBody).startsWith('You check a research report claim by claim'))
        .length;
    const ask = (body: object) =>
      fetch(`${s.server.url}/v1/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const question = 'Who leads the team that built the Tern-4 salinity sensor?';
    // Default: the run's model (the scripted one) judges the draft.
    assert.equal((await ask({ question, mode: 'research' })).status, 200);
    assert.ok(critiques() >= 1, 'the run model critiqued');
    model.reset();
    // The offline critique instead: the scripted model is never asked to judge.
    const offline = (await (await ask({ question, mode: 'research', critiqueModel: 'offline' })).json()) as any;
    assert.equal(offline.finishReason, 'stop');
    assert.equal(critiques(), 0);
    assert.ok(offline.critique, 'the offline critique still ran');
    const refused = await ask({ question, critiqueModel: 'offline' });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as any).error.message, /critiqueModel needs mode "research"/);
  });

  it('a failed run ends with an error part carrying the message', async () => {
    const { chunks, errors, message } = await chat(s.server, [userMessage('Where did the Tern-4 sea trial take place?')], {
      body: { model: 'no-such-provider:x' },
    });
    const last = chunks.at(-1) as any;
    assert.equal(last.type, 'error');
    assert.match(last.errorText, /no-such-provider/);
    assert.deepEqual(errors, [last.errorText]);
    assert.ok(!chunks.some((c) => c.type === 'finish'));
    assert.equal(partsOf(message, 'data-run')[0].data.finishReason, 'error');
  });

  it('refuses a request without a question as a plain 400', async () => {
    const response = await fetch(`${s.server.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as any).error.code, 'bad-input');
  });
});

describe('POST /v1/chat/completions: OpenAI-compatible', () => {
  let s: Awaited<ReturnType<typeof indexedServer>>;
  let client: OpenAI;
  before(async () => {
    s = await indexedServer();
    client = new OpenAI({ baseURL: `${s.server.url}/v1`, apiKey: 'unused-on-loopback' });
  });
  after(async () => s.close());

  const collect = async (stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) => {
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, content: chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('') };
  };

  it('lists the two models', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['dossier', 'dossier-research']);
    assert.equal((await client.models.retrieve('dossier-research')).id, 'dossier-research');
  });

  for (const [mode, question, role] of [
    ['dossier', 'Where did the Tern-4 sea trial take place?', 'rag'],
    ['dossier-research', 'Who leads the team that built the Tern-4 salinity sensor?', 'planner'],
  ] as const) {
    it(`${mode}: a completion with the cited answer, a Sources list, citations and usage; streaming gives the same text`, async () => {
      const completion = await client.chat.completions.create({ model: mode, messages: [{ role: 'user', content: question }] });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, mode);
      const content = completion.choices[0]!.message.content ?? '';
      // The answer (the planner's report in research) as the model wrote it, then the Sources list.
      const answers = model.answers.filter((a) => a.role === role).map((a) => a.answer);
      assert.equal(answers.length, 1);
      assert.match(answers[0]!, /\[E\d+\]/);
      assert.ok(content.startsWith(`${answers[0]}\n\nSources:\n`), content);
      assert.equal(completion.choices[0]!.finish_reason, 'stop');
      const citations = (completion as any).citations as any[];
      assert.ok(citations.length >= 1);
      assert.match(content, /\n\nSources:\n\[E\d+\] /);
      for (const citation of citations) assert.ok(content.includes(`[${citation.id}] ${citation.title} — ${citation.source}`), citation.id);
      assert.ok(completion.usage!.total_tokens > 0);
      assert.equal(completion.usage!.total_tokens, completion.usage!.prompt_tokens + completion.usage!.completion_tokens);

      const stream = await client.chat.completions.create({
        model: mode,
        messages: [{ role: 'user', content: question }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const { chunks, content: streamed } = await collect(stream);
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
      // The answer arrives in pieces, and adds up to the non-streaming content (the scripted model is deterministic).
      assert.ok(chunks.filter((c) => c.choices[0]?.delta?.content).length > 2);
      assert.equal(streamed, content);
      const last = [...chunks].reverse().find((c) => c.choices.length > 0);
      assert.equal(last.choices[0].finish_reason, 'stop');
      assert.deepEqual(
        last.citations.map((c: any) => c.chunkId),
        citations.map((c) => c.chunkId),
      );
      assert.ok(chunks.at(-1).usage.total_tokens > 0);
    });
  }

  it('earlier messages are context for a follow-up', async () => {
    const completion = await client.chat.completions.create({
      model: 'dossier',
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Who founded Halvorsen Instruments?' },
        { role: 'assistant', content: 'Marit Halvorsen [E1]' },
        { role: 'user', content: [{ type: 'text', text: 'When was it founded?' }] },
      ],
    });
    // The model was asked the follow-up made standalone from the earlier messages.
    assert.ok(
      (completion.choices[0]!.message.content ?? '').startsWith(`${scripted('When was Halvorsen Instruments founded?')}\n\nSources:\n`),
    );
  });

  it('an unknown model is a 404 in OpenAI error shape', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.NotFoundError);
        assert.equal(error.status, 404);
        assert.equal(error.code, 'model_not_found');
        assert.equal(error.type, 'invalid_request_error');
        assert.match(error.message, /gpt-4o/);
        return true;
      },
    );
    await assert.rejects(client.models.retrieve('gpt-4o'), OpenAI.NotFoundError);
  });
});

describe('chat endpoints with API keys', () => {
  let s: Awaited<ReturnType<typeof indexedServer>>;
  const keys: { admin: string; guest: string } = { admin: '', guest: '' };
  before(async () => {
    s = await indexedServer({
      auth: 'keys',
      before: async (db) => {
        const state = await openServerState(db);
        keys.admin = (await state.createKey((await state.createUser('alice', { admin: true })).id)).apiKey;
        // A user granted no collection: nothing of the index is theirs to read.
        keys.guest = (await state.createKey((await state.createUser('guest')).id)).apiKey;
        await state.close();
      },
    });
  });
  after(async () => s.close());

  it('no key: 401 for /v1/chat, /v1/chat/completions and /v1/models', async () => {
    const json = { 'content-type': 'application/json' };
    const chatResponse = await fetch(`${s.server.url}/v1/chat`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ messages: [userMessage('Where did the Tern-4 sea trial take place?')] }),
    });
    assert.equal(chatResponse.status, 401);
    assert.equal(((await chatResponse.json()) as any).error.code, 'unauthorized');
    const completions = await fetch(`${s.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'dossier', messages: [{ role: 'user', content: 'Where did the Tern-4 sea trial take place?' }] }),
    });
    assert.equal(completions.status, 401);
    assert.equal((await fetch(`${s.server.url}/v1/models`)).status, 401);
    const wrong = new OpenAI({ baseURL: `${s.server.url}/v1`, apiKey: 'dsk_not-a-key' });
    await assert.rejects(
      wrong.chat.completions.create({ model: 'dossier', messages: [{ role: 'user', content: 'hi' }] }),
      OpenAI.AuthenticationError,
    );
  });

  it('a valid key answers; the run is scoped to what the key may read, as on /v1/ask', async () => {
    const question = 'Where did the Tern-4 sea trial take place?';
    const { message } = await chat(s.server, [userMessage(question)], { headers: { authorization: `Bearer ${keys.admin}` } });
    assert.equal(textOf(message), scripted(question));
    assert.match(textOf(message), /Hardangerfjord/, 'the admin’s search found the passage');
    const admin = new OpenAI({ baseURL: `${s.server.url}/v1`, apiKey: keys.admin });
    const answered = await admin.chat.completions.create({ model: 'dossier', messages: [{ role: 'user', content: question }] });
    assert.ok((answered.choices[0]!.message.content ?? '').startsWith(model.answersTo(question)[1]!));
    assert.equal((answered as any).citations.length, 1);

    // The guest's runs search nothing of the index: the model is shown no passage, and nothing is cited.
    model.reset();
    const guest = new OpenAI({ baseURL: `${s.server.url}/v1`, apiKey: keys.guest });
    const unseen = await guest.chat.completions.create({ model: 'dossier', messages: [{ role: 'user', content: question }] });
    assert.deepEqual((unseen as any).citations, []);
    const guestChat = await chat(s.server, [userMessage(question)], { headers: { authorization: `Bearer ${keys.guest}` } });
    assert.deepEqual(partsOf(guestChat.message, 'source-document'), []);
    assert.deepEqual(
      model.answers.map((a) => [a.answer, a.evidence.length]),
      [
        [NOT_FOUND, 0],
        [NOT_FOUND, 0],
      ],
    );
    assert.equal(unseen.choices[0]!.message.content, NOT_FOUND);
    assert.equal(textOf(guestChat.message), NOT_FOUND);
  });
});

describe('a run that fails, through the OpenAI client', () => {
  let s: Awaited<ReturnType<typeof indexedServer>>;
  // The server's default model is one no provider offers: every run fails before its first step.
  before(async () => (s = await indexedServer({ model: 'no-such-provider:x' })));
  after(async () => s.close());

  it('is an error, streaming or not, never a completion', async () => {
    const client = new OpenAI({ baseURL: `${s.server.url}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'Where did the Tern-4 sea trial take place?' }];
    await assert.rejects(client.chat.completions.create({ model: 'dossier', messages }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError);
      // The server's own configuration failed it: a server error to the client.
      assert.equal(error.status, 500);
      assert.equal(error.type, 'server_error');
      assert.match(error.message, /the run failed: .*no-such-provider/);
      return true;
    });
    const stream = await client.chat.completions.create({ model: 'dossier', messages, stream: true });
    await assert.rejects(
      (async () => {
        for await (const _ of stream);
      })(),
      (error: unknown) => error instanceof OpenAI.APIError && /the run failed: .*no-such-provider/.test(error.message),
    );
  });
});
