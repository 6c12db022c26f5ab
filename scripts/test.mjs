// `npm test`: everything CI runs, each thing once. Type-check once (incremental: `npm run
// typecheck`), check formatting and lint (Biome), check the layers, build dist/ without checking again (the CLI tests spawn the built
// binary), then run every test file with node:test, two at a time (the machines have two cores),
// sharing one cache folder for the run (test/helpers.ts builds the regression index there once).
// `node scripts/test.mjs test/a.test.ts …` runs only those files, after the same steps.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs one step and returns its exit status (0 when it passed), saying on stderr how it went and how long it took. */
function run(label, command, args, env = process.env) {
  const started = Date.now();
  const { status, signal } = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`npm test: ${label} ${status === 0 ? 'passed' : `failed${signal ? ` (${signal})` : ''}`} in ${seconds} s\n`);
  return status ?? 1;
}

function step(label, command, args) {
  const status = run(label, command, args);
  if (status !== 0) process.exit(status);
}

function testFiles() {
  const files = [];
  for (const dir of ['src', 'test']) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.test.ts')) files.push(relative(root, join(entry.parentPath ?? entry.path, entry.name)));
    }
  }
  return files.sort();
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
step('type-check', npm, ['run', '-s', 'typecheck']);
step('format and lint (Biome)', npm, ['run', '-s', 'lint']);
step('layers', npm, ['run', '-s', 'lint:layers']);
step('build', process.execPath, [join(root, 'scripts', 'build.mjs'), '--no-check']);

const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles();
const cache = mkdtempSync(join(tmpdir(), 'dossier-test-cache-'));
const status = run(`the tests (${files.length} files)`, process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  ...process.env,
  DOSSIER_TEST_CACHE: cache,
});
rmSync(cache, { recursive: true, force: true });
process.exit(status);
