import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { main } from '../src/cli/main.ts';
import { runCli, tempDir } from './helpers.ts';

const temp = tempDir('dossier-cli-python-');
after(() => temp.cleanup());

function script(name: string, code: string): string {
  const path = join(temp.dir, name);
  writeFileSync(path, code);
  return path;
}

/** main() with code on stdin (runCli has no stdin). */
async function withStdin(args: string[], input: string) {
  let stdout = '';
  let stderr = '';
  const status = await main(args, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { ...process.env, NO_COLOR: '1' },
    stdin: Readable.from([input]),
  });
  return { status, stdout, stderr };
}

describe('dossier python', () => {
  it('--json prints {stdout, stderr, error, ms} and exits 0', async () => {
    const result = await runCli([
      'python',
      script('ok.py', 'import sys\nprint(sum(range(11)))\nprint("note", file=sys.stderr)\n'),
      '--json',
    ]);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(Object.keys(result.json).sort(), ['error', 'ms', 'stderr', 'stdout']);
    assert.equal(result.json.stdout, '55\n');
    assert.equal(result.json.stderr, 'note\n');
    assert.equal(result.json.error, null);
    assert.equal(typeof result.json.ms, 'number');
  });

  it('- reads the code from stdin', async () => {
    const result = await withStdin(['python', '-', '--json'], 'print(6 * 7)\n');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).stdout, '42\n');
  });

  it('human output: stdout, then stderr and the error on stderr; a Python error exits 1', async () => {
    const result = await runCli(['python', script('fail.py', 'print("partial")\nraise ValueError("nope")\n')]);
    assert.equal(result.status, 1);
    assert.equal(result.stdout, 'partial\n');
    assert.match(result.stderr, /Traceback[\s\S]*ValueError: nope\n[\s\S]*dossier python: ValueError: nope\n$/);
  });

  it('--json with a Python error still prints the result and exits 1; --timeout-ms is enforced', async () => {
    const result = await runCli(['python', script('loop.py', 'while True:\n    pass\n'), '--json', '--timeout-ms', '1000']);
    assert.equal(result.status, 1);
    assert.equal(result.json.error, 'TimeoutError: the code ran longer than 1000 ms');
  });

  it('a bad command line exits 2 with one line: missing file, no file, bad numbers', async () => {
    const missing = await runCli(['python', join(temp.dir, 'nope.py')]);
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, `dossier: cannot read "${join(temp.dir, 'nope.py')}": no such file\n`);
    const none = await runCli(['python']);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /python needs a file/);
    for (const bad of [
      ['--timeout-ms', 'soon'],
      ['--timeout-ms', '0'],
      ['--memory-mb', '1'],
      ['--memory-mb', '1.5'],
    ]) {
      const result = await runCli(['python', script('x.py', 'print(1)'), ...bad, '--json']);
      assert.equal(result.status, 2, bad.join(' '));
      assert.match(result.json.error.message, new RegExp(`^${bad[0]} must be an integer`));
      assert.equal(result.stderr.split('\n').length, 2);
    }
  });
});
