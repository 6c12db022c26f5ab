import assert from 'node:assert/strict';
import { parseFrames, type Frame } from './helpers.ts';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { startServer } from '../src/server/index.ts';
import { standaloneQuestion } from '../src/server/runs/index.ts';
import type { MessageRecord } from '../src/server/state/index.ts';
import { backendDb, runCli, backendSkip, serverBackends, startCli, tempDir } from './helpers.ts';
import { assertDelivered, startScriptedModel, type ScriptedModel } from './scripted-model.ts';

type Server = Awaited<ReturnType<typeof startServer>>;

function api(url: string, key?: string) {
  const headers = (extra: Record<string, string> = {}) => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra });
  return {
    get: (path: string, extra?: Record<string, string>) => fetch(`${url}${path}`, { headers: headers(extra) }),
    del: (path: string) => fetch(`${url}${path}`, { method: 'DELETE', headers: headers() }),
    send: (method: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, { method, headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify(body) }),
    post: (path: string, body: unknown) =>
      fetch(`${url}${path}`, { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify(body) }),
    upload: (name: string, text: string, fields: Record<string, string> = {}) => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/markdown' }), name);
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      return fetch(`${url}/v1/documents`, { method: 'POST', headers: headers(), body: form });
    },
  };
}
type Api = ReturnType<typeof api>;

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as any).error.code;
}

