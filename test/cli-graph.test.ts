import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT, runCli, tempDir } from './helpers.ts';

/** `dossier graph build|entities|show` and `search --mode graph` as scripts call them: DESIGN §4's JSON shapes, help and errors. */
describe('dossier graph', () => {
  const corpus = join(REPO_ROOT, 'test/fixtures/bridge');

  it('builds the graph, lists and shows entities, and searches it, with the documented JSON', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      const built = await runCli(['graph', 'build', '--db', db, '--json']);
      assert.equal(built.status, 0, built.stderr);
      for (const key of ['entities', 'relationships', 'communities', 'seconds']) assert.equal(typeof built.json[key], 'number', key);
      assert.equal(built.json.documents, 3);

      const listed = await runCli(['graph', 'entities', '--query', 'Mara Lindqvist', '--db', db, '--json']);
      assert.equal(listed.status, 0, listed.stderr);
      const [mara] = listed.json.entities;
      assert.deepEqual(
        ['id', 'name', 'type', 'description', 'aliases', 'chunkIds'].filter((key) => !(key in mara)),
        [],
      );
      assert.equal(mara.name, 'Mara Lindqvist');

      const shown = await runCli(['graph', 'show', mara.id, '--db', db, '--json']);
      assert.equal(shown.status, 0, shown.stderr);
      assert.equal(shown.json.entity.id, mara.id);
      const relationship = shown.json.relationships.find((r: { object: string; subject: string }) =>
        [r.subject, r.object].includes('Harbor Station'),
      );
      assert.ok(relationship, JSON.stringify(shown.json.relationships));
      assert.deepEqual(
        ['subject', 'predicate', 'object', 'chunkIds'].filter((key) => !(key in relationship)),
        [],
      );
      const communities = await runCli(['graph', 'communities', '--db', db, '--json']);
      assert.equal(communities.status, 0, communities.stderr);
      assert.equal(communities.json.communities.length, built.json.communities);
      for (const community of communities.json.communities) {
        assert.deepEqual(
          ['id', 'level', 'title', 'summary', 'entityIds', 'chunkIds'].filter((key) => !(key in community)),
          [],
        );
        assert.equal(community.stale, false);
      }
      const text = await runCli(['graph', 'show', 'Mara Lindqvist', '--db', db]);
      assert.match(text.stdout, /Harbor Station/);

      // Harbor Station's founder was born in Bergen: the page about her is one hop from the station.
      const searched = await runCli([
        'search',
        'Where was the founder of Harbor Station born?',
        '--mode',
        'graph',
        '--k',
        '3',
        '--db',
        db,
        '--json',
      ]);
      assert.equal(searched.status, 0, searched.stderr);
      assert.ok(
        searched.json.hits.some((hit: { text: string }) => hit.text.includes('Bergen')),
        JSON.stringify(searched.json.hits.map((hit: { title: string }) => hit.title)),
      );
    } finally {
      cleanup();
    }
  });

  it('says in one line what is wrong: no graph yet, an unknown entity, an unknown graph command', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      assert.equal((await runCli(['ingest', corpus, '--db', db])).status, 0);
      const before = await runCli(['search', 'Mara Lindqvist', '--mode', 'graph', '--db', db]);
      assert.equal(before.status, 1);
      assert.match(before.stderr.trim(), /^dossier: no collection in scope has a knowledge graph; build one with "dossier graph build"$/);
      assert.equal((await runCli(['graph', 'build', '--db', db])).status, 0);
      const unknown = await runCli(['graph', 'show', 'Nobody Atall', '--db', db]);
      assert.equal(unknown.status, 1);
      assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr);
      assert.match(unknown.stderr, /no entity "Nobody Atall"/);
      const bad = await runCli(['graph', 'draw', '--db', db]);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /unknown graph command "draw"/);
      const help = await runCli(['graph', 'build', '--help']);
      assert.equal(help.status, 0);
      assert.match(help.stdout, /dossier graph build/);
      assert.match(help.stdout, /--rebuild/);
    } finally {
      cleanup();
    }
  });
});
