import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitCodeBlocks, splitInlineCode } from './code-blocks.ts';

describe('splitCodeBlocks', () => {
  it('reads a chunk with an introducing sentence and a fenced python block', () => {
    const text = 'Install the client and connect:\n\n```python\nclient = Client("x")\n\n    client.close()\n```\n\nThat is all.';
    assert.deepEqual(splitCodeBlocks(text), [
      { kind: 'prose', text: 'Install the client and connect:' },
      { kind: 'code', language: 'python', text: 'client = Client("x")\n\n    client.close()' },
      { kind: 'prose', text: 'That is all.' },
    ]);
  });

  it('keeps citation markers after a closing fence, and a longer fence holds a shorter one', () => {
    assert.deepEqual(splitCodeBlocks('````md\n```\ninner\n```\n```` [E1, E2]\nNext. [E3]'), [
      { kind: 'code', language: 'md', text: '```\ninner\n```', citations: '[E1, E2]' },
      { kind: 'prose', text: 'Next. [E3]' },
    ]);
  });

  it('an indented fence (a step of a list) loses its indentation from its lines; tildes fence too', () => {
    assert.deepEqual(splitCodeBlocks('1. Run it:\n   ~~~bash\n   make\n     -j2\n   ~~~'), [
      { kind: 'prose', text: '1. Run it:' },
      { kind: 'code', language: 'bash', text: 'make\n  -j2' },
    ]);
  });

  it('an unclosed fence runs to the end; text after the closing fence that is not markers does not close it', () => {
    assert.deepEqual(splitCodeBlocks('```\na\n``` not a close\nb'), [{ kind: 'code', text: 'a\n``` not a close\nb' }]);
  });

  it('text without fences is one prose block; inline triple backticks are not a fence', () => {
    assert.deepEqual(splitCodeBlocks('Use ```x``` here.\nSecond line.'), [{ kind: 'prose', text: 'Use ```x``` here.\nSecond line.' }]);
    assert.deepEqual(splitCodeBlocks(''), []);
  });
});

describe('splitInlineCode', () => {
  it('finds code spans by matching backtick runs, leaving unmatched ones as text', () => {
    assert.deepEqual(splitInlineCode("Call `Route('/users/{username}', user)` then `` a`b `` and a lone ` tick."), [
      { code: false, text: 'Call ' },
      { code: true, text: "Route('/users/{username}', user)" },
      { code: false, text: ' then ' },
      { code: true, text: 'a`b' },
      { code: false, text: ' and a lone ` tick.' },
    ]);
    assert.deepEqual(splitInlineCode('no code'), [{ code: false, text: 'no code' }]);
  });
});
