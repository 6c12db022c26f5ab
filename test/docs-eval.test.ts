import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FINISH_REASONS } from '../src/protocol/events.ts';
import { DOCS_DEV_CORPUS, loadDocsQuestions, type DocsQuestion } from '../src/eval/docs.ts';
import { runDocsEval } from '../src/eval/index.ts';
import { abstentionScore, judge, type JudgedRun } from '../src/eval/regression.ts';
import { REPO_ROOT, runCli, tempDir } from './helpers.ts';

/** Two tiny corpora that disagree on the same fact: a question that searched the other corpus would show it. */
function syntheticSet(dir: string): { file: string; root: string; questions: DocsQuestion[] } {
  const root = join(dir, 'corpora');
  mkdirSync(join(root, 'alpha'), { recursive: true });
  mkdirSync(join(root, 'beta'), { recursive: true });
  writeFileSync(
    join(root, 'alpha', 'kestrel-alpha.md'),
    '# Kestrel pump\n\nThe Kestrel pump moves 40 litres per minute.\n\nThe Kestrel pump was designed by Ruth Amundsen in Bergen.\n',
  );
  writeFileSync(
    join(root, 'beta', 'kestrel-beta.md'),
    '# Kestrel pump\n\nThe Kestrel pump moves 90 litres per minute.\n\nIt is serviced every 6 months.\n',
  );
  writeFileSync(
    join(root, 'beta', 'install.md'),
    '# Installing\n\nInstall the pump driver with this command:\n\n```shell\n$ pip install kestrel-driver\n```\n',
  );
  const questions: DocsQuestion[] = [
    {
      id: 'alpha-designer',
      corpus: 'alpha',
      kind: 'single-fact',
      question: 'Who designed the Kestrel pump?',
      answerContains: ['Ruth Amundsen'],
      cites: ['kestrel-alpha.md'],
    },
    {
      id: 'beta-rate',
      corpus: 'beta',
      kind: 'single-fact',
      question: 'How many litres per minute does the Kestrel pump move?',
      answerContains: ['90'],
      answerNotContains: ['40'],
      cites: ['kestrel-beta.md'],
    },
    { id: 'beta-none', corpus: 'beta', kind: 'unanswerable', question: 'What colour is the Kestrel pump housing painted?', notFound: true },
  ];
  const file = join(dir, 'questions.json');
  writeFileSync(file, JSON.stringify(questions));
  return { file, root, questions };
}

