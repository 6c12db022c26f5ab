import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { storeContract } from '../contract.ts';
import { DossierError } from '../../errors/index.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { SqliteStore } from './sqlite-store.ts';
import { worldReadableBundle } from '../../../test/helpers.ts';

function tempDb(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-store-'));
  return { path: join(dir, 'test.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

storeContract('SqliteStore', async () => {
  const { path, cleanup } = tempDb();
  const store = new SqliteStore(path);
  return {
    store,
    cleanup: async () => {
      await store.close();
      cleanup();
    },
  };
});

describe('SqliteStore specifics', () => {
  const ALL = { collections: '*' } as const;
  const vector = (values: number[]) => Float32Array.from(values);
  const document = (source: string, hash = 'h1') => ({
    collection: 'default',
    source,
    title: source,
    mediaType: 'text/plain',
    contentHash: hash,
    metadata: {},
    text: 'x',
    bytes: 1,
  });
  const chunk = (terms: string) => ({
    ordinal: 0,
    text: terms,
    tokenCount: 1,
    headingPath: [],
    charStart: 0,
    charEnd: 1,
    terms,
    titleTerms: '',
  });
  const code = (expected: string, message?: RegExp) => (error: unknown) =>
    DossierError.isInstance(error) && error.code === expected && (!message || message.test(error.message));

  it('leaves no chunk, vector or full-text row behind after delete', async () => {
    const { path, cleanup } = tempDb();
    const store = new SqliteStore(path);
    try {
      await store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const { id } = await store.upsertDocument(
        document('a'),
        [chunk('one two'), { ...chunk('three'), ordinal: 1 }],
        [vector([1, 0]), vector([0, 1])],
      );
      assert.deepEqual(store.rowCounts(), { documents: 1, chunks: 2, vectors: 2, fullText: 2, descriptions: 1 });
      await store.deleteDocument(ALL, id);
      assert.deepEqual(store.rowCounts(), { documents: 0, chunks: 0, vectors: 0, fullText: 0, descriptions: 0 });
      assert.deepEqual((await store.documentFrequencies(['one'])).frequencies.get('one'), 0);
    } finally {
      await store.close();
      cleanup();
    }
  });

  it('persists across reopen and sees writes made by another connection', async () => {
    const { path, cleanup } = tempDb();
    const reader = new SqliteStore(path);
    const writer = new SqliteStore(path);
    try {
      await writer.assertEmbedder({ embedderId: 't', dimensions: 2 });
      await writer.upsertDocument(document('a'), [chunk('first')], [vector([1, 0])]);
      assert.equal((await reader.searchVector(ALL, vector([1, 0]), { k: 5 })).length, 1);
      await writer.upsertDocument(document('b'), [chunk('second')], [vector([0, 1])]);
      // The reader's in-memory vector index must notice the other connection's commit.
      assert.equal((await reader.searchVector(ALL, vector([0, 1]), { k: 5 })).length, 2);
      await writer.close();
      const reopened = new SqliteStore(path, { readonly: true });
      assert.equal((await reopened.stats(ALL)).documents, 2);
      assert.equal((await reopened.searchFullText(ALL, ['second'], { k: 1 })).length, 1);
      await reopened.close();
    } finally {
      await reader.close();
      cleanup();
    }
  });

  it('opens a database made by 0.1.0, migrates it and keeps its documents, vectors and search results', async () => {
    const { path, cleanup } = tempDb();
    const fixtures = join(import.meta.dirname, '../../../test/fixtures/legacy-index');
    const expected = JSON.parse(readFileSync(join(fixtures, 'expected.json'), 'utf8'));
    try {
      copyFileSync(join(fixtures, 'v0.1.0.db'), path);
      await assert.rejects(
        async () => new SqliteStore(path, { readonly: true }),
        code('needs-migration', /schema 1, this one reads \d+.*dossier migrate/),
      );
      const store = new SqliteStore(path);
      const raw = new Database(path, { readonly: true });
      assert.equal(
        (raw.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
        String(SCHEMA_VERSION),
      );
      raw.close();
      const stats = await store.stats(ALL);
      assert.deepEqual([stats.documents, stats.chunks, stats.embedder?.dimensions], [7, 11, 256]);
      const identity = await store.identity();
      assert.match(identity.id, /^[0-9a-f-]{36}$/);
      // The same stored terms and vectors answer exactly as before: BM25 and cosine scores unchanged.
      const { HashedEmbedder } = await import('../../embed/hashed/hashed-embedder.ts');
      const { Tokenizer } = await import('../../text/tokenize.ts');
      const terms = new Tokenizer({ language: 'english' }).terms(expected.query);
      const fullText = await store.searchFullText(ALL, terms, { k: expected.k });
      assert.deepEqual(
        fullText.map((h) => h.chunkId),
        expected.fulltext.map((h: { chunkId: number }) => h.chunkId),
      );
      fullText.forEach((hit, i) => assert.ok(Math.abs(hit.score - expected.fulltext[i].score) < 1e-9));
      const embedder = new HashedEmbedder();
      embedder.useFrequencies((t) => store.documentFrequencies(t));
      const vectorHits = await store.searchVector(ALL, await embedder.embedQuery(expected.query), { k: expected.k });
      assert.deepEqual(
        vectorHits.map((h) => h.chunkId),
        expected.vector.map((h: { chunkId: number }) => h.chunkId),
      );
      await store.close();
      const again = new SqliteStore(path, { readonly: true }); // migrated: a read-only open now works
      assert.equal((await again.identity()).id, identity.id, 'the identity is made once');
      await again.close();
    } finally {
      cleanup();
    }
  });

  it('migrates databases from before descriptions and vector owner columns existed', async () => {
    const { path, cleanup } = tempDb();
    try {
      const made = new SqliteStore(path);
      await made.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const { id } = await made.upsertDocument(document('Volcano notes'), [chunk('lava')], [vector([1, 0])]);
      await made.close();
      const raw = new Database(path);
      // The oldest shape: no description, no documents_fts, bare chunk_vectors, schema 1, no identity.
      raw.exec('DROP TABLE documents_fts; ALTER TABLE documents DROP COLUMN description;');
      for (const column of ['document_id', 'collection_id', 'q8', 'q8_scale']) raw.exec(`ALTER TABLE chunk_vectors DROP COLUMN ${column}`);
      raw.exec("UPDATE meta SET value = '1' WHERE key = 'schema_version'; DELETE FROM meta WHERE key IN ('index_id', 'generation');");
      raw.close();

      const store = new SqliteStore(path);
      assert.equal((await store.getDocument(ALL, id))?.description, '');
      assert.deepEqual(
        (await store.searchDescriptions(ALL, ['volcano'], { k: 5 })).map((h) => h.documentId),
        [id],
        'old titles are searchable',
      );
      const [hit] = await store.searchVector(ALL, vector([1, 0]), { k: 1 });
      assert.deepEqual([hit.documentId, hit.score > 0.99], [id, true], 'vectors without the int8 form are quantised on load');
      await store.upsertDocument(
        { ...document('Volcano notes', 'h2'), description: 'About lava.', descriptionTerms: 'lava' },
        [chunk('lava')],
        [vector([1, 0])],
      );
      assert.equal((await store.getDocument(ALL, id))?.description, 'About lava.');
      assert.equal(store.rowCounts().descriptions, 1);
      await store.close();
      await new SqliteStore(path).close(); // a second open migrates nothing
    } finally {
      cleanup();
    }
  });

  it('numbers its migrations 1…n without gaps', () => {
    assert.deepEqual(
      MIGRATIONS.map((m) => m.version),
      Array.from({ length: MIGRATIONS.length }, (_, i) => i + 1),
    );
  });

  it('refuses a SQLite file that is not a Dossier index and leaves it byte-for-byte unchanged', async () => {
    const { path, cleanup } = tempDb();
    try {
      const other = new Database(path);
      other.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('keep me');");
      other.close();
      const before = readFileSync(path);
      for (const readonly of [true, false]) {
        await assert.rejects(async () => new SqliteStore(path, { readonly }), code('not-an-index', /not a Dossier index/));
        assert.deepEqual(readFileSync(path), before);
      }
      writeFileSync(path, 'plain text, not a database at all');
      await assert.rejects(async () => new SqliteStore(path, { readonly: true }), code('not-an-index'));
    } finally {
      cleanup();
    }
  });

  it('reads a read-only index in a read-only folder and refuses writes with a clear error', async () => {
    const { path, cleanup } = tempDb();
    const cleanups: Array<() => void> = [];
    const folder = dirname(path);
    try {
      const made = new SqliteStore(path);
      await made.assertEmbedder({ embedderId: 't', dimensions: 2 });
      await made.upsertDocument(document('a'), [chunk('lighthouse')], [vector([1, 0])]);
      await made.close();
      const before = readFileSync(path);
      chmodSync(path, 0o444);
      chmodSync(folder, 0o555);
      // File modes do not bind root (CI runs as root): then the read runs as "nobody", for whom they do,
      // from a world-readable bundle (the checkout may sit where only root can enter).
      const asNobody = process.getuid?.() === 0 && spawnSync('runuser', ['--help']).status === 0;
      const bundle = asNobody
        ? await worldReadableBundle(join(import.meta.dirname, 'sqlite-store.ts'), ['better-sqlite3', 'bindings', 'file-uri-to-path'])
        : undefined;
      cleanups.push(() => bundle?.cleanup());
      const script = `const { SqliteStore } = await import(${JSON.stringify(bundle?.module ?? join(import.meta.dirname, 'sqlite-store.ts'))});
        const store = new SqliteStore(${JSON.stringify(path)}, { readonly: true });
        const all = { collections: '*' };
        const out = { fullText: (await store.searchFullText(all, ['lighthouse'], { k: 1 })).length, vector: (await store.searchVector(all, Float32Array.from([1, 0]), { k: 1 })).length };
        for (const write of [() => store.upsertDocument(${JSON.stringify(document('b'))}, [], []), () => store.deleteDocument(all, 1)]) {
          out.write = await write().then(() => 'written', (error) => error.code);
        }
        await store.close();
        console.log(JSON.stringify(out));`;
      const command = asNobody
        ? ['runuser', ['-u', 'nobody', '--', process.execPath, '--input-type=module', '-e', script]]
        : [process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]];
      const child = spawnSync(command[0] as string, command[1] as string[], {
        encoding: 'utf8',
        cwd: asNobody ? tmpdir() : join(import.meta.dirname, '../../..'),
      });
      assert.equal(child.status, 0, child.stderr);
      assert.deepEqual(JSON.parse(child.stdout), { fullText: 1, vector: 1, write: 'read-only' });
      assert.deepEqual(readFileSync(path), before, 'nothing written');
    } finally {
      chmodSync(folder, 0o755);
      cleanup();
      for (const done of cleanups.splice(0)) done();
    }
  });

  it('caps very long queries to their rarest terms instead of failing', async () => {
    const { path, cleanup } = tempDb();
    const store = new SqliteStore(path);
    try {
      await store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      await store.upsertDocument(document('a'), [chunk('needle hay')], [vector([1, 0])]);
      const terms = [...Array.from({ length: 500 }, (_, i) => `filler${i}`), 'needle'];
      assert.equal((await store.searchFullText(ALL, terms, { k: 5 })).length, 1);
    } finally {
      await store.close();
      cleanup();
    }
  });
});