/** Uploads one file and waits for its job to finish; returns the job as GET /v1/jobs/:id shows it. */
async function uploadAndWait(client: Api, name: string, text: string, fields: Record<string, string>): Promise<any> {
  const accepted = await client.upload(name, text, fields);
  assert.equal(accepted.status, 202, await accepted.clone().text());
  const { job } = (await accepted.json()) as any;
  // Queued on PostgreSQL (the durable queue), running at once on SQLite.
  assert.match(job.status, /^(running|queued)$/);
  for (let i = 0; i < 400; i++) {
    const polled = (await (await client.get(`/v1/jobs/${job.id}`)).json()) as any;
    if (polled.job.status === 'finished' || polled.job.status === 'failed') return polled.job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the upload job did not finish');
}

async function readAll(response: Response): Promise<Frame[]> {
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  return parseFrames(await response.text());
}

// Runs are answered by the scripted model (test/scripted-model.ts): the tests check what the server
// does with an answer, never the offline reader's wording.
let model: ScriptedModel;
before(async () => (model = await startScriptedModel()));
after(async () => model.close());
afterEach(() => model.reset());

for (const backend of serverBackends()) {
  describe(`dossier serve: the HTTP API (${backend})`, { skip: backendSkip(backend) }, () => {
    let dossier: Dossier;
    let db: string;
    let open: Server;
    let client: Api;
    let cleanup: () => Promise<void>;
    before(async () => {
      const place = await backendDb(backend);
      cleanup = place.cleanup;
      db = place.db;
      dossier = await createDossier({ db, env: { ...process.env, ...model.env } });
      await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
      open = await startServer({ dossier, db, port: 0 });
      client = api(open.url);
    });
    after(async () => {
      await open.close();
      await dossier.close();
      await cleanup();
    });

    it('uploads into a collection as a job, lists with a filter and pages, patches metadata, searches and deletes', async () => {
      const zebra = await uploadAndWait(client, 'zebra.md', '# Zebra notes\n\nThe quokka festival happens in Perth every May.\n', {
        collection: 'notes',
        metadata: JSON.stringify({ team: 'blue', year: 2020 }),
      });
      assert.equal(zebra.status, 'finished');
      assert.equal(zebra.report.ingested, 1);
      assert.deepEqual(zebra.report.failed, []);
      const yak = await uploadAndWait(client, 'yak.md', '# Yak notes\n\nThe quokka census counts animals on Rottnest Island.\n', {
        collection: 'notes',
        metadata: JSON.stringify({ team: 'red' }),
      });
      assert.equal(yak.report.ingested, 1);

      const list = async (query: string) => ((await (await client.get(`/v1/documents?${query}`)).json()) as any).documents as any[];
      const blue = await list(`filter=${encodeURIComponent(JSON.stringify({ 'metadata.team': 'blue' }))}`);
      assert.deepEqual(
        blue.map((d) => d.title),
        ['Zebra notes'],
      );
      assert.deepEqual(blue[0].metadata, { team: 'blue', year: 2020 });
      assert.equal(blue[0].collection, 'notes');
      // Paging: two pages of one document each, together the whole collection, no overlap.
      const first = await list('collection=notes&limit=1&offset=0');
      const second = await list('collection=notes&limit=1&offset=1');
      assert.equal(first.length, 1);
      assert.equal(second.length, 1);
      assert.notEqual(first[0].id, second[0].id);
      assert.deepEqual(new Set([first[0].title, second[0].title]), new Set(['Zebra notes', 'Yak notes']));
      assert.equal((await list('collection=notes&limit=10&offset=2')).length, 0);
      const badFilter = await client.get('/v1/documents?filter=%7Bnot-json');
      assert.equal(badFilter.status, 400);

      const id = blue[0].id;
      const document = ((await (await client.get(`/v1/documents/${id}`)).json()) as any).document;
      assert.equal(document.title, 'Zebra notes');
      const chunks = ((await (await client.get(`/v1/documents/${id}/chunks`)).json()) as any).chunks;
      assert.ok(chunks.length >= 1);
      assert.match(chunks.map((c: any) => c.text).join(' '), /quokka festival/);
      assert.ok(chunks.every((c: any) => c.documentId === id));

      // null removes a key; the filter sees the change at once.
      const patched = await client.send('PATCH', `/v1/documents/${id}`, { metadata: { team: null, status: 'reviewed' } });
      assert.equal(patched.status, 200);
      assert.deepEqual(((await patched.json()) as any).document.metadata, { year: 2020, status: 'reviewed' });
      assert.deepEqual((await list(`filter=${encodeURIComponent(JSON.stringify({ 'metadata.team': 'blue' }))}`)).length, 0);
      assert.deepEqual(
        (await list(`filter=${encodeURIComponent(JSON.stringify({ 'metadata.status': 'reviewed' }))}`)).map((d) => d.id),
        [id],
      );

      // Both documents match the words; the filter keeps only the reviewed one, in every mode.
      for (const mode of ['fulltext', 'vector', 'hybrid']) {
        const unfiltered = (
          (await (await client.post('/v1/search', { query: 'quokka', mode, k: 10, collections: ['notes'] })).json()) as any
        ).hits;
        assert.ok(
          unfiltered.some((h: any) => h.documentId !== id),
          `${mode}: the other document matches without the filter`,
        );
        const response = await client.post('/v1/search', { query: 'quokka', mode, k: 10, filter: { 'metadata.status': 'reviewed' } });
        assert.equal(response.status, 200, mode);
        const body = (await response.json()) as any;
        assert.ok(body.hits.length >= 1, mode);
        assert.ok(
          body.hits.every((h: any) => h.documentId === id),
          mode,
        );
        assert.equal(typeof body.ms, 'number');
      }

      const collections = ((await (await client.get('/v1/collections')).json()) as any).collections;
      assert.deepEqual(
        collections.find((c: any) => c.name === 'notes'),
        { name: 'notes', documents: 2, role: 'owner' },
      );
      assert.equal(collections.find((c: any) => c.name === 'default').documents, 7);

      // The uploaded copy is kept while the document is (the index cites it) and goes with it.
      const otherSource = (await list('collection=notes')).find((d) => d.id !== id).source;
      assert.ok(existsSync(document.source), document.source);
      assert.equal((await client.del(`/v1/documents/${id}`)).status, 200);
      assert.ok(!existsSync(document.source), "the deleted document's upload is removed");
      assert.ok(!existsSync(dirname(document.source)), 'and its now empty upload folder');
      assert.ok(existsSync(otherSource), 'another upload stays');
      const gone = await client.get(`/v1/documents/${id}`);
      assert.equal(gone.status, 404);
      assert.equal(await errorCode(gone), 'not-found');
      assert.equal((await client.get(`/v1/documents/${id}/chunks`)).status, 404);
      const afterDelete = (
        (await (await client.post('/v1/search', { query: 'quokka festival', mode: 'fulltext', collections: ['notes'] })).json()) as any
      ).hits;
      assert.ok(afterDelete.every((h: any) => h.documentId !== id));
    });

    it('answers ask as JSON and as SSE frames ending in run-finish', async () => {
      const question = 'Where did the Tern-4 sea trial take place?';
      const json = (await (await client.post('/v1/ask', { question })).json()) as any;
      const [scripted] = model.answersTo(question);
      assertDelivered(json, scripted);
      assert.equal(json.finishReason, 'stop');
      assert.ok(json.citations.length >= 1);

      const response = await client.post('/v1/ask', { question: 'Where did the Tern-4 sea trial take place?', stream: true });
      const runId = response.headers.get('x-dossier-run-id');
      const frames = await readAll(response);
      assert.equal(frames[0].event, 'run-start');
      assert.equal(frames[0].data.runId, runId);
      assert.deepEqual(
        frames.map((f) => f.id),
        frames.map((_, i) => i + 1),
        'ids are 1..n',
      );
      assert.ok(
        frames.every((f) => f.event === f.data.type),
        'event is the event type',
      );
      assert.equal(frames.at(-1)!.event, 'run-finish');
      assert.equal(frames.at(-1)!.data.finishReason, 'stop');
      assert.equal(model.answersTo(question).length, 2);
      assertDelivered(frames.find((f) => f.event === 'final-answer')!.data, model.answersTo(question)[1]);
      const run = (await (await client.get(`/v1/runs/${runId}`)).json()) as any;
      assert.equal(run.status, 'finished');
      assert.equal(run.result.answer, model.answersTo(question)[1]);
    });

    it('resumes a dropped stream with Last-Event-ID: exactly the rest, no loss, no duplicates', async () => {
      const controller = new AbortController();
      const response = await fetch(`${open.url}/v1/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Who leads the team that built the Tern-4 salinity sensor?', mode: 'research', stream: true }),
        signal: controller.signal,
      });
      const runId = response.headers.get('x-dossier-run-id')!;
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (parseFrames(text).length < 5) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      controller.abort(); // the client drops the connection part-way
      const seen = parseFrames(text);
      assert.ok(seen.length >= 5);
      const last = seen.at(-1)!.id;

      const rest = await readAll(await client.get(`/v1/runs/${runId}/events`, { 'last-event-id': String(last) }));
      assert.ok(rest.length > 0);
      assert.equal(rest[0].id, last + 1, 'starts right after the last event seen');
      assert.equal(rest.at(-1)!.event, 'run-finish');
      assert.equal(rest.at(-1)!.data.path, undefined, 'the run’s own run-finish, not a nested one');
      const joined = [...seen, ...rest];
      assert.deepEqual(
        joined.map((f) => f.id),
        joined.map((_, i) => i + 1),
        'no gap and no duplicate',
      );
      // The same stream read from the start is exactly the two halves joined.
      const whole = await readAll(await client.get(`/v1/runs/${runId}/events`));
      assert.deepEqual(whole, joined);
      // ?after=N is the same as Last-Event-ID.
      assert.deepEqual(await readAll(await client.get(`/v1/runs/${runId}/events?after=${last}`)), rest);
    });

    it('streams research with plan and subagent events whose nested events carry a path', async () => {
      const question = 'In which city does the team that built the Gannet-2 current meter work?';
      const frames = await readAll(await client.post('/v1/ask', { question, mode: 'research', stream: true }));
      const types = frames.map((f) => f.event);
      for (const type of ['plan', 'subagent-start', 'subagent-finish', 'final-answer']) assert.ok(types.includes(type), type);
      const nested = frames.filter((f) => Array.isArray(f.data.path));
      assert.ok(nested.length > 0, 'nested agent events are in the stream');
      const subagent = frames.find((f) => f.event === 'subagent-start')!.data.id;
      assert.ok(
        nested.some((f) => f.data.path.includes(subagent)),
        'the path names the subagent',
      );
      assert.ok(
        nested.some((f) => f.event === 'run-finish'),
        'the nested run finishes too',
      );
      assert.equal(frames.at(-1)!.event, 'run-finish');
      assert.equal(frames.at(-1)!.data.path, undefined);
      // The plan is the planner's (the script plans the question itself), answered by its nested agent.
      assert.deepEqual(
        frames
          .filter((f) => f.event === 'plan')
          .at(-1)!
          .data.items.map((p: any) => [p.question, p.status]),
        [[question, 'answered']],
      );
      // The report is the planner's, its ids the research run's, each resolving to the chunk it quotes.
      const report = model.answers.filter((a) => a.role === 'planner');
      assert.equal(report.length, 1);
      assert.match(report[0].answer, /\[E\d+\]/);
      assertDelivered(frames.find((f) => f.event === 'final-answer' && !f.data.path)!.data, report[0].answer);
    });

    it('keeps conversations: a follow-up with "it" is asked about the earlier entity', async () => {
      const created = await client.post('/v1/conversations', { title: 'History' });
      assert.equal(created.status, 201);
      const { id } = (await created.json()) as any;
      const first = (await (
        await client.post('/v1/ask', { question: 'Who founded Halvorsen Instruments?', conversationId: id })
      ).json()) as any;
      assertDelivered(first, model.answersTo('Who founded Halvorsen Instruments?')[0]);
      const followUp = await client.post('/v1/ask', { question: 'When was it founded?', conversationId: id });
      const runId = followUp.headers.get('x-dossier-run-id')!;
      const second = (await followUp.json()) as any;
      // The run was asked the standalone question (so was the model), the conversation keeps what the user typed.
      const events = await readAll(await client.get(`/v1/runs/${runId}/events`));
      assert.equal(events[0].data.question, 'When was Halvorsen Instruments founded?');
      assert.deepEqual(model.answersTo('When was it founded?'), []);
      assertDelivered(second, model.answersTo('When was Halvorsen Instruments founded?')[0]);

      const listed = ((await (await client.get('/v1/conversations')).json()) as any).conversations;
      assert.ok(listed.some((c: any) => c.id === id && c.title === 'History'));
      const got = (await (await client.get(`/v1/conversations/${id}`)).json()) as any;
      assert.equal(got.messages.length, 4);
      const { messages } = (await (await client.get(`/v1/conversations/${id}/messages`)).json()) as any;
      assert.deepEqual(
        messages.map((m: any) => m.role),
        ['user', 'assistant', 'user', 'assistant'],
      );
      assert.equal(messages[2].content, 'When was it founded?');
      // A thread: each message's parent is the one before it.
      for (let i = 1; i < messages.length; i++) assert.equal(messages[i].parentId, messages[i - 1].id);
      assert.deepEqual([messages[1].content, messages[3].content], [first.answer, second.answer]);
      assert.deepEqual(
        messages[3].citations.map((c: any) => c.chunkId),
        second.citations.map((c: any) => c.chunkId),
      );
      const exported = await client.get(`/v1/conversations/${id}/export`);
      assert.match(exported.headers.get('content-type') ?? '', /text\/markdown/);
      const markdown = await exported.text();
      assert.match(markdown, /^# History/);
      // The turns in order: each question, then its answer.
      let at = 0;
      for (const part of ['Who founded Halvorsen Instruments?', first.answer, 'When was it founded?', second.answer]) {
        at = markdown.indexOf(part, at);
        assert.ok(at >= 0, `${part} in order in ${markdown}`);
        at += part.length;
      }
      assert.equal((await client.del(`/v1/conversations/${id}`)).status, 200);
      assert.equal((await client.get(`/v1/conversations/${id}`)).status, 404);
      assert.equal((await client.get(`/v1/conversations/${id}/messages`)).status, 404);
      const unknown = await client.post('/v1/ask', { question: 'Who founded it?', conversationId: id });
      assert.equal(unknown.status, 404);
    });

    it('rewrites follow-ups offline (standaloneQuestion)', () => {
      const at = '2026-01-01T00:00:00Z';
      const history: MessageRecord[] = [
        { id: '1', conversationId: 'c', role: 'user', content: 'Who founded Halvorsen Instruments?', createdAt: at },
        {
          id: '2',
          conversationId: 'c',
          parentId: '1',
          role: 'assistant',
          content: 'Marit Halvorsen [E1]\nHalvorsen Instruments was founded in 1987 by Marit Halvorsen. [E1]',
          createdAt: at,
        },
      ];
      assert.equal(standaloneQuestion('When was it founded?', history), 'When was Halvorsen Instruments founded?');
      assert.equal(standaloneQuestion('Where is its headquarters?', history), "Where is Halvorsen Instruments's headquarters?");
      assert.equal(standaloneQuestion('When did she retire?', history), 'When did Marit Halvorsen retire?');
      // Already standalone, or nothing to refer back to: unchanged.
      assert.equal(standaloneQuestion('Where did the Tern-4 sea trial take place?', history), 'Where did the Tern-4 sea trial take place?');
      assert.equal(standaloneQuestion('When was it founded?', []), 'When was it founded?');
    });

    it('refuses a question or title holding U+0000 as bad-input, naming the field (PostgreSQL cannot store it)', async () => {
      for (const [path, body, field] of [
        ['/v1/ask', { question: 'Who leads\u0000 the team?' }, 'question'],
        ['/v1/search', { query: 'team\u0000' }, 'query'],
        ['/v1/conversations', { title: 'notes\u0000' }, 'title'],
      ] as const) {
        const response = await client.post(path, body);
        assert.equal(response.status, 400, path);
        const { error } = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(error.code, 'bad-input');
        assert.match(error.message, new RegExp(`^${field} holds a NUL character`), path);
      }
    });

    it('maps limits to errors: 413 too-large, 400 for a long query or question, 429 rate-limited', async () => {
      const small = await startServer({ dossier, db, port: 0, limits: { bodyBytes: 2000, queryChars: 50, requestsPerMinute: 6 } });
      try {
        const smallClient = api(small.url);
        const big = await smallClient.upload('big.md', `# Big\n\n${'word '.repeat(2000)}`, { collection: 'notes' });
        assert.equal(big.status, 413);
        assert.equal(await errorCode(big), 'too-large');
        const longQuery = await smallClient.post('/v1/search', { query: 'x'.repeat(51) });
        assert.equal(longQuery.status, 400);
        assert.equal(await errorCode(longQuery), 'bad-input');
        const longQuestion = await smallClient.post('/v1/ask', { question: 'y'.repeat(51) });
        assert.equal(longQuestion.status, 400);
        // Three used so far; the window is a calendar minute, so send enough to cross the limit even
        // if a new minute starts part-way.
        const statuses: number[] = [];
        let limited: Response | undefined;
        for (let i = 0; i < 14 && !limited; i++) {
          const response = await smallClient.get('/v1/collections');
          statuses.push(response.status);
          if (response.status === 429) limited = response;
          else await response.arrayBuffer();
        }
        assert.ok(limited, `no 429 in ${statuses.join(',')}`);
        assert.equal(await errorCode(limited), 'rate-limited');
        // /health is outside /v1 and not limited.
        assert.equal((await fetch(`${small.url}/health`)).status, 200);
      } finally {
        await small.close();
      }
    });

    it('creates users, keys and grants from the CLI; a keys server checks them (401, 403)', async () => {
      const reader = await runCli(['users', 'create', 'rita', '--db', db, '--json']);
      assert.equal(reader.status, 0, reader.stderr);
      assert.match(reader.json.userId, /^[0-9a-f-]{36}$/);
      assert.match(reader.json.apiKey, /^dsk_/);
      const key = await runCli(['keys', 'create', '--user', 'rita', '--db', db, '--json']);
      assert.equal(key.status, 0, key.stderr);
      assert.notEqual(key.json.apiKey, reader.json.apiKey);
      const grant = await runCli(['collections', 'grant', 'notes', 'rita', '--role', 'reader', '--db', db, '--json']);
      assert.equal(grant.status, 0, grant.stderr);
      assert.deepEqual(grant.json, { collection: 'notes', user: 'rita', role: 'reader' });
      const badRole = await runCli(['collections', 'grant', 'notes', 'rita', '--role', 'king', '--db', db, '--json']);
      assert.equal(badRole.status, 2);
      const noUser = await runCli(['keys', 'create', '--user', 'nobody', '--db', db, '--json']);
      assert.equal(noUser.status, 1);

      const keyed = await startServer({ dossier, db, port: 0, auth: 'keys' });
      try {
        for (const response of [
          await api(keyed.url).get('/v1/collections'),
          await api(keyed.url, 'dsk_not-a-key').get('/v1/collections'),
        ]) {
          assert.equal(response.status, 401);
          assert.equal(await errorCode(response), 'unauthorized');
        }
        // Both of rita's keys work, and she sees only what she was granted.
        for (const apiKey of [reader.json.apiKey, key.json.apiKey]) {
          const seen = ((await (await api(keyed.url, apiKey).get('/v1/collections')).json()) as any).collections;
          assert.deepEqual(
            seen.map((c: any) => [c.name, c.role]),
            [['notes', 'reader']],
          );
        }
        const rita = api(keyed.url, key.json.apiKey);
        const write = await rita.upload('r.md', '# R\n\nA reader tries to write.\n', { collection: 'notes' });
        assert.equal(write.status, 403);
        assert.equal(await errorCode(write), 'forbidden');
        const [doc] = ((await (await rita.get('/v1/documents')).json()) as any).documents;
        const patch = await rita.send('PATCH', `/v1/documents/${doc.id}`, { metadata: { x: 1 } });
        assert.equal(patch.status, 403);
        assert.equal((await rita.del(`/v1/documents/${doc.id}`)).status, 403);
        // A collection she is not a member of does not exist for her.
        const elsewhere = await rita.upload('r.md', '# R\n\nWriting elsewhere.\n', { collection: 'default' });
        assert.equal(elsewhere.status, 404);
        const admin = await rita.post('/v1/users', { name: 'mallory' });
        assert.equal(admin.status, 403);
      } finally {
        await keyed.close();
      }
    });

    it('dossier serve refuses a public host without --auth keys, in one line', async () => {
      const result = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--db', db]);
      assert.notEqual(result.status, 0);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /--auth keys/);
    });

    it('dossier serve (the built binary) prints listening on http://HOST:PORT and answers /health', async () => {
      const temp = tempDir();
      // PostgreSQL: the suite's own database (a second process on it is what PostgreSQL is for).
      const child = startCli(['serve', '--port', '0', '--db', backend === 'postgres' ? db : join(temp.dir, 'served.db')]);
      try {
        const url = await new Promise<string>((resolve, reject) => {
          createInterface({ input: child.stdout }).on('line', (line) => {
            const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
            if (match) resolve(match[1]);
          });
          let stderr = '';
          child.stderr.on('data', (data) => (stderr += data));
          child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
        });
        const health = (await (await fetch(`${url}/health`)).json()) as any;
        assert.equal(health.ok, true);
      } finally {
        // A serve that failed to start has exited already: waiting for its 'exit' would hang the suite.
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
        temp.cleanup();
      }
    });
  });
}
