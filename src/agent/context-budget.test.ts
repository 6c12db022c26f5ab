import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelMessage } from 'ai';
import { formatEvidence, parseEvidence } from '../evidence/evidence-format.ts';
import { EvidenceLedger } from '../evidence/ledger.ts';
import { checkCitations } from '../evidence/citations.ts';
import type { StoredChunk } from '../store/types.ts';
import { runAgent } from './run-agent.ts';
import { COMPACTED_NOTE, compactResultText, compactTranscript, messageTokens } from './context-budget.ts';
import { nativeToolProtocol } from './tool-protocol/native.ts';
import { textToolProtocol } from './tool-protocol/text.ts';
import type { ToolProtocol } from './tool-protocol/types.ts';

const chunk = (id: number): StoredChunk => {
  const text = `Passage ${id} says that the harbour office opened in year ${1900 + id}. ${'It goes on about the quay and its cranes. '.repeat(20)}`;
  return {
    id,
    documentId: 100 + id,
    collection: 'default',
    title: `Doc ${id}`,
    source: `/d/${id}.md`,
    ordinal: id % 7,
    text,
    tokenCount: 200,
    headingPath: ['History', `Part ${id}`],
    charStart: 0,
    charEnd: text.length,
  };
};

/** A transcript of `rounds` searches through a protocol, each showing two fresh passages. */
function transcript(protocol: ToolProtocol, rounds: number) {
  const ledger = new EvidenceLedger();
  const messages: ModelMessage[] = [{ role: 'user', content: 'When did the harbour office open?' }];
  const results: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const hits = [2 * round - 1, 2 * round].map((id) => ({ chunk: chunk(id), score: 1 }));
    const entries = ledger.addHits(hits, { step: round, query: `q${round}`, tool: 'search_knowledge' }).map((hit) => hit.entry);
    const text = formatEvidence(entries, 1200, { shown: ledger });
    const call = { toolCallId: `c${round}`, toolName: 'search_knowledge', input: { query: `q${round}` } };
    protocol.appendToolCalls(messages, { type: 'tool-calls', calls: [call], text: '', raw: JSON.stringify({ tool: call.toolName }) });
    protocol.appendToolResults(messages, [{ call, ok: true, text, searches: true, newEvidence: 2 }]);
    results.push(messages.length - 1);
  }
  return { ledger, messages, results };
}

const textOf = (message: ModelMessage) =>
  message.role === 'tool'
    ? message.content.map((part) => (part.type === 'tool-result' && part.output.type === 'text' ? part.output.value : '')).join('\n')
    : String(message.content);

describe('context budget', () => {
  for (const protocol of [nativeToolProtocol, textToolProtocol]) {
    it(`${protocol.name}: compacts the oldest results first, never the newest round, until the results fit`, () => {
      const { ledger, messages, results } = transcript(protocol, 4);
      const perResult = messageTokens(messages[results[0]]);
      const compacted = new Set<number>();
      // Room for about two whole results: the oldest two are compacted, the last two stay.
      const outcome = compactTranscript(messages, results, compacted, Math.floor(perResult * 2.5), ledger);
      assert.equal(outcome.compacted, 2);
      assert.deepEqual([...compacted], results.slice(0, 2));
      assert.ok(outcome.after < outcome.before && outcome.after <= perResult * 2.5);
      assert.ok(textOf(messages[results[0]]).includes('compacted to stay within the context budget'));
      assert.equal(parseEvidence(textOf(messages[results[0]])).length, 0, 'a compacted result holds no evidence blocks');
      assert.equal(parseEvidence(textOf(messages[results[3]])).length, 2);
      // However small the budget, the newest round stays whole.
      const tight = compactTranscript(messages, results, compacted, 1, ledger);
      assert.equal(tight.compacted, 1);
      assert.ok(!compacted.has(results[3]));
      assert.ok(!textOf(messages[results[3]]).includes('compacted'));
      // Under budget nothing moves.
      const { messages: fresh, results: freshResults, ledger: freshLedger } = transcript(protocol, 2);
      const copy = structuredClone(fresh);
      assert.equal(compactTranscript(fresh, freshResults, new Set(), 1_000_000, freshLedger).compacted, 0);
      assert.deepEqual(fresh, copy);
    });
  }

  it('a compacted passage keeps its id, address, title, heading and first words, and the note says how to read it again', () => {
    const { ledger, messages, results } = transcript(nativeToolProtocol, 1);
    const text = compactResultText(textOf(messages[results[0]]), ledger);
    assert.equal(
      text,
      `${COMPACTED_NOTE}\n` +
        'E1 documentId=101 chunk=1 "Doc 1" › History › Part 1: Passage 1 says that the harbour office opened in year 1901. It…\n\n' +
        'E2 documentId=102 chunk=2 "Doc 2" › History › Part 2: Passage 2 says that the harbour office opened in year 1902. It…',
    );
  });

  it('the ledger keeps the full text: citations of compacted evidence resolve, and a compacted passage is shown again', () => {
    const { ledger, messages, results } = transcript(nativeToolProtocol, 3);
    assert.ok(ledger.wasShownWhole('E1'));
    compactTranscript(messages, results, new Set(), 1, ledger);
    assert.ok(!ledger.wasShownWhole('E1'), 'no longer in the transcript: not referred to as shown above');
    assert.ok(ledger.wasShownWhole('E5'), 'the newest round is still shown');
    const checked = checkCitations('It opened in 1901 [E1].', ledger);
    assert.deepEqual(checked.unresolved, []);
    assert.equal(checked.citations[0].id, 'E1');
    assert.equal(ledger.get('E1')?.chunk.text, chunk(1).text);
    const again = formatEvidence([ledger.get('E1')!], 1200, { shown: ledger });
    assert.ok(!again.includes('shown=above') && again.includes('harbour office opened in year 1901'));
  });

  it('a budget that is not a positive number of tokens is bad input', async () => {
    for (const contextTokens of [0, -5, Number.NaN])
      await assert.rejects(runAgent({ knowledge: {} as never, question: 'q', model: {} as never, contextTokens }), {
        code: 'bad-input',
        message: /the context budget must be a positive number of tokens/,
      });
  });
});
