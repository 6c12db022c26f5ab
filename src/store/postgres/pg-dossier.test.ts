import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createDossier, type Dossier } from '../../dossier.ts';
import { loadRegression, REGRESSION_DIR } from '../../eval/regression.ts';
import { tempDir } from '../../../test/helpers.ts';
import { freshDatabase } from './test-database.ts';

/**
 * The whole engine on PostgreSQL, end to end, against the SQLite index of the same corpus:
 * `createDossier({ db: 'postgres://…' })`, ingest the regression corpus, search, ask offline.
 * Gated like pg-store.test.ts on DOSSIER_TEST_PG.
 */
const SKIP = process.env.DOSSIER_TEST_PG
  ? false
  : 'DOSSIER_TEST_PG is unset: set it to a PostgreSQL+pgvector connection string (bash scripts/postgres-test-cluster.sh env) to run the end-to-end PostgreSQL test';

describe('Dossier on PostgreSQL, end to end', { skip: SKIP }, () => {
  it('ingests the regression corpus, searches and answers offline as the SQLite index does', async () => {
    const db = await freshDatabase();
    const temp = tempDir();
    let pgDossier: Dossier | undefined;
    let sqliteDossier: Dossier | undefined;
    try {
      const pg: Dossier = (pgDossier = await createDossier({ db: db.url, env: {} }));
      const sqlite: Dossier = (sqliteDossier = await createDossier({ db: join(temp.dir, 'index.db'), env: {} }));
      const corpus = join(REGRESSION_DIR, 'corpus');
      const pgReport = await pg.ingest([corpus]);
      const sqliteReport = await sqlite.ingest([corpus]);
      assert.deepEqual(pgReport.failed, []);
      assert.equal(pgReport.ingested, sqliteReport.ingested);
      assert.equal(pgReport.chunks, sqliteReport.chunks);
      assert.equal((await pg.ingest([corpus])).skipped, pgReport.ingested, 'a second ingest skips unchanged files');
      const pgStats = await pg.stats();
      const sqliteStats = await sqlite.stats();
      assert.deepEqual({ ...pgStats }, { ...sqliteStats });

      const { questions } = loadRegression();
      const key = (hit: { source: string; ordinal: number }) => `${hit.source.split('/').pop()}#${hit.ordinal}`;
      for (const question of questions.slice(0, 8)) {
        // Full text is the same BM25: same chunks, same order, same scores.
        const pgText = await pg.search({ query: question.question, mode: 'fulltext', k: 10 });
        const sqliteText = await sqlite.search({ query: question.question, mode: 'fulltext', k: 10 });
        assert.ok(sqliteText.length > 0, `${question.id} finds something`);
        assert.deepEqual(
          pgText.map((h) => Math.round(h.score * 1e6)),
          sqliteText.map((h) => Math.round(h.score * 1e6)),
          question.id,
        );
        // Hybrid fuses with vectors (exact float in pgvector, int8 in SQLite): the same best chunk.
        const pgHybrid = await pg.search({ query: question.question, mode: 'hybrid', k: 5 });
        const sqliteHybrid = await sqlite.search({ query: question.question, mode: 'hybrid', k: 5 });
        assert.equal(key(pgHybrid[0]), key(sqliteHybrid[0]), `${question.id}: best hybrid hit`);
      }

      let answered = 0;
      for (const question of questions.filter((q) => q.kind === 'single-fact').slice(0, 4)) {
        const pgAnswer = await pg.ask({ question: question.question });
        const sqliteAnswer = await sqlite.ask({ question: question.question });
        assert.equal(pgAnswer.finishReason, sqliteAnswer.finishReason, question.id);
        const contains = (answer: string) =>
          (question.answerContains ?? []).every((expected) =>
            [expected].flat().some((text) => answer.toLowerCase().replace(/\s+/g, ' ').includes(String(text).toLowerCase())),
          );
        assert.equal(contains(pgAnswer.answer), contains(sqliteAnswer.answer), `${question.id}: ${pgAnswer.answer}`);
        if (contains(pgAnswer.answer)) answered++;
        assert.ok(
          pgAnswer.citations.every((citation) => citation.chunkId > 0 && citation.text.length > 0),
          'citations resolve to stored chunks',
        );
      }
      assert.ok(answered > 0, 'the offline agent answers from the PostgreSQL index');
      const identity = await pg.store.identity();
      assert.ok(identity.generation >= pgReport.ingested && identity.chunks === pgReport.chunks);
    } finally {
      await pgDossier?.close();
      await sqliteDossier?.close();
      temp.cleanup();
      await db.drop();
    }
  });
});
