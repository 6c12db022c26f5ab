/**
 * `dossier/client` against a live `dossier serve` (port 0, `--auth keys`, over eval/regression/corpus):
 * every method, the event stream in order, resuming a stream whose connection is cut, and errors.
 * The only stand-in is a fetch wrapper that cuts a real connection after N bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient, DossierClientError, SseParser, type DossierClient, type RunEvent } from '../src/client/index.ts';
import type { Dossier } from '../src/dossier.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState } from '../src/server/state/index.ts';
import { REPO_ROOT, regressionIndex, tempDir } from './helpers.ts';


type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;
interface Sent {
  url: string;
  method: string;
  lastEventId: string | null;
}

/**
 * Real fetch, but the bodies of the first `cuts.length` responses that `cut(url)` selects end with a
 * network error after `cuts[i]` bytes (the real connection is cancelled there). Every request is logged.
 */
function cuttingFetch(cuts: number[], select: (url: string, method: string) => boolean, options: { dropRunIdHeader?: boolean } = {}) {
  const sent: Sent[] = [];
  let cutIndex = 0;
  const fetchImpl: FetchLike = async (url, init) => {
    const method = init?.method ?? 'GET';
    sent.push({ url, method, lastEventId: new Headers(init?.headers).get('last-event-id') });
    const response = await fetch(url, init);
    if (!select(url, method) || cutIndex >= cuts.length || !response.body) return response;
    const limit = cuts[cutIndex++];
    const reader = response.body.getReader();
    let passed = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (passed + value.length < limit) {
          passed += value.length;
          return controller.enqueue(value);
        }
        if (limit > passed) controller.enqueue(value.subarray(0, limit - passed));
        passed = limit;
        await reader.cancel();
        controller.error(new TypeError('terminated: the test cut the connection'));
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const headers = new Headers(response.headers);
    if (options.dropRunIdHeader) headers.delete('x-dossier-run-id');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
  return { fetch: fetchImpl, sent };
}

async function collect(stream: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

async function rejectsWith(promise: Promise<unknown>, status: number, code: string): Promise<DossierClientError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(DossierClientError.isInstance(error), `not a DossierClientError: ${String(error)}`);
    assert.ok(error instanceof DossierClientError);
    assert.equal(error.status, status, error.message);
    assert.equal(error.code, code, error.message);
    assert.ok(error.message.length > 0);
    return error;
  }
  assert.fail(`expected ${status} ${code}, got success`);
}

