import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REGRESSION_DIR } from './eval/regression.ts';
import { createDossier, type Dossier } from './dossier.ts';
import { DossierError } from './errors/index.ts';
import { tempDir } from '../test/helpers.ts';

describe('Dossier service', () => {
  let dossier: Dossier;
  let temp: ReturnType<typeof tempDir>;
  before(async () => {
    temp = tempDir();
    dossier = await createDossier({ db: join(temp.dir, 'index.db') });
    await dossier.ingest([join(REGRESSION_DIR, 'corpus')], { collection: 'company' });
    await dossier.ingestRecord(
      {
        source: 'note:1',
        title: 'Private note',
        mediaType: 'text/plain',
        blocks: [{ type: 'text', text: 'A private note about lighthouses.' }],
      },
      { collection: 'private' },
    );
  });
  after(async () => {
    await dossier.close();
    temp.cleanup();
  });
  const notFound = (pattern: RegExp) => (error: unknown) =>
    DossierError.isInstance(error) && error.code === 'not-found' && pattern.test(error.message);

  it('gets a document and all its chunks in order, within the scope asked for', async () => {
    const [first] = await dossier.listDocuments({ collections: ['company'] });
    const document = await dossier.getDocument(first.id);
    assert.equal(document.title, first.title);
    const chunks = await dossier.getChunks(first.id);
    assert.equal(chunks.length, document.chunkCount);
    assert.deepEqual(
      chunks.map((c) => c.ordinal),
      chunks.map((_, i) => i),
    );
    const [note] = await dossier.listDocuments({ collections: ['private'] });
    await assert.rejects(() => dossier.getDocument(note.id, { collections: ['company'] }), notFound(/no document/));
    await assert.rejects(() => dossier.getChunks(note.id, { scope: { collections: ['company'] } }), notFound(/no document/));
    await assert.rejects(() => dossier.getDocument(999_999), notFound(/no document 999999/));
  });

  it('counts and lists per scope, and names the existing collections for an unknown one', async () => {
    assert.deepEqual(
      (await dossier.collections()).map((c) => c.name),
      ['company', 'private'],
    );
    assert.equal((await dossier.stats({ collections: ['private'] })).documents, 1);
    assert.ok((await dossier.search({ query: 'lighthouses', collections: ['company'] })).every((hit) => hit.collection === 'company'));
    await assert.rejects(() => dossier.stats({ collections: ['nope'] }), notFound(/unknown collection "nope"; existing: company, private/));
  });
});
