import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { runAgent } from '../src/agent/run-agent.ts';
import { resolveModel } from '../src/providers/index.ts';
import { REPO_ROOT, tempDir } from './helpers.ts';

/** The offline reader end to end: real index, real agent loop, the offline model. */
describe('offline reader, end to end', () => {
  let temp: ReturnType<typeof tempDir>;
  let bridge: Dossier;
  let docs: Dossier;
  before(async () => {
    temp = tempDir();
    bridge = await createDossier({ db: join(temp.dir, 'bridge.db') });
    await bridge.ingest([join(REPO_ROOT, 'test/fixtures/bridge')]);
    docs = await createDossier({ db: join(temp.dir, 'docs.db') });
    await docs.ingest([join(REPO_ROOT, 'docs')]);
  });
  after(async () => {
    await bridge.close();
    await docs.close();
    temp.cleanup();
  });

  it('answers the bridge question over three tiny documents: "Bergen", both facts cited', async () => {
    const result = await runAgent({
      knowledge: bridge,
      question: 'In which city was the founder of Harbor Station born?',
      model: await resolveModel('offline'),
    });
    const [direct, ...support] = result.answer.split('\n');
    assert.match(direct, /^Bergen \[E\d+\](?:\[E\d+\])?$/, result.answer);
    const cited = new Set(result.citations.map((c) => c.source.split('/').pop()));
    assert.ok(cited.has('harbor-station.md') && cited.has('mara-lindqvist.md'), [...cited].join(', '));
    assert.ok(!cited.has('tide-tables.md'), 'the unrelated document is not cited');
    assert.ok(
      support.some((line) => /founded in 1962 by Mara Lindqvist/.test(line)) && support.some((line) => /born in Bergen/.test(line)),
      result.answer,
    );
    assert.equal(result.finishReason, 'stop');
  });

  it('partially answers when the second hop is missing, and says what is not there', async () => {
    const result = await runAgent({
      knowledge: bridge,
      question: 'In which year was the founder of Harbor Station married?',
      model: await resolveModel('offline'),
    });
    assert.match(result.answer, /not found in the documents/i, result.answer);
  });

  it("answers the README quick-start question from this repository's docs", async () => {
    const result = await runAgent({
      knowledge: docs,
      question: 'What happens to a citation that resolves to nothing?',
      model: await resolveModel('offline'),
    });
    const first = result.answer.split('\n')[0];
    assert.match(first, /unresolved/i, result.answer);
    assert.match(first, /never shown as a source/i, result.answer);
    assert.deepEqual(result.unresolvedCitations, []);
    assert.ok(result.citations.length > 0);
    // No sentence joins it for the verb alone ("… its searches as they happen"): every line is about citations.
    for (const line of result.answer.split('\n').filter(Boolean))
      assert.match(line, /citation|cite|resolv|unresolved|\bid\b/i, result.answer);
  });
});
