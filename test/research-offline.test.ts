import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, tempDir } from './helpers.ts';

describe('research mode offline, through the CLI', () => {
  let dir: string;
  let cleanup: () => void;
  let db: string;
  before(async () => {
    ({ dir, cleanup } = tempDir());
    db = join(dir, 'index.db');
    assert.equal((await runCli(['ingest', 'eval/regression/corpus', '--db', db, '--json'])).status, 0);
  });
  after(() => cleanup());

  it('plans the parts of a question, answers each with a nested agent, and reports with citations (--json)', async () => {
    const result = await runCli([
      'ask',
      'Who founded Halvorsen Instruments, and when did the company move its headquarters to Trondheim?',
      '--mode',
      'research',
      '--db',
      db,
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    const json = result.json;
    assert.equal(json.finishReason, 'stop');
    assert.equal(json.model, 'offline');
    assert.deepEqual(
      json.plan.map((p: { id: string; status: string }) => [p.id, p.status]),
      [
        ['S1', 'answered'],
        ['S2', 'answered'],
      ],
    );
    assert.equal(json.subagents.length, 2);
    assert.ok(
      json.subagents.every((s: { citations: string[]; finishReason: string }) => s.citations.length > 0 && s.finishReason === 'stop'),
    );
    const [direct] = json.answer.split('\n');
    assert.match(direct, /Marit Halvorsen \[E\d+\]; 2004 \[E\d+\]/, 'the direct answer first');
    assert.match(json.answer, /## S1\. Who founded Halvorsen Instruments\?/);
    assert.deepEqual(json.unresolvedCitations, []);
    assert.ok(json.critique.checks.length >= 3 && json.critique.checks.every((c: { verdict: string }) => c.verdict === 'supported'));
  });

  it('does the arithmetic of a calculation in the Python sandbox, operands cited', async () => {
    const result = await runCli([
      'ask',
      'By how many million euros did revenue grow from 2023 to 2024?',
      '--mode',
      'research',
      '--db',
      db,
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.json.answer.split('\n')[0],
      /^55\.2 − 48\.0 = 7\.2 million euros \[E\d+\]\[E\d+\] \(computed in the Python sandbox\)$/,
    );
    assert.equal(result.json.citations.length, 2);
  });

  it('shows a live tree on stderr: the plan, each nested agent with its searches, the critique', async () => {
    const result = await runCli(['ask', 'Where did the Tern-4 sea trial take place?', '--mode', 'research', '--db', db]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /plan: /);
    assert.match(result.stderr, /▸ rag:1: Where did the Tern-4 sea trial take place\?/);
    assert.match(result.stderr, /^ {6}rag:1 → search_knowledge/m, 'the nested searches, indented under their agent');
    assert.match(result.stderr, /◂ rag:1: stop, \d+ cited/);
    assert.match(result.stderr, /critique \(offline\): \d+ claims checked, 0 findings, 0 open/);
    assert.match(result.stdout, /Hardangerfjord/);
  });

  it('the library: runResearch() runs the planner over nested agents and returns its plan', async () => {
    const { createDossier } = await import('../src/dossier.ts');
    const { runResearch } = await import('../src/index.ts');
    const { resolveModel } = await import('../src/providers/index.ts');
    const dossier = await createDossier({ db, readonly: true });
    try {
      const result = await runResearch({
        knowledge: dossier,
        question: 'Where did the Tern-4 sea trial take place?',
        model: await resolveModel('offline'),
      });
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.plan.length, 1);
      assert.equal(result.subagents[0].finishReason, 'stop');
      assert.match(result.answer, /Hardangerfjord \[E\d+\]/);
    } finally {
      await dossier.close();
    }
  });
});
