// What a model is shown, kept as golden files (eval/golden/model-view/): for a few regression
// questions, the exact messages a model receives after one search — the system prompt, the tool
// definitions and the tool result — through the real agent loop (eval/context.ts's scripted model).
// A change to what models see is then a reviewed diff: `GOLDEN_WRITE=1 node --import tsx --test
// test/model-view.test.ts` rewrites them, in a commit that says why.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAgent } from '../src/agent/run-agent.ts';
import type { Dossier } from '../src/dossier.ts';
import { SearchOnceModel } from '../src/eval/context.ts';
import { parseEvidence } from '../src/evidence/evidence-format.ts';
import { GOLDEN_DIR } from '../src/eval/golden.ts';
import { REPO_ROOT, regressionIndex } from './helpers.ts';

const WRITE = process.env.GOLDEN_WRITE === '1';
const DIR = join(GOLDEN_DIR, 'model-view');
const QUESTIONS = {
  'fact-ceo': 'Who became chief executive officer of Halvorsen Instruments when Marit Halvorsen retired?',
  'not-covered': 'How do I configure a Redis cache for the web shop?',
  'two-searches': 'Which team leads the Skarv-5 sea trials, and where are they based?',
};

describe('what a model is shown (golden files)', () => {
  let index: Awaited<ReturnType<typeof regressionIndex>>;
  before(async () => (index = await regressionIndex()));
  after(() => index.cleanup());

  for (const [name, question] of Object.entries(QUESTIONS)) {
    it(`${name}: the system prompt, the tool definitions and the search result, as recorded`, async () => {
      const seen = await modelView(index.dossier, question);
      const file = join(DIR, `${name}.json`);
      const text = `${JSON.stringify(seen, null, 2).replaceAll(REPO_ROOT, '<checkout>')}\n`;
      if (WRITE || !existsSync(file)) {
        mkdirSync(DIR, { recursive: true });
        writeFileSync(file, text);
        if (!WRITE) assert.fail(`${file} had no golden file; one was written: review and commit it`);
        return;
      }
      assert.equal(text, readFileSync(file, 'utf8'), `what the model is shown for "${name}" moved: review the diff, then GOLDEN_WRITE=1`);
    });
  }

  it('a second search in the run shows a passage already shown whole as a reference, not again', async () => {
    const model = new RepeatSearchModel('Skarv-5 sea trials');
    await runAgent({
      knowledge: index.dossier,
      question: 'Skarv-5 sea trials',
      model: { model, id: 'repeat', supportsTools: true },
      maxSteps: 3,
      now: new Date('2026-01-01T00:00:00Z'),
    });
    const [first, second] = model.results;
    const whole = parseEvidence(first)
      .filter((block) => !block.cut && !block.reference)
      .map((block) => block.id);
    assert.ok(whole.length > 0, first);
    const again = new Map(parseEvidence(second).map((block) => [block.id, block]));
    for (const id of whole) assert.equal(again.get(id)?.reference, true, `${id} was shown whole already`);
    assert.ok(
      [...again.values()].some((block) => block.cut && !block.reference) || [...again.values()].every((block) => block.reference),
      'a passage shown cut before is shown again (around the new query)',
    );
  });
});

async function modelView(dossier: Dossier, question: string) {
  const model = new SearchOnceModel(question);
  await runAgent({
    knowledge: dossier,
    question,
    model: { model, id: 'search-once', supportsTools: true },
    maxSteps: 2,
    now: new Date('2026-01-01T00:00:00Z'),
  });
  assert.ok(model.seen, 'the model got its second turn');
  return { prompt: model.seen.prompt, tools: model.seen.tools };
}

/** Searches twice with the same words, recording both results. */
class RepeatSearchModel extends SearchOnceModel {
  results: string[] = [];
  override async doGenerate(options: Parameters<SearchOnceModel['doGenerate']>[0]) {
    const results = options.prompt
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .filter((part) => part.type === 'tool-result');
    this.results = results.map((part) => (part.output.type === 'text' ? part.output.value : ''));
    if (results.length === 1) {
      return {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: 'search-2',
            toolName: 'search_knowledge',
            input: JSON.stringify({ query: 'Skarv-5 sea trials' }),
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage: {
          inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 0, text: 0, reasoning: undefined },
        },
        warnings: [],
      };
    }
    return super.doGenerate(options);
  }
}
