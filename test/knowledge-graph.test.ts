import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAgent } from '../src/agent/run-agent.ts';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { resolveModel } from '../src/providers/index.ts';
import { ragTools, ToolRegistry } from '../src/agent/tools/registry.ts';
import { searchGraph } from '../src/agent/tools/search-graph.ts';
import { EvidenceLedger } from '../src/evidence/ledger.ts';
import { DossierError } from '../src/errors/index.ts';
import { freshDatabase } from '../src/store/postgres/test-database.ts';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import type { ChatTurn } from '../src/testing/protocol-server/chat.ts';
import { tempDir } from './helpers.ts';

/**
 * The knowledge graph through the library, on both stores: build, entities with provenance, graph
 * search over a bridge entity, hybrid fusion, scoping, idempotent rebuilds, and a graph that follows
 * re-ingested and deleted documents. The corpus is invented: a two-hop chain (a person founded a
 * company; the company's page never names the person's city).
 */
const FILES: Record<string, string> = {
  'halvorsen.md':
    '# Marit Halvorsen\n\nMarit Halvorsen is an engineer from Bergen. Marit Halvorsen founded Tidewater Instruments in 1987. Marit Halvorsen and Erik Dahl designed the Kestrel radio in Bergen.\n',
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
        const before = await dossier.ask({ question: 'What are the main themes of these documents?' });
        assert.doesNotMatch(before.answer, /knowledge graph's communities/, 'without a graph the question is read as any other');
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
        // Communities: summaries are sentences of the chunks they cite; a question naming no entity gets them from search_graph.
        const communities = await dossier.graph.communities();
        assert.ok(communities.length > 0 && communities.length === report.communities);
        for (const community of communities) {
          assert.equal(community.stale, false);
          const texts = (await dossier.store.getChunks({ collections: '*' }, community.chunkIds)).map((chunk) => chunk.text);
          for (const sentence of community.summary.split(/(?<=\.) /))
            assert.ok(
              texts.some((text) => text.includes(sentence)),
              sentence,
            );
        }
        // Offline too: a question about the whole collection is answered from the communities, cited.
        const themes = await dossier.ask({ question: 'What are the main themes of these documents?' });
        assert.match(themes.answer, /^The main themes, from the knowledge graph's communities:\n- /);
        assert.equal(themes.finishReason, 'stop');
        assert.ok(themes.citations.length > 0 && themes.unresolvedCitations.length === 0, JSON.stringify(themes.citations));
        const ledger = new EvidenceLedger();
        const global = await searchGraph.execute(
          { query: 'What are the main themes of these documents?' },
          { knowledge: dossier, scope: { collections: '*' }, ledger, step: 1, signal: new AbortController().signal, resultTokens: 1200 },
        );
        assert.match(global.forModel, /Community "/);
        assert.ok(global.evidence.length > 0, "the summaries' chunks are evidence");
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
        const remaining = new Set((await dossier.graph.entities({ limit: 1000 })).map((entity) => entity.id));
        for (const community of await dossier.graph.communities()) {
          assert.equal(community.stale, false, 'communities follow a deletion');
          for (const id of community.entityIds) assert.ok(remaining.has(id), `community ${community.id} names only entities that remain`);
        }

        // One record at a time: it is extracted at once; the communities wait, marked stale, for the next build.
        await dossier.ingestRecord({
          source: 'record:ferry',
          title: 'Harbour pilots',
          mediaType: 'text/plain',
          blocks: [{ type: 'text', text: 'Harbour pilots guide ships into Tromsø and Narvik.' }],
        });
        assert.equal((await dossier.graph.entities({ query: 'Narvik' })).length, 1);
        assert.ok((await dossier.graph.communities()).every((community) => community.stale));
        await dossier.graph.build();
        assert.ok((await dossier.graph.communities()).every((community) => !community.stale));
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

describe('knowledge graph by model', () => {
  /** A scripted extraction model: every two-word capitalised name in each chunk it is shown, typed `person`, with a description. */
  function reader(body: unknown): ChatTurn {
    const messages = (body as { messages: Array<{ role: string; content: string }> }).messages;
    const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
    const entities = [...prompt.matchAll(/<chunk id="(C\d+)">[\s\S]*?<text>\n([\s\S]*?)\n<\/text>/g)].flatMap(([, chunk, text]) =>
      [...new Set([...text.matchAll(/\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+/gu)].map((m) => m[0]))].map((name) => ({
        name,
        type: 'person',
        chunk,
        description: `${name}, as the model read it`,
      })),
    );
    return { type: 'text', text: JSON.stringify({ entities, relationships: [] }) };
  }

  it('dossier.graph.build({ model }) extracts with the model, and ingest with that model keeps the graph up to date', async () => {
    const server = await startOpenAIServer();
    server.chat.otherwise(reader);
    const temp = tempDir();
    const dossier = await createDossier({ db: join(temp.dir, 'index.db'), env: { DOSSIER_BASE_URL: server.baseURL } });
    try {
      writeFileSync(join(temp.dir, 'a.md'), FILES['halvorsen.md']);
      await dossier.ingest([join(temp.dir, 'a.md')]);
      const model = 'openai-compatible:graph-reader';
      const report = await dossier.graph.build({ model });
      assert.equal(report.extractor, 'model:openai-compatible.chat:graph-reader');
      assert.deepEqual(report.failures, []);
      const [marit] = await dossier.graph.entities({ query: 'Marit Halvorsen' });
      assert.equal(marit.description, 'Marit Halvorsen, as the model read it');
      assert.ok(server.chat.requests.length > 0);

      writeFileSync(join(temp.dir, 'b.md'), FILES['tidewater.md']);
      const ingested = await dossier.ingest([join(temp.dir, 'b.md')], { model });
      assert.deepEqual(ingested.graph, { extracted: 1, pending: 0 });
      assert.equal(
        (await dossier.graph.entities({ query: 'Tidewater Instruments' }))[0]?.description,
        'Tidewater Instruments, as the model read it',
      );
      writeFileSync(join(temp.dir, 'c.md'), FILES['weather.md']);
      const offline = await dossier.ingest([join(temp.dir, 'c.md')]);
      assert.deepEqual(offline.graph, { extracted: 0, pending: 1 }, 'a model-built graph is not extended by the offline extractor');
    } finally {
      await dossier.close();
      temp.cleanup();
      await server.close();
    }
  });
});

describe("search_graph in a real model's run", () => {
  it('is offered once a graph exists, reaches the model fenced, and what the model cites from it resolves', async () => {
    const server = await startOpenAIServer();
    const temp = tempDir();
    const dossier = await createDossier({ db: join(temp.dir, 'index.db'), env: {} });
    try {
      for (const [name, text] of Object.entries(FILES)) writeFileSync(join(temp.dir, name), text);
      await dossier.ingest(Object.keys(FILES).map((name) => join(temp.dir, name)));
      const model = await resolveModel('openai-compatible:scripted', { env: { DOSSIER_BASE_URL: server.baseURL } });
      const question = 'Where did the company Marit Halvorsen founded open a factory?';
      const toolsOffered = () => JSON.stringify((server.chat.requests.at(-1)!.body as { tools?: unknown }).tools ?? []);

      server.chat.enqueue({ type: 'text', text: 'I cannot tell.' });
      await runAgent({ knowledge: dossier, question, model, modelTimeoutMs: 5000, maxRetries: 0 });
      assert.doesNotMatch(toolsOffered(), /search_graph/, 'no graph, no graph tool');

      await dossier.graph.build();
      server.chat.enqueue({
        type: 'tool-calls',
        calls: [{ name: 'search_graph', arguments: JSON.stringify({ query: 'Marit Halvorsen' }) }],
      });
      server.chat.enqueue((body) => {
        const shown = JSON.stringify(body);
        // The id of the passage that holds the answer, as the model would read it from the fenced result.
        const id = /<<<EVIDENCE (E\d+)[^<]*?Tidewater Instruments[^<]*?Stavanger/.exec(shown.replaceAll('\\n', ' '))?.[1] ?? 'E99';
        return { type: 'text', text: `In Stavanger [${id}].` };
      });
      const result = await runAgent({ knowledge: dossier, question, model, modelTimeoutMs: 5000, maxRetries: 0 });
      assert.match(toolsOffered(), /search_graph/);
      assert.match(JSON.stringify(server.chat.requests.at(-1)!.body), /<<<GRAPH/, 'the graph lines reached the model fenced');
      assert.equal(result.finishReason, 'stop');
      assert.deepEqual(result.unresolvedCitations, []);
      assert.ok(result.citations.length === 1 && result.citations[0].text.includes('Stavanger'), JSON.stringify(result.citations));
    } finally {
      await dossier.close();
      temp.cleanup();
      await server.close();
    }
  });
});
