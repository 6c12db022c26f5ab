import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, DossierClientError, type DossierClient } from '../src/client/index.ts';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { startServer } from '../src/server/index.ts';
import { openServerState } from '../src/server/state/index.ts';
import { backendDb, backendSkip, serverBackends } from './helpers.ts';

/**
 * The knowledge graph over HTTP (`dossier serve --auth keys` on loopback): a writer builds it as a
 * job and reads its entities and relationships with their passages through the typed client; a
 * reader of the collection reads it too; a user of another collection sees none of it and gets
 * 404 for its entity ids; bad input is a 400 with a one-line message.
 */
const FILES: Record<string, string> = {
  'halvorsen.md':
    '# Marit Halvorsen\n\nMarit Halvorsen is an engineer from Bergen. Marit Halvorsen founded Tidewater Instruments in 1987. Marit Halvorsen and Erik Dahl designed the Kestrel radio in Bergen.\n',
  'tidewater.md':
    '# Tidewater Instruments\n\nTidewater Instruments builds marine radios. Tidewater Instruments opened a second factory in Stavanger in 1999.\n',
  'weather.md': '# Coastal weather\n\nAutumn storms on the coast bring heavy rain and strong winds to the harbour towns.\n',
};
const HARBOUR = '# Harbour office\n\nThe Harbour Office of Kvitsund opens at six. Ingrid Solberg runs the Harbour Office of Kvitsund.\n';

