// The Python sandbox's latency: cold = the first call on a new sandbox (worker + Pyodide start-up
// included), warm = trivial calls on the same warm interpreter. Usage:
// node --import tsx bench/python.ts [--calls 50]   → {coldStartMs, warmCallP50Ms, warmCallP99Ms, calls}
import { PythonSandbox } from '../src/research/python/index.ts';
import { argValue } from './corpus.ts';

const calls = argValue('calls', 50);
const round = (ms: number) => Math.round(ms * 100) / 100;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const sandbox = new PythonSandbox();
try {
  let started = performance.now();
  const first = await sandbox.runPython('print(1 + 1)');
  const coldStartMs = performance.now() - started;
  if (first.error !== null || first.stdout !== '2\n') throw new Error(`the first call failed: ${first.error ?? first.stdout}`);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    started = performance.now();
    const result = await sandbox.runPython(`x = ${i}\nprint(x * 2)`);
    times.push(performance.now() - started);
    if (result.stdout !== `${i * 2}\n`) throw new Error(`call ${i} printed ${JSON.stringify(result.stdout)}: ${result.error}`);
  }
  times.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      coldStartMs: round(coldStartMs),
      warmCallP50Ms: round(percentile(times, 50)),
      warmCallP99Ms: round(percentile(times, 99)),
      calls,
    }),
  );
} finally {
  await sandbox.close();
}
