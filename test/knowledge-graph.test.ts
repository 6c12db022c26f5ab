import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { ragTools, ToolRegistry } from '../src/agent/tools/registry.ts';
import { DossierError } from '../src/errors/index.ts';
import { freshDatabase } from '../src/store/postgres/test-database.ts';
import { tempDir } from './helpers.ts';

/**
 * The knowledge graph through the library, on both stores: build, entities with provenance, graph
 * search over a bridge entity, hybrid fusion, scoping, idempotent rebuilds, and a graph that follows
 * re-ingested and deleted documents. The corpus is invented: a two-hop chain (a person founded a
 * company; the company's page never names the person's city).
 */
const FILES: Record<string, string> = {
  'halvorsen.md':
    '# Marit Halvorsen\n\nMarit Halvorsen is an engineer from Bergen. Marit Halvorsen founded Tidewater Instruments in 1987.\n',
  'tidewater.md':
    '# Tidewater Instruments\n\nTidewater Instruments builds marine radios. Tidewater Instruments opened a second factory in Stavanger in 1999.\n',
  'weather.md': '# Coastal weather\n\nAutumn storms on the coast bring heavy rain and strong winds to the harbour towns.\n',
};

const PG_SKIP = process.env.DOSSIER_TEST_PG ? false : 'DOSSIER_TEST_PG is unset (bash scripts/postgres-test-cluster.sh env)';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`knowledge graph (${backend})`, { skip: backend === 'postgres' ? PG_SKIP : false }, () => {
    async function withCorpus(test: (dossier: Dossier, dir: string) => Promise<void>): Promise<void> {
      const temp = tempDir();
      const database = backend === 'postgres' ? await freshDatabase() : undefined;
      const dossier = await createDossier({ db: database?.url ?? join(temp.dir, 'index.db'), env: {} });
      try {
        for (const [name, text] of Object.entries(FILES)) writeFileSync(join(temp.dir, name), text);
        await dossier.ingest(['halvorsen.md', 'tidewater.md', 'weather.md'].map((name) => join(temp.dir, name)));
        await test(dossier, temp.dir);
      } finally {
        await dossier.close();
        await database?.drop();
        temp.cleanup();
      }
    }

    it('builds entities whose chunk ids hold their names, and finds a second-hop chunk by graph search', () =>
      withCorpus(async (dossier) => {
        await assert.rejects(
          dossier.search({ query: 'Marit Halvorsen', mode: 'graph' }),
          (error) => DossierError.isInstance(error) && /no collection in scope has a knowledge graph/.test(error.message),
        );
        const offered = async () =>
          (await new ToolRegistry(ragTools()).forRun({ knowledge: dossier, scope: { collections: '*' }, canGenerate: false })).names();
        assert.ok(!(await offered()).includes('search_graph'), 'no graph, no graph tool offered');
        const report = await dossier.graph.build();
        assert.ok((await offered()).includes('search_graph'), 'the graph tool is offered once a graph exists');
        assert.deepEqual(report.collections, ['default']);
        assert.equal(report.documents, 3);
        assert.ok(report.entities > 0 && report.relationships > 0);
        assert.deepEqual(report.failures, []);

        const [marit] = await dossier.graph.entities({ query: 'marit halvorsen' });
        assert.equal(marit.name, 'Marit Halvorsen');
        assert.match(marit.description, /Marit Halvorsen/);
        for (const chunk of await Promise.all(
          marit.chunkIds.map(async (id) => (await dossier.store.getChunks({ collections: '*' }, [id]))[0]),
        ))
          assert.ok(chunk.text.includes('Marit Halvorsen') || chunk.title === 'Marit Halvorsen', `chunk ${chunk.id} mentions her`);

        const shown = await dossier.graph.entity('Tidewater Instruments');
        assert.equal(shown.entity.name, 'Tidewater Instruments');
        assert.deepEqual((await dossier.graph.entity(shown.entity.id)).entity, shown.entity, 'found by id as by name');
        const founded = shown.relationships.find((r) => r.subject === 'Marit Halvorsen' && r.object === 'Tidewater Instruments');
        assert.ok(founded, `a relationship joins her to the company: ${JSON.stringify(shown.relationships)}`);
        assert.ok(founded.chunkIds.length > 0);

        // The Stavanger factory is one hop past the company: the question names only her.
        const hits = await dossier.search({ query: 'Where did the company Marit Halvorsen founded open a factory?', mode: 'graph', k: 3 });
        assert.ok(
          hits.some((hit) => hit.text.includes('Stavanger')),
          hits.map((hit) => hit.title).join(', '),
        );
        assert.ok(
          hits.every((hit) => !hit.text.includes('storms')),
          'the unrelated page is not reached',
        );
        assert.deepEqual(await dossier.search({ query: 'autumn weather', mode: 'graph' }), [], 'a query naming no entity finds nothing');
        const hybrid = await dossier.search({ query: 'Where did the company Marit Halvorsen founded open a factory?', k: 3 });
        assert.ok(hybrid.some((hit) => hit.text.includes('Stavanger')));
        const filtered = await dossier.search({
          query: 'Marit Halvorsen',
          mode: 'graph',
          filter: { title: 'Marit Halvorsen' },
        });
        assert.ok(filtered.length > 0 && filtered.every((hit) => hit.title === 'Marit Halvorsen'), 'a filter keeps its documents only');
      }));

    it('rebuilds idempotently, follows changed and deleted documents, and keeps each collection to itself', () =>
      withCorpus(async (dossier, dir) => {
        await dossier.graph.build();
        const before = await dossier.graph.entities({ limit: 1000 });
        const again = await dossier.graph.build();
        assert.equal(again.documents, 0, 'nothing new to extract');
        assert.deepEqual(await dossier.graph.entities({ limit: 1000 }), before);
        const rebuilt = await dossier.graph.build({ rebuild: true });
        assert.equal(rebuilt.documents, 3);
        assert.deepEqual(await dossier.graph.entities({ limit: 1000 }), before, 'a rebuild gives the same entities and ids');

        writeFileSync(
          join(dir, 'tidewater.md'),
          '# Tidewater Instruments\n\nTidewater Instruments builds marine radios. Tidewater Instruments moved its factory to Trondheim in 2004.\n',
        );
        const report = await dossier.ingest([join(dir, 'tidewater.md')]);
        assert.deepEqual(report.graph, { extracted: 1, pending: 0 });
        assert.deepEqual(await dossier.graph.entities({ query: 'Stavanger' }), [], 'the old content left no entity behind');
        assert.equal((await dossier.graph.entities({ query: 'Trondheim' })).length, 1);

        const [weather] = (await dossier.listDocuments()).filter((d) => d.title === 'Coastal weather');
        const harbour = await dossier.graph.entities({ query: 'Coastal weather' });
        assert.ok(harbour.length > 0);
        await dossier.deleteDocument(weather.id);
        assert.deepEqual(await dossier.graph.entities({ query: 'Coastal weather' }), [], 'a deleted document takes its entities');

        writeFileSync(join(dir, 'other.md'), '# Fjord Ferries\n\nFjord Ferries sails from Bergen to Oslo.\n');
        await dossier.ingest([join(dir, 'other.md')], { collection: 'ferries' });
        assert.equal((await dossier.graph.status({ collections: ['ferries'] })).length, 0, 'a new collection has no graph until built');
        await dossier.graph.build({ collections: ['ferries'] });
        assert.equal((await dossier.graph.entities({ collections: ['default'], query: 'Fjord Ferries' })).length, 0);
        assert.equal((await dossier.graph.entities({ collections: ['ferries'], query: 'Fjord Ferries' })).length, 1);
        const bergen = await dossier.graph.entities({ query: 'Bergen' });
        assert.deepEqual(bergen.map((e) => e.collection).sort(), ['default', 'ferries'], 'entities of two collections never merge');
        await assert.rejects(
          dossier.graph.entity('Fjord Ferries', { collections: ['default'] }),
          (error) => DossierError.isInstance(error) && error.code === 'not-found',
        );
      }));
  });
}
