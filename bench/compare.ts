// Side by side: the ingest and query benchmarks of an older commit and of this tree, alternated in
// one run on one machine, so both see the same load. The old commit is checked out once into
// .bench/old-<ref> (a git worktree sharing this repo's node_modules) and runs its own bench scripts.
// Usage: node --import tsx bench/compare.ts [--ref <commit> | --old-tree DIR] [--rounds 3] [--chunks 100000] [--json]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { argValue } from './corpus.ts';

const ROOT = resolve(import.meta.dirname, '..');
const refIndex = process.argv.indexOf('--ref');
const ref = refIndex === -1 ? '14f0cf7' : process.argv[refIndex + 1];
const rounds = argValue('rounds', 3);
const chunks = argValue('chunks', 100_000);
const treeIndex = process.argv.indexOf('--old-tree'); // an existing checkout of the old commit
const old = treeIndex === -1 ? join(ROOT, '.bench', `old-${ref}`) : resolve(process.argv[treeIndex + 1]);

if (!existsSync(old)) {
  execFileSync('git', ['worktree', 'add', '--detach', old, ref], { cwd: ROOT, stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(old, 'node_modules'), 'dir');
}

function bench(tree: string, script: string, args: string[]): Record<string, number> {
  const result = spawnSync('npm', ['run', '-s', script, '--', ...args, '--json'], {
    cwd: tree,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`${script} in ${tree} failed`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const runs: Record<string, Record<string, number[]>> = { old: {}, new: {} };
const record = (side: 'old' | 'new', name: string, value: number) => (runs[side][name] ??= []).push(value);
for (let round = 0; round < rounds; round++) {
  for (const [side, tree] of [
    ['old', old],
    ['new', ROOT],
  ] as const) {
    record(side, 'ingestMBps', bench(tree, 'bench:ingest', []).megabytesPerSecond);
    for (const mode of ['hybrid', 'fulltext', 'vector']) {
      const query = bench(tree, 'bench:query', ['--chunks', String(chunks), '--mode', mode]);
      record(side, `${mode}P50Ms`, query.p50Ms);
      record(side, `${mode}P99Ms`, query.p99Ms);
    }
  }
}
const summary = Object.fromEntries(
  Object.keys(runs.new).map((name) => {
    const before = median(runs.old[name]);
    const after = median(runs.new[name]);
    return [name, { old: before, new: after, change: `${(((after - before) / before) * 100).toFixed(1)}%` }];
  }),
);
const result = { ref, rounds, chunks, ...summary };
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else console.table(summary);
