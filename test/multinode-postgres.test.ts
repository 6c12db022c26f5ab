import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState, type ServerState, type User } from '../src/server/state/index.ts';
import { backendDb, parseFrames, type Frame } from './helpers.ts';

// Two stateless `dossier serve` nodes, A and B, on one PostgreSQL database (each with its own
// Dossier, as two processes would have): keys, documents, run streams and rate limits must hold
// whichever node a request lands on.

type Server = Awaited<ReturnType<typeof startServer>>;

function client(url: string, key: string) {
  const auth = { authorization: `Bearer ${key}` };
  return {
    get: (path: string, extra: Record<string, string> = {}, signal?: AbortSignal) =>
      fetch(`${url}${path}`, { headers: { ...auth, ...extra }, signal }),
    post: (path: string, body: unknown, signal?: AbortSignal) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      }),
    upload: (name: string, text: string, collection: string) => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/markdown' }), name);
      form.append('collection', collection);
      return fetch(`${url}/v1/documents`, { method: 'POST', headers: auth, body: form });
    },
  };
}
const json = async (response: Response) => (await response.json()) as any;

/** Reads an SSE body until `enough(frames)` holds or it ends; returns the frames and whether it ended. */
async function readUntil(
  response: Response,
  enough: (frames: Frame[]) => boolean,
): Promise<{
  frames: Frame[];
  ended: boolean;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  more: () => Promise<{ frames: Frame[]; ended: boolean }>;
}> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const read = async (until: (frames: Frame[]) => boolean) => {
    for (;;) {
      if (until(parseFrames(text))) return { frames: parseFrames(text), ended: false };
      const { value, done } = await reader.read();
      if (done) return { frames: parseFrames(text), ended: true };
      text += decoder.decode(value, { stream: true });
    }
  };
  const first = await read(enough);
  return { ...first, reader, more: () => read(() => false) };
}

const minute = () => Math.floor(Date.now() / 60_000);

