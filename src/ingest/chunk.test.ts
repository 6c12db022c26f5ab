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

  it('lays code out as a Markdown fence with its language, verbatim', () => {
    const { text, chunks } = chunkBlocks([
      { type: 'text', text: 'Install it with:' },
      { type: 'code', language: 'console', text: '$ pip install httpx' },
      { type: 'code', text: 'def f():\n    return 1' },
    ]);
    assert.equal(text, 'Install it with:\n\n```console\n$ pip install httpx\n```\n\n```\ndef f():\n    return 1\n```');
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0].text, text);
  });

  it('fences code that holds a fence line with a longer fence', () => {
    const { text } = chunkBlocks([{ type: 'code', language: 'md', text: '```python\nx = 1\n```' }]);
    assert.equal(text, '````md\n```python\nx = 1\n```\n````');
  });

  it('splits a code block bigger than a chunk between lines, each piece fenced again', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `    value_${i} = compute(${i}, "item")`);
    const { text, chunks } = chunkBlocks([{ type: 'code', language: 'python', text: lines.join('\n') }], { maxTokens: 64 });
    assert.ok(chunks.length > 3);
    const seen: string[] = [];
    for (const chunk of chunks) {
      assert.equal(text.slice(chunk.charStart, chunk.charEnd), chunk.text);
      assert.ok(chunk.tokenCount <= 64, `chunk of ${chunk.tokenCount} tokens`);
      const pieces = chunk.text.split('\n\n');
      for (const piece of pieces) {
        const body = /^```python\n([\s\S]*)\n```$/.exec(piece);
        assert.ok(body, `every piece is fenced: ${JSON.stringify(piece.slice(0, 80))}`);
        seen.push(...body[1].split('\n'));
      }
    }
    assert.deepEqual(seen, lines, 'every line whole, in order, indentation kept');
  });

  it("keeps the paragraph that introduces a code block in the code's chunk", () => {
    const prose = (n: number) => Array.from({ length: 6 }, (_, s) => sentence(n * 6 + s)).join(' ');
    const code = Array.from({ length: 6 }, (_, i) => `client.get("/items/${i}")`).join('\n');
    const blocks: Block[] = [
      { type: 'text', text: prose(0) },
      { type: 'text', text: prose(1) },
      { type: 'text', text: 'To fetch the items, call the client:' },
      { type: 'code', language: 'python', text: code },
      { type: 'text', text: prose(2) },
    ];
    const tokens = (b: Block) => countTokens(b.text);
    // Sized so the two paragraphs and the intro fill a chunk, and the code would start the next one.
    const maxTokens = tokens(blocks[0]) + tokens(blocks[1]) + tokens(blocks[2]) + 5;
    const { chunks } = chunkBlocks(blocks, { maxTokens, overlapTokens: 0 });
    const withCode = chunks.find((c) => c.text.includes('```python'));
    assert.ok(withCode?.text.startsWith('To fetch the items, call the client:\n\n```python\n'), withCode?.text);
    assert.ok(!chunks[0].text.includes('To fetch the items'), 'the intro left the chunk before it');
    // When the two cannot fit together, packing is as before.
    const tight = chunkBlocks(blocks, { maxTokens: countTokens(code) + 8, overlapTokens: 0 }).chunks;
    assert.ok(tight.every((c) => c.tokenCount <= countTokens(code) + 8));
  });

  it('returns nothing for blocks without text', () => {
    assert.deepEqual(chunkBlocks([{ type: 'text', text: '   ' }]).chunks, []);
  });
});
