import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { loadRegression } from '../src/eval/regression.ts';
import { openServerState } from '../src/server/state/index.ts';
import { freshDatabase } from '../src/store/postgres/test-database.ts';
import type { StoredChunk } from '../src/store/types.ts';
import { regressionIndex, runCli } from './helpers.ts';

/**
 * `dossier migrate --from FILE.db --to postgres://…` end to end: the regression corpus indexed in
 * SQLite, moved into a fresh PostgreSQL database, then read back through createDossier({ db: url })
 * and compared with the SQLite index it came from. Gated on DOSSIER_TEST_PG like the PgStore tests.
 */
const SKIP = process.env.DOSSIER_TEST_PG
  ? false
  : 'DOSSIER_TEST_PG is unset: set it to a PostgreSQL+pgvector connection string (bash scripts/postgres-test-cluster.sh env) to run the migrate-to-PostgreSQL test';
if (SKIP) console.log(`# skipped: ${SKIP}`);

const ALL = { collections: '*' } as const;
const key = (hit: { source: string; ordinal: number }) => `${hit.source.split('/').pop()}#${hit.ordinal}`;

describe('dossier migrate --from FILE.db --to postgres://…', { skip: SKIP }, () => {
  it('moves the index as it is: documents, chunks, full-text scores, vector hits and offline answers agree', async () => {
    const index = await regressionIndex();
    const db = await freshDatabase();
    let sqlite: Dossier | undefined;
    let pg: Dossier | undefined;
    try {
      // A deletion (FTS5 keeps counting the deleted rows in BM25's totals) and a metadata patch, so
      // the copy must carry the source's statistics and current metadata, not just re-add documents.
      const documents = await index.dossier.listDocuments();
      await index.dossier.deleteDocument(documents[documents.length - 1].id);
      await index.dossier.updateMetadata(documents[0].id, { reviewed: true, owner: { team: 'docs' } });
      await index.dossier.close();
      // The server's records in the same file: they must arrive row for row (ids, key hashes, events).
      const local = await openServerState(index.db);
      const alice = await local.createUser('alice', { admin: true });
      const { apiKey } = await local.createKey(alice.id);
      await local.grant('default', alice.id, 'owner');
      const conversation = await local.createConversation(alice.id, 'Who runs it?');
      await local.addMessage({ conversationId: conversation.id, role: 'user', content: 'Who is the CEO?' });
      const run = await local.createRun(
        { id: 'run-1', userId: alice.id, conversationId: conversation.id, question: 'Who is the CEO?', mode: 'rag' },
        { node: 'test', ms: 60_000 },
      );
      await local.appendEvent(run.id, 1, { type: 'run-start' });
      await local.appendEvent(run.id, 2, { type: 'run-finish' });
      await local.finishRun(run.id, 'finished', 'answered', { answer: 'Jonas Eide' });
      const job = await local.createJob(alice.id, 'default', { node: 'test', ms: 60_000 });
      await local.updateJob(job.id, { status: 'finished', report: { ingested: 1 } });
      await local.close();

      const migrated = await runCli(['migrate', '--from', index.db, '--to', db.url, '--json']);
      assert.equal(migrated.status, 0, migrated.stderr);
      const report = migrated.json;
      assert.equal(report.verified, true);
      assert.equal(report.from, index.db);
      assert.match(report.to, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/dossier_t_/);
      assert.equal(report.documents, documents.length - 1);
      assert.equal(report.vectors, report.chunks);
      assert.match(report.ids, /differ/);
      assert.deepEqual(report.serverTables, {
        srv_users: 1,
        srv_keys: 1,
        srv_members: 1,
        srv_conversations: 1,
        srv_messages: 1,
        srv_runs: 1,
        srv_run_events: 2,
        srv_jobs: 1,
      });
      const remote = await openServerState(db.url);
      try {
        assert.deepEqual(await remote.userByKey(apiKey), alice, 'the key (its hash) and the user arrive as they were');
        assert.deepEqual(await remote.memberships(alice.id), [{ collection: 'default', role: 'owner' }]);
        assert.deepEqual(
          (await remote.messages(conversation.id)).map((m) => m.content),
          ['Who is the CEO?'],
        );
        assert.deepEqual(
          (await remote.events(run.id)).map((e) => e.event.type),
          ['run-start', 'run-finish'],
        );
        assert.deepEqual((await remote.run(run.id))?.result, { answer: 'Jonas Eide' });
        assert.deepEqual((await remote.job(job.id))?.report, { ingested: 1 });
      } finally {
        await remote.close();
      }

      const sqliteIndex: Dossier = (sqlite = await createDossier({ db: index.db, readonly: true, env: {} }));
      const pgIndex: Dossier = (pg = await createDossier({ db: db.url, env: {} }));
      assert.notEqual(report.sourceIndex, report.targetIndex, 'the target is another index (its own identity)');
      const sqliteStats = await sqliteIndex.stats();
      assert.deepEqual(await pgIndex.stats(), sqliteStats);
      assert.equal(report.chunks, sqliteStats.chunks);

      // Same documents, field for field (ids aside), and the same chunks in order.
      const strip = <T extends { id: number }>({ id: _id, ...rest }: T) => rest;
      const sqliteDocuments = await sqliteIndex.store.listDocuments(ALL);
      const pgDocuments = await pgIndex.store.listDocuments(ALL);
      assert.deepEqual(pgDocuments.map(strip), sqliteDocuments.map(strip));
      assert.ok(
        sqliteDocuments.some((d) => d.description.length > 0),
        'descriptions are there to compare',
      );
      assert.deepEqual(pgDocuments[0].metadata.owner, { team: 'docs' });
      const chunksOf = async (dossier: Dossier, documentId: number) =>
        (await dossier.store.getChunkRange(ALL, documentId, 0, 1_000_000)).map(({ id: _id, documentId: _d, ...rest }: StoredChunk) => rest);
      for (let i = 0; i < sqliteDocuments.length; i++) {
        assert.deepEqual(
          await chunksOf(pgIndex, pgDocuments[i].id),
          await chunksOf(sqliteIndex, sqliteDocuments[i].id),
          sqliteDocuments[i].source,
        );
        assert.equal(
          await pgIndex.store.getDocumentText(ALL, pgDocuments[i].id),
          await sqliteIndex.store.getDocumentText(ALL, sqliteDocuments[i].id),
        );
      }

      const { questions } = loadRegression();
      for (const question of questions) {
        // Full text: the same BM25 over the same terms and totals, so the same chunks and scores.
        const pgText = await pgIndex.search({ query: question.question, mode: 'fulltext', k: 10 });
        const sqliteText = await sqliteIndex.search({ query: question.question, mode: 'fulltext', k: 10 });
        assert.deepEqual(pgText.map(key), sqliteText.map(key), question.id);
        assert.deepEqual(
          pgText.map((h) => Math.round(h.score * 1e6)),
          sqliteText.map((h) => Math.round(h.score * 1e6)),
          question.id,
        );
        // Vectors: the same float32s (pgvector scores exactly, SQLite by int8): the same best hit.
        const pgVector = await pgIndex.search({ query: question.question, mode: 'vector', k: 5 });
        const sqliteVector = await sqliteIndex.search({ query: question.question, mode: 'vector', k: 5 });
        assert.equal(key(pgVector[0]), key(sqliteVector[0]), `${question.id}: best vector hit`);
      }

      let cited = 0;
      for (const question of questions.filter((q) => q.kind === 'single-fact').slice(0, 4)) {
        const pgAnswer = await pgIndex.ask({ question: question.question });
        const sqliteAnswer = await sqliteIndex.ask({ question: question.question });
        assert.equal(pgAnswer.finishReason, sqliteAnswer.finishReason, question.id);
        // Evidence labels ([E1]…) follow the hybrid ranking, where int8 and exact vector scores may
        // swap near-ties, and chunk ids are the target's own: so markers are compared by the passage they cite.
        const resolved = (answer: typeof pgAnswer) => {
          const passage = new Map(answer.citations.map((c) => [c.id, `${c.source.split('/').pop()}@${c.charStart}-${c.charEnd}`]));
          return answer.answer.replace(/\[(E\d+)\]/g, (marker, id: string) => `[${passage.get(id) ?? marker}]`);
        };
        assert.equal(resolved(pgAnswer), resolved(sqliteAnswer), question.id);
        assert.equal(pgAnswer.citations.length, sqliteAnswer.citations.length, question.id);
        assert.ok(
          pgAnswer.citations.every((c) => c.text.length > 0),
          `${question.id}: cites stored chunks`,
        );
        if (pgAnswer.citations.length) cited++;
      }
      assert.ok(cited > 0, 'the offline agent answers with citations from the migrated index');
      await pgIndex.close();
      pg = undefined;

      const again = await runCli(['migrate', '--from', index.db, '--to', db.url]);
      assert.equal(again.status, 1);
      assert.equal(again.stdout, '');
      assert.match(again.stderr, /^dossier: the target already holds \d+ documents; migrate into an empty database\n$/);
    } finally {
      await pg?.close();
      await sqlite?.close();
      index.removeFiles();
      await db.drop();
    }
  });

  it('refuses a --from file that is not there, in one line', async () => {
    const missing = join('/nonexistent-dossier-dir', 'index.db');
    const result = await runCli(['migrate', '--from', missing, '--to', process.env.DOSSIER_TEST_PG!]);
    assert.equal(result.status, 1);
    assert.equal(result.stderr, `dossier: --from ${missing}: no such file\n`);
    const usage = await runCli(['migrate', '--from', missing]);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /^dossier: migrate --from FILE\.db needs --to/);
  });
});