describe('docs evaluation (eval docs)', () => {
  let temp: ReturnType<typeof tempDir>;
  let set: ReturnType<typeof syntheticSet>;
  before(() => {
    temp = tempDir('dossier-docs-eval-');
    set = syntheticSet(temp.dir);
  });
  after(() => temp.cleanup());

  it('indexes each corpus into its own collection, asks each question within it, and reports like the regression set', async () => {
    const report = await runDocsEval({ file: set.file, corpus: set.root });
    assert.deepEqual(
      Object.keys(report).sort(),
      [
        'abstention',
        'answerPassRate',
        'byCorpus',
        'byKind',
        'citationHitRate',
        'corpusRoot',
        'inputTokensMean',
        'model',
        'modelCallsMean',
        'outcomes',
        'questions',
        'questionsFile',
        'toolCallsMean',
        'unresolvedCitations',
      ].sort(),
    );
    assert.equal(report.questions, 3);
    assert.equal(report.model, 'offline');
    assert.deepEqual(Object.keys(report.byKind).sort(), ['single-fact', 'unanswerable']);
    for (const score of Object.values(report.byKind)) {
      assert.deepEqual(Object.keys(score).sort(), [
        'answerPassRate',
        'citationHitRate',
        'inputTokensMean',
        'modelCallsMean',
        'questions',
        'toolCallsMean',
        'unresolvedCitations',
      ]);
    }
    assert.deepEqual(Object.keys(report.byCorpus).sort(), ['alpha', 'beta']);
    assert.equal(report.byCorpus.alpha.documents, 1);
    assert.equal(report.byCorpus.beta.documents, 2);
    assert.equal(report.byCorpus.beta.questions, 2);
    assert.deepEqual(report.byCorpus.beta.failed, []);
    assert.deepEqual(
      report.outcomes.map((o) => o.id),
      ['alpha-designer', 'beta-rate', 'beta-none'],
    );
    for (const outcome of report.outcomes) {
      assert.deepEqual(Object.keys(outcome).sort(), [
        'abstained',
        'answer',
        'answerPass',
        'answeredBy',
        'citationHit',
        'citations',
        'cited',
        'finishReason',
        'id',
        'inputTokens',
        'kind',
        'modelCalls',
        'questionRule',
        'toolCalls',
        'unanswerable',
        'unresolved',
      ]);
      assert.equal(outcome.abstained, outcome.finishReason === 'no-evidence', outcome.id);
      assert.equal(outcome.unanswerable, outcome.id === 'beta-none', outcome.id);
      assert.ok(FINISH_REASONS.includes(outcome.finishReason as never), outcome.finishReason);
      assert.ok(outcome.answeredBy && /^[a-z:-]+$/.test(outcome.answeredBy), `names the answerer that answered, got ${outcome.answeredBy}`);
      assert.ok(
        outcome.questionRule && /^[a-z:-]+$/.test(outcome.questionRule),
        `names the rule that read the question, got ${outcome.questionRule}`,
      );
    }
    // The beta question searched beta only: the alpha figure never reaches its answer.
    const rate = report.outcomes.find((o) => o.id === 'beta-rate')!;
    assert.ok(!rate.answer.includes('40'), rate.answer);
    assert.equal(report.unresolvedCitations, 0);
    // Abstention is counted against the one notFound question, overall and per corpus.
    const abstained = report.outcomes.filter((o) => o.abstained);
    assert.equal(report.abstention.unanswerable, 1);
    assert.equal(report.abstention.answerable, 2);
    assert.equal(report.abstention.abstained, abstained.length);
    assert.equal(report.abstention.wrongAbstentions, abstained.filter((o) => o.id !== 'beta-none').length);
    assert.equal(report.byCorpus.alpha.abstention.unanswerable, 0);
    assert.equal(report.byCorpus.beta.abstention.unanswerable, 1);
  });

  it('abstention recall is over the unanswerable questions, precision over the runs that abstained', () => {
    const outcome = (unanswerable: boolean, abstained: boolean) => ({ unanswerable, abstained });
    const score = abstentionScore([
      outcome(true, true),
      outcome(true, true),
      outcome(true, false),
      outcome(false, true),
      outcome(false, false),
      outcome(false, false),
      outcome(false, false),
    ]);
    assert.deepEqual(score, {
      unanswerable: 3,
      answerable: 4,
      abstained: 3,
      recall: 0.667,
      precision: 0.667,
      wrongAbstentions: 1,
      wrongAbstentionRate: 0.25,
    });
    // Nothing to find and nothing abstained: neither figure is penalised.
    assert.deepEqual(abstentionScore([outcome(false, false)]), {
      unanswerable: 0,
      answerable: 1,
      abstained: 0,
      recall: 1,
      precision: 1,
      wrongAbstentions: 0,
      wrongAbstentionRate: 0,
    });
  });

  it('the CLI prints per-question lines with answers, per-kind rows and a summary; --json prints the report', async () => {
    const human = await runCli(['eval', 'docs', set.file, '--corpus', set.root]);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^(pass|fail) single-fact\s+alpha-designer/m);
    assert.match(human.stdout, /^ {5}\S/m, 'the answer under each question');
    assert.match(human.stdout, /^ {2}unanswerable\s+1\s/m);
    assert.match(human.stdout, /^ {2}\[beta\]\s+2\s/m);
    assert.match(
      human.stdout,
      /^3 questions \(offline\): answers [\d.]+, citation hit rate [\d.]+, tool calls [\d.]+, unresolved citations \d+$/m,
    );
    assert.match(
      human.stdout,
      /^abstention: recall [\d.]+ \([01]\/1 unanswerable abstained\), precision [\d.]+ \(of \d+ abstentions\), wrong abstentions \d\/2 answerable$/m,
    );
    const json = await runCli(['eval', 'docs', set.file, '--corpus', set.root, '--json']);
    assert.equal(json.status, 0, json.stderr);
    assert.equal(json.json.questions, 3);
    assert.ok(json.json.byCorpus.alpha && json.json.byKind['single-fact']);
  });

  it('a missing corpus root or corpus folder is a one-line error before any indexing', async () => {
    const missing = await runCli(['eval', 'docs', set.file, '--corpus', join(temp.dir, 'nowhere')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no corpus folder .*nowhere.*--corpus DIR/);
    assert.equal(missing.stderr.trim().split('\n').length, 1);
    const file = join(temp.dir, 'gamma.json');
    writeFileSync(file, JSON.stringify([{ id: 'g', corpus: 'gamma', kind: 'single-fact', question: 'Where?', answerContains: ['x'] }]));
    const folder = await runCli(['eval', 'docs', file, '--corpus', set.root, '--json']);
    assert.equal(folder.status, 1);
    assert.match(folder.json.error.message, /no folder "gamma"/);
    const bad = join(temp.dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ id: 'b', kind: 'single-fact', question: 'Where?', answerContains: ['x'] }]));
    assert.match((await runCli(['eval', 'docs', bad, '--corpus', set.root])).stderr, /needs a string "corpus"/);
  });

  it('the judge takes alternatives (any one will do) and matches across line breaks', () => {
    const run = (answer: string, sources: string[] = []): JudgedRun => ({
      answer,
      citations: sources.map((source) => ({ source }) as JudgedRun['citations'][number]),
      unresolvedCitations: [],
      finishReason: 'stop',
      toolCalls: 1,
    });
    const question = {
      id: 'q',
      kind: 'calculation',
      question: '?',
      answerContains: [['5 seconds', 'five seconds'], 'timeout'],
      cites: [['a.md', 'b.md'], 'c.md'],
    };
    assert.equal(judge(question, run('The default TIMEOUT is five\nseconds.', ['/x/b.md'])).answerPass, true);
    assert.equal(judge(question, run('The default timeout is 5 minutes.')).answerPass, false);
    assert.equal(judge(question, run('timeout 5 seconds', ['/x/b.md'])).citationHit, 0.5);
    assert.equal(judge(question, run('timeout 5 seconds', ['/x/a.md', '/y/c.md'])).citationHit, 1);
    // Saying "not found" is no answer, even when the sentence echoes the expected strings.
    const abstained = { ...run('Not found in the documents: the timeout of 5 seconds.'), finishReason: 'no-evidence' as const };
    assert.equal(judge(question, abstained).answerPass, false);
    assert.equal(judge(question, abstained).abstained, true);
  });
});

