/**
 * `dossier/client` against a live `dossier serve` (port 0, `--auth keys`, over eval/regression/corpus):
 * every method, the event stream in order, resuming a stream whose connection is cut, and errors.
 * The stand-ins: a fetch wrapper that cuts a real connection after N bytes, and the scripted model
 * (test/scripted-model.ts) behind the runs, so answers are the script's, not the offline reader's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { z } from '@hono/zod-openapi';
import { createClient, DossierClientError, SseParser, type DossierClient, type RunEvent } from '../src/client/index.ts';
import { createDossier, type Dossier } from '../src/dossier.ts';
import type { Citation } from '../src/protocol/events.ts';
import type {
  AskRequest,
  Conversation,
  HttpRoutes,
  IngestJob,
  Message,
  RouteBody,
  RouteEvents,
  RouteForm,
  RouteKey,
  RouteQuery,
  RouteResponse,
} from '../src/protocol/http.ts';
import type { AskResult, GraphEntityView } from '../src/protocol/json-shapes.ts';
import { optionalRouteGroups } from '../src/server/groups.ts';
import { buildApp, startServer } from '../src/server/index.ts';
import type { AskBody } from '../src/server/routes/ask.ts';
import type { StoredChunk, StoredDocument } from '../src/store/types.ts';
import { openServerState } from '../src/server/state/index.ts';
import { REPO_ROOT, regressionIndex, tempDir } from './helpers.ts';
import { assertDelivered, startScriptedModel, type ScriptedModel } from './scripted-model.ts';

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
  let model: ScriptedModel;

  /** The run's stored events read from scratch with a plain fetch: what every stream must equal. */
  async function storedEvents(runId: string, after = 0): Promise<{ events: RunEvent[]; bytes: Uint8Array }> {
    const response = await fetch(`${server.url}/v1/runs/${runId}/events${after ? `?after=${after}` : ''}`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    assert.equal(response.status, 200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const parser = new SseParser();
    const messages = [...parser.feed(bytes), ...parser.end()];
    const events = messages.map((m) => ({ id: Number(m.id), event: JSON.parse(m.data) }));
    for (const [i, m] of messages.entries()) assert.equal(m.event, events[i].event.type);
    return { events, bytes };
  }

  before(async () => {
    model = await startScriptedModel();
    const index = await regressionIndex('sqlite', { env: { ...process.env, ...model.env } });
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
    await model.close();
    cleanup();
  });
  afterEach(() => model.reset());

  it('health, ready and the OpenAPI document', async () => {
    assert.deepEqual(await client.health(), { ok: true, version: '0.1.0' });
    const ready = await client.ready();
    assert.equal(ready.ready, true);
    assert.ok((ready.documents ?? 0) >= 7);
    // That every route has a client method is the route table's test, below.
    const doc = (await client.openapi()) as { paths: Record<string, Record<string, unknown>> };
    assert.ok(doc.paths['/v1/ask']?.post);
  });

  it('documents: upload (File, Blob and {name, data}), job, list with filter/limit/offset, get, chunks, patch, delete', async () => {
    const job = await client.documents.upload(
      [
        new File(['# Skarv-5\n\nThe Skarv-5 buoy logs wave height every ten minutes in Ålesund harbour.\n'], 'skarv.md', {
          type: 'text/markdown',
        }),
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
    assert.deepEqual(
      page.map((d) => d.id),
      listed.slice(1, 3).map((d) => d.id),
    );
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
    assert.ok(
      collections.every((c) => c.role === 'owner' && c.documents > 0),
      'an admin owns every collection',
    );
  });

  it('ask (JSON) and run', async () => {
    const result = await client.ask({ question: 'Where did the Tern-4 sea trial take place?' });
    assertDelivered(result, model.answersTo('Where did the Tern-4 sea trial take place?')[0]!);
    assert.equal(result.finishReason, 'stop');
    assert.ok(result.citations.length > 0);
    assert.ok(result.runId);
    const run = await client.run(result.runId);
    assert.equal(run.id, result.runId);
    assert.equal(run.status, 'finished');
    assert.equal(run.finishReason, 'stop');
  });

  it('askStream: run-start … run-finish in order with increasing ids, equal to the stored events; runEvents from scratch and after N', async () => {
    const stream = client.askStream({ question: 'Who leads the Harbour Systems Team?' });
    const events = await collect(stream);
    assert.equal(events[0].event.type, 'run-start');
    assert.equal(events.at(-1)!.event.type, 'run-finish');
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
      'ids are 1, 2, 3, … with no gap',
    );
    assert.equal(events.filter((e) => e.event.type === 'run-finish').length, 1);
    const start = events[0].event;
    assert.ok(start.type === 'run-start');
    assert.equal(stream.runId, start.runId);
    assert.equal(stream.lastEventId, events.length);
    assert.equal(stream.reconnects, 0);
    const final = events.find((e) => e.event.type === 'final-answer')!.event;
    assert.ok(final.type === 'final-answer');
    assertDelivered(final, model.answersTo('Who leads the Harbour Systems Team?')[0]!);

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
    const { runId } = await client.ask({ question: 'Who leads the Harbour Systems Team?' });
    assert.match(model.answersTo('Who leads the Harbour Systems Team?')[0]!, /Sørli/, 'the scripted answer quotes a name with an ø');
    const { events: stored, bytes } = await storedEvents(runId);
    const multibyte = bytes.findIndex((b) => b >= 0xc0); // the lead byte of an "ø", as in Sørli
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
    const tail = await collect(
      createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting }).runEvents(runId, { after: 4, retryDelayMs: 5 }),
    );
    assert.deepEqual(tail, stored.slice(4));
    assert.deepEqual(
      sent.map((s) => s.lastEventId),
      ['4', '4'],
    );
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
    const stream = createClient({ baseUrl: server.url, apiKey: adminKey, fetch: cutting }).runEvents(runId, {
      retryDelayMs: 1,
      maxRetries: 2,
    });
    await rejectsWith(collect(stream), 0, 'stream-interrupted');
    assert.equal(sent.length, 3);
  });

  it('conversations: create, list, ask within one (follow-up), messages, get, export, delete', async () => {
    const conversation = await client.conversations.create({ title: 'Halvorsen' });
    assert.equal(conversation.title, 'Halvorsen');
    assert.ok((await client.conversations.list()).some((c) => c.id === conversation.id));
    const first = await client.ask({ question: 'Who founded Halvorsen Instruments?', conversationId: conversation.id });
    assertDelivered(first, model.answersTo('Who founded Halvorsen Instruments?')[0]!);
    // The follow-up only makes sense with the first turn: "it" is Halvorsen Instruments (as the model was asked).
    const second = await client.conversations.ask(conversation.id, { question: 'When was it founded?' });
    assertDelivered(second, model.answersTo('When was Halvorsen Instruments founded?')[0]!);
    // The assistant message is recorded when the run finishes; the JSON answer comes at the same time.
    let messages = await client.conversations.messages(conversation.id);
    for (let i = 0; i < 50 && messages.length < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      messages = await client.conversations.messages(conversation.id);
    }
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(messages[2].content, 'When was it founded?');
    assert.equal(messages[2].parentId, messages[1].id);
    assert.equal(messages[3].runId, second.runId);
    assert.equal(messages[3].content, second.answer);
    assert.deepEqual(
      messages[3].citations?.map((c) => c.chunkId),
      second.citations.map((c) => c.chunkId),
    );
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
    assert.deepEqual(
      (await reader.collections()).map((c) => [c.name, c.role]),
      [['uploads', 'reader']],
    );
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

  it('src/client imports nothing from node:, only types from the rest of Dossier, and code only from the citation grammar (browser-safe)', () => {
    const dir = join(REPO_ROOT, 'src/client');
    const files = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    assert.deepEqual(files.sort(), ['index.ts', 'sse.ts']);
    // Types from the modules that import nothing but each other (so no engine, ai or Node types come along).
    const typeSources = ['../protocol/events.ts', '../protocol/http.ts', '../protocol/json-shapes.ts', '../store/types.ts'];
    // Code from the one module that imports nothing at all.
    const codeSources = ['../protocol/citations.ts'];
    for (const name of files) {
      const source = readFileSync(join(dir, name), 'utf8');
      assert.doesNotMatch(source, /['"]node:/, `${name} names a node: module`);
      assert.doesNotMatch(source, /\brequire\(|\bimport\(|\bprocess\.|\bBuffer\b/, `${name} uses a Node-only API`);
      for (const match of source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
        const [, , typeOnly, from] = match;
        if (from.startsWith('./')) continue;
        if (typeOnly) assert.ok(typeSources.includes(from) || codeSources.includes(from), `${name}: a type import from ${from}`);
        else
          assert.ok(
            codeSources.includes(from),
            `${name}: a value import from ${from}; only \`import type\` may leave src/client, but for ${codeSources.join(', ')}`,
          );
      }
    }
    for (const from of codeSources)
      assert.doesNotMatch(readFileSync(join(dir, from), 'utf8'), /^\s*(import|export)\s[^;]*?from\s/m, `${from} imports nothing`);
  });

  it('src/client type-checks as a browser would see it: DOM lib, no @types/node, skipLibCheck off', () => {
    const temp = tempDir('dossier-browser-');
    try {
      const config = join(temp.dir, 'tsconfig.json');
      const compilerOptions = {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        strict: true,
        lib: ['ES2022', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'],
        types: [],
        skipLibCheck: false,
        noEmit: true,
        allowImportingTsExtensions: true,
      };
      writeFileSync(config, JSON.stringify({ compilerOptions, files: [join(REPO_ROOT, 'src/client/index.ts')] }));
      const result = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', config, '--listFilesOnly'], {
        encoding: 'utf8',
      });
      const files = result.stdout.split('\n').filter((f) => f && !f.includes('node_modules/typescript/lib/'));
      // Only the client and the dependency-free modules it takes types from: no engine, no node_modules.
      assert.deepEqual(files.map((f) => f.slice(REPO_ROOT.length + 1)).sort(), [
        'src/client/index.ts',
        'src/client/sse.ts',
        'src/protocol/citations.ts',
        'src/protocol/events.ts',
        'src/protocol/http.ts',
        'src/protocol/json-shapes.ts',
        'src/store/types.ts',
      ]);
      const check = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { encoding: 'utf8' });
      assert.equal(check.status, 0, `tsc found errors:\n${check.stdout}${check.stderr}`);
    } finally {
      temp.cleanup();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The route table (src/protocol/http.ts) against the server's schemas, and every route against the
// client's methods, without a network: a recording fetch answers each request with a canned body.

/** The keys of T that are not optional. */
// biome-ignore lint/complexity/noBannedTypes: {} is the empty object type here, as in the standard RequiredKeys idiom
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile time: the same fields, the same of them required, each of a type the other accepts. */
type SameShape<A, B> =
  Same<keyof A, keyof B> extends true ? (Same<RequiredKeys<A>, RequiredKeys<B>> extends true ? Same<A, B> : false) : false;
// The one schema a route module exports is compared as a type (the others are compared at run time, below).
const _askBodyIsTheTablesAskRequest: SameShape<z.infer<typeof AskBody>, AskRequest> = true;
// …and the comparison would have caught the drift it was made for: an optional field only one side has.
const _aMissingOptionalFieldIsCaught: SameShape<{ question: string; parentId?: string }, { question: string }> = false;

type RoutesWith<Part extends string> = { [K in RouteKey]: HttpRoutes[K] extends { [P in Part]: unknown } ? K : never }[RouteKey];
/** A request with every field set, and one with only the required fields (TypeScript holds both to the route table's type). */
interface Samples<T> {
  every: Required<T>;
  fewest: Pick<T, RequiredKeys<T>>;
}
/** "Dotted" names of a client's methods: "health", "documents.upload", … */
type MethodNames<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends (...args: never[]) => unknown ? `${Prefix}${K}` : MethodNames<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

const JSON_BODIES: { [K in RoutesWith<'body'>]: Samples<RouteBody<K>> } = {
  'PATCH /v1/documents/{id}': { every: { metadata: { reviewed: true, year: null } }, fewest: { metadata: {} } },
  'POST /v1/search': {
    every: { query: 'wave height', mode: 'fulltext', k: 3, filter: { 'metadata.team': 'buoys' }, collections: ['uploads'] },
    fewest: { query: 'wave height' },
  },
  'POST /v1/ask': {
    every: {
      question: 'When was it founded?',
      mode: 'research',
      model: 'offline',
      conversationId: 'conv-1',
      parentId: 'msg-2',
      collections: ['default'],
      stream: false,
      maxSteps: 8,
      critiqueModel: 'offline',
    },
    fewest: { question: 'When was it founded?' },
  },
  'POST /v1/conversations': { every: { title: 'Halvorsen' }, fewest: {} },
  'POST /v1/users': { every: { name: 'reader1', admin: false }, fewest: { name: 'reader1' } },
  'POST /v1/keys': { every: { user: 'reader1' }, fewest: {} },
  'PUT /v1/collections/{collection}/members/{user}': { every: { role: 'writer' }, fewest: { role: 'writer' } },
  'POST /v1/graph/build': { every: { collections: ['uploads'], rebuild: true, model: 'offline' }, fewest: {} },
};
const QUERIES: { [K in RoutesWith<'query'>]: Samples<RouteQuery<K>> } = {
  'GET /v1/documents': { every: { collection: 'uploads', filter: '{"metadata.team":"buoys"}', limit: 5, offset: 2 }, fewest: {} },
  'GET /v1/runs/{id}/events': { every: { after: 3 }, fewest: {} },
  'GET /v1/graph/entities': { every: { query: 'skarv', collection: 'uploads', limit: 5, offset: 2 }, fewest: {} },
  'GET /v1/graph/entities/{id}': { every: { collection: 'uploads', limit: 5 }, fewest: {} },
  'GET /v1/graph/communities': { every: { collection: 'uploads', level: 0, limit: 5 }, fewest: {} },
};
const FORMS: { [K in RoutesWith<'form'>]: Samples<RouteForm<K>> } = {
  'POST /v1/documents': {
    every: { file: [new Blob(['# Skarv-5'])], collection: 'uploads', metadata: '{"team":"buoys"}' },
    fewest: { file: new Blob(['# Skarv-5']) },
  },
};
/**
 * Fields the table requires where the schema cannot say so: the upload's `file` is `z.any()` (a
 * binary part), and the handler answers 400 without one.
 */
const REQUIRED_BY_THE_HANDLER: Partial<Record<RouteKey, string[]>> = { 'POST /v1/documents': ['file'] };

/**
 * Routes of `dossier serve` that are deliberately not client methods, and why. Everything else the
 * server serves or documents must be in the route table, and every table route must be called by
 * some client method.
 */
const NOT_CLIENT_METHODS: Record<string, string> = {
  'GET /': 'the web page, for browsers (it is built on this client)',
  'GET /assets/*': "the web page's modules and style sheet",
  'GET /docs': 'the API reference for people; the client has openapi()',
  'POST /mcp': 'MCP over Streamable HTTP: MCP clients speak it',
  'GET /mcp': 'MCP: always 405, the endpoint is stateless',
  'DELETE /mcp': 'MCP: always 405, there is no session to end',
  'POST /v1/chat': "the AI SDK's UI message stream: useChat and the AI SDK speak it",
  'GET /v1/models': 'OpenAI-compatible: the openai SDK speaks it',
  'GET /v1/models/{model}': 'OpenAI-compatible: the openai SDK speaks it',
  'POST /v1/chat/completions': 'OpenAI-compatible: the openai SDK speaks it',
};

const JOB: IngestJob = {
  id: 'job-1',
  collection: 'uploads',
  status: 'finished',
  progress: { done: 1, total: 1, bytesDone: 10, bytesTotal: 10, path: 'skarv.md' },
  report: { ingested: 1, updated: 0, skipped: 0, skippedFiles: [], failed: [], removed: 0, documents: 1, chunks: 1, seconds: 0.1 },
};
const DOCUMENT: StoredDocument = {
  id: 7,
  collection: 'uploads',
  source: '/uploads/skarv.md',
  title: 'Skarv-5',
  mediaType: 'text/markdown',
  contentHash: 'abc',
  metadata: { team: 'buoys' },
  bytes: 10,
  description: 'A buoy.',
  chunkCount: 1,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};
const CHUNK: StoredChunk = {
  id: 70,
  documentId: 7,
  collection: 'uploads',
  title: 'Skarv-5',
  source: '/uploads/skarv.md',
  ordinal: 0,
  text: 'The Skarv-5 buoy logs wave height.',
  tokenCount: 7,
  headingPath: ['Skarv-5'],
  charStart: 0,
  charEnd: 34,
};
const CITATION: Citation = {
  id: 'E1',
  chunkId: 70,
  documentId: 7,
  title: 'Skarv-5',
  source: '/uploads/skarv.md',
  text: CHUNK.text,
  headingPath: ['Skarv-5'],
  charStart: 0,
  charEnd: 34,
};
const ASK_RESULT: AskResult = {
  answer: 'Wave height [E1].',
  citations: [CITATION],
  unresolvedCitations: [],
  finishReason: 'stop',
  partial: false,
  steps: 2,
  toolCalls: 1,
  usage: { inputTokens: 10, outputTokens: 5 },
  model: 'offline',
  runId: 'run-1',
  ms: 12,
};
const RUN_EVENTS: RouteEvents<'POST /v1/ask'>[] = [
  {
    event: 'run-start',
    data: {
      type: 'run-start',
      runId: 'run-1',
      question: 'When was it founded?',
      mode: 'rag',
      model: 'offline',
      textTools: false,
      time: '2025-01-01T00:00:00.000Z',
    },
  },
  { event: 'text-delta', data: { type: 'text-delta', step: 1, delta: 'In 1987 [E1].' } },
  {
    event: 'run-finish',
    data: { type: 'run-finish', finishReason: 'stop', steps: 1, toolCalls: 0, usage: { inputTokens: 10, outputTokens: 5 }, ms: 12 },
  },
];
const ENTITY: GraphEntityView = {
  id: 'e0123456789ab',
  collection: 'uploads',
  name: 'Skarv-5',
  type: 'thing',
  description: 'The Skarv-5 buoy logs wave height.',
  aliases: [],
  chunkIds: [70],
  mentions: 2,
};
const CONVERSATION: Conversation = { id: 'conv-1', title: 'Halvorsen', createdAt: '2025-01-01T00:00:00.000Z' };
const MESSAGES: Message[] = [
  { id: 'msg-1', role: 'user', content: 'Who founded Halvorsen Instruments?', runId: 'run-1', createdAt: '2025-01-01T00:00:00.000Z' },
  {
    id: 'msg-2',
    parentId: 'msg-1',
    role: 'assistant',
    content: 'Marit Halvorsen [E1].',
    runId: 'run-1',
    createdAt: '2025-01-01T00:00:01.000Z',
    citations: [CITATION],
  },
];

// biome-ignore lint/complexity/noBannedTypes: {} adds no member to the intersection
type Canned<K extends RouteKey> = ([RouteResponse<K>] extends [never] ? {} : { response: RouteResponse<K> }) &
  // biome-ignore lint/complexity/noBannedTypes: as above
  ([RouteEvents<K>] extends [never] ? {} : { events: RouteEvents<K>[] });
/** What the recording fetch answers each route of the table with (its keys are the table's routes). */
const CANNED: { [K in RouteKey]: Canned<K> } = {
  'GET /health': { response: { ok: true, version: '0.1.0' } },
  'GET /ready': { response: { ready: true, documents: 3 } },
  'GET /openapi.json': { response: { openapi: '3.1.0', paths: {} } },
  'POST /v1/documents': { response: { job: { id: 'job-1', collection: 'uploads', status: 'running' } } },
  'GET /v1/documents': {
    response: {
      documents: [
        {
          id: 7,
          collection: 'uploads',
          title: 'Skarv-5',
          source: '/uploads/skarv.md',
          mediaType: 'text/markdown',
          chunks: 1,
          updatedAt: '2025-01-01T00:00:00.000Z',
          metadata: { team: 'buoys' },
        },
      ],
    },
  },
  'GET /v1/documents/{id}': { response: { document: DOCUMENT } },
  'GET /v1/documents/{id}/chunks': { response: { chunks: [CHUNK] } },
  'PATCH /v1/documents/{id}': { response: { document: { ...DOCUMENT, metadata: { team: 'buoys', reviewed: true } } } },
  'DELETE /v1/documents/{id}': { response: { deleted: true } },
  'GET /v1/jobs/{jobId}': { response: { job: JOB } },
  'GET /v1/jobs/{jobId}/events': {
    events: [
      { event: 'progress', data: { ...JOB, status: 'running', report: undefined } },
      { event: 'job-finish', data: JOB },
    ],
  },
  'POST /v1/search': {
    response: {
      hits: [
        {
          chunkId: 70,
          documentId: 7,
          title: 'Skarv-5',
          source: '/uploads/skarv.md',
          text: CHUNK.text,
          score: 1.5,
          headingPath: ['Skarv-5'],
          charStart: 0,
          charEnd: 34,
          collection: 'uploads',
          ordinal: 0,
          tokenCount: 7,
        },
      ],
      ms: 1.25,
    },
  },
  'GET /v1/collections': { response: { collections: [{ name: 'uploads', documents: 1, role: 'owner' }] } },
  'POST /v1/ask': { response: ASK_RESULT, events: RUN_EVENTS },
  'GET /v1/runs/{id}': {
    response: {
      id: 'run-1',
      question: 'When was it founded?',
      mode: 'rag',
      status: 'finished',
      finishReason: 'stop',
      createdAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:00:01.000Z',
      result: ASK_RESULT,
    },
  },
  'GET /v1/runs/{id}/events': { events: RUN_EVENTS },
  'POST /v1/conversations': { response: CONVERSATION },
  'GET /v1/conversations': { response: { conversations: [CONVERSATION] } },
  'GET /v1/conversations/{id}': { response: { ...CONVERSATION, messages: MESSAGES } },
  'GET /v1/conversations/{id}/messages': { response: { messages: MESSAGES } },
  'GET /v1/conversations/{id}/export': { response: '# Halvorsen\n\n**Question**\n\nWho founded Halvorsen Instruments?\n' },
  'DELETE /v1/conversations/{id}': { response: { deleted: true } },
  'GET /v1/me': { response: { user: { id: 'user-1', name: 'ada', admin: true }, collections: [{ collection: 'uploads', role: 'owner' }] } },
  'POST /v1/users': { response: { userId: 'user-2', apiKey: 'dsk_new' } },
  'POST /v1/keys': { response: { apiKey: 'dsk_another' } },
  'PUT /v1/collections/{collection}/members/{user}': { response: { collection: 'uploads', user: 'ada lovelace', role: 'writer' } },
  'POST /v1/graph/build': { response: { job: { id: 'job-2', collection: 'uploads', status: 'running' } } },
  'GET /v1/graph/entities': { response: { entities: [ENTITY] } },
  'GET /v1/graph/communities': {
    response: {
      communities: [
        {
          id: 'c1',
          collection: 'uploads',
          level: 0,
          title: 'Skarv-5, wave height',
          summary: CHUNK.text,
          entityIds: [ENTITY.id],
          chunkIds: [70],
          size: 2,
          summarizedBy: 'extractive',
          stale: false,
        },
      ],
    },
  },
  'GET /v1/graph/entities/{id}': {
    response: {
      entity: ENTITY,
      relationships: [
        {
          subject: 'Skarv-5',
          subjectId: ENTITY.id,
          predicate: 'logs',
          object: 'wave height',
          objectId: 'e0000000000ab',
          weight: 1,
          chunkIds: [70],
        },
      ],
      passages: [
        {
          chunkId: 70,
          documentId: 7,
          collection: 'uploads',
          title: 'Skarv-5',
          source: '/uploads/skarv.md',
          text: CHUNK.text,
          headingPath: ['Skarv-5'],
        },
      ],
    },
  },
};
const TABLE_ROUTES = Object.keys(CANNED) as RouteKey[];

/** One request as the recording fetch saw it. */
interface Recorded {
  route: RouteKey;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Multipart fields; a file as "<file NAME>". */
  form?: Record<string, string[]>;
  lastEventId?: string;
}

function routeOf(method: string, path: string): RouteKey | undefined {
  return TABLE_ROUTES.find((route) => {
    const [routeMethod, template] = route.split(' ');
    return routeMethod === method && new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(path);
  });
}

function sseOf(events: Array<{ event: string; data: unknown }>): string {
  return events.map((message, i) => `event: ${message.event}\nid: ${i + 1}\ndata: ${JSON.stringify(message.data)}\n\n`).join('');
}

/** A fetch that records what it is sent and answers from CANNED: JSON, text, or SSE when asked for an event stream. */
function recordingFetch() {
  const sent: Recorded[] = [];
  const fetchImpl = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const method = init.method ?? 'GET';
    const route = routeOf(method, url.pathname);
    if (!route) throw new Error(`${method} ${url.pathname} is no route of the table`);
    const headers = new Headers(init.headers);
    const entry: Recorded = { route, path: url.pathname };
    if (url.search) entry.query = Object.fromEntries(url.searchParams);
    if (typeof init.body === 'string') entry.body = JSON.parse(init.body);
    if (init.body instanceof FormData) {
      entry.form = {};
      for (const [name, value] of init.body) (entry.form[name] ??= []).push(typeof value === 'string' ? value : `<file ${value.name}>`);
    }
    if (headers.has('last-event-id')) entry.lastEventId = headers.get('last-event-id')!;
    sent.push(entry);
    const canned = CANNED[route] as { response?: unknown; events?: Array<{ event: string; data: unknown }> };
    if (headers.get('accept') === 'text/event-stream' && canned.events) {
      const after = Number(entry.lastEventId ?? 0);
      return new Response(
        sseOf(canned.events)
          .split('\n\n')
          .filter((frame, i) => frame && i >= after)
          .map((frame) => `${frame}\n\n`)
          .join(''),
        { headers: { 'content-type': 'text/event-stream', 'x-dossier-run-id': 'run-1' } },
      );
    }
    if (typeof canned.response === 'string')
      return new Response(canned.response, { headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    return Response.json(canned.response);
  };
  return { fetch: fetchImpl, sent };
}

const collectAll = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};
const numbered = (events: typeof RUN_EVENTS) => events.map((message, i) => ({ id: i + 1, event: message.data }));
const { stream: _stream, ...ASK } = JSON_BODIES['POST /v1/ask'].every;
const LIST_QUERY = QUERIES['GET /v1/documents'].every;
const asSent = (query: object) => Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)]));

/** Every client method: what it is called with, the requests it must send, and what it must return. */
const CALLS: Record<
  MethodNames<DossierClient>,
  { call: (client: DossierClient) => Promise<unknown>; sends: Recorded[]; returns: unknown }
> = {
  health: { call: (c) => c.health(), sends: [{ route: 'GET /health', path: '/health' }], returns: CANNED['GET /health'].response },
  ready: { call: (c) => c.ready(), sends: [{ route: 'GET /ready', path: '/ready' }], returns: CANNED['GET /ready'].response },
  openapi: {
    call: (c) => c.openapi(),
    sends: [{ route: 'GET /openapi.json', path: '/openapi.json' }],
    returns: CANNED['GET /openapi.json'].response,
  },
  'documents.upload': {
    call: (c) =>
      c.documents.upload([new File(['# Skarv-5'], 'skarv.md', { type: 'text/markdown' }), { name: 'lunde.md', data: '# Lunde-2' }], {
        collection: 'uploads',
        metadata: { team: 'buoys' },
      }),
    sends: [
      {
        route: 'POST /v1/documents',
        path: '/v1/documents',
        form: { file: ['<file skarv.md>', '<file lunde.md>'], collection: ['uploads'], metadata: ['{"team":"buoys"}'] },
      },
    ],
    returns: CANNED['POST /v1/documents'].response.job,
  },
  'documents.job': {
    call: (c) => c.documents.job('job 1'),
    sends: [{ route: 'GET /v1/jobs/{jobId}', path: '/v1/jobs/job%201' }],
    returns: JOB,
  },
  'documents.waitForJob': {
    call: (c) => c.documents.waitForJob('job-1'),
    sends: [{ route: 'GET /v1/jobs/{jobId}', path: '/v1/jobs/job-1' }],
    returns: JOB,
  },
  'documents.jobEvents': {
    call: (c) => collectAll(c.documents.jobEvents('job-1')),
    sends: [{ route: 'GET /v1/jobs/{jobId}/events', path: '/v1/jobs/job-1/events' }],
    returns: CANNED['GET /v1/jobs/{jobId}/events'].events.map((message) => ({
      event: message.event,
      job: JSON.parse(JSON.stringify(message.data)),
    })),
  },
  'documents.list': {
    call: (c) =>
      c.documents.list({
        collection: LIST_QUERY.collection,
        filter: JSON.parse(LIST_QUERY.filter),
        limit: LIST_QUERY.limit,
        offset: LIST_QUERY.offset,
      }),
    sends: [{ route: 'GET /v1/documents', path: '/v1/documents', query: asSent(LIST_QUERY) }],
    returns: CANNED['GET /v1/documents'].response.documents,
  },
  'documents.get': {
    call: (c) => c.documents.get(7),
    sends: [{ route: 'GET /v1/documents/{id}', path: '/v1/documents/7' }],
    returns: DOCUMENT,
  },
  'documents.chunks': {
    call: (c) => c.documents.chunks(7),
    sends: [{ route: 'GET /v1/documents/{id}/chunks', path: '/v1/documents/7/chunks' }],
    returns: [CHUNK],
  },
  'documents.patchMetadata': {
    call: (c) => c.documents.patchMetadata(7, JSON_BODIES['PATCH /v1/documents/{id}'].every.metadata),
    sends: [{ route: 'PATCH /v1/documents/{id}', path: '/v1/documents/7', body: JSON_BODIES['PATCH /v1/documents/{id}'].every }],
    returns: CANNED['PATCH /v1/documents/{id}'].response.document,
  },
  'documents.delete': {
    call: (c) => c.documents.delete(7),
    sends: [{ route: 'DELETE /v1/documents/{id}', path: '/v1/documents/7' }],
    returns: { deleted: true },
  },
  search: {
    call: (c) => c.search(JSON_BODIES['POST /v1/search'].every),
    sends: [{ route: 'POST /v1/search', path: '/v1/search', body: JSON_BODIES['POST /v1/search'].every }],
    returns: CANNED['POST /v1/search'].response,
  },
  collections: {
    call: (c) => c.collections(),
    sends: [{ route: 'GET /v1/collections', path: '/v1/collections' }],
    returns: CANNED['GET /v1/collections'].response.collections,
  },
  ask: {
    call: (c) => c.ask(ASK),
    sends: [{ route: 'POST /v1/ask', path: '/v1/ask', body: { ...ASK, stream: false } }],
    returns: ASK_RESULT,
  },
  askStream: {
    call: (c) => collectAll(c.askStream(ASK)),
    sends: [{ route: 'POST /v1/ask', path: '/v1/ask', body: { ...ASK, stream: true } }],
    returns: numbered(RUN_EVENTS),
  },
  run: {
    call: (c) => c.run('run-1'),
    sends: [{ route: 'GET /v1/runs/{id}', path: '/v1/runs/run-1' }],
    returns: CANNED['GET /v1/runs/{id}'].response,
  },
  runEvents: {
    call: (c) => collectAll(c.runEvents('run-1', { after: 1 })),
    sends: [{ route: 'GET /v1/runs/{id}/events', path: '/v1/runs/run-1/events', lastEventId: '1' }],
    returns: numbered(RUN_EVENTS).slice(1),
  },
  'conversations.create': {
    call: (c) => c.conversations.create(JSON_BODIES['POST /v1/conversations'].every),
    sends: [{ route: 'POST /v1/conversations', path: '/v1/conversations', body: JSON_BODIES['POST /v1/conversations'].every }],
    returns: CONVERSATION,
  },
  'conversations.list': {
    call: (c) => c.conversations.list(),
    sends: [{ route: 'GET /v1/conversations', path: '/v1/conversations' }],
    returns: [CONVERSATION],
  },
  'conversations.get': {
    call: (c) => c.conversations.get('conv-1'),
    sends: [{ route: 'GET /v1/conversations/{id}', path: '/v1/conversations/conv-1' }],
    returns: { ...CONVERSATION, messages: MESSAGES },
  },
  'conversations.messages': {
    call: (c) => c.conversations.messages('conv-1'),
    sends: [{ route: 'GET /v1/conversations/{id}/messages', path: '/v1/conversations/conv-1/messages' }],
    returns: MESSAGES,
  },
  'conversations.export': {
    call: (c) => c.conversations.export('conv-1'),
    sends: [{ route: 'GET /v1/conversations/{id}/export', path: '/v1/conversations/conv-1/export' }],
    returns: CANNED['GET /v1/conversations/{id}/export'].response,
  },
  'conversations.delete': {
    call: (c) => c.conversations.delete('conv-1'),
    sends: [{ route: 'DELETE /v1/conversations/{id}', path: '/v1/conversations/conv-1' }],
    returns: { deleted: true },
  },
  'conversations.ask': {
    call: (c) => c.conversations.ask('conv-1', { question: 'When was it founded?', parentId: 'msg-2' }),
    sends: [
      {
        route: 'POST /v1/ask',
        path: '/v1/ask',
        body: { question: 'When was it founded?', parentId: 'msg-2', conversationId: 'conv-1', stream: false },
      },
    ],
    returns: ASK_RESULT,
  },
  'graph.build': {
    call: (c) => c.graph.build(JSON_BODIES['POST /v1/graph/build'].every),
    sends: [{ route: 'POST /v1/graph/build', path: '/v1/graph/build', body: JSON_BODIES['POST /v1/graph/build'].every }],
    returns: CANNED['POST /v1/graph/build'].response.job,
  },
  'graph.waitForBuild': {
    call: (c) => c.graph.waitForBuild('job-1'),
    sends: [{ route: 'GET /v1/jobs/{jobId}', path: '/v1/jobs/job-1' }],
    returns: JOB,
  },
  'graph.entities': {
    call: (c) => c.graph.entities(QUERIES['GET /v1/graph/entities'].every),
    sends: [{ route: 'GET /v1/graph/entities', path: '/v1/graph/entities', query: asSent(QUERIES['GET /v1/graph/entities'].every) }],
    returns: [ENTITY],
  },
  'graph.entity': {
    call: (c) => c.graph.entity('Skarv 5', QUERIES['GET /v1/graph/entities/{id}'].every),
    sends: [
      {
        route: 'GET /v1/graph/entities/{id}',
        path: '/v1/graph/entities/Skarv%205',
        query: asSent(QUERIES['GET /v1/graph/entities/{id}'].every),
      },
    ],
    returns: CANNED['GET /v1/graph/entities/{id}'].response,
  },
  'graph.communities': {
    call: (c) => c.graph.communities(QUERIES['GET /v1/graph/communities'].every),
    sends: [
      { route: 'GET /v1/graph/communities', path: '/v1/graph/communities', query: asSent(QUERIES['GET /v1/graph/communities'].every) },
    ],
    returns: CANNED['GET /v1/graph/communities'].response.communities,
  },
  me: { call: (c) => c.me(), sends: [{ route: 'GET /v1/me', path: '/v1/me' }], returns: CANNED['GET /v1/me'].response },
  'users.create': {
    call: (c) => c.users.create(JSON_BODIES['POST /v1/users'].every),
    sends: [{ route: 'POST /v1/users', path: '/v1/users', body: JSON_BODIES['POST /v1/users'].every }],
    returns: CANNED['POST /v1/users'].response,
  },
  'keys.create': {
    call: (c) => c.keys.create(JSON_BODIES['POST /v1/keys'].every),
    sends: [{ route: 'POST /v1/keys', path: '/v1/keys', body: JSON_BODIES['POST /v1/keys'].every }],
    returns: CANNED['POST /v1/keys'].response,
  },
  grant: {
    call: (c) => c.grant('uploads', 'ada lovelace', 'writer'),
    sends: [
      {
        route: 'PUT /v1/collections/{collection}/members/{user}',
        path: '/v1/collections/uploads/members/ada%20lovelace',
        body: { role: 'writer' },
      },
    ],
    returns: CANNED['PUT /v1/collections/{collection}/members/{user}'].response,
  },
};

/** The runtime names of a client's methods, nested objects walked. */
function methodNamesOf(object: object, prefix = ''): string[] {
  return Object.entries(object).flatMap(([name, value]) =>
    typeof value === 'function'
      ? [`${prefix}${name}`]
      : value && typeof value === 'object'
        ? methodNamesOf(value, `${prefix}${name}.`)
        : [],
  );
}

interface RegisteredRoute {
  method: string;
  path: string;
  request?: { query?: z.ZodObject; body?: { content: Record<string, { schema: z.ZodObject }> } };
  responses: Record<string, { content?: Record<string, { schema: z.ZodType }> }>;
}

describe('the route table, the server and the client', () => {
  let cleanup: () => void;
  let close: () => Promise<void>;
  /** "METHOD /path" of every route the server serves (Hono's table) or documents (/openapi.json). */
  let serverRoutes: string[];
  let documented: string[];
  /** The zod schemas the server validates with, by route. */
  const registered = new Map<string, RegisteredRoute>();

  before(async () => {
    const temp = tempDir('dossier-routes-');
    cleanup = temp.cleanup;
    const db = join(temp.dir, 'index.db');
    const dossier = await createDossier({ db });
    const state = await openServerState(db);
    close = async () => {
      await state.close();
      await dossier.close();
    };
    // Every route group `dossier serve` mounts.
    const { app } = await buildApp({ dossier, state, auth: 'none', uploadsDir: join(temp.dir, 'uploads') }, await optionalRouteGroups());
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    // Hono's table also has the middleware (method ALL) and the routes no schema describes.
    const served = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    serverRoutes = [...new Set([...documented, ...served])];
    for (const definition of app.openAPIRegistry.definitions) {
      if (definition.type !== 'route') continue;
      const route = definition.route as unknown as RegisteredRoute;
      registered.set(`${route.method.toUpperCase()} ${route.path}`, route);
    }
  });
  after(async () => {
    await close?.();
    cleanup?.();
  });

  it('every route the server serves or documents is in the route table, or listed as deliberately not a client method', () => {
    assert.deepEqual(
      serverRoutes.filter((route) => !TABLE_ROUTES.includes(route as RouteKey) && !Object.hasOwn(NOT_CLIENT_METHODS, route)),
      [],
      'routes with neither a client method nor a reason',
    );
    assert.deepEqual(
      TABLE_ROUTES.filter((route) => !serverRoutes.includes(route)),
      [],
      'table routes the server does not serve',
    );
    assert.deepEqual(
      Object.keys(NOT_CLIENT_METHODS).filter((route) => !serverRoutes.includes(route)),
      [],
      'reasons for routes that are gone',
    );
    assert.deepEqual(
      TABLE_ROUTES.filter((route) => !documented.includes(route) && route !== 'GET /openapi.json'),
      [],
      'table routes missing from /openapi.json',
    );
  });

  it("the table's request types are the server's schemas: the same fields, the same of them required, both samples accepted", () => {
    const parts = [
      ['body', 'application/json', JSON_BODIES],
      ['form', 'multipart/form-data', FORMS],
      ['query', undefined, QUERIES],
    ] as const;
    // The routes whose schema takes a body or query are exactly the table's routes with one.
    for (const [part, contentType, samples] of parts) {
      const withSchema = [...registered.values()]
        .filter((r) => (contentType ? r.request?.body?.content[contentType] : r.request?.query))
        .map((r) => `${r.method.toUpperCase()} ${r.path}`);
      assert.deepEqual(
        withSchema.filter((route) => TABLE_ROUTES.includes(route as RouteKey)).sort(),
        Object.keys(samples).sort(),
        `routes with a ${part}`,
      );
    }
    for (const [part, contentType, samples] of parts) {
      for (const [route, { every, fewest }] of Object.entries(samples) as Array<[RouteKey, Samples<Record<string, unknown>>]>) {
        const definition = registered.get(route)!;
        const schema = contentType ? definition.request!.body!.content[contentType].schema : definition.request!.query!;
        const fields = Object.keys(schema.shape);
        assert.deepEqual(fields.sort(), Object.keys(every).sort(), `${route} ${part}: the fields`);
        const required = fields.filter((field) => !(schema.shape[field] as z.ZodType).safeParse(undefined).success);
        assert.deepEqual(
          [...required, ...(REQUIRED_BY_THE_HANDLER[route] ?? [])].sort(),
          Object.keys(fewest).sort(),
          `${route} ${part}: the required fields`,
        );
        for (const sample of [every, fewest]) {
          // A query travels as text.
          const result = schema.safeParse(part === 'query' ? asSent(sample) : sample);
          assert.ok(result.success, `${route} ${part} ${JSON.stringify(sample)}: ${result.error?.message}`);
        }
      }
    }
  });

  it("the canned responses, typed by the table, pass the server's response schemas", () => {
    for (const route of TABLE_ROUTES) {
      const response = (CANNED[route] as { response?: unknown }).response;
      const definition = registered.get(route);
      if (response === undefined || typeof response === 'string' || !definition) continue;
      const success = Object.entries(definition.responses).find(([status]) => status.startsWith('2'))!;
      const schema = success[1].content?.['application/json']?.schema;
      assert.ok(schema, `${route}: a JSON response schema`);
      const result = schema.safeParse(response);
      assert.ok(result.success, `${route}: ${result.error?.message}`);
    }
  });

  it('every client method sends the right method, path, query and body, and every table route is called by one', async () => {
    const names = methodNamesOf(createClient({ baseUrl: 'http://dossier.test' }));
    assert.deepEqual(names.sort(), Object.keys(CALLS).sort(), 'the calls below are every method of the client');
    const called = new Set<RouteKey>();
    for (const [name, { call, sends, returns }] of Object.entries(CALLS)) {
      const recording = recordingFetch();
      const result = await call(createClient({ baseUrl: 'http://dossier.test/', fetch: recording.fetch }));
      assert.deepEqual(recording.sent, sends, `${name}: the requests`);
      assert.deepEqual(result, returns, `${name}: the result`);
      for (const sent of recording.sent) {
        called.add(sent.route);
        // What the client sends, the server's schema accepts.
        const definition = registered.get(sent.route);
        if (sent.body !== undefined)
          assert.ok(
            definition!.request!.body!.content['application/json'].schema.safeParse(sent.body).success,
            `${name}: the body passes the server's schema`,
          );
        if (sent.query !== undefined)
          assert.ok(definition!.request!.query!.safeParse(sent.query).success, `${name}: the query passes the server's schema`);
      }
    }
    assert.deepEqual(
      TABLE_ROUTES.filter((route) => !called.has(route)),
      [],
      'table routes no client method calls',
    );
  });
});