for (const backend of serverBackends()) {
  describe(`dossier serve: the knowledge graph (${backend})`, { skip: backendSkip(backend), timeout: 120_000 }, () => {
    let dossier: Dossier;
    let server: Awaited<ReturnType<typeof startServer>>;
    let cleanup: () => Promise<void>;
    const keys = { alice: '', bob: '', carol: '' };
    let alice: DossierClient;
    let bob: DossierClient;
    let carol: DossierClient;
    const get = (key: string, path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const post = (key: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    before(async () => {
      const place = await backendDb(backend);
      cleanup = place.cleanup;
      dossier = await createDossier({ db: place.db, env: {} });
      const state = await openServerState(place.db);
      const users = { alice: await state.createUser('alice'), bob: await state.createUser('bob'), carol: await state.createUser('carol') };
      await state.grant('a', users.alice.id, 'writer');
      await state.grant('a', users.carol.id, 'reader');
      await state.grant('b', users.bob.id, 'writer');
      await state.grant('empty', users.bob.id, 'writer');
      for (const name of ['alice', 'bob', 'carol'] as const) keys[name] = (await state.createKey(users[name].id)).apiKey;
      await state.close();
      server = await startServer({ dossier, db: place.db, port: 0, auth: 'keys' });
      alice = createClient({ baseUrl: server.url, apiKey: keys.alice });
      bob = createClient({ baseUrl: server.url, apiKey: keys.bob });
      carol = createClient({ baseUrl: server.url, apiKey: keys.carol });
      for (const [name, text] of Object.entries(FILES)) {
        const job = await alice.documents.upload({ name, data: text, type: 'text/markdown' }, { collection: 'a' });
        assert.equal((await alice.documents.waitForJob(job.id)).status, 'finished');
      }
      const job = await bob.documents.upload({ name: 'harbour.md', data: HARBOUR, type: 'text/markdown' }, { collection: 'b' });
      assert.equal((await bob.documents.waitForJob(job.id)).status, 'finished');
    });
    after(async () => {
      await server.close();
      await dossier.close();
      await cleanup();
    });

    it('builds a graph as a job and shows an entity with its relationships and the passages that state them', async () => {
      assert.deepEqual(await alice.graph.entities(), [], 'no graph yet: no entities');
      const started = await alice.graph.build();
      assert.equal(started.status, 'running');
      assert.equal(started.collection, 'a', 'every collection alice may write, and only those');
      const job = await alice.graph.waitForBuild(started.id);
      assert.equal(job.status, 'finished', JSON.stringify(job));
      assert.deepEqual(job.report?.collections, ['a']);
      assert.equal(job.report?.documents, 3);
      assert.ok(job.report!.entities > 0 && job.report!.relationships > 0);
      assert.deepEqual(job.progress, { done: 3, total: 3 });

      const [marit] = await alice.graph.entities({ query: 'marit halvorsen' });
      assert.equal(marit.name, 'Marit Halvorsen');
      assert.equal(marit.collection, 'a');
      assert.match(marit.description, /Marit Halvorsen/);
      const shown = await alice.graph.entity(marit.id);
      assert.equal(shown.entity.id, marit.id);
      const founded = shown.relationships.find((r) => r.object === 'Tidewater Instruments' || r.subject === 'Tidewater Instruments');
      assert.ok(founded, `a relationship with Tidewater Instruments: ${JSON.stringify(shown.relationships)}`);
      const passage = shown.passages.find((p) => p.chunkId === founded.chunkIds[0]);
      assert.ok(passage, 'the passage of the relationship is there');
      assert.match(passage.text, /Marit Halvorsen founded Tidewater Instruments/);
      assert.equal(passage.title, 'Marit Halvorsen');
      // By name too, as `dossier graph show` takes it.
      assert.equal((await alice.graph.entity('Marit Halvorsen')).entity.id, marit.id);
      const page = await alice.graph.entities({ limit: 1, offset: 1 });
      assert.equal(page.length, 1);
      assert.notEqual(page[0].id, (await alice.graph.entities({ limit: 1 }))[0].id);

      // Its communities: groups of entities whose summaries come from the collection's chunks.
      const communities = await alice.graph.communities();
      assert.ok(communities.length > 0, 'the build detected communities');
      assert.equal(job.report?.communities, communities.length);
      const known = new Set((await alice.graph.entities({ limit: 1000 })).map((e) => e.id));
      for (const community of communities) {
        assert.equal(community.collection, 'a');
        assert.ok(community.entityIds.length > 0 && community.entityIds.every((id) => known.has(id)), JSON.stringify(community));
        assert.ok(community.summary.length > 0 && community.chunkIds.length > 0);
        assert.equal(community.stale, false);
      }
      assert.ok((await alice.graph.communities({ level: 0 })).every((community) => community.level === 0));

      // A reader of the collection reads its graph, but may not build it.
      assert.equal((await carol.graph.entity(marit.id)).entity.name, 'Marit Halvorsen');
      await assert.rejects(
        carol.graph.build({ collections: ['a'] }),
        (error) => DossierClientError.isInstance(error) && error.status === 403,
      );
      await assert.rejects(carol.graph.build(), (error) => DossierClientError.isInstance(error) && error.status === 403);
    });

    it('never shows a user the graph of a collection they cannot read: no entities, 404 for its ids, no build', async () => {
      const built = await bob.graph.waitForBuild((await bob.graph.build({ collections: ['b'] })).id);
      assert.equal(built.status, 'finished', JSON.stringify(built));
      const aliceJob = await alice.graph.waitForBuild((await alice.graph.build({ collections: ['a'] })).id);
      assert.equal(aliceJob.status, 'finished');
      const aliceEntities = await alice.graph.entities({ limit: 1000 });
      const bobEntities = await bob.graph.entities({ limit: 1000 });
      assert.ok(bobEntities.length > 0);
      assert.ok(
        bobEntities.every((e) => e.collection === 'b'),
        'bob sees his own graph only',
      );
      assert.ok(
        aliceEntities.every((e) => e.collection === 'a'),
        'alice sees hers only',
      );
      assert.deepEqual(await bob.graph.entities({ query: 'Marit Halvorsen' }), []);
      assert.ok((await bob.graph.communities()).every((community) => community.collection === 'b'));
      assert.doesNotMatch(JSON.stringify(await bob.graph.communities()), /Halvorsen|Tidewater/);
      assert.equal((await get(keys.bob, '/v1/graph/communities?collection=a')).status, 404);
      for (const entity of aliceEntities.slice(0, 10)) {
        const response = await get(keys.bob, `/v1/graph/entities/${entity.id}`);
        assert.equal(response.status, 404, entity.name);
        const body = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'not-found');
        assert.doesNotMatch(body.error.message, /Halvorsen|Tidewater/);
      }
      assert.equal((await get(keys.bob, `/v1/graph/entities/${encodeURIComponent('Marit Halvorsen')}`)).status, 404);
      assert.equal((await get(keys.bob, '/v1/graph/entities?collection=a')).status, 404);
      assert.equal((await get(keys.bob, `/v1/graph/entities/${aliceEntities[0].id}?collection=a`)).status, 404);
      // Building another's collection: it does not exist for him.
      const refused = await post(keys.bob, '/v1/graph/build', { collections: ['a'] });
      assert.equal(refused.status, 404);
      // A collection of his with no documents yet: not found, and the answer names no one else's.
      const empty = await post(keys.bob, '/v1/graph/build', { collections: ['empty'] });
      assert.equal(empty.status, 404);
      assert.doesNotMatch(JSON.stringify(await empty.json()), /"a"|\ba\b,/);
      // …and a build of "everything he may write" is his collection alone.
      const everything = await bob.graph.build();
      assert.equal(everything.collection, 'b');
      assert.equal((await bob.graph.waitForBuild(everything.id)).status, 'finished');
    });

    it('answers bad input with a 400 and a one-line message', async () => {
      const cases: Array<[string, Promise<Response>]> = [
        ['limit 0', get(keys.alice, '/v1/graph/entities?limit=0')],
        ['limit not a number', get(keys.alice, '/v1/graph/entities?limit=many')],
        ['a negative level', get(keys.alice, '/v1/graph/communities?level=-1')],
        ['a query with no letters', get(keys.alice, `/v1/graph/entities?query=${encodeURIComponent('?!')}`)],
        ['collections not a list', post(keys.alice, '/v1/graph/build', { collections: 'a' })],
        ['rebuild not a boolean', post(keys.alice, '/v1/graph/build', { rebuild: 'yes' })],
        ['a bad collection name', post(keys.alice, '/v1/graph/build', { collections: ['../a'] })],
        [
          'not JSON',
          fetch(`${server.url}/v1/graph/build`, {
            method: 'POST',
            headers: { authorization: `Bearer ${keys.alice}`, 'content-type': 'application/json' },
            body: '{',
          }),
        ],
      ];
      for (const [what, pending] of cases) {
        const response = await pending;
        const body = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(response.status, 400, `${what}: ${JSON.stringify(body)}`);
        assert.equal(body.error.code, 'bad-input', what);
        assert.ok(body.error.message.length > 0 && !body.error.message.includes('\n'), `${what}: ${body.error.message}`);
      }
      const model = await post(keys.alice, '/v1/graph/build', { model: 'nosuchprovider:x' });
      assert.equal(model.status, 400, 'a model that cannot be used is refused before any job starts');
      assert.match(((await model.json()) as { error: { message: string } }).error.message, /unknown model provider "nosuchprovider"/);
      assert.equal((await fetch(`${server.url}/v1/graph/entities`)).status, 401, 'no key');
    });
  });
}