describe('the docs development set (eval/docs-dev/questions.json)', () => {
  const questions = loadDocsQuestions();

  it('has at least 40 questions of every kind, over httpx and jinja', () => {
    assert.ok(questions.length >= 40, `${questions.length} questions`);
    const count = (kind: string) => questions.filter((q) => q.kind === kind).length;
    const minimum: Record<string, number> = {
      'single-fact': 8,
      'how-to': 6,
      list: 4,
      'multi-hop': 4,
      comparison: 4,
      calculation: 4,
      'yes-no': 3,
      unanswerable: 5,
    };
    for (const [kind, least] of Object.entries(minimum)) assert.ok(count(kind) >= least, `${kind}: ${count(kind)} < ${least}`);
    assert.deepEqual([...new Set(questions.map((q) => q.corpus))].sort(), ['httpx', 'jinja']);
    for (const q of questions) {
      if (q.kind === 'unanswerable') assert.ok(q.notFound && !q.answerContains && !q.cites, q.id);
      else assert.ok(!q.notFound && q.answerContains?.length && q.cites?.length, q.id);
    }
  });

  const missing = existsSync(DOCS_DEV_CORPUS) ? false : `${DOCS_DEV_CORPUS} is absent`;

  it('cites only files that exist in its corpus', { skip: missing }, () => {
    const files = new Map<string, Set<string>>();
    const walk = (dir: string, into: Set<string>) => {
      for (const name of readdirSync(dir)) statSync(join(dir, name)).isDirectory() ? walk(join(dir, name), into) : into.add(basename(name));
    };
    for (const corpus of ['httpx', 'jinja']) walk(join(DOCS_DEV_CORPUS, corpus), files.set(corpus, new Set()).get(corpus)!);
    for (const q of questions) for (const file of (q.cites ?? []).flat()) assert.ok(files.get(q.corpus)!.has(file), `${q.id}: ${file}`);
  });

  // The whole set end to end, each answer, citation and finish reason pinned, is the golden
  // test's docs-dev set (test/golden.test.ts); running it here too would only spend a minute twice.
});

