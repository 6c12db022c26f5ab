import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Dossier } from '../src/dossier.ts';
import { FINISH_REASONS } from '../src/protocol/events.ts';
import { loadRegression, runRegression } from '../src/eval/regression.ts';
import { resolveModel } from '../src/providers/index.ts';
import { startOpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { regressionIndex } from './helpers.ts';

describe('regression set (eval/regression: 22 questions of five kinds)', () => {
  const { questions } = loadRegression();
  let dossier: Dossier;
  let cleanup: () => void;
  before(async () => ({ dossier, cleanup } = await regressionIndex()));
  after(() => cleanup());

  it('covers five kinds of questions', () => {
    const kinds = new Set(questions.map((q) => q.kind));
    for (const kind of ['single-fact', 'multi-hop', 'comparison', 'calculation', 'unanswerable']) assert.ok(kinds.has(kind), kind);
    assert.ok(questions.length >= 20);
  });

  it('offline model: every citation resolves, every run ends with a finish reason, quality holds', async () => {
    const report = await runRegression(dossier, await resolveModel('offline'), questions);
    assert.equal(report.unresolvedCitations, 0, '100% of citations resolve to ledger evidence');
    for (const outcome of report.outcomes)
      assert.ok(FINISH_REASONS.includes(outcome.finishReason as never), `${outcome.id}: ${outcome.finishReason}`);
    // Floors (issue 7 targets; README has the measured level): every kind at least 0.8, calculation 3 of 4, unanswerable 3 of 3.
    for (const kind of ['single-fact', 'multi-hop', 'comparison'])
      assert.ok(report.byKind[kind].answerPassRate >= 0.8, `${kind} ${JSON.stringify(report.byKind[kind])}`);
    assert.ok(report.byKind.calculation.answerPassRate >= 0.75, JSON.stringify(report.byKind.calculation));
    assert.equal(report.byKind.unanswerable.answerPassRate, 1, JSON.stringify(report.byKind.unanswerable));
    for (const outcome of report.outcomes) assert.doesNotMatch(outcome.answer, /^Offline extractive answer/, `${outcome.id}: no banner`);
    assert.ok(report.citationHitRate >= 0.75, `citation hit rate ${report.citationHitRate}`);
    assert.ok(report.toolCallsMean >= 2, 'the agent searches, more than once');
    const injection = report.outcomes.find((o) => o.id === 'injection')!;
    assert.ok(injection.answerPass, injection.answer);
  });

  it('scripted model through the OpenAI protocol: search, then answer citing what it was shown', async () => {
    const server = await startOpenAIServer();
    try {
      // A stand-in for a real model: it searches the question, then answers with the first passage it saw, cited.
      for (const question of questions) {
        server.chat.enqueue({
          type: 'tool-calls',
          calls: [{ name: 'search_knowledge', arguments: JSON.stringify({ query: question.question, k: 4 }) }],
        });
        server.chat.enqueue((body) => {
          const match = JSON.stringify(body).match(/<<<EVIDENCE (E\d+) [^"]*?\\"([^\\]*)\\"/);
          return { type: 'text', text: match ? `According to "${match[2]}" [${match[1]}].` : 'Not found in the documents.' };
        });
      }
      const model = await resolveModel('openai-compatible:scripted', { env: { DOSSIER_BASE_URL: server.baseURL } });
      const report = await runRegression(dossier, model, questions);
      assert.equal(report.questions, questions.length);
      assert.equal(report.unresolvedCitations, 0);
      assert.equal(report.toolCallsMean, 1);
      assert.ok(
        report.outcomes.every((o) => o.finishReason === 'stop' && o.citations === 1),
        JSON.stringify(report.outcomes.map((o) => o.finishReason)),
      );
      assert.ok(report.byKind['single-fact'].citationHitRate >= 0.8);
    } finally {
      await server.close();
    }
  });
});
