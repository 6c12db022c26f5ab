// `dossier eval context`: what a model is shown of each question's search, against what the search
// retrieved. Over the regression corpus as a one-corpus docs set (constructed questions).
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { runCli, tempDir } from './helpers.ts';

describe('dossier eval context', () => {
  let temp: ReturnType<typeof tempDir>;
  let questions: string;
  before(() => {
    temp = tempDir('dossier-context-');
    cpSync(join(REGRESSION_DIR, 'corpus'), join(temp.dir, 'docs', 'company'), { recursive: true });
    questions = join(temp.dir, 'questions.json');
    writeFileSync(
      questions,
      JSON.stringify([
        {
          id: 'founded',
          corpus: 'company',
          kind: 'single-fact',
          question: 'When was Halvorsen Instruments founded?',
          answerContains: ['1987'],
        },
        {
          id: 'meal',
          corpus: 'company',
          kind: 'single-fact',
          question: 'What is the daily meal allowance abroad?',
          answerContains: [['80 euros', '80 EUR']],
        },
        { id: 'none', corpus: 'company', kind: 'unanswerable', question: 'How do I configure a Redis cache?', notFound: true },
      ]),
    );
  });
  after(() => temp.cleanup());

  it('reports, per question and in all, whether the gold answer was shown and retrieved, and what the model was shown', async () => {
    const result = await runCli([
      'eval',
      'context',
      questions,
      '--corpus',
      join(temp.dir, 'docs'),
      '--db',
      join(temp.dir, 'index.db'),
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    const report = result.json;
    assert.deepEqual(
      Object.keys(report).sort(),
      [
        'answerRetrieved',
        'answerShown',
        'answerable',
        'charsPerSearch',
        'outcomes',
        'passagesAddressed',
        'passagesCut',
        'questions',
        'questionsFile',
        'retrievedNotShown',
        'tokensPerSearch',
      ].sort(),
    );
    assert.equal(report.questions, 3);
    assert.equal(report.answerable, 2, 'the unanswerable question counts for size only');
    assert.equal(report.answerShown, 2);
    assert.equal(report.retrievedNotShown, 0);
    assert.equal(report.passagesAddressed, 1, 'every passage shown carries its document id and chunk ordinal');
    assert.ok(report.tokensPerSearch > 0 && report.tokensPerSearch <= 1300, String(report.tokensPerSearch));
    for (const outcome of report.outcomes)
      assert.ok(outcome.passages > 0 && outcome.addressed === outcome.passages, JSON.stringify(outcome));
    const human = await runCli(['eval', 'context', questions, '--corpus', join(temp.dir, 'docs'), '--db', join(temp.dir, 'index.db')]);
    assert.match(
      human.stdout,
      /^3 questions \(2 with a gold answer\): answer shown 2, retrieved 2, retrieved but not shown 0; per search [\d.]+ characters, [\d.]+ tokens; passages cut [\d.]+, addressed 1$/m,
    );
  });

  it('a file it cannot read is a one-line error naming it', async () => {
    const bad = join(temp.dir, 'questions.txt');
    writeFileSync(bad, 'x');
    const result = await runCli(['eval', 'context', bad, '--json']);
    assert.notEqual(result.status, 0);
    assert.match(result.stderr.trim(), /^dossier: .*questions\.txt/m);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  });
});