describe('dossier/client against a live server', { timeout: 120_000 }, () => {
  let dossier: Dossier;
  let server: Awaited<ReturnType<typeof startServer>>;
  let cleanup: () => void;
  let adminKey: string;
  let client: DossierClient;

  /** The run's stored events read from scratch with a plain fetch: what every stream must equal. */
  async function storedEvents(runId: string, after = 0): Promise<{ events: RunEvent[]; bytes: Uint8Array }> {
    const response = await fetch(`${server.url}/v1/runs/${runId}/events${after ? `?after=${after}` : ''}`, { headers: { authorization: `Bearer ${adminKey}` } });
    assert.equal(response.status, 200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const parser = new SseParser();
    const messages = [...parser.feed(bytes), ...parser.end()];
    const events = messages.map((m) => ({ id: Number(m.id), event: JSON.parse(m.data) }));
    for (const [i, m] of messages.entries()) assert.equal(m.event, events[i].event.type);
    return { events, bytes };
  }

  before(async () => {
    const index = await regressionIndex();
    ({ dossier, removeFiles: cleanup } = index);
    const { db } = index;
    // The first admin and key, as `dossier users create admin --admin` would make them.
    const state = await openServerState(db);
    adminKey = (await state.createKey((await state.createUser('admin', { admin: true })).id)).apiKey;
    await state.close();
    server = await startServer({ dossier, db, port: 0, auth: 'keys' });
    client = createClient({ baseUrl: `${server.url}/`, apiKey: adminKey });
  });
  after(async () => {
    await server.close();
    await dossier.close();
    cleanup();
  });

  it('health, ready and the OpenAPI document, whose every route has a client method', async () => {
    assert.deepEqual(await client.health(), { ok: true, version: '0.1.0' });
    const ready = await client.ready();
    assert.equal(ready.ready, true);
    assert.ok((ready.documents ?? 0) >= 7);
    const doc = (await client.openapi()) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    // What each client method calls; a new core route without a method here fails this test. (The optional
    // groups `dossier serve` adds — /v1/chat, /v1/chat/completions, /mcp, the web page — speak other
    // clients' protocols: the AI SDK's, OpenAI's, MCP's; this server is started without them.)
    const covered = [
      'GET /health', 'GET /ready', 'POST /v1/documents', 'GET /v1/jobs/{jobId}', 'GET /v1/jobs/{jobId}/events', 'GET /v1/documents', 'GET /v1/documents/{id}', 'GET /v1/documents/{id}/chunks',
      'PATCH /v1/documents/{id}', 'DELETE /v1/documents/{id}', 'POST /v1/search', 'GET /v1/collections', 'POST /v1/ask', 'GET /v1/runs/{id}', 'GET /v1/runs/{id}/events',
      'POST /v1/conversations', 'GET /v1/conversations', 'GET /v1/conversations/{id}', 'GET /v1/conversations/{id}/messages', 'GET /v1/conversations/{id}/export',
      'DELETE /v1/conversations/{id}', 'GET /v1/me', 'POST /v1/users', 'POST /v1/keys', 'PUT /v1/collections/{collection}/members/{user}',
    ];
    assert.deepEqual(routes.filter((route) => !covered.includes(route)), []);
  });

  it('documents: upload (File, Blob and {name, data}), job, list with filter/limit/offset, get, chunks, patch, delete', async () => {
    const job = await client.documents.upload(
      [
        new File(['# Skarv-5\n\nThe Skarv-5 buoy logs wave height every ten minutes in Ålesund harbour.\n'], 'skarv.md', { type: 'text/markdown' }),
        { name: 'lunde.md', data: '# Lunde-2\n\nThe Lunde-2 tide gauge was installed at Bodø in 2021.\n' },
        { name: 'alke.txt', data: new TextEncoder().encode('The Alke-1 drifter reports sea temperature from the Barents Sea.\n') },
      ],
      { collection: 'uploads', metadata: { team: 'buoys', year: 2025 } },
    );
    assert.equal(job.status, 'running');
    assert.equal(job.collection, 'uploads');
    const done = await client.documents.waitForJob(job.id, { intervalMs: 50 });
    const streamed = [];
    for await (const update of client.documents.jobEvents(job.id)) streamed.push(update);
    assert.equal(streamed.at(-1)?.event, 'job-finish', 'a finished job streams its end at once');
    assert.equal(streamed.at(-1)?.job.status, 'finished');
    assert.equal(done.status, 'finished', done.error);
    assert.equal(done.report?.ingested, 3);
    assert.deepEqual(await client.documents.job(job.id), done);

    const listed = await client.documents.list({ collection: 'uploads' });
    assert.deepEqual(listed.map((d) => d.title).sort(), ['Lunde-2', 'Skarv-5', 'alke'].sort());
    assert.ok(listed.every((d) => d.metadata.team === 'buoys' && d.metadata.year === 2025 && d.collection === 'uploads'));
    assert.equal((await client.documents.list({ filter: { 'metadata.team': 'buoys' } })).length, 3);
    assert.equal((await client.documents.list({ filter: { 'metadata.team': 'nobody' } })).length, 0);
    const page = await client.documents.list({ collection: 'uploads', limit: 2, offset: 1 });
    assert.equal(page.length, 2);
    assert.deepEqual(page.map((d) => d.id), listed.slice(1, 3).map((d) => d.id));
    assert.ok((await client.documents.list()).length >= 10);

    const skarv = listed.find((d) => d.title === 'Skarv-5')!;
    const document = await client.documents.get(skarv.id);
    assert.equal(document.id, skarv.id);
    assert.match(document.source, /skarv\.md$/);
    const chunks = await client.documents.chunks(skarv.id);
    assert.ok(chunks.length >= 1);
    assert.match(chunks.map((c) => c.text).join(' '), /Ålesund harbour/);
    assert.ok(chunks.every((c) => c.documentId === skarv.id));

    const patched = await client.documents.patchMetadata(skarv.id, { year: null, reviewed: true });
    assert.deepEqual(patched.metadata, { team: 'buoys', reviewed: true });
    assert.deepEqual((await client.documents.get(skarv.id)).metadata, { team: 'buoys', reviewed: true });

    const hits = await client.search({ query: 'wave height buoy', collections: ['uploads'], k: 2 });
    assert.equal(hits.hits[0].documentId, skarv.id);

    assert.deepEqual(await client.documents.delete(skarv.id), { deleted: true });
    await rejectsWith(client.documents.get(skarv.id), 404, 'not-found');
    await rejectsWith(client.documents.chunks(skarv.id), 404, 'not-found');
    assert.equal((await client.documents.list({ collection: 'uploads' })).length, 2);
  });

  it('search (modes, k, filter, collections) and collections', async () => {
    for (const mode of ['hybrid', 'fulltext', 'vector'] as const) {
      const result = await client.search({ query: 'Tern-4 sea trial', mode, k: 3 });
      assert.ok(result.hits.length > 0 && result.hits.length <= 3, mode);
      assert.equal(typeof result.ms, 'number');
    }
    const { hits } = await client.search({ query: 'Tern-4 sea trial', k: 3, collections: ['default'] });
    assert.match(hits[0].text, /Hardangerfjord/);
    assert.ok(hits.every((h) => h.collection === 'default'));
    const filtered = await client.search({ query: 'Tern-4', k: 5, filter: { mediaType: 'text/csv' } });
    assert.ok(filtered.hits.length > 0 && filtered.hits.every((h) => h.source.endsWith('.csv')));
    const collections = await client.collections();
    const names = collections.map((c) => c.name);
    assert.ok(names.includes('default'), names.join());
    assert.ok(collections.every((c) => c.role === 'owner' && c.documents > 0), 'an admin owns every collection');
  });

  it('ask (JSON) and run', async () => {
    const result = await client.ask({ question: 'Where did the Tern-4 sea trial take place?' });
    assert.match(result.answer, /Hardangerfjord \[E\d+\]/);
    assert.equal(result.finishReason, 'stop');
    assert.ok(result.citations.length > 0);
    assert.ok(result.runId);
    const run = await client.run(result.runId);
    assert.equal(run.id, result.runId);
    assert.equal(run.status, 'finished');
    assert.equal(run.finishReason, 'stop');
  });

  it('askStream: run-start … run-finish in order with increasing ids, equal to the stored events; runEvents from scratch and after N', async () => {
    const stream = client.askStream({ question: 'Who leads the team that built the Petrel-1 harbour camera?' });
    const events = await collect(stream);
    assert.equal(events[0].event.type, 'run-start');
    assert.equal(events.at(-1)!.event.type, 'run-finish');
    assert.deepEqual(events.map((e) => e.id), events.map((_, i) => i + 1), 'ids are 1, 2, 3, … with no gap');
    assert.equal(events.filter((e) => e.event.type === 'run-finish').length, 1);
    const start = events[0].event;
    assert.ok(start.type === 'run-start');
    assert.equal(stream.runId, start.runId);
    assert.equal(stream.lastEventId, events.length);
    assert.equal(stream.reconnects, 0);
    const final = events.find((e) => e.event.type === 'final-answer')!.event;
    assert.ok(final.type === 'final-answer');
    assert.match(final.answer, /Amina Sørli/);

    const { events: stored } = await storedEvents(start.runId);
    assert.deepEqual(events, stored);
    assert.deepEqual(await collect(client.runEvents(start.runId)), stored);
    assert.deepEqual(await collect(client.runEvents(start.runId, { after: 3 })), stored.slice(3));
  });

  it('askStream resumes a connection cut mid-stream, with Last-Event-ID, without loss or duplicates', async () => {
    const { fetch: cutting, sent } = cuttingFetch([700], (url, method) => method === 'POST' && url.endsWith('/v1/ask'));
    const resumable = createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting });
    const stream = resumable.askStream({ question: 'Who leads the team that built the Petrel-1 harbour camera?' }, { retryDelayMs: 10 });
    const events = await collect(stream);
    assert.equal(stream.reconnects, 1);
    const { events: stored, bytes } = await storedEvents(stream.runId!);
    assert.ok(bytes.length > 700, 'the cut falls inside the stream');
    assert.deepEqual(events, stored);
    assert.equal(sent.length, 2);
    assert.equal(sent[1].method, 'GET');
    assert.equal(sent[1].url, `${server.url}/v1/runs/${stream.runId}/events`);
    // The last event whole within the first 700 bytes is what the reconnect names.
    const parser = new SseParser();
    const before = parser.feed(bytes.subarray(0, 700));
    assert.ok(before.length > 0);
    assert.equal(sent[1].lastEventId, before.at(-1)!.id);
  });

  it('askStream resumes from the run-start event when the run id header is hidden (a browser without exposed headers)', async () => {
    const { fetch: cutting, sent } = cuttingFetch([400], (_url, method) => method === 'POST', { dropRunIdHeader: true });
    const resumable = createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting });
    const stream = resumable.askStream({ question: 'When was Halvorsen Instruments founded?' }, { retryDelayMs: 10 });
    const events = await collect(stream);
    assert.equal(stream.reconnects, 1);
    assert.deepEqual(events, (await storedEvents(stream.runId!)).events);
    assert.equal(sent.length, 2);
    assert.ok(sent[1].url.endsWith(`/v1/runs/${stream.runId}/events`));
  });

  it('runEvents resumes across cuts anywhere: first byte, inside a multi-byte character, between frames, several in a row', async () => {
    const { runId } = await client.ask({ question: 'Who leads the team that built the Petrel-1 harbour camera?' });
    const { events: stored, bytes } = await storedEvents(runId);
    const multibyte = bytes.findIndex((b) => b >= 0xc0); // the lead byte of "ø" in Sørli
    assert.ok(multibyte > 0);
    const text = new TextDecoder().decode(bytes);
    const frameEnd = new TextEncoder().encode(text.slice(0, text.indexOf('\n\n', text.length / 2) + 1)).length; // between the two LFs ending a frame
    const plans: number[][] = [[1], [multibyte + 1], [frameEnd], [bytes.length - 1], [300, 300, 300], [0, 0]];
    for (const cuts of plans) {
      const { fetch: cutting, sent } = cuttingFetch(cuts, (url) => url.includes('/events'));
      const stream = createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting }).runEvents(runId, { retryDelayMs: 5 });
      assert.deepEqual(await collect(stream), stored, `cuts ${cuts}`);
      assert.equal(stream.reconnects, cuts.length, `cuts ${cuts}`);
      assert.equal(sent.length, cuts.length + 1);
      // Each reconnect names the last whole event before its cut (or sends no header when there was none).
      let last = 0;
      for (const [i, cut] of cuts.entries()) {
        assert.equal(sent[i].lastEventId, last > 0 ? String(last) : null, `cuts ${cuts}, connection ${i}`);
        const seen = new SseParser().feed((await storedEvents(runId, last)).bytes.subarray(0, cut));
        last = seen.length ? Number(seen.at(-1)!.id) : last;
      }
      assert.equal(sent.at(-1)!.lastEventId, last > 0 ? String(last) : null, `cuts ${cuts}, last connection`);
    }
    // after N with a cut: the reconnect moves on from N.
    const { fetch: cutting, sent } = cuttingFetch([1], (url) => url.includes('/events'));
    const tail = await collect(createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting }).runEvents(runId, { after: 4, retryDelayMs: 5 }));
    assert.deepEqual(tail, stored.slice(4));
    assert.deepEqual(sent.map((s) => s.lastEventId), ['4', '4']);
  });

  it('research: a nested run-finish (with path) does not end the stream; a cut after it resumes to the top-level one', async () => {
    const question = 'Who leads the team that built the Tern-4 salinity sensor?';
    const { runId } = await client.ask({ question, mode: 'research' });
    const { events: stored, bytes } = await storedEvents(runId);
    const nested = stored.findIndex((e) => e.event.type === 'run-finish' && e.event.path);
    assert.ok(nested > 0 && nested < stored.length - 1, 'a nested agent finished before the run did');
    // Cut right after the nested run-finish frame: a client that stopped there would never reconnect.
    const text = new TextDecoder().decode(bytes);
    const cut = new TextEncoder().encode(text.slice(0, text.indexOf(`\nid: ${stored[nested].id}\n`))).length + 1;
    const cutAt = new TextEncoder().encode(text.slice(0, text.indexOf('\n\n', cut) + 2)).length;
    const { fetch: cutting, sent } = cuttingFetch([cutAt], (url) => url.includes('/events'));
    const stream = createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting }).runEvents(runId, { retryDelayMs: 5 });
    const events = await collect(stream);
    assert.deepEqual(events, stored);
    assert.equal(sent[1].lastEventId, String(stored[nested].id));
    assert.ok(events.at(-1)!.event.type === 'run-finish' && !events.at(-1)!.event.path);
  });

  it('a stream that keeps dropping without progress gives up with stream-interrupted', async () => {
    const { runId } = await client.ask({ question: 'When was Halvorsen Instruments founded?' });
    const { fetch: cutting, sent } = cuttingFetch([0, 0, 0, 0], (url) => url.includes('/events'));
    const stream = createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting }).runEvents(runId, { retryDelayMs: 1, maxRetries: 2 });
    await rejectsWith(collect(stream), 0, 'stream-interrupted');
    assert.equal(sent.length, 3);
  });

  it('conversations: create, list, ask within one (follow-up), messages, get, export, delete', async () => {
    const conversation = await client.conversations.create({ title: 'Halvorsen' });
    assert.equal(conversation.title, 'Halvorsen');
    assert.ok((await client.conversations.list()).some((c) => c.id === conversation.id));
    const first = await client.ask({ question: 'Who founded Halvorsen Instruments?', conversationId: conversation.id });
    assert.match(first.answer, /Marit Halvorsen/);
    // The follow-up only makes sense with the first turn: "it" is Halvorsen Instruments.
    const second = await client.conversations.ask(conversation.id, { question: 'When was it founded?' });
    assert.match(second.answer, /1987/);
    // The assistant message is recorded when the run finishes; the JSON answer comes at the same time.
    let messages = await client.conversations.messages(conversation.id);
    for (let i = 0; i < 50 && messages.length < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      messages = await client.conversations.messages(conversation.id);
    }
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.equal(messages[2].content, 'When was it founded?');
    assert.equal(messages[2].parentId, messages[1].id);
    assert.equal(messages[3].runId, second.runId);
    assert.ok(messages[3].citations && messages[3].citations.length > 0);
    const got = await client.conversations.get(conversation.id);
    assert.equal(got.id, conversation.id);
    assert.deepEqual(got.messages, messages);
    const markdown = await client.conversations.export(conversation.id);
    assert.match(markdown, /^# Halvorsen\n/);
    assert.match(markdown, /When was it founded\?/);
    assert.deepEqual(await client.conversations.delete(conversation.id), { deleted: true });
    await rejectsWith(client.conversations.get(conversation.id), 404, 'not-found');
    await rejectsWith(client.ask({ question: 'Anything?', conversationId: conversation.id }), 404, 'not-found');
  });

  it('me, users.create, keys.create, grant — and what the new user may then do', async () => {
    const me = await client.me();
    assert.equal(me.user.name, 'admin');
    assert.equal(me.user.admin, true);
    const created = await client.users.create({ name: 'reader1' });
    assert.ok(created.userId && created.apiKey);
    const { apiKey } = await client.keys.create({ user: 'reader1' });
    assert.notEqual(apiKey, created.apiKey);
    assert.deepEqual(await client.grant('uploads', 'reader1', 'reader'), { collection: 'uploads', user: 'reader1', role: 'reader' });

    const reader = createClient({ baseUrl: server.url, apiKey });
    const readerMe = await reader.me();
    assert.equal(readerMe.user.name, 'reader1');
    assert.equal(readerMe.user.admin, false);
    assert.deepEqual(readerMe.collections, [{ collection: 'uploads', role: 'reader' }]);
    assert.deepEqual((await reader.collections()).map((c) => [c.name, c.role]), [['uploads', 'reader']]);
    assert.ok((await reader.documents.list()).every((d) => d.collection === 'uploads'));
    assert.ok((await reader.keys.create()).apiKey, 'a key for oneself needs no admin');
    await rejectsWith(reader.users.create({ name: 'sneaky' }), 403, 'forbidden');
    await rejectsWith(reader.documents.upload({ name: 'x.md', data: '# x' }, { collection: 'uploads' }), 403, 'forbidden');
    await rejectsWith(reader.search({ query: 'Tern-4', collections: ['default'] }), 404, 'not-found');
  });

  it('errors map to DossierClientError: 404 not-found, 400 bad-input, 401 unauthorized, network', async () => {
    await rejectsWith(client.documents.get(987654), 404, 'not-found');
    await rejectsWith(client.documents.job('no-such-job'), 404, 'not-found');
    await rejectsWith(client.run('no-such-run'), 404, 'not-found');
    await rejectsWith(collect(client.runEvents('no-such-run')), 404, 'not-found');
    await rejectsWith(client.search({ query: '' }), 400, 'bad-input');
    await rejectsWith(client.search({ query: 'x', k: 0 }), 400, 'bad-input');
    await rejectsWith(client.documents.list({ limit: 0 }), 400, 'bad-input');
    await rejectsWith(client.ask({ question: '' }), 400, 'bad-input');
    await rejectsWith(collect(client.askStream({ question: '' })), 400, 'bad-input');
    await rejectsWith(client.documents.upload([], {}), 400, 'bad-input');
    await rejectsWith(client.grant('uploads', 'nobody-here', 'reader'), 404, 'not-found');
    const bad = await rejectsWith(createClient({ baseUrl: server.url }).me(), 401, 'unauthorized');
    assert.match(bad.message, /API key/);
    await rejectsWith(createClient({ baseUrl: server.url, apiKey: 'not-a-key' }).collections(), 401, 'unauthorized');
    // Health needs no key.
    assert.equal((await createClient({ baseUrl: server.url }).health()).ok, true);
    // Nothing listens on port 9 of loopback (discard): no response at all.
    await rejectsWith(createClient({ baseUrl: 'http://127.0.0.1:9' }).health(), 0, 'network');
  });

  it('src/client imports nothing from node: and only types from the rest of Dossier (browser-safe)', () => {
    const dir = join(REPO_ROOT, 'src/client');
    const files = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    assert.deepEqual(files.sort(), ['index.ts', 'sse.ts']);
    for (const name of files) {
      const source = readFileSync(join(dir, name), 'utf8');
      assert.doesNotMatch(source, /['"]node:/, `${name} names a node: module`);
      assert.doesNotMatch(source, /\brequire\(|\bimport\(|\bprocess\.|\bBuffer\b/, `${name} uses a Node-only API`);
      for (const match of source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
        const [, , typeOnly, from] = match;
        if (from.startsWith('./')) continue;
        assert.ok(typeOnly, `${name}: a value import from ${from}; only \`import type\` may leave src/client`);
        // And only from the modules that import nothing else (so no engine, ai or Node types come along).
        assert.ok(['../protocol/events.ts', '../store/types.ts', '../protocol/json-shapes.ts'].includes(from), `${name}: a type import from ${from}`);
      }
    }
  });

  it('src/client type-checks as a browser would see it: DOM lib, no @types/node, skipLibCheck off', () => {
    const temp = tempDir('dossier-browser-');
    try {
      const config = join(temp.dir, 'tsconfig.json');
      const compilerOptions = { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, lib: ['ES2022', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'], types: [], skipLibCheck: false, noEmit: true, allowImportingTsExtensions: true };
      writeFileSync(config, JSON.stringify({ compilerOptions, files: [join(REPO_ROOT, 'src/client/index.ts')] }));
      const result = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', config, '--listFilesOnly'], { encoding: 'utf8' });
      const files = result.stdout.split('\n').filter((f) => f && !f.includes('node_modules/typescript/lib/'));
      // Only the client and the dependency-free modules it takes types from: no engine, no node_modules.
      assert.deepEqual(files.map((f) => f.slice(REPO_ROOT.length + 1)).sort(), ['src/client/index.ts', 'src/client/sse.ts', 'src/protocol/events.ts', 'src/protocol/json-shapes.ts', 'src/store/types.ts']);
      const check = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { encoding: 'utf8' });
      assert.equal(check.status, 0, `tsc found errors:\n${check.stdout}${check.stderr}`);
    } finally {
      temp.cleanup();
    }
  });
});
