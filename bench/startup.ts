// Cold start-up of the built CLI: the median of N fresh processes (default 5) each for
// `dossier --version` and `dossier search` on the 100k-chunk index that bench/query.ts builds and
// caches in .bench/. Usage: npm run bench:startup -- [--runs 5] [--json]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { argValue, SyntheticText } from './corpus.ts';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'dossier.js');
const CHUNKS = 100_000;
const DB = join(ROOT, '.bench', `query-${CHUNKS}.db`);
const runs = argValue('runs', 5);

/** Runs an npm script with its output on stderr, so `--json` keeps stdout to one object. */
function npm(args: string[]): void {
  const result = spawnSync('npm', args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed`);
}

function dossier(args: string[]): { ms: number; stdout: string } {
  const started = performance.now();
  // A fresh plain `node` each time (no tsx: execArgv is not passed to child processes).
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`dossier ${args.join(' ')} exited ${result.status}: ${result.stderr.trim().split('\n')[0]}`);
  return { ms, stdout: result.stdout };
}

function medianMs(args: string[]): number {
  const times = Array.from({ length: runs }, () => dossier(args).ms).sort((a, b) => a - b);
  const middle = times.length >> 1;
  const median = times.length % 2 ? times[middle] : (times[middle - 1] + times[middle]) / 2;
  return Math.round(median * 10) / 10;
}

// The bin runs dist/: build it, so the figures are for the current sources.
npm(['run', '-s', 'build']);
if (!existsSync(DB)) npm(['run', '-s', 'bench:query', '--', '--chunks', String(CHUNKS), '--queries', '1']);

const query = new SyntheticText(99).query();
const chunks = (JSON.parse(dossier(['stats', '--db', DB, '--json']).stdout) as { chunks: number }).chunks;
const result = {
  versionMs: medianMs(['--version']),
  searchColdMs: medianMs(['search', query, '--db', DB, '--json']),
  chunks,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else
  console.log(
    `cold start, median of ${runs}: dossier --version ${result.versionMs} ms; dossier search on ${chunks} chunks ${result.searchColdMs} ms`,
  );
