// Golden outputs of the development sets (src/eval/golden.ts): checks every set against
// eval/golden/<set>.jsonl and prints each answer that moved; --write records the new answers.
//   npm run golden [-- --write] [-- --sets regression,docs-dev,…]
// A golden file changes only in a commit that says why its answers moved.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromEnv } from '../src/config/index.ts';
import { GOLDEN_SETS, goldenDiff, readGolden, writeGolden } from '../src/eval/golden.ts';

const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
};
const write = process.argv.includes('--write');
const wanted = argument('sets')?.split(',');
const unknown = wanted?.filter((name) => !GOLDEN_SETS.some((set) => set.name === name)) ?? [];
if (unknown.length) {
  console.error(`golden: unknown set ${unknown.join(', ')} (sets: ${GOLDEN_SETS.map((set) => set.name).join(', ')})`);
  process.exit(2);
}
const sets = GOLDEN_SETS.filter((set) => !wanted || wanted.includes(set.name));
const cacheDir = mkdtempSync(join(tmpdir(), 'dossier-golden-'));
process.on('exit', () => rmSync(cacheDir, { recursive: true, force: true }));
const dataDir = configFromEnv().dataDir;
let moved = 0;
for (const set of sets) {
  const missing = set.needs.filter((path) => !existsSync(join(dataDir, path)));
  if (missing.length) {
    console.error(`${set.name}: skipped, ${missing.map((path) => join(dataDir, path)).join(', ')} absent (set DOSSIER_DATA_DIR)`);
    continue;
  }
  const started = performance.now();
  let last = 0;
  const answers = await set.run({
    cacheDir,
    onProgress: (phase, done, total) => {
      if (performance.now() - last < 2000 && done !== total) return;
      last = performance.now();
      process.stderr.write(`${set.name}: ${phase} ${done}/${total}\n`);
    },
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const golden = readGolden(set.name);
  const diff = golden ? goldenDiff(golden, answers) : [`${set.name}: no golden file yet`];
  if (write) writeGolden(set.name, answers);
  if (diff.length) moved += diff.length;
  console.log(
    `${set.name}: ${answers.length} questions, ${diff.length ? `${diff.length} changes` : 'identical'} (${seconds} s)${write && diff.length ? ', written' : ''}`,
  );
  for (const line of diff) console.log(`  ${line}`);
}
process.exit(moved && !write ? 1 : 0);