describe('the held-out docs set (eval/docs-heldout/questions.json)', () => {
  it('asks about the repository docs/ only, citing files that exist there, with every kind represented', () => {
    const questions = loadDocsQuestions(join(REPO_ROOT, 'eval', 'docs-heldout', 'questions.json'));
    assert.ok(questions.length >= 25, `${questions.length} questions`);
    assert.deepEqual([...new Set(questions.map((q) => q.corpus))], ['docs']);
    const files = new Set(readdirSync(join(REPO_ROOT, 'docs')));
    for (const q of questions) for (const file of (q.cites ?? []).flat()) assert.ok(files.has(file), `${q.id}: ${file}`);
    // The quick-start question is the reader's own test: it must not count as held out.
    assert.ok(!questions.some((q) => /citation that resolves to nothing/i.test(q.question)));
    for (const kind of ['single-fact', 'how-to', 'list', 'multi-hop', 'comparison', 'calculation', 'yes-no', 'unanswerable']) {
      assert.ok(
        questions.some((q) => q.kind === kind),
        kind,
      );
    }
  });
});

/** Base names of every file under `dir`. */
function baseNames(dir: string, into = new Set<string>()): Set<string> {
  for (const name of readdirSync(dir)) statSync(join(dir, name)).isDirectory() ? baseNames(join(dir, name), into) : into.add(name);
  return into;
}

describe('the Starlette/Black development set (eval/docs-starlette-black/questions.json)', () => {
  const questions = loadDocsQuestions(join(REPO_ROOT, 'eval', 'docs-starlette-black', 'questions.json'));
  const missing = existsSync(join(DOCS_DEV_CORPUS, 'starlette')) ? false : `${DOCS_DEV_CORPUS}/starlette is absent`;

  it('holds the 24 questions of the data file, answerable ones with answers and citations', () => {
    assert.equal(questions.length, 24);
    assert.deepEqual([...new Set(questions.map((q) => q.corpus))].sort(), ['black', 'starlette']);
    for (const q of questions) {
      if (q.kind === 'unanswerable') assert.ok(q.notFound && !q.answerContains, q.id);
      else assert.ok(!q.notFound && q.answerContains?.length && q.cites?.length, q.id);
    }
  });

  it('asks the data file’s questions and cites files of their corpus', { skip: missing }, () => {
    const rows = readFileSync(join(DOCS_DEV_CORPUS, 'questions-starlette-black.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { id: string; question: string });
    assert.deepEqual(
      questions.map((q) => [q.id, q.question]),
      rows.map((r) => [r.id, r.question]),
    );
    for (const corpus of ['starlette', 'black']) {
      const files = baseNames(join(DOCS_DEV_CORPUS, corpus));
      for (const q of questions.filter((q) => q.corpus === corpus))
        for (const file of (q.cites ?? []).flat()) assert.ok(files.has(file), `${q.id}: ${file}`);
    }
  });
});

describe('the held-out Uvicorn set (eval/docs-heldout-uvicorn)', () => {
  const root = join(REPO_ROOT, 'eval', 'docs-heldout-uvicorn');

  it('ships its corpus with the license, cites files that exist there, and has every kind with 8 unanswerable', () => {
    const questions = loadDocsQuestions(join(root, 'questions.json'));
    assert.equal(questions.length, 30);
    assert.deepEqual([...new Set(questions.map((q) => q.corpus))], ['uvicorn']);
    const files = baseNames(join(root, 'corpus', 'uvicorn'));
    assert.ok(files.has('LICENSE.md'));
    for (const q of questions) for (const file of (q.cites ?? []).flat()) assert.ok(files.has(file), `${q.id}: ${file}`);
    for (const kind of ['single-fact', 'how-to', 'list', 'multi-hop', 'comparison', 'calculation', 'yes-no'])
      assert.ok(
        questions.some((q) => q.kind === kind),
        kind,
      );
    assert.equal(questions.filter((q) => q.notFound).length, 8);
  });
});
