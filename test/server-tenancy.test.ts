import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EvidenceLedger } from '../src/evidence/ledger.ts';
import { getContent } from '../src/agent/tools/get-content.ts';
import { searchDescriptions } from '../src/agent/tools/search-descriptions.ts';
import { searchKnowledge } from '../src/agent/tools/search-knowledge.ts';
import type { AgentTool } from '../src/agent/tools/tool.ts';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { Principal } from '../src/server/principal.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState } from '../src/server/state/index.ts';
import { backendDb, backendSkip, serverBackends, parseFrames } from './helpers.ts';
import { startScriptedModel, type ScriptedModel } from './scripted-model.ts';

// Two tenants on one keys-mode server. Everything of A's that B can name (ids copied from A, or
// guessed) must be "not found" for B, and nothing of A's may reach B through search or the agent.

const SECRET = '4471-ZETA';

// Runs are answered by the scripted model (test/scripted-model.ts): it quotes the first passage it is
// shown, so whatever a run's search let through would be in its answer.
let model: ScriptedModel;
before(async () => (model = await startScriptedModel()));
after(async () => model.close());
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function client(url: string, key: string) {
  const auth = { authorization: `Bearer ${key}` };
  return {
    get: (path: string, extra: Record<string, string> = {}) => fetch(`${url}${path}`, { headers: { ...auth, ...extra } }),
    del: (path: string) => fetch(`${url}${path}`, { method: 'DELETE', headers: auth }),
    send: (method: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    upload: (name: string, text: string, collection: string) => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/markdown' }), name);
      form.append('collection', collection);
      return fetch(`${url}/v1/documents`, { method: 'POST', headers: auth, body: form });
    },
  };
}
type Client = ReturnType<typeof client>;
const body = async (response: Response) => (await response.json()) as any;

