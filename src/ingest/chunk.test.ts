import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens } from '../text/tokenize.ts';
import { chunkBlocks } from './chunk.ts';
import type { Block } from './types.ts';

const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`;

describe('chunkBlocks', () => {
  it('keeps the heading path and never crosses a heading', () => {
    const blocks: Block[] = [
      { type: 'heading', level: 1, text: 'Guide' },
      { type: 'text', text: 'Intro paragraph.' },
      { type: 'heading', level: 2, text: 'Install' },
      { type: 'text', text: 'Run npm install.' },
      { type: 'heading', level: 2, text: 'Use' },
      { type: 'text', text: 'Run the CLI.' },
      { type: 'heading', level: 1, text: 'Appendix' },
      { type: 'text', text: 'Extra notes.' },
    ];
    const { chunks } = chunkBlocks(blocks);
    assert.deepEqual(
      chunks.map((c) => [c.headingPath, c.text]),
      [
        [['Guide'], 'Intro paragraph.'],
        [['Guide', 'Install'], 'Run npm install.'],
        [['Guide', 'Use'], 'Run the CLI.'],
        [['Appendix'], 'Extra notes.'],
      ],
    );
  });

  it('sizes chunks in tokens and each chunk is the exact slice of the document text it cites', () => {
    const paragraphs: Block[] = Array.from({ length: 30 }, (_, p) => ({
      type: 'text',
      text: Array.from({ length: 5 }, (_, s) => sentence(p * 5 + s)).join(' '),
      page: 1 + Math.floor(p / 10),
    }));
    const { text, chunks } = chunkBlocks(paragraphs, { maxTokens: 200, overlapTokens: 0 });
    assert.ok(chunks.length > 5);
    for (const chunk of chunks) {
      assert.equal(text.slice(chunk.charStart, chunk.charEnd), chunk.text);
      assert.ok(chunk.tokenCount <= 200, `chunk of ${chunk.tokenCount} tokens`);
      assert.equal(countTokens(chunk.text), chunk.tokenCount);
    }
    assert.deepEqual([chunks[0].page, chunks.at(-1)!.page], [1, 3]);
    assert.ok(
      chunks.some((c) => c.pageEnd !== undefined),
      'a chunk spanning pages records where it ends',
    );
    // Every paragraph is in some chunk.
    for (const block of paragraphs) assert.ok(chunks.some((c) => c.text.includes(block.text)));
  });

  it('splits an oversized paragraph at sentences, with overlap between neighbours', () => {
    const paragraph = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const { chunks } = chunkBlocks([{ type: 'text', text: paragraph }], { maxTokens: 60, overlapTokens: 15 });
    assert.ok(chunks.length > 3);
    for (const chunk of chunks) assert.match(chunk.text, /^Sentence number \d+ .*\.$/s, 'chunks start and end at sentence boundaries');
    for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i].charStart < chunks[i - 1].charEnd, 'neighbours overlap');
  });

  it('cuts a giant sentence without whitespace breaks into word windows', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');
    const { chunks } = chunkBlocks([{ type: 'text', text: words }], { maxTokens: 100 });
    assert.equal(chunks.length, 10);
    assert.ok(chunks.every((c) => c.tokenCount <= 100));
  });

  it('returns nothing for blocks without text', () => {
    assert.deepEqual(chunkBlocks([{ type: 'text', text: '   ' }]).chunks, []);
  });
});
