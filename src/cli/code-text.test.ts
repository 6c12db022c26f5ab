import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pc from 'picocolors';
import { CodeBlockFormatter, formatCodeBlocks, passagePreview } from './code-text.ts';

const plain = pc.createColors(false);
const colour = pc.createColors(true);
/** An ANSI escape sequence (a colour on or off). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is what is looked for
const ESCAPE = /\x1b\[\d+m/g;

/** What the formatter prints when `text` arrives in pieces of `size` characters. */
function streamed(text: string, size: number, colors = plain): string {
  const formatter = new CodeBlockFormatter(colors);
  let out = '';
  for (let at = 0; at < text.length; at += size) out += formatter.push(text.slice(at, at + size));
  return out + formatter.end();
}

const ANSWER = [
  'Mount the static files:',
  '```python',
  'routes = [',
  '    Mount("/static", app=StaticFiles(directory="static")),',
  '',
  ']',
  '``` [E1]',
  'Use `Mount` for a folder. [E2]',
].join('\n');

describe('the CLI shows code as code', () => {
  it('an answer: fence lines go, the code is indented and verbatim, the citations after the block stay', () => {
    assert.equal(
      formatCodeBlocks(ANSWER, plain),
      [
        'Mount the static files:',
        '',
        '    routes = [',
        '        Mount("/static", app=StaticFiles(directory="static")),',
        '',
        '    ]',
        '[E1]',
        '',
        'Use `Mount` for a folder. [E2]',
      ].join('\n'),
    );
  });

  it('streamed in any pieces, the answer prints the same as at once', () => {
    const whole = formatCodeBlocks(ANSWER, plain);
    for (const size of [1, 2, 3, 7, 1000]) assert.equal(streamed(ANSWER, size), whole, `pieces of ${size}`);
    const coloured = formatCodeBlocks(ANSWER, colour);
    assert.equal(streamed(ANSWER, 1, colour).replace(ESCAPE, ''), whole);
    assert.ok(coloured.includes('    \x1b[36m    Mount("/static"'), 'code lines in colour when colour is on');
    assert.doesNotMatch(formatCodeBlocks(ANSWER, plain), ESCAPE);
  });

  it('prose streams as it comes: only a line that may be a fence is held', () => {
    const formatter = new CodeBlockFormatter(plain);
    assert.equal(formatter.push('The answer'), 'The answer');
    assert.equal(formatter.push(' is 4.\n``'), ' is 4.\n');
    assert.equal(formatter.push('x` here'), '``x` here');
    assert.equal(formatter.push('\n```'), '\n');
    assert.equal(formatter.push('\ncode'), '\n    code');
    assert.equal(formatter.end(), '');
  });

  it('text without fences is unchanged, an unclosed fence stays code to the end', () => {
    assert.equal(formatCodeBlocks('A.\n\n- b `c`\n', plain), 'A.\n\n- b `c`\n');
    assert.equal(formatCodeBlocks('Run:\n\n~~~\nmake all', plain), 'Run:\n\n    make all');
  });

  it('a search hit: prose collapsed, code lines indented and whole, cuts marked', () => {
    const passage = 'Install it\nwith pip:\n\n```bash\npip install x\npip   check\n```\n\nThen import it.';
    assert.deepEqual(passagePreview(passage, plain), ['Install it with pip:', '    pip install x', '    pip   check', 'Then import it.']);
    assert.deepEqual(passagePreview(passage, plain, { proseChars: 12, codeLines: 1 }), ['Install it w…', '    pip install x', '    …']);
    assert.deepEqual(passagePreview('no code here', plain), ['no code here']);
  });
});
