import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Dossier } from '../src/dossier.ts';
import { startServer } from '../src/server/index.ts';
import { regressionIndex, backendSkip, serverBackends, parseFrames } from './helpers.ts';
import { assertDelivered, startScriptedModel, type ScriptedModel } from './scripted-model.ts';

// Runs are answered by the scripted model (test/scripted-model.ts), not the offline reader.
let model: ScriptedModel;
before(async () => (model = await startScriptedModel()));
after(async () => model.close());
afterEach(() => model.reset());

for (const backend of serverBackends()) {
  describe(`dossier serve: the core API on loopback (${backend})`, { skip: backendSkip(backend) }, () => {
    let dossier: Dossier;
    let server: Awaited<ReturnType<typeof startServer>>;
    let cleanup: () => Promise<void>;
    before(async () => {
      const index = await regressionIndex(backend, { env: { ...process.env, ...model.env } });
      ({ dossier, removeFiles: cleanup } = index);
      const { db } = index;
      server = await startServer({ dossier, db, port: 0 });
    });
    after(async () => {
      await server.close();
      await dossier.close();
      await cleanup();
    });

    it('answers health, search, ask and the OpenAPI document', async () => {
      assert.deepEqual(await (await fetch(`${server.url}/health`)).json(), { ok: true, version: '0.1.0' });
      const search: any = await (
        await fetch(`${server.url}/v1/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'Tern-4 sea trial', k: 3 }),
        })
      ).json();
      assert.match(search.hits[0].text, /Hardangerfjord/);
      const ask: any = await (
        await fetch(`${server.url}/v1/ask`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question: 'Where did the Tern-4 sea trial take place?' }),
        })
      ).json();
      assertDelivered(ask, model.answersTo('Where did the Tern-4 sea trial take place?')[0]!);
      assert.equal(ask.finishReason, 'stop');
      const doc: any = await (await fetch(`${server.url}/openapi.json`)).json();
      for (const path of ['/v1/documents', '/v1/search', '/v1/ask', '/v1/runs/{id}/events', '/v1/conversations'])
        assert.ok(doc.paths[path], path);
      const bad = await fetch(`${server.url}/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ k: 3 }),
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as any).error.code, 'bad-input');
    });

    it('branches a conversation: a follow-up of an earlier message reads that branch, not the latest turn', async () => {
      const post = async (path: string, body: unknown): Promise<any> =>
        (
          await fetch(`${server.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json();
      const { id } = await post('/v1/conversations', { title: 'branching' });
      await post('/v1/ask', { question: 'Who founded Halvorsen Instruments?', conversationId: id });
      await post('/v1/ask', { question: 'Where did the Tern-4 sea trial take place?', conversationId: id });
      const messages: any[] = ((await (await fetch(`${server.url}/v1/conversations/${id}/messages`)).json()) as any).messages;
      const firstAnswer = messages[1];
      assert.equal(firstAnswer.role, 'assistant');
      const branched = await post('/v1/ask', { question: 'When was it founded?', conversationId: id, parentId: firstAnswer.id });
      // Read as being about Halvorsen Instruments (the branch), not the Tern-4 sea trial (the latest turn).
      assert.deepEqual(
        model.answers.map((a) => a.question),
        ['Who founded Halvorsen Instruments?', 'Where did the Tern-4 sea trial take place?', 'When was Halvorsen Instruments founded?'],
      );
      assertDelivered(branched, model.answers[2]!.answer);
      const after: any[] = ((await (await fetch(`${server.url}/v1/conversations/${id}/messages`)).json()) as any).messages;
      assert.equal(after.find((m) => m.content === 'When was it founded?').parentId, firstAnswer.id);
    });

    it("streams an ingestion job's progress, then its report", async () => {
      const form = new FormData();
      form.append(
        'file',
        new Blob([`# Skarv-7 buoy\n\n${'The Skarv-7 buoy measures wave height. '.repeat(4000)}`], { type: 'text/markdown' }),
        'skarv-7.md',
      );
      form.append('collection', 'buoys');
      const { job }: any = await (await fetch(`${server.url}/v1/documents`, { method: 'POST', body: form })).json();
      const text = await (await fetch(`${server.url}/v1/jobs/${job.id}/events`)).text();
      const events = parseFrames(text);
      assert.equal(events.at(-1)?.event, 'job-finish', text.slice(0, 300));
      assert.equal(events.at(-1)?.data.status, 'finished');
      assert.equal(events.at(-1)?.data.report.ingested, 1);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
      const missing = await fetch(`${server.url}/v1/jobs/00000000-0000-4000-8000-000000000000/events`);
      assert.equal(missing.status, 404);
    });

    it('refuses to serve off loopback without keys', async () => {
      await assert.rejects(startServer({ dossier, db: ':memory:', host: '0.0.0.0', port: 0 }), /needs --auth keys/);
    });
  });
}
