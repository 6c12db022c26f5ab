import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { storeContract } from '../contract.ts';
import { DossierError } from '../../errors/index.ts';
import { SqliteStore } from '../sqlite/sqlite-store.ts';
import type { ChunkInput, DocumentInput, Store } from '../types.ts';
import { PgStore } from './pg-store.ts';
import { PG_MIGRATIONS } from './schema.ts';
import { freshDatabase } from './test-database.ts';

/**
 * Runs against a real PostgreSQL + pgvector named by DOSSIER_TEST_PG (e.g. the output of
 * `bash scripts/postgres-test-cluster.sh env`). Every store gets a database of its own, dropped afterwards.
 */
const ADMIN_URL = process.env.DOSSIER_TEST_PG;
const SKIP = ADMIN_URL
  ? false
  : 'DOSSIER_TEST_PG is unset: set it to a PostgreSQL+pgvector connection string (bash scripts/postgres-test-cluster.sh env) to run the PgStore tests';

async function freshStore(options: { titleWeight?: number } = {}): Promise<{ store: PgStore; url: string; cleanup: () => Promise<void> }> {
  const db = await freshDatabase();
  const store = await PgStore.open(db.url, options);
  return {
    store,
    url: db.url,
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
}

storeContract('PgStore', freshStore, { skip: SKIP });

describe('PgStore specifics', { skip: SKIP }, () => {
  const ALL = { collections: '*' } as const;
  const doc = (source: string, overrides: Partial<DocumentInput> = {}): DocumentInput => ({
    collection: 'default',
    source,
    title: `Title ${source}`,
    mediaType: 'text/plain',
    contentHash: `h-${source}`,
    metadata: {},
    text: 'x',
    bytes: 1,
    ...overrides,
  });
  const chunk = (ordinal: number, terms: string, titleTerms = ''): ChunkInput => ({
    ordinal,
    text: terms,
    tokenCount: 1,
    headingPath: ['H'],
    charStart: 0,
    charEnd: 1,
    terms,
    titleTerms,
  });

  it('ranks full text and descriptions exactly as the SQLite store (same order, scores within 1e-6)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-pg-bm25-'));
    const sqlite = new SqliteStore(join(dir, 'x.db'), { titleWeight: 3 });
    const { store: pgStore, cleanup } = await freshStore({ titleWeight: 3 });
    try {
      // A corpus with title terms (weighted), repeated terms, varying lengths, two collections,
      // metadata, a replaced and a deleted document: the statistics must track all of it.
      const corpus: [DocumentInput, ChunkInput[]][] = [
        [
          doc('volcano.md', { titleTerms: 'volcano guid', descriptionTerms: 'volcano erupt lava basalt', metadata: { year: 2024 } }),
          [
            chunk(0, 'volcano erupt lava flow cool basalt rock', 'volcano guid'),
            chunk(1, 'lava lava lava tube cave', 'volcano guid lava'),
            chunk(2, 'ash cloud plume aviat hazard volcano', 'volcano guid'),
          ],
        ],
        [
          doc('glacier.md', { titleTerms: 'glacier', descriptionTerms: 'glacier ice sheet melt lava mention', metadata: { year: 2020 } }),
          [
            chunk(0, 'glacier ice sheet melt sea level rise', 'glacier'),
            chunk(1, 'ice core record climat past volcano erupt ash layer', 'glacier ice'),
          ],
        ],
        [
          doc('ocean.md', { collection: 'other', metadata: { year: 2022 } }),
          [
            chunk(0, 'ocean current heat transport sea level', ''),
            chunk(1, 'underwater volcano seamount lava pillow basalt basalt basalt', 'ocean'),
          ],
        ],
        [doc('replaced.md'), [chunk(0, 'old version lava everywhere lava lava')]],
        [doc('deleted.md'), [chunk(0, 'gone volcano glacier ocean lava')]],
      ];
      for (const filler of ['rock mineral crystal', 'weather rain cloud', 'river delta sediment sea', 'desert sand dune wind']) {
        corpus.push([doc(`${filler.split(' ')[0]}.md`), [chunk(0, filler), chunk(1, `${filler} ${filler}`)]]);
      }
      const unit = (i: number) => {
        const v = new Float32Array(4);
        v[i % 4] = 1;
        return v;
      };
      for (const store of [sqlite, pgStore] as Store[]) {
        await store.assertEmbedder({ embedderId: 't', dimensions: 4 });
        for (const [document, chunks] of corpus)
          await store.upsertDocument(
            document,
            chunks,
            chunks.map((_, i) => unit(i)),
          );
        const replaced = (await store.listDocuments(ALL, { filter: { source: 'replaced.md' } }))[0].id;
        await store.upsertDocument(
          doc('replaced.md', { contentHash: 'h2' }),
          [chunk(0, 'new version basalt'), chunk(1, 'lava once')],
          [unit(0), unit(1)],
        );
        assert.ok(replaced > 0);
        const deleted = (await store.listDocuments(ALL, { filter: { source: 'deleted.md' } }))[0].id;
        assert.equal(await store.deleteDocument(ALL, deleted), true);
      }
      const queries: [string[], Record<string, unknown>?, string[]?][] = [
        [['lava']],
        [['volcano', 'erupt', 'lava']],
        [['basalt', 'sea', 'ice', 'glacier']],
        [['cloud', 'ash', 'volcano', 'nosuchterm']],
        [['sea', 'level'], { 'metadata.year': { $gte: 2022 } }],
        [['lava', 'basalt'], undefined, ['default']],
        [['guid']],
      ];
      const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b), 1e-12);
      for (const [terms, filter, collections] of queries) {
        const scope = collections ? { collections } : ALL;
        const expected = await sqlite.searchFullText(scope, terms, { k: 50, filter });
        const actual = await pgStore.searchFullText(scope, terms, { k: 50, filter });
        assert.ok(expected.length > 0, `query ${terms} matches something`);
        assert.equal(actual.length, expected.length, `hit count for ${terms}`);
        // Ids differ between stores; compare by (source, ordinal), the identity both share.
        const key = async (store: Store, hits: { chunkId: number }[]) =>
          (
            await store.getChunks(
              ALL,
              hits.map((h) => h.chunkId),
            )
          ).map((c) => `${c.source}#${c.ordinal}`);
        const expectedKeys = await key(sqlite, expected);
        const actualKeys = await key(pgStore, actual);
        expected.forEach((hit, i) => {
          assert.ok(close(actual[i].score, hit.score), `${terms} rank ${i}: pg ${actual[i].score} vs sqlite ${hit.score}`);
          // Equal scores may come in either order; otherwise the order must be the same.
          if (expectedKeys[i] !== actualKeys[i])
            assert.ok(
              close(expected[i].score, actual[i].score) && expected.some((h, j) => j !== i && close(h.score, hit.score)),
              `${terms} rank ${i}: ${actualKeys[i]} vs ${expectedKeys[i]}`,
            );
        });
        const expectedDescriptions = await sqlite.searchDescriptions(scope, terms, { k: 50, filter });
        const actualDescriptions = await pgStore.searchDescriptions(scope, terms, { k: 50, filter });
        assert.equal(actualDescriptions.length, expectedDescriptions.length, `description hits for ${terms}`);
        expectedDescriptions.forEach((hit, i) =>
          assert.ok(
            close(actualDescriptions[i].score, hit.score),
            `${terms} description rank ${i}: pg ${actualDescriptions[i].score} vs sqlite ${hit.score}`,
          ),
        );
      }
      assert.deepEqual(
        [...(await pgStore.documentFrequencies(['lava', 'basalt', 'none'])).frequencies],
        [...(await sqlite.documentFrequencies(['lava', 'basalt', 'none'])).frequencies],
      );
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
      await cleanup();
    }
  });

  it('migrates exactly once when two stores open a new database at the same time', async () => {
    const db = await freshDatabase();
    const stores: PgStore[] = [];
    try {
      stores.push(...(await Promise.all([PgStore.open(db.url), PgStore.open(db.url), PgStore.open(db.url)])));
      const applied = stores.flatMap((store) => store.migrated).sort();
      assert.deepEqual(
        applied,
        PG_MIGRATIONS.map((migration) => migration.version),
        'each migration applied by exactly one opener',
      );
      const identities = await Promise.all(stores.map((store) => store.identity()));
      assert.equal(new Set(identities.map((identity) => identity.id)).size, 1, 'one index id');
      const reopened = await PgStore.open(db.url);
      stores.push(reopened);
      assert.deepEqual(reopened.migrated, []);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await db.drop();
    }
  });

  it('returns k results for a filtered or scoped vector query through the HNSW index', async () => {
    const { store: writer, url, cleanup } = await freshStore();
    let store: PgStore | undefined;
    try {
      const DIMS = 16;
      await writer.assertEmbedder({ embedderId: 't', dimensions: DIMS });
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
      const all: { vector: Float32Array; rare: boolean }[] = [];
      for (let d = 0; d < 40; d++) {
        const rare = d === 17; // one document in forty: a 2.5% filter
        const vectors = Array.from({ length: 100 }, () => Float32Array.from({ length: DIMS }, random));
        await writer.upsertDocument(
          doc(`v${d}.md`, { collection: rare ? 'rare' : 'default', metadata: { rare } }),
          vectors.map((_, i) => chunk(i, `c${i}`)),
          vectors,
        );
        for (const vector of vectors) all.push({ vector, rare });
      }
      await writer.close();
      // On a table this small the planner would rather scan everything (always k results, proving
      // nothing); with sequential scans off it must walk HNSW, where a plain scan stops after ef_search
      // candidates and a 2.5% filter keeps only a few of them.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query('ANALYZE');
        await admin.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET enable_seqscan = off`);
      } finally {
        await admin.end();
      }
      store = await PgStore.open(url);
      const query = Float32Array.from({ length: DIMS }, random);
      const filtered = () => store!.searchVector(ALL, query, { k: 20, filter: { 'metadata.rare': true } });
      const hits = await filtered();
      assert.equal(hits.length, 20, 'a selective filter still yields k hits');
      const rareDoc = (await store.listDocuments(ALL, { filter: { source: 'v17.md' } }))[0].id;
      assert.ok(hits.every((hit) => hit.documentId === rareDoc));
      assert.ok(
        hits.every((hit, i) => i === 0 || hits[i - 1].score >= hit.score),
        'sorted by similarity',
      );
      assert.equal((await store.searchVector({ collections: ['rare'] }, query, { k: 20 })).length, 20, 'a narrow scope too');
      // Scores are cosine similarities; the hits are (nearly) the exact top 20 of the filtered set.
      const cosine = (a: Float32Array, b: Float32Array) => {
        let dot = 0,
          na = 0,
          nb = 0;
        for (let i = 0; i < a.length; i++) {
          dot += a[i] * b[i];
          na += a[i] ** 2;
          nb += b[i] ** 2;
        }
        return dot / Math.sqrt(na * nb);
      };
      const exact = all
        .filter((v) => v.rare)
        .map((v) => cosine(query, v.vector))
        .sort((a, b) => b - a);
      assert.ok(Math.abs(hits[0].score - exact[0]) < 1e-5, `top score ${hits[0].score} vs exact ${exact[0]}`);
      assert.ok(hits.filter((hit) => hit.score >= exact[19] - 1e-5).length >= 18, 'recall@20 of at least 0.9 against brute force');
      // The same query without the iterative scan returns fewer: the test really exercises it.
      (store as unknown as { iterativeScan: boolean }).iterativeScan = false;
      assert.ok((await filtered()).length < 20, 'without hnsw.iterative_scan the filtered HNSW scan comes up short');
    } finally {
      await store?.close();
      await cleanup();
    }
  });

  it('keeps BM25 statistics as FTS5 does through replace and delete, and leaves no rows behind', async () => {
    const { store, cleanup } = await freshStore();
    try {
      await store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const v = Float32Array.from([1, 0]);
      const { id } = await store.upsertDocument(doc('a'), [chunk(0, 'one two', 'head'), chunk(1, 'three')], [v, v]);
      assert.deepEqual(await store.rowCounts(), {
        documents: 1,
        chunks: 2,
        vectors: 2,
        chunkTerms: 4,
        documentTerms: 2,
        ftsRows: 2,
        ftsTokens: 4,
      });
      await store.upsertDocument(doc('a', { contentHash: 'h2' }), [chunk(0, 'four')], [v]);
      // Row and token totals only grow, like FTS5's contentless_delete totals (the parity test checks the scores).
      assert.deepEqual(await store.rowCounts(), {
        documents: 1,
        chunks: 1,
        vectors: 1,
        chunkTerms: 1,
        documentTerms: 2,
        ftsRows: 3,
        ftsTokens: 5,
      });
      await store.deleteDocument(ALL, id);
      assert.deepEqual(await store.rowCounts(), {
        documents: 0,
        chunks: 0,
        vectors: 0,
        chunkTerms: 0,
        documentTerms: 0,
        ftsRows: 3,
        ftsTokens: 5,
      });
      assert.equal((await store.documentFrequencies(['four'])).frequencies.get('four'), 0);
    } finally {
      await cleanup();
    }
  });

  it("keeps every term's row count exact through concurrent writers, replaces and deletes", async () => {
    const { store, url, cleanup } = await freshStore();
    const second = await PgStore.open(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const v = Float32Array.from([1, 0]);
      const words = ['shared', 'alpha', 'beta', 'gamma', 'delta'];
      const write = (writer: PgStore, name: string, i: number) =>
        writer.upsertDocument(
          doc(name, { description: `about ${words[i % 5]}`, descriptionTerms: `about ${words[i % 5]}` }),
          [chunk(0, `shared ${words[i % 5]} ${words[(i + 1) % 5]}`), chunk(1, `shared w${i}`)],
          [v, v],
        );
      // Two stores (two pools, as two nodes) writing overlapping terms at once: no deadlock, no lost count.
      await Promise.all(Array.from({ length: 24 }, (_, i) => write(i % 2 ? second : store, `d${i}`, i)));
      await write(store, 'd3', 7); // a replace with other terms
      const d5 = (await store.listDocuments(ALL, { limit: 100 })).find((d) => d.source === 'd5')!;
      await store.deleteDocument(ALL, d5.id);
      for (const [stats, terms] of [
        ['chunk_term_stats', 'chunk_terms'],
        ['document_term_stats', 'document_terms'],
      ]) {
        const kept = (await client.query(`SELECT term, rows::int AS n FROM ${stats} WHERE rows <> 0 ORDER BY term`)).rows;
        const truth = (await client.query(`SELECT term, count(*)::int AS n FROM ${terms} GROUP BY term ORDER BY term`)).rows;
        assert.deepEqual(kept, truth, `${stats} equals a fresh count of ${terms}`);
      }
      assert.equal((await store.documentFrequencies(['shared'])).frequencies.get('shared'), 46, 'two chunks in each of 23 documents');
    } finally {
      await client.end();
      await second.close();
      await cleanup();
    }
  });

  it('moves the generation on with every write and refuses writes when read-only', async () => {
    const { store, url, cleanup } = await freshStore();
    const reader = await PgStore.open(url, { readonly: true });
    try {
      await store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const start = await store.identity();
      const { id } = await store.upsertDocument(doc('a'), [chunk(0, 'x')], [Float32Array.from([1, 0])]);
      await store.upsertDocument(doc('a'), [chunk(0, 'x')], [Float32Array.from([1, 0])]); // unchanged: no bump
      await store.updateMetadata(ALL, id, { k: 1 });
      const after = await store.identity();
      assert.equal(after.id, start.id);
      assert.equal(after.generation, start.generation + 2);
      assert.equal((await reader.identity()).generation, after.generation, 'another connection sees the same index');
      const readOnly = (error: unknown) => DossierError.isInstance(error) && error.code === 'read-only';
      await assert.rejects(() => reader.upsertDocument(doc('b'), [], []), readOnly);
      await assert.rejects(() => reader.deleteDocument(ALL, id), readOnly);
      await assert.rejects(() => reader.updateMetadata(ALL, id, { k: 2 }), readOnly);
      assert.equal((await reader.searchFullText(ALL, ['x'], { k: 5 })).length, 1, 'reads work');
    } finally {
      await reader.close();
      await cleanup();
    }
  });

  it('reports an unreachable server and a missing index clearly', async () => {
    const refused = await PgStore.open('postgres://nobody:secret@127.0.0.1:1/none').then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(DossierError.isInstance(refused) && refused.code === 'store-unavailable', String(refused));
    assert.match(
      (refused as Error).message,
      /PostgreSQL at 127\.0\.0\.1:1 is unavailable \(ECONNREFUSED\); retry shortly \(is it running, and is --db/,
    );
    assert.doesNotMatch((refused as Error).message, /secret/);
    const db = await freshDatabase();
    try {
      await assert.rejects(
        () => PgStore.open(db.url, { readonly: true }),
        (error) => DossierError.isInstance(error) && error.code === 'not-found',
      );
    } finally {
      await db.drop();
    }
  });
});