describe('dossier serve: two nodes on one PostgreSQL database', {
  skip: process.env.DOSSIER_TEST_PG
    ? false
    : 'DOSSIER_TEST_PG is unset: no PostgreSQL cluster for the multi-node test (bash scripts/postgres-test-cluster.sh start)',
}, () => {
  let cleanup: () => Promise<void>;
  let db: string;
  let dossiers: Dossier[] = [];
  let servers: Server[] = [];
  let state: ServerState;
  let alice: User;
  let adminKey: string;
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;

  before(async () => {
    const place = await backendDb('postgres');
    cleanup = place.cleanup;
    db = place.db;
    dossiers = [await createDossier({ db }), await createDossier({ db })];
    await dossiers[0]!.ingest([join(REGRESSION_DIR, 'corpus')]);
    state = await openServerState(db);
    const admin = await state.createUser('root', { admin: true });
    adminKey = (await state.createKey(admin.id)).apiKey;
    // Both nodes start before any work (a node starting closes only runs whose lease ran out, so this
    // order no longer matters; test/leases-postgres.test.ts checks that).
    servers = [
      await startServer({ dossier: dossiers[0]!, db, port: 0, auth: 'keys' }),
      await startServer({ dossier: dossiers[1]!, db, port: 0, auth: 'keys' }),
    ];
  });
  after(async () => {
    for (const server of servers) await server.close();
    for (const dossier of dossiers) await dossier.close();
    await state?.close();
    await cleanup?.();
  });

  it('a key created through A works on B', async () => {
    const created = await client(servers[0]!.url, adminKey).post('/v1/users', { name: 'alice' });
    assert.equal(created.status, 201);
    const { apiKey } = await json(created);
    alice = (await state.userByName('alice'))!;
    await state.grant('notes', alice.id, 'writer');
    await state.grant('default', alice.id, 'reader');
    a = client(servers[0]!.url, apiKey);
    b = client(servers[1]!.url, apiKey);
    const me = await b.get('/v1/me');
    assert.equal(me.status, 200);
    assert.equal(JSON.stringify(await json(me)).includes('alice'), true);
    assert.equal((await client(servers[1]!.url, 'not-a-key').get('/v1/me')).status, 401);
  });

  it('a document uploaded through A is searchable through B at once', async () => {
    const accepted = await a.upload(
      'wombat.md',
      '# Wombat census\n\nThe wombat census of Tasmania counted 1,812 bare-nosed wombats.\n',
      'notes',
    );
    assert.equal(accepted.status, 202, await accepted.clone().text());
    const { job } = await json(accepted);
    let polled: any;
    for (let i = 0; i < 400; i++) {
      polled = (await json(await b.get(`/v1/jobs/${job.id}`))).job;
      if (!['queued', 'running'].includes(polled.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(polled.status, 'finished', JSON.stringify(polled));
    for (const mode of ['fulltext', 'vector', 'hybrid']) {
      const hits = (await json(await b.post('/v1/search', { query: 'wombat census Tasmania', mode, k: 5, collections: ['notes'] }))).hits;
      assert.ok(
        hits.some((hit: any) => /wombat/i.test(hit.text ?? JSON.stringify(hit))),
        `${mode}: ${JSON.stringify(hits)}`,
      );
    }
  });

  it('a stream of a run on A, dropped, resumes on B with Last-Event-ID: exactly the stored events', async () => {
    const controller = new AbortController();
    const response = await a.post(
      '/v1/ask',
      { question: 'Who leads the team that built the Tern-4 salinity sensor?', mode: 'research', stream: true },
      controller.signal,
    );
    const runId = response.headers.get('x-dossier-run-id')!;
    const first = await readUntil(response, (frames) => frames.length >= 3);
    controller.abort(); // the client drops A part-way
    const seen = first.frames;
    const rest = (await readUntil(await b.get(`/v1/runs/${runId}/events`, { 'last-event-id': String(seen.at(-1)!.id) }), () => false))
      .frames;
    const joined = [...seen, ...rest];
    assert.equal(joined.at(-1)!.event, 'run-finish');
    assert.equal(joined.at(-1)!.data.path, undefined, 'the run’s own run-finish');
    const stored = await state.events(runId);
    assert.deepEqual(
      joined.map((f) => ({ seq: f.id, event: f.data })),
      stored,
      'no loss, no duplicate, nothing else',
    );
    assert.equal((await json(await b.get(`/v1/runs/${runId}`))).status, 'finished', 'B ends the stream once A stored the result');
  });

  it('B follows a run that another node is still storing, until its run-finish', async () => {
    // The test process is the other node here: it stores events while B streams, so B must poll.
    // Held under a lease of its own, as a live node's run is: B's recovery must leave it alone.
    const run = await state.createRun(
      { id: crypto.randomUUID(), userId: alice.id, question: 'slow', mode: 'rag' },
      { node: 'test-node', ms: 60_000 },
    );
    const step = (seq: number) => state.appendEvent(run.id, seq, { type: 'step-start', step: seq } as never);
    for (const seq of [1, 2, 3]) await step(seq);
    const stream = await readUntil(await b.get(`/v1/runs/${run.id}/events`, { 'last-event-id': '1' }), (frames) => frames.length >= 2);
    assert.deepEqual(
      stream.frames.map((f) => f.id),
      [2, 3],
    );
    for (const seq of [4, 5]) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await step(seq);
    }
    await state.appendEvent(run.id, 6, {
      type: 'run-finish',
      finishReason: 'stop',
      steps: 5,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      ms: 0,
    } as never);
    await state.finishRun(run.id, 'finished', 'stop', { answer: 'done' });
    const rest = await stream.more();
    assert.equal(rest.ended, true);
    assert.deepEqual(
      rest.frames.map((f) => f.id),
      [2, 3, 4, 5, 6],
    );
    assert.equal(rest.frames.at(-1)!.event, 'run-finish');
  });

  it('shares one rate limit: N requests split across A and B pass, the next on either is 429', async () => {
    const perMinute = 6;
    const limited = [
      await startServer({ dossier: dossiers[0]!, db, port: 0, auth: 'keys', limits: { requestsPerMinute: perMinute } }),
      await startServer({ dossier: dossiers[1]!, db, port: 0, auth: 'keys', limits: { requestsPerMinute: perMinute } }),
    ];
    servers.push(...limited);
    const carol = await state.createUser('carol');
    const key = (await state.createKey(carol.id)).apiKey;
    const nodes = limited.map((server) => client(server.url, key));
    // The window is a calendar minute: a round that straddles two minutes is tried again in the new one.
    for (let round = 0; round < 2; round++) {
      const start = minute();
      const statuses: number[] = [];
      for (let i = 0; i < perMinute; i++) statuses.push((await nodes[i % 2]!.get('/v1/me')).status);
      const next = [(await nodes[0]!.get('/v1/me')).status, (await nodes[1]!.get('/v1/me')).status];
      if (minute() !== start) continue;
      assert.deepEqual(statuses, Array(perMinute).fill(200));
      assert.deepEqual(next, [429, 429]);
      return;
    }
    assert.fail('two rounds straddled a minute');
  });
});
