import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../src/cli/main.ts';
import { splitCodeBlocks } from '../src/protocol/code-blocks.ts';
import { runCli, tempDir } from './helpers.ts';

const CODE = ['import quillfeather as qf', 'qf.spark([3, 1, 4],   width=40)'];
const DOC = `# Quillfeather sparklines

Quillfeather draws small charts in a terminal.

## Drawing a sparkline

To draw a sparkline, call the spark function with your values:

\`\`\`python
${CODE.join('\n')}
\`\`\`

The width is in characters.
`;

/** The CLI in this process on a terminal-like stdout (isTTY), with `env` as the whole environment. */
async function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  let stdout = '';
  await main(args, { stdout: { write: (chunk: string) => (stdout += chunk), isTTY: true }, stderr: { write: () => true }, env });
  return stdout;
}

describe('the CLI shows code as code', () => {
  const { dir, cleanup } = tempDir();
  const db = join(dir, 'index.db');
  before(async () => {
    writeFileSync(join(dir, 'quillfeather.md'), DOC);
    const ingest = await runCli(['ingest', join(dir, 'quillfeather.md'), '--db', db, '--json']);
    assert.equal(ingest.status, 0, ingest.stderr);
  });
  after(cleanup);

  it('search: a hit shows its code block indented under its prose, lines verbatim, no fence lines; --json keeps the text', async () => {
    const human = await runCli(['search', 'draw a sparkline', '--db', db, '--k', '1']);
    assert.equal(human.status, 0, human.stderr);
    const lines = human.stdout.split('\n');
    const at = lines.indexOf('   To draw a sparkline, call the spark function with your values:');
    assert.ok(at > 0, human.stdout);
    assert.deepEqual(lines.slice(at + 1, at + 4), [...CODE.map((line) => `       ${line}`), '   The width is in characters.']);
    assert.doesNotMatch(human.stdout, /```/);
    const json = await runCli(['search', 'draw a sparkline', '--db', db, '--k', '1', '--json']);
    assert.ok(
      json.json.hits[0].text.includes(`\`\`\`python\n${CODE.join('\n')}\n\`\`\``),
      'the JSON text is the chunk text, fences and all',
    );
  });

  it('ask: the answer quotes the code as an indented block, citations kept; --json has the answer as written', async () => {
    const question = ['ask', 'How do I draw a sparkline with Quillfeather?', '--db', db];
    const json = await runCli([...question, '--json']);
    assert.equal(json.status, 0, json.stderr);
    const quoted = splitCodeBlocks(json.json.answer).filter((block) => block.kind === 'code');
    assert.ok(quoted.length > 0, `the offline reader answers this how-to with its code block: ${json.json.answer}`);
    assert.match(json.json.answer, /^```/m, 'the JSON answer keeps its fences');
    const human = await runCli(question);
    assert.equal(human.status, 0, human.stderr);
    const answer = human.stdout.slice(0, human.stdout.indexOf('\nSources'));
    assert.doesNotMatch(answer, /```/);
    for (const line of quoted.flatMap((block) => block.text.split('\n')).filter(Boolean))
      assert.ok(answer.split('\n').includes(`    ${line}`), `"    ${line}" in:\n${answer}`);
    assert.ok(answer.includes(`    ${CODE[1]}`), 'the code line exactly, its spacing kept');
    for (const id of json.json.citations.map((c: { id: string }) => c.id)) assert.ok(answer.includes(`[${id}]`), `[${id}] kept`);
  });

  it('colours code only on a terminal without NO_COLOR', async () => {
    const args = ['search', 'draw a sparkline', '--db', db, '--k', '1'];
    const base = { PATH: process.env.PATH ?? '', TERM: 'xterm' };
    assert.match(await onTerminal(args, base), new RegExp(String.raw`\x1b\[36m${CODE[0]}`));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is what is looked for
    assert.doesNotMatch(await onTerminal(args, { ...base, NO_COLOR: '1' }), /\x1b\[/);
  });
});