async function uploadAndWait(c: Client, name: string, text: string, collection: string): Promise<string> {
  const response = await c.upload(name, text, collection);
  assert.equal(response.status, 202);
  const { job } = await body(response);
  for (let i = 0; i < 400; i++) {
    const polled = await body(await c.get(`/v1/jobs/${job.id}`));
    if (polled.job.status === 'finished') return job.id;
    assert.match(polled.job.status, /^(running|queued)$/, JSON.stringify(polled.job));
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('upload did not finish');
}

/** A 404 with code not-found: the same answer whether the thing is someone else's or does not exist. */
async function assertNotFound(response: Response, what: string): Promise<void> {
  assert.equal(response.status, 404, `${what}: ${response.status}`);
  const parsed = await body(response);
  assert.equal(parsed.error.code, 'not-found', what);
  assert.doesNotMatch(JSON.stringify(parsed), new RegExp(SECRET), what);
}

for (const backend of serverBackends()) {
  describe(`dossier serve: tenants never see each other (${backend})`, { skip: backendSkip(backend) }, () => {
    let dossier: Dossier;
    let server: Awaited<ReturnType<typeof startServer>>;
    let a: Client;
    let b: Client;
    let cleanup: () => Promise<void>;
    let bobScope: ReturnType<Principal['readScope']>;
    const ids = {
      aDocs: [] as number[],
      bDocs: [] as number[],
      aJob: '',
      bJob: '',
      aRun: '',
      bRun: '',
      aConversation: '',
      bConversation: '',
    };

    before(async () => {
      const place = await backendDb(backend);
      cleanup = place.cleanup;
      const { db } = place;
      dossier = await createDossier({ db, env: { ...process.env, ...model.env } });
      const state = await openServerState(db);
      const alice = await state.createUser('alice');
      const bob = await state.createUser('bob');
      await state.grant('a', alice.id, 'writer');
      await state.grant('b', bob.id, 'writer');
      const keys = { a: (await state.createKey(alice.id)).apiKey, b: (await state.createKey(bob.id)).apiKey };
      bobScope = (await Principal.of(state, bob)).readScope(); // the scope the server gives every run of B's
      await state.close();
      server = await startServer({ dossier, db, port: 0, auth: 'keys' });
      a = client(server.url, keys.a);
      b = client(server.url, keys.b);

      ids.aJob = await uploadAndWait(
        a,
        'vault.md',
        `# Project Plinthwort\n\nThe vault code for Project Plinthwort is ${SECRET}. Only the night guard knows it.\n`,
        'a',
      );
      await uploadAndWait(a, 'garden.md', '# Garden\n\nThe roses in the garden bloom in June and need water every morning.\n', 'a');
      ids.bJob = await uploadAndWait(
        b,
        'harbour.md',
        '# Harbour\n\nThe harbour opens at six. The ferry to the island leaves every hour and the vault code of the harbour office changes weekly.\n',
        'b',
      );
      await uploadAndWait(b, 'garden-b.md', '# Orchard\n\nThe apple trees in the orchard bloom in May and the garden roses follow.\n', 'b');
      ids.aDocs = (await body(await a.get('/v1/documents'))).documents.map((d: any) => d.id);
      ids.bDocs = (await body(await b.get('/v1/documents'))).documents.map((d: any) => d.id);
      assert.equal(ids.aDocs.length, 2);
      assert.equal(ids.bDocs.length, 2);

      ids.aConversation = (await body(await a.send('POST', '/v1/conversations', { title: 'vault' }))).id;
      ids.bConversation = (await body(await b.send('POST', '/v1/conversations', { title: 'harbour' }))).id;
      const asked = await a.send('POST', '/v1/ask', {
        question: 'What is the vault code for Project Plinthwort?',
        conversationId: ids.aConversation,
      });
      ids.aRun = asked.headers.get('x-dossier-run-id')!;
      const aAnswer: string = (await body(asked)).answer;
      assert.equal(aAnswer, model.answersTo('What is the vault code for Project Plinthwort?').at(-1)!);
      assert.match(aAnswer, new RegExp(SECRET), 'A can read her own document');
      const bAsked = await b.send('POST', '/v1/ask', { question: 'When does the harbour open?', conversationId: ids.bConversation });
      ids.bRun = bAsked.headers.get('x-dossier-run-id')!;
      await bAsked.arrayBuffer();
    });
    after(async () => {
      await server.close();
      await dossier.close();
      await cleanup();
    });

    it("404s every document endpoint for A's documents, copied or guessed", async () => {
      // Document ids are small integers, so B can guess them: every id up to the highest is tried.
      const highest = Math.max(...ids.aDocs, ...ids.bDocs);
      for (let id = 1; id <= highest + 2; id++) {
        if (ids.bDocs.includes(id)) {
          assert.equal((await b.get(`/v1/documents/${id}`)).status, 200);
          continue;
        }
        await assertNotFound(await b.get(`/v1/documents/${id}`), `GET document ${id}`);
        await assertNotFound(await b.get(`/v1/documents/${id}/chunks`), `GET chunks ${id}`);
        await assertNotFound(await b.send('PATCH', `/v1/documents/${id}`, { metadata: { owner: 'bob' } }), `PATCH document ${id}`);
        await assertNotFound(await b.del(`/v1/documents/${id}`), `DELETE document ${id}`);
      }
      // Nothing B tried changed A's documents.
      const aDocs = (await body(await a.get('/v1/documents'))).documents;
      assert.equal(aDocs.length, 2);
      assert.ok(aDocs.every((d: any) => d.metadata.owner === undefined));
    });

    it("404s A's jobs, runs, run events and conversations", async () => {
      await assertNotFound(await b.get(`/v1/jobs/${ids.aJob}`), 'job');
      await assertNotFound(await b.get(`/v1/runs/${ids.aRun}`), 'run');
      await assertNotFound(await b.get(`/v1/runs/${ids.aRun}/events`), 'run events');
      await assertNotFound(await b.get(`/v1/runs/${ids.aRun}/events`, { 'last-event-id': '1' }), 'run events resumed');
      const conversation = `/v1/conversations/${ids.aConversation}`;
      await assertNotFound(await b.get(conversation), 'conversation');
      await assertNotFound(await b.get(`${conversation}/messages`), 'messages');
      await assertNotFound(await b.get(`${conversation}/export`), 'export');
      await assertNotFound(await b.del(conversation), 'delete conversation');
      await assertNotFound(
        await b.send('POST', '/v1/ask', { question: 'What was the code again?', conversationId: ids.aConversation }),
        'ask in A’s conversation',
      );
      const listed = (await body(await b.get('/v1/conversations'))).conversations.map((c: any) => c.id);
      assert.deepEqual(listed, [ids.bConversation]);
      // A still has all of it, and B's own things still work for B.
      assert.equal((await a.get(conversation)).status, 200);
      assert.equal((await body(await a.get(`${conversation}/messages`))).messages.length, 2);
      assert.equal((await a.get(`/v1/runs/${ids.aRun}`)).status, 200);
      assert.equal((await b.get(`/v1/runs/${ids.bRun}`)).status, 200);
      assert.equal((await b.get(`/v1/jobs/${ids.bJob}`)).status, 200);
    });

    it('treats A’s collection as not existing: search, ask, list, upload and grant by name are 404', async () => {
      const unknown = await b.send('POST', '/v1/search', { query: 'vault code', collections: ['no-such-collection'] });
      const unknownMessage = (await body(unknown)).error.message;
      for (const collections of [['a'], ['a', 'b']]) {
        const search = await b.send('POST', '/v1/search', { query: 'vault code', collections });
        assert.equal(search.status, 404);
        const error = (await body(search)).error;
        assert.equal(error.code, 'not-found');
        // Same wording as for a collection that does not exist: the answer confirms nothing.
        assert.equal(error.message.replace(/"[^"]*"(, )?/g, ''), unknownMessage.replace(/"[^"]*"/g, ''));
        await assertNotFound(
          await b.send('POST', '/v1/ask', { question: 'What is the vault code for Project Plinthwort?', collections }),
          `ask ${collections}`,
        );
      }
      await assertNotFound(await b.get('/v1/documents?collection=a'), 'list ?collection=a');
      await assertNotFound(await b.upload('x.md', '# X\n\nB writes into a.\n', 'a'), 'upload into a');
      await assertNotFound(await b.send('PUT', '/v1/collections/a/members/bob', { role: 'owner' }), 'grant herself a');
      // B is a writer of b, not an owner: no granting there either, and no keys for others.
      assert.equal((await b.send('PUT', '/v1/collections/b/members/alice', { role: 'reader' })).status, 403);
      assert.equal((await b.send('POST', '/v1/keys', { user: 'alice' })).status, 403);
      assert.deepEqual(
        (await body(await b.get('/v1/collections'))).collections.map((c: any) => c.name),
        ['b'],
      );
    });

    it('lists and searches only B’s documents, whatever the filter says', async () => {
      const listed = (await body(await b.get('/v1/documents'))).documents;
      assert.deepEqual(
        listed.map((d: any) => d.collection),
        ['b', 'b'],
      );
      for (const filter of [{ collection: 'a' }, { $or: [{ collection: 'a' }, { collection: 'b' }] }, { collection: { $ne: 'b' } }]) {
        const documents = (await body(await b.get(`/v1/documents?filter=${encodeURIComponent(JSON.stringify(filter))}`))).documents;
        assert.ok(
          documents.every((d: any) => ids.bDocs.includes(d.id)),
          JSON.stringify(filter),
        );
        for (const mode of ['fulltext', 'vector', 'hybrid']) {
          const hits = (await body(await b.send('POST', '/v1/search', { query: 'vault code garden roses bloom', mode, filter, k: 50 })))
            .hits;
          assert.ok(
            hits.every((h: any) => ids.bDocs.includes(h.documentId)),
            `${mode} ${JSON.stringify(filter)}`,
          );
        }
      }
      for (const mode of ['fulltext', 'vector', 'hybrid']) {
        // Words both tenants use: B's documents come back, A's never.
        const hits = (await body(await b.send('POST', '/v1/search', { query: 'vault code Plinthwort garden roses bloom', mode, k: 50 })))
          .hits;
        assert.ok(hits.length > 0, mode);
        assert.ok(
          hits.every((h: any) => ids.bDocs.includes(h.documentId)),
          mode,
        );
        assert.doesNotMatch(JSON.stringify(hits), /Plinthwort|4471/, mode);
        // And A's search does see her own, so the words do match.
        const aHits = (await body(await a.send('POST', '/v1/search', { query: 'Plinthwort vault code', mode, k: 50 }))).hits;
        assert.ok(
          aHits.some((h: any) => ids.aDocs.includes(h.documentId)),
          `${mode}: A finds it`,
        );
      }
    });

    it("never lets B's agent read A's chunks, in rag or research mode", async () => {
      for (const mode of ['rag', 'research']) {
        const seen = model.answers.length;
        const response = await b.send('POST', '/v1/ask', {
          question: 'What is the vault code for Project Plinthwort?',
          mode,
          stream: true,
        });
        const text = await response.text();
        // The secret is only in A's document: it must not be in any event of B's run (tool results,
        // evidence, citations, the answer).
        assert.doesNotMatch(text, new RegExp(SECRET), mode);
        const events = parseFrames(text).map((frame) => frame.data);
        const cited = events.filter((e) => e.type === 'citation').map((e) => e.citation.documentId);
        assert.ok(
          cited.every((id) => !ids.aDocs.includes(id)),
          `${mode}: cites ${cited}`,
        );
        const evidence = events.filter((e) => e.type === 'evidence-added');
        // B's harbour note also speaks of a vault code: the agent did read evidence, B's own.
        assert.ok(evidence.length > 0, `${mode}: no evidence at all`);
        assert.ok(
          evidence.every((e) => typeof e.evidence.documentId === 'number'),
          mode,
        );
        assert.ok(
          evidence.every((e) => ids.bDocs.includes(e.evidence.documentId)),
          `${mode}: evidence from A`,
        );
        assert.equal(events.at(-1).type, 'run-finish');
        const json = await body(await b.send('POST', '/v1/ask', { question: 'What is the vault code for Project Plinthwort?', mode }));
        assert.doesNotMatch(json.answer, new RegExp(SECRET));
        assert.ok(
          json.citations.every((c: any) => !ids.aDocs.includes(c.documentId)),
          mode,
        );
        // Nor was the model shown any of it.
        const shown = model.answers.slice(seen);
        assert.ok(
          shown.length > 0 &&
            shown.every(
              (a) => a.evidence.length > 0 && a.evidence.every((e) => !e.text.includes(SECRET) && !e.text.includes('Plinthwort')),
            ),
          `${mode}: the model was shown A's text`,
        );
      }
    });

    it("scopes the agent's tools: B's run cannot read A's documents even by id", async () => {
      assert.deepEqual(bobScope, { collections: ['b'] });
      const context = () => ({
        knowledge: dossier,
        scope: bobScope,
        ledger: new EvidenceLedger(),
        step: 1,
        signal: new AbortController().signal,
        resultTokens: 1200,
      });
      const run = <T>(tool: AgentTool<T>, input: unknown) => tool.execute(tool.inputSchema.parse(input) as T, context());
      // A model steered by the question ("read document 1") gets an error, not A's text.
      for (const documentId of ids.aDocs) await assert.rejects(run(getContent, { documentId }), /no document/);
      const own = await run(getContent, { documentId: ids.bDocs[0] });
      assert.ok(own.evidence.length > 0);
      const described = await run(searchDescriptions, { query: 'Project Plinthwort vault code garden roses', k: 20 });
      assert.ok((described.raw as any).documents.every((d: any) => ids.bDocs.includes(d.documentId)));
      assert.doesNotMatch(described.forModel, /Plinthwort|4471/);
      // Even a filter naming A's collection cannot widen the run's scope.
      const searched = await run(searchKnowledge, { query: 'Plinthwort vault code', k: 20, filter: { collection: 'a' } });
      assert.equal(searched.evidence.length, 0);
      const unfiltered = await run(searchKnowledge, { query: 'Plinthwort vault code', k: 20 });
      assert.ok(unfiltered.evidence.length > 0);
      assert.ok(unfiltered.evidence.every((e) => ids.bDocs.includes(e.chunk.documentId)));
      assert.doesNotMatch(unfiltered.forModel, /4471/);
    });

    it('gives conversations, runs and jobs random UUIDs', async () => {
      const runs = [ids.aRun, ids.bRun];
      const jobs = [ids.aJob, ids.bJob];
      const conversations = [ids.aConversation, ids.bConversation, (await body(await b.send('POST', '/v1/conversations', {}))).id];
      for (const group of [runs, jobs, conversations]) {
        for (const id of group) assert.match(id, UUID_V4);
        // Made one after the other, yet nowhere near each other: not a counter, not a timestamp.
        const [x, y] = group.map((id) => BigInt(`0x${id.replace(/-/g, '')}`));
        assert.notEqual(x, y);
        const distance = x > y ? x - y : y - x;
        assert.ok(distance > 1n << 64n, `${group[0]} and ${group[1]} are close`);
        assert.notEqual(group[0].slice(0, 8), group[1].slice(0, 8));
      }
    });
  });
}
