import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DossierError } from '../errors/index.ts';
import type { ChunkInput, DocumentInput, ExportedDocument, Filter, Scope, Store } from './types.ts';

/**
 * The one behaviour suite every Store implementation must pass (SQLite now, PostgreSQL later).
 * `make` returns a fresh, empty store; `cleanup` releases it. `skip` names why the suite cannot run
 * here (a backend that is not reachable): it is reported as skipped with that reason, never dropped.
 */
export function storeContract(
  name: string,
  make: () => Promise<{ store: Store; cleanup: () => Promise<void> | void }>,
  options: { skip?: string | false } = {},
): void {
  const DIMS = 8;
  const ALL = { collections: '*' } as const;

  const unit = (i: number): Float32Array => {
    const vector = new Float32Array(DIMS);
    vector[i % DIMS] = 1;
    return vector;
  };

  const doc = (source: string, overrides: Partial<DocumentInput> = {}): DocumentInput => ({
    collection: 'default',
    source,
    title: `Title of ${source}`,
    mediaType: 'text/plain',
    contentHash: `hash-${source}`,
    metadata: {},
    text: 'unused',
    bytes: 10,
    ...overrides,
  });

  const chunk = (ordinal: number, terms: string, text = terms): ChunkInput => ({
    ordinal,
    text,
    tokenCount: terms.split(' ').length,
    headingPath: ['Intro'],
    charStart: 0,
    charEnd: text.length,
    terms,
    titleTerms: '',
  });

  async function withStore(test: (store: Store) => Promise<void> | void): Promise<void> {
    const { store, cleanup } = await make();
    await store.assertEmbedder({ embedderId: 'test-embedder', dimensions: DIMS });
    try {
      await test(store);
    } finally {
      await cleanup();
    }
  }

  describe(`Store contract: ${name}`, { skip: options.skip ?? false }, () => {
    it('inserts a document and reads back its chunks in the order asked', () =>
      withStore(async (store) => {
        const { id, status } = await store.upsertDocument(
          doc('a.txt'),
          [chunk(0, 'alpha beta'), chunk(1, 'gamma delta')],
          [unit(0), unit(1)],
        );
        assert.equal(status, 'inserted');
        const document = await store.getDocument(ALL, id);
        assert.equal(document?.title, 'Title of a.txt');
        assert.equal(document?.chunkCount, 2);
        const hits = await store.searchFullText(ALL, ['gamma'], { k: 5 });
        assert.equal(hits.length, 1);
        assert.equal(hits[0].documentId, id);
        const ids = [hits[0].chunkId, ...(await store.searchFullText(ALL, ['alpha'], { k: 5 })).map((h) => h.chunkId)];
        assert.deepEqual(
          (await store.getChunks(ALL, ids)).map((c) => c.text),
          ['gamma delta', 'alpha beta'],
        );
        assert.deepEqual(
          (await store.getChunkRange(ALL, id, 0, 1)).map((c) => c.ordinal),
          [0, 1],
        );
        assert.deepEqual((await store.getChunks(ALL, ids))[0].headingPath, ['Intro']);
      }));

    it('is idempotent by content hash and replaces a changed document in place', () =>
      withStore(async (store) => {
        const first = await store.upsertDocument(doc('a.txt'), [chunk(0, 'oldterm')], [unit(0)]);
        const again = await store.upsertDocument(doc('a.txt'), [chunk(0, 'oldterm')], [unit(0)]);
        assert.equal(again.status, 'unchanged');
        assert.equal(again.id, first.id);
        const oldChunk = (await store.searchFullText(ALL, ['oldterm'], { k: 5 }))[0].chunkId;
        const changed = await store.upsertDocument(
          doc('a.txt', { contentHash: 'hash-2' }),
          [chunk(0, 'newterm'), chunk(1, 'newterm more')],
          [unit(2), unit(3)],
        );
        assert.equal(changed.status, 'updated');
        assert.equal(changed.id, first.id);
        assert.deepEqual(await store.searchFullText(ALL, ['oldterm'], { k: 5 }), []);
        assert.equal((await store.searchFullText(ALL, ['newterm'], { k: 5 })).length, 2);
        assert.deepEqual(await store.getChunks(ALL, [oldChunk]), []);
        assert.ok((await store.searchVector(ALL, unit(0), { k: 5 })).every((hit) => hit.chunkId !== oldChunk));
        assert.equal(await store.contentHashOf('default', 'a.txt'), 'hash-2');
        assert.equal((await store.stats(ALL)).documents, 1);
        assert.equal((await store.stats(ALL)).chunks, 2);
      }));

    it('keeps one knowledge graph per collection: extractions scoped, gone with their document or its old content, no orphans', () =>
      withStore(async (store) => {
        if (!store.graphs || !store.markGraph || !store.putGraphExtractions || !store.graphExtractions || !store.unextractedDocuments)
          return assert.fail(`${name} has no knowledge-graph storage`);
        const a = await store.upsertDocument(doc('a.txt'), [chunk(0, 'alpha')], [unit(0)]);
        const b = await store.upsertDocument(doc('b.txt', { collection: 'other' }), [chunk(0, 'beta')], [unit(1)]);
        const entity = (name: string) => ({ name, type: 'name', mentions: [{ chunkId: 1, field: 'text', start: 0, end: name.length }] });
        await assert.rejects(
          store.putGraphExtractions([{ documentId: a.id, extractor: 'offline', entities: [], relationships: [], failures: [] }]),
          (error) => DossierError.isInstance(error) && /collection default has no knowledge graph/.test(error.message),
        );
        const before = (await store.identity()).generation;
        const built = await store.markGraph('default', 'offline');
        assert.equal(built.collection, 'default');
        assert.equal(built.extractor, 'offline');
        assert.deepEqual(await store.unextractedDocuments('default'), [a.id]);
        await store.putGraphExtractions([
          {
            documentId: a.id,
            extractor: 'offline',
            entities: [entity('Alpha')],
            relationships: [],
            failures: [],
          },
        ]);
        await store.markGraph('other', 'offline');
        await store.putGraphExtractions([
          {
            documentId: b.id,
            extractor: 'offline',
            entities: [entity('Beta')],
            relationships: [],
            failures: [{ chunkIds: [9], message: 'malformed reply' }],
          },
        ]);
        assert.ok((await store.identity()).generation > before, 'graph writes move the write generation');
        assert.deepEqual(await store.unextractedDocuments('default'), []);
        const scoped = await store.graphExtractions({ collections: ['default'] });
        assert.deepEqual(
          scoped.map((x) => [x.documentId, x.collection, x.entities]),
          [[a.id, 'default', [entity('Alpha')]]],
        );
        assert.deepEqual(await store.graphExtractions({ collections: [] }), []);
        assert.deepEqual(
          (await store.graphs(ALL)).map((g) => [g.collection, g.documents, g.failedDocuments]),
          [
            ['default', 1, 0],
            ['other', 1, 1],
          ],
        );
        const version = (await store.graphs({ collections: ['default'] }))[0].version;
        await store.upsertDocument(doc('a.txt', { contentHash: 'hash-2' }), [chunk(0, 'alpha two')], [unit(0)]);
        assert.deepEqual(await store.graphExtractions({ collections: ['default'] }), [], 'a changed document loses its old extraction');
        assert.deepEqual(await store.unextractedDocuments('default'), [a.id]);
        assert.ok((await store.graphs({ collections: ['default'] }))[0].version > version, 'and the graph version moves');
        await store.deleteDocument(ALL, b.id);
        assert.deepEqual(await store.graphExtractions(ALL), [], 'a deleted document takes its extraction with it');
      }));

    it("replaces a collection's communities and drops a graph whole; another extractor rebuilds from nothing", () =>
      withStore(async (store) => {
        if (
          !store.markGraph ||
          !store.replaceCommunities ||
          !store.communities ||
          !store.dropGraph ||
          !store.putGraphExtractions ||
          !store.graphExtractions
        )
          return assert.fail(`${name} has no knowledge-graph storage`);
        const a = await store.upsertDocument(doc('a.txt'), [chunk(0, 'alpha')], [unit(0)]);
        const info = await store.markGraph('default', 'offline');
        await store.putGraphExtractions([{ documentId: a.id, extractor: 'offline', entities: [], relationships: [], failures: [] }]);
        const community = {
          id: 'c0-1',
          level: 0,
          title: 'Alpha and Beta',
          summary: 'Alpha meets Beta.',
          entityKeys: ['alpha', 'beta'],
          chunkIds: [1],
          size: 2,
          summarizedBy: 'extractive',
          graphVersion: info.version,
        };
        await store.replaceCommunities('default', [community, { ...community, id: 'c1-1', level: 1, parentId: 'c0-1', size: 1 }]);
        await store.replaceCommunities('default', [community]);
        assert.deepEqual(await store.communities({ collections: ['default'] }), [{ ...community, collection: 'default' }]);
        assert.deepEqual(await store.communities({ collections: ['other'] }), []);
        await store.markGraph('default', 'model:test');
        assert.deepEqual(await store.graphExtractions(ALL), [], 'a graph made by another extractor starts empty');
        assert.deepEqual(await store.communities(ALL), []);
        assert.equal(await store.dropGraph('default'), true);
        assert.equal(await store.dropGraph('default'), false);
        assert.deepEqual(await store.graphs!(ALL), []);
      }));

    it('records the outcome of a file that gave no document, by collection and source, without a new write generation', () =>
      withStore(async (store) => {
        if (!store.recordIngestOutcome || !store.ingestOutcomeOf || !store.forgetIngestOutcome || !store.ingestOutcomeSources) return; // an optional capability: a store without it re-reads failed files, which is slower, not wrong
        const before = (await store.identity()).generation;
        assert.equal(await store.ingestOutcomeOf('default', '/docs/scan.png'), undefined);
        const failed = {
          collection: 'default',
          source: '/docs/scan.png',
          contentHash: 'h1',
          outcome: 'failed',
          reason: 'malformed image',
        } as const;
        await store.recordIngestOutcome(failed);
        await store.recordIngestOutcome({ ...failed, collection: 'other', outcome: 'skipped', reason: 'no text found in the image (OCR)' });
        assert.deepEqual(await store.ingestOutcomeOf('default', '/docs/scan.png'), failed);
        // Recorded again (the file changed and failed again): replaced, not added.
        await store.recordIngestOutcome({ ...failed, contentHash: 'h2', reason: 'empty image file' });
        assert.deepEqual(await store.ingestOutcomeOf('default', '/docs/scan.png'), {
          ...failed,
          contentHash: 'h2',
          reason: 'empty image file',
        });
        assert.equal((await store.ingestOutcomeOf('other', '/docs/scan.png'))?.outcome, 'skipped');
        assert.deepEqual(await store.ingestOutcomeSources('default'), ['/docs/scan.png']);
        assert.equal((await store.identity()).generation, before, 'bookkeeping, not content: replay still trusts the index');
        assert.equal((await store.stats(ALL)).documents, 0);
        assert.equal(await store.forgetIngestOutcome('default', '/docs/scan.png'), true);
        assert.equal(await store.forgetIngestOutcome('default', '/docs/scan.png'), false);
        assert.equal(await store.ingestOutcomeOf('default', '/docs/scan.png'), undefined);
        assert.deepEqual(await store.ingestOutcomeSources('default'), []);
        assert.deepEqual(await store.ingestOutcomeSources('other'), ['/docs/scan.png']);
      }));

    it('deletes a document with its chunks, vectors and full-text rows', () =>
      withStore(async (store) => {
        const { id } = await store.upsertDocument(doc('a.txt'), [chunk(0, 'zebra')], [unit(0)]);
        const keep = await store.upsertDocument(doc('b.txt'), [chunk(0, 'yak')], [unit(1)]);
        const chunkId = (await store.searchFullText(ALL, ['zebra'], { k: 1 }))[0].chunkId;
        assert.equal(await store.deleteDocument(ALL, id), true);
        assert.equal(await store.deleteDocument(ALL, id), false);
        assert.equal(await store.getDocument(ALL, id), undefined);
        assert.deepEqual(await store.getChunks(ALL, [chunkId]), []);
        assert.deepEqual(await store.searchFullText(ALL, ['zebra'], { k: 5 }), []);
        assert.deepEqual(
          (await store.searchVector(ALL, unit(0), { k: 5 })).map((h) => h.documentId),
          [keep.id],
        );
        assert.equal(await store.contentHashOf('default', 'a.txt'), undefined);
        assert.equal((await store.stats(ALL)).chunks, 1);
      }));

    it('ranks full text by BM25: more occurrences of a rare term rank first', () =>
      withStore(async (store) => {
        await store.upsertDocument(doc('one.txt'), [chunk(0, 'rare common common common')], [unit(0)]);
        const many = await store.upsertDocument(doc('two.txt'), [chunk(0, 'rare rare rare common')], [unit(1)]);
        await store.upsertDocument(doc('three.txt'), [chunk(0, 'common words only')], [unit(2)]);
        for (let i = 0; i < 5; i++) await store.upsertDocument(doc(`filler${i}.txt`), [chunk(0, 'unrelated filler text')], [unit(3)]);
        const hits = await store.searchFullText(ALL, ['rare', 'common'], { k: 10 });
        assert.equal(hits[0].documentId, many.id);
        assert.equal(hits.length, 3);
        assert.ok(hits[0].score >= hits[1].score && hits[1].score >= hits[2].score, 'scores are higher-is-better and sorted');
      }));

    it('keeps the exact BM25 top k when it skips scoring rows that hold only common terms', () =>
      withStore(async (store) => {
        // 8,000 chunks: "always" in all, "often" in 40%, "sometimes" in 20%, 300 rare words ~150 times
        // each, so a query's postings pass what a store ranks plainly and its top k is found by pruning.
        let seed = 7;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const rare = Array.from({ length: 300 }, (_, i) => `rare${i}`);
        for (let d = 0; d < 800; d++) {
          const chunks = Array.from({ length: 10 }, (_, c) => {
            const words = ['always', ...(random() < 0.4 ? ['often'] : []), ...(random() < 0.2 ? ['sometimes', 'sometimes'] : [])];
            for (let w = 2 + Math.floor(random() * 8); w > 0; w--) words.push(rare[Math.floor(random() * rare.length)]);
            return chunk(c, words.join(' '));
          });
          await store.upsertDocument(
            doc(`d${d}.txt`, { collection: d % 3 === 0 ? 'third' : 'default', metadata: { even: d % 2 === 0 } }),
            chunks,
            chunks.map((_, c) => unit(c)),
          );
        }
        const queries = [
          ['rare1', 'rare2', 'often', 'sometimes', 'always'],
          ['rare5', 'often', 'sometimes', 'always'],
          ['rare7', 'rare8', 'rare9', 'often', 'always'],
        ];
        const scopes: { scope: Scope; filter?: Filter }[] = [
          { scope: ALL },
          { scope: { collections: ['third'] } },
          { scope: ALL, filter: { 'metadata.even': true } },
        ];
        for (const terms of queries) {
          for (const { scope, filter } of scopes) {
            const options = (k: number) => ({ k, ...(filter ? { filter } : {}) });
            // k past every matching row cannot be pruned: its head is the ranking of every row.
            const everything = await store.searchFullText(scope, terms, options(100_000));
            const scoreOf = new Map(everything.map((hit) => [hit.chunkId, hit.score]));
            for (const k of [1, 5, 20]) {
              const top = await store.searchFullText(scope, terms, options(k));
              const label = `${terms.join(' ')} in ${JSON.stringify(scope)}${filter ? ' filtered' : ''}, k ${k}`;
              assert.deepEqual(
                top.map((hit) => hit.score.toFixed(9)),
                everything.slice(0, k).map((hit) => hit.score.toFixed(9)),
                label,
              );
              for (const hit of top)
                assert.equal(
                  scoreOf.get(hit.chunkId)?.toFixed(9),
                  hit.score.toFixed(9),
                  `${label}: chunk ${hit.chunkId} scored as when every row is scored`,
                );
            }
          }
        }
      }));

    it('ranks vectors by cosine similarity', () =>
      withStore(async (store) => {
        const near = await store.upsertDocument(doc('near.txt'), [chunk(0, 'x')], [Float32Array.from([0.9, 0.1, 0, 0, 0, 0, 0, 0.1])]);
        await store.upsertDocument(doc('far.txt'), [chunk(0, 'y')], [unit(4)]);
        const hits = await store.searchVector(ALL, unit(0), { k: 2 });
        assert.equal(hits[0].documentId, near.id);
        assert.ok(hits[0].score > 0.8 && hits[1].score < 0.1);
      }));

    it('never reads outside the scope', () =>
      withStore(async (store) => {
        const secret = await store.upsertDocument(doc('s.txt', { collection: 'private' }), [chunk(0, 'secret')], [unit(0)]);
        await store.upsertDocument(doc('p.txt', { collection: 'public' }), [chunk(0, 'public')], [unit(1)]);
        const publicOnly = { collections: ['public'] };
        const secretChunk = (await store.searchFullText(ALL, ['secret'], { k: 1 }))[0].chunkId;
        assert.deepEqual(await store.searchFullText(publicOnly, ['secret'], { k: 5 }), []);
        assert.ok((await store.searchVector(publicOnly, unit(0), { k: 5 })).every((hit) => hit.documentId !== secret.id));
        assert.deepEqual(await store.getChunks(publicOnly, [secretChunk]), []);
        assert.equal(await store.getDocument(publicOnly, secret.id), undefined);
        assert.equal(await store.getDocumentText(publicOnly, secret.id), undefined);
        assert.equal(await store.deleteDocument(publicOnly, secret.id), false);
        assert.equal(
          await store.updateMetadata(publicOnly, secret.id, { leaked: true }),
          undefined,
          'a patch out of scope changes nothing',
        );
        assert.deepEqual(
          (await store.listDocuments(publicOnly)).map((d) => d.collection),
          ['public'],
        );
        assert.deepEqual(await store.searchFullText({ collections: [] }, ['public'], { k: 5 }), []);
        assert.equal((await store.stats(publicOnly)).documents, 1);
      }));

    it('patches metadata: keys merged, null removes one, filters see the change', () =>
      withStore(async (store) => {
        const { id } = await store.upsertDocument(doc('m.md', { metadata: { year: 2020, team: 'a' } }), [chunk(0, 'patched')], [unit(0)]);
        const updated = await store.updateMetadata(ALL, id, { year: 2024, team: null, tag: 'x' });
        assert.deepEqual(updated?.metadata, { year: 2024, tag: 'x' });
        assert.deepEqual(
          (await store.listDocuments(ALL, { filter: { 'metadata.year': 2024 } })).map((d) => d.id),
          [id],
        );
        assert.equal(await store.updateMetadata(ALL, id + 999, { x: 1 }), undefined);
      }));

    it('filters with Mongo-style operators over fields and metadata', () =>
      withStore(async (store) => {
        const add = async (source: string, metadata: Record<string, unknown>) =>
          (await store.upsertDocument(doc(source, { metadata }), [chunk(0, 'shared')], [unit(0)])).id;
        const a = await add('a.md', { year: 2020, tags: 'x', author: { name: 'Ada' } });
        const b = await add('b.md', { year: 2022, tags: 'y' });
        const c = await add('c.md', { year: 2024 });
        const ids = async (filter: Record<string, unknown>) =>
          (await store.searchFullText(ALL, ['shared'], { k: 10, filter })).map((h) => h.documentId).sort((x, y) => x - y);
        assert.deepEqual(await ids({ 'metadata.year': 2022 }), [b]);
        assert.deepEqual(await ids({ 'metadata.year': { $gt: 2020 } }), [b, c]);
        assert.deepEqual(await ids({ 'metadata.year': { $gte: 2022, $lt: 2024 } }), [b]);
        assert.deepEqual(await ids({ 'metadata.year': { $lte: 2022 } }), [a, b]);
        assert.deepEqual(await ids({ 'metadata.tags': { $ne: 'x' } }), [b, c]);
        assert.deepEqual(await ids({ 'metadata.tags': { $in: ['x', 'y'] } }), [a, b]);
        assert.deepEqual(await ids({ 'metadata.tags': { $nin: ['x'] } }), [b, c]);
        assert.deepEqual(await ids({ $or: [{ source: 'a.md' }, { 'metadata.year': 2024 }] }), [a, c]);
        assert.deepEqual(await ids({ $and: [{ 'metadata.year': { $gt: 2019 } }, { title: 'Title of c.md' }] }), [c]);
        assert.deepEqual(await ids({ 'metadata.author.name': 'Ada' }), [a]);
        assert.deepEqual(
          (await store.searchVector(ALL, unit(0), { k: 10, filter: { 'metadata.year': 2024 } })).map((h) => h.documentId),
          [c],
        );
        assert.deepEqual((await store.listDocuments(ALL, { filter: { mediaType: 'text/plain', collection: 'default' } })).length, 3);
        await assert.rejects(
          () => ids({ 'metadata.year': { $regex: 'x' } }),
          (error) => DossierError.isInstance(error) && error.code === 'bad-input' && /\$regex/.test(error.message),
        );
        await assert.rejects(() => ids({ nosuchfield: 1 }), /unknown field "nosuchfield"/);
        await assert.rejects(() => ids({ $or: [] }), /\$or needs a non-empty array/);
      }));

    it('records index-wide settings and refuses a different value later', () =>
      withStore(async (store) => {
        await store.assertSetting('tokenizer', 'english');
        await store.assertSetting('tokenizer', 'english');
        await assert.rejects(
          () => store.assertSetting('tokenizer', 'german'),
          (error) => DossierError.isInstance(error) && error.code === 'config' && /"english", not "german"/.test(error.message),
        );
      }));

    it('refuses vectors from another embedder', () =>
      withStore(async (store) => {
        await assert.rejects(
          () => store.assertEmbedder({ embedderId: 'other', dimensions: DIMS }),
          (error) => DossierError.isInstance(error) && error.code === 'embedder-mismatch',
        );
        await assert.rejects(() => store.searchVector(ALL, new Float32Array(DIMS + 1), { k: 1 }), /dimensions/);
        assert.deepEqual(await store.indexInfo(), { embedderId: 'test-embedder', dimensions: DIMS });
      }));

    it('stores a document description and returns it', () =>
      withStore(async (store) => {
        const described = await store.upsertDocument(
          doc('a.txt', {
            description: 'Field guide. Lava flows cool into basalt.',
            titleTerms: 'field guid',
            descriptionTerms: 'field guid lava flow cool basalt',
          }),
          [chunk(0, 'alpha')],
          [unit(0)],
        );
        const plain = await store.upsertDocument(doc('b.txt'), [chunk(0, 'beta')], [unit(1)]);
        assert.equal((await store.getDocument(ALL, described.id))?.description, 'Field guide. Lava flows cool into basalt.');
        assert.equal((await store.getDocument(ALL, plain.id))?.description, '', 'a document stored without one has an empty description');
        assert.deepEqual(
          (await store.listDocuments(ALL)).map((d) => d.description),
          ['Field guide. Lava flows cool into basalt.', ''],
        );
      }));

    it('searches descriptions by BM25 over title and description, scoped and filtered', () =>
      withStore(async (store) => {
        const add = async (
          source: string,
          collection: string,
          titleTerms: string,
          descriptionTerms: string,
          metadata: Record<string, unknown> = {},
        ) =>
          (
            await store.upsertDocument(
              doc(source, { collection, metadata, titleTerms, descriptionTerms, description: descriptionTerms }),
              // Chunk terms differ on purpose: this search must read the document-level index only.
              [chunk(0, 'unrelated chunk body')],
              [unit(0)],
            )
          ).id;
        const volcano = await add('volcano.md', 'public', 'volcano guid', 'volcano erupt lava basalt volcano', { year: 2024 });
        const glacier = await add('glacier.md', 'public', 'glacier guid', 'glacier ice lava mention', { year: 2020 });
        const secret = await add('secret.md', 'private', 'volcano file', 'volcano erupt secret', { year: 2024 });
        for (let i = 0; i < 4; i++) await add(`filler${i}.md`, 'public', 'filler', 'nothing relevant here');
        const hits = await store.searchDescriptions(ALL, ['volcano', 'erupt', 'lava'], { k: 10 });
        assert.equal(hits[0].documentId, volcano);
        assert.deepEqual(new Set(hits.map((h) => h.documentId)), new Set([volcano, glacier, secret]));
        assert.ok(
          hits.every((hit, i) => i === 0 || hits[i - 1].score >= hit.score),
          'scores are higher-is-better and sorted',
        );
        assert.deepEqual(
          (await store.searchDescriptions(ALL, ['glacier'], { k: 10 })).map((h) => h.documentId),
          [glacier],
          'title terms are searched',
        );
        const publicOnly = { collections: ['public'] };
        assert.ok((await store.searchDescriptions(publicOnly, ['volcano', 'erupt'], { k: 10 })).every((hit) => hit.documentId !== secret));
        assert.deepEqual(await store.searchDescriptions({ collections: [] }, ['volcano'], { k: 10 }), []);
        assert.deepEqual(
          (await store.searchDescriptions(ALL, ['lava'], { k: 10, filter: { 'metadata.year': { $lt: 2024 } } })).map((h) => h.documentId),
          [glacier],
        );
        assert.deepEqual((await store.searchDescriptions(ALL, ['volcano'], { k: 1 })).length, 1);
        assert.deepEqual(await store.searchDescriptions(ALL, ['volcano'], { k: 0 }), []);
        assert.deepEqual(await store.searchDescriptions(ALL, ['nosuchterm', '"'], { k: 5 }), []);
        assert.deepEqual(
          await store.searchDescriptions(ALL, ['unrelated', 'chunk'], { k: 5 }),
          [],
          'chunk text is not in the description index',
        );
      }));

    it('leaves no description behind when a document is replaced or deleted', () =>
      withStore(async (store) => {
        const first = await store.upsertDocument(
          doc('a.txt', { description: 'old', descriptionTerms: 'oldterm' }),
          [chunk(0, 'x')],
          [unit(0)],
        );
        const other = await store.upsertDocument(
          doc('b.txt', { description: 'kept', descriptionTerms: 'keepterm' }),
          [chunk(0, 'y')],
          [unit(1)],
        );
        await store.upsertDocument(
          doc('a.txt', { contentHash: 'hash-2', description: 'new', descriptionTerms: 'newterm' }),
          [chunk(0, 'x')],
          [unit(0)],
        );
        assert.deepEqual(await store.searchDescriptions(ALL, ['oldterm'], { k: 5 }), []);
        assert.deepEqual(
          (await store.searchDescriptions(ALL, ['newterm'], { k: 5 })).map((h) => h.documentId),
          [first.id],
        );
        assert.equal((await store.getDocument(ALL, first.id))?.description, 'new');
        assert.equal(await store.deleteDocument(ALL, first.id), true);
        assert.deepEqual(await store.searchDescriptions(ALL, ['newterm'], { k: 5 }), []);
        assert.deepEqual(
          (await store.searchDescriptions(ALL, ['title'], { k: 5 })).map((h) => h.documentId),
          [other.id],
          'without title terms the raw title is indexed',
        );
        assert.deepEqual(
          (await store.searchDescriptions(ALL, ['keepterm'], { k: 5 })).map((h) => h.documentId),
          [other.id],
        );
      }));

    it('exports every document as stored and imports it into another store unchanged (when it can)', async () => {
      const source = await make();
      const target = await make();
      try {
        const from = source.store;
        const to = target.store;
        if (!from.exportIndex || !from.exportDocuments || !to.importIndex || !to.importDocument) return; // an optional capability
        await from.assertEmbedder({ embedderId: 'test-embedder', dimensions: DIMS });
        await from.assertSetting('tokenizer', 'english');
        const vector = Float32Array.from([0.1, -0.25, 1 / 3, 0, 1e-7, 0.5, -0.75, 0.9]); // not int8-exact: vectors travel as float32
        await from.upsertDocument(
          doc('a.md', {
            metadata: { year: 2024, tags: ['x'] },
            text: 'the whole text',
            description: 'About lava.',
            titleTerms: 'titl lava',
            descriptionTerms: 'about lava',
          }),
          [
            { ...chunk(0, 'lava flow lava', 'Lava flows, lava.'), titleTerms: 'titl lava intro', page: 2, pageEnd: 3 },
            chunk(1, 'basalt rock'),
          ],
          [vector, unit(1)],
        );
        await from.upsertDocument(doc('b.txt', { collection: 'other' }), [chunk(0, 'glacier ice lava')], [unit(2)]);
        const exported = await from.exportIndex();
        assert.deepEqual(exported.embedder, { embedderId: 'test-embedder', dimensions: DIMS });
        assert.equal(exported.settings.tokenizer, 'english');
        await to.importIndex(exported);
        const documents: ExportedDocument[] = [];
        for await (const document of from.exportDocuments()) documents.push(document);
        assert.deepEqual(
          documents.map((d) => d.document.source),
          ['a.md', 'b.txt'],
        );
        // The terms as indexed; their order may be lost (BM25 needs only frequencies), so compared sorted.
        const sorted = (terms: string) => terms.split(' ').sort().join(' ');
        assert.deepEqual(
          documents[0].chunks.map((c) => [sorted(c.terms), sorted(c.titleTerms)]),
          [
            ['flow lava lava', 'intro lava titl'],
            ['basalt rock', ''],
          ],
        );
        assert.deepEqual(
          [sorted(documents[0].document.titleTerms), sorted(documents[0].document.descriptionTerms)],
          ['lava titl', 'about lava'],
        );
        for (const document of documents) await to.importDocument(document);
        await to.finishImport?.(exported);

        assert.notEqual((await to.identity()).id, exported.identity.id, 'the target keeps its own identity');
        assert.deepEqual(await to.indexInfo(), exported.embedder);
        await assert.rejects(() => to.assertSetting('tokenizer', 'german'), /"english"/);
        const strip = ({ id: _id, ...rest }: { id: number }) => rest;
        assert.deepEqual(
          (await to.listDocuments(ALL)).map(strip),
          (await from.listDocuments(ALL)).map(strip),
          'fields, metadata, description, timestamps',
        );
        const chunksOf = async (store: Store) => {
          const out = [];
          for (const d of await store.listDocuments(ALL))
            out.push(...(await store.getChunkRange(ALL, d.id, 0, 100)).map(({ id: _id, documentId: _d, ...rest }) => rest));
          return out;
        };
        assert.deepEqual(await chunksOf(to), await chunksOf(from));
        const first = (await to.searchFullText(ALL, ['flow'], { k: 1 }))[0].chunkId;
        assert.deepEqual([...(await to.getVectors(ALL, [first])).get(first)!], [...vector], 'the exact float32 vector');
        const scores = async (store: Store) =>
          (await store.searchFullText(ALL, ['lava', 'basalt', 'titl'], { k: 10 })).map((h) => h.score.toFixed(9));
        assert.deepEqual(await scores(to), await scores(from));
        const described = async (store: Store) =>
          (await store.searchDescriptions(ALL, ['lava', 'titl'], { k: 10 })).map((h) => h.score.toFixed(9));
        assert.deepEqual(await described(to), await described(from));
        assert.deepEqual(await to.collections(ALL), await from.collections(ALL));
        await assert.rejects(
          () => to.importDocument!(documents[0]),
          (error) => DossierError.isInstance(error) && error.code === 'bad-input' && /already holds a\.md/.test(error.message),
        );
      } finally {
        await source.cleanup();
        await target.cleanup();
      }
    });

    it('returns stored vectors and document frequencies', () =>
      withStore(async (store) => {
        await store.upsertDocument(doc('a.txt'), [chunk(0, 'apple pear'), chunk(1, 'apple')], [unit(0), unit(1)]);
        const { chunks, frequencies } = await store.documentFrequencies(['apple', 'pear', 'kiwi']);
        assert.equal(chunks, 2);
        assert.deepEqual(
          [...frequencies.entries()],
          [
            ['apple', 2],
            ['pear', 1],
            ['kiwi', 0],
          ],
        );
        const chunkId = (await store.searchFullText(ALL, ['pear'], { k: 1 }))[0].chunkId;
        assert.deepEqual([...(await store.getVectors(ALL, [chunkId])).get(chunkId)!], [...unit(0)]);
        assert.equal((await store.getVectors({ collections: ['elsewhere'] }, [chunkId])).size, 0, 'vectors are scoped like every read');
      }));
  });
}
