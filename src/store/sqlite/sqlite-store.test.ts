import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { storeContract } from '../contract.ts';
import { SqliteStore } from './sqlite-store.ts';

function tempDb(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-store-'));
  return { path: join(dir, 'test.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

storeContract('SqliteStore', async () => {
  const { path, cleanup } = tempDb();
  const store = new SqliteStore(path);
  return { store, cleanup: () => { store.close(); cleanup(); } };
});

describe('SqliteStore specifics', () => {
  const vector = (values: number[]) => Float32Array.from(values);
  const document = (source: string, hash = 'h1') => ({
    collection: 'default', source, title: source, mediaType: 'text/plain', contentHash: hash, metadata: {}, text: 'x', bytes: 1,
  });
  const chunk = (terms: string) => ({ ordinal: 0, text: terms, tokenCount: 1, headingPath: [], charStart: 0, charEnd: 1, terms, titleTerms: '' });

  it('leaves no chunk, vector or full-text row behind after delete', () => {
    const { path, cleanup } = tempDb();
    const store = new SqliteStore(path);
    try {
      store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const { id } = store.upsertDocument(document('a'), [chunk('one two'), { ...chunk('three'), ordinal: 1 }], [vector([1, 0]), vector([0, 1])]);
      assert.deepEqual(store.rowCounts(), { documents: 1, chunks: 2, vectors: 2, fullText: 2, descriptions: 1 });
      store.deleteDocument({ collections: '*' }, id);
      assert.deepEqual(store.rowCounts(), { documents: 0, chunks: 0, vectors: 0, fullText: 0, descriptions: 0 });
      assert.deepEqual(store.documentFrequencies(['one']).frequencies.get('one'), 0);
    } finally {
      store.close();
      cleanup();
    }
  });

  it('persists across reopen and sees writes made by another connection', () => {
    const { path, cleanup } = tempDb();
    const reader = new SqliteStore(path);
    const writer = new SqliteStore(path);
    try {
      writer.assertEmbedder({ embedderId: 't', dimensions: 2 });
      writer.upsertDocument(document('a'), [chunk('first')], [vector([1, 0])]);
      assert.equal(reader.searchVector({ collections: '*' }, vector([1, 0]), { k: 5 }).length, 1);
      writer.upsertDocument(document('b'), [chunk('second')], [vector([0, 1])]);
      // The reader's in-memory vector index must notice the other connection's commit.
      assert.equal(reader.searchVector({ collections: '*' }, vector([0, 1]), { k: 5 }).length, 2);
      writer.close();
      const reopened = new SqliteStore(path);
      assert.equal(reopened.stats({ collections: '*' }).documents, 2);
      assert.equal(reopened.searchFullText({ collections: '*' }, ['second'], { k: 1 }).length, 1);
      reopened.close();
    } finally {
      reader.close();
      cleanup();
    }
  });

  it('adds the description column to a database made before descriptions existed', () => {
    const { path, cleanup } = tempDb();
    const ALL = { collections: '*' } as const;
    try {
      const made = new SqliteStore(path);
      made.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const { id } = made.upsertDocument(document('Volcano notes'), [chunk('lava')], [vector([1, 0])]);
      made.close();
      const raw = new Database(path);
      raw.exec('DROP TABLE documents_fts; ALTER TABLE documents DROP COLUMN description;'); // the old shape
      raw.close();

      const readonly = new SqliteStore(path, { readonly: true });
      assert.equal(readonly.getDocument(ALL, id)?.description, '');
      assert.deepEqual(readonly.searchDescriptions(ALL, ['volcano'], { k: 5 }), []);
      readonly.close();

      const store = new SqliteStore(path);
      assert.equal(store.getDocument(ALL, id)?.description, '');
      assert.deepEqual(store.searchDescriptions(ALL, ['volcano'], { k: 5 }).map((h) => h.documentId), [id], 'old titles are searchable');
      store.upsertDocument({ ...document('Volcano notes', 'h2'), description: 'About lava.', descriptionTerms: 'lava' }, [chunk('lava')], [vector([1, 0])]);
      assert.equal(store.getDocument(ALL, id)?.description, 'About lava.');
      assert.equal(store.rowCounts().descriptions, 1);
      store.close();
      new SqliteStore(path).close(); // a second open finds the column and migrates nothing
    } finally {
      cleanup();
    }
  });

  it('upgrades chunk_vectors made before it kept owner ids and int8 rows, and still searches them', () => {
    const { path, cleanup } = tempDb();
    try {
      const store = new SqliteStore(path);
      store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      const { id } = store.upsertDocument(document('a'), [chunk('first')], [vector([1, 0])]);
      store.close();
      const raw = new Database(path);
      for (const column of ['document_id', 'collection_id', 'q8', 'q8_scale']) raw.exec(`ALTER TABLE chunk_vectors DROP COLUMN ${column}`);
      raw.close();
      const readOnly = new SqliteStore(path, { readonly: true });
      assert.equal(readOnly.searchVector({ collections: '*' }, vector([1, 0]), { k: 1 })[0].documentId, id, 'read-only: falls back to the join');
      readOnly.close();
      const upgraded = new SqliteStore(path);
      const [hit] = upgraded.searchVector({ collections: '*' }, vector([1, 0]), { k: 1 });
      assert.equal(hit.documentId, id);
      assert.ok(hit.score > 0.99);
      upgraded.upsertDocument(document('b', 'h2'), [chunk('second')], [vector([0, 1])]);
      assert.equal(upgraded.searchVector({ collections: '*' }, vector([0, 1]), { k: 1 })[0].score > 0.99, true);
      upgraded.close();
    } finally {
      cleanup();
    }
  });

  it('caps very long queries to their rarest terms instead of failing', () => {
    const { path, cleanup } = tempDb();
    const store = new SqliteStore(path);
    try {
      store.assertEmbedder({ embedderId: 't', dimensions: 2 });
      store.upsertDocument(document('a'), [chunk('needle hay')], [vector([1, 0])]);
      const terms = [...Array.from({ length: 500 }, (_, i) => `filler${i}`), 'needle'];
      assert.equal(store.searchFullText({ collections: '*' }, terms, { k: 5 }).length, 1);
    } finally {
      store.close();
      cleanup();
    }
  });
});
