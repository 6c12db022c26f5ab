// Ingestion throughput on PostgreSQL through the durable queue, with 1, 2, 4… `dossier worker` processes.
// Usage: npm run bench:ingest-workers -- --db postgres://…/any_db [--mb 50] [--files 2000] [--workers 1,2,4]
//          [--files-per-job 50] [--bin bin/dossier.js] [--baseline] [--keep] [--json]
// For each worker count: a fresh database (CREATE DATABASE on the cluster of --db), every file enqueued
// (untimed), then N worker processes are spawned and the clock runs until no job is queued or running.
// MB/s = corpus bytes / those seconds, so worker start-up (≈ 1 s) is included, as in a real deployment.
// Jobs hold --files-per-job files each: `dossier ingest DIR --queue` makes ONE job, which one worker
// would take alone. The workers run the built CLI (bin/dossier.js → dist/), so `npm run build` first.
// --baseline also times one `dossier ingest DIR` process without the queue, into PostgreSQL and into
// an SQLite file, over the same corpus: what the queue costs, and what the embedded store does.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openServerState } from '../src/server/state/index.ts';
import { SyntheticText } from './corpus.ts';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    mb: { type: 'string', default: '50' },
    files: { type: 'string', default: '2000' },
    workers: { type: 'string', default: '1,2,4' },
    'files-per-job': { type: 'string', default: '50' },
    bin: { type: 'string' },
    baseline: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const positive = (name: string, text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer, got "${text}"`);
  return value;
};
const adminUrl = values.db ?? process.env.DOSSIER_TEST_PG ?? process.env.DOSSIER_DB;
if (!adminUrl || !/^postgres(ql)?:\/\//.test(adminUrl))
  throw new Error('--db postgres://… (or $DOSSIER_TEST_PG) is needed: a database on the cluster to create the benchmark databases from');
const megabytes = positive('mb', values.mb!);
const fileCount = positive('files', values.files!);
const perJob = positive('files-per-job', values['files-per-job']!);
const workerCounts = values.workers!.split(',').map((n) => positive('workers', n.trim()));
const bin = values.bin ?? fileURLToPath(new URL('../bin/dossier.js', import.meta.url));
if (!existsSync(bin)) throw new Error(`no CLI at ${bin}`);

const log = (line: string) => process.stderr.write(`bench:ingest-workers: ${line}\n`);
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Markdown reports of ~`bytes / count` each: a title, then sections of 3–5 Zipf-text paragraphs. */
function writeCorpus(dir: string, count: number, bytes: number): { paths: string[]; bytes: number } {
  mkdirSync(dir, { recursive: true });
  const text = new SyntheticText(11);
  const target = bytes / count;
  const paths: string[] = [];
  let total = 0;
  for (let n = 0; n < count; n++) {
    let body = `# Report ${n}: ${text.sentence().slice(0, -1)}\n`;
    for (let section = 1; Buffer.byteLength(body) < target; section++) {
      body += `\n## ${section}. ${text.sentence().slice(0, -1)}\n`;
      const paragraphs = 3 + Math.floor(text.random() * 3);
      for (let p = 0; p < paragraphs && Buffer.byteLength(body) < target; p++) body += `\n${text.paragraph()}\n`;
    }
    const path = join(dir, `report-${String(n).padStart(5, '0')}.md`);
    writeFileSync(path, body);
    paths.push(path);
    total += Buffer.byteLength(body);
  }
  return { paths, bytes: total };
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** CPU seconds (user + system, all threads) of a live process, from /proc; undefined off Linux. */
function cpuSeconds(pid: number, withReapedChildren = false): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command: utime stime cutime cstime are fields 14–17 (1-based).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (withReapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / 100; // USER_HZ is 100 on every Linux we run on
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of the whole PostgreSQL cluster (postmaster, its live backends, and the backends that
 * have exited, through the postmaster's cutime); undefined when the cluster is not on this machine.
 */
function clusterCpu(postmaster: number | undefined): number | undefined {
  if (postmaster === undefined) return undefined;
  let total = cpuSeconds(postmaster, true);
  if (total === undefined) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === postmaster) total += cpuSeconds(Number(entry)) ?? 0;
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

async function postmasterPid(admin: pg.Client): Promise<number | undefined> {
  try {
    const { rows } = await admin.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'data_directory'");
    return Number(readFileSync(join(rows[0].setting, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined; // a remote cluster, or a data directory we may not read
  }
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  stdout: string[];
}

function startWorker(db: string): Worker {
  const child = spawn(process.execPath, [bin, 'worker', '--db', db, '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const stdout: string[] = [];
  child.stdout!.on('data', (data: Buffer) => stdout.push(data.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (data: Buffer) => {
      seen += data.toString();
      if (seen.includes('waiting for jobs')) resolve();
      // A failed job (or a claim or heartbeat that failed) spoils the measurement: show why at once.
      for (const line of data.toString().split('\n'))
        if (/\) failed:|could not|heartbeat failed/.test(line)) log(`worker ${child.pid}: ${line}`);
    });
    child.once('exit', (code) => reject(new Error(`worker ${child.pid} exited (${code}) before it was ready: ${seen.trim()}`)));
  });
  ready.catch(() => {});
  return { child, ready, stdout };
}

async function stopWorker(worker: Worker): Promise<{ finished: number; failed: number }> {
  const { child } = worker;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM'); // `dossier worker` stops claiming, finishes nothing new, prints its --json summary
    await exited;
  }
  const summary = JSON.parse(worker.stdout.join('') || '{}') as { finished?: number; failed?: number };
  return { finished: summary.finished ?? 0, failed: summary.failed ?? 0 };
}

/** One measurement: a fresh database, the corpus enqueued as jobs of `perJob` files, N workers until drained. */
async function measure(admin: pg.Client, postmaster: number | undefined, workers: number, paths: string[], bytes: number) {
  const name = `dossier_bench_w${workers}_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`); // from template1, which has the vector extension
  const db = databaseUrl(adminUrl!, name);
  // Enqueued through the same library call as `dossier ingest --queue` (one job per batch of files:
  // `ingest DIR --queue` makes ONE job, which only one worker could take).
  const state = await openServerState(db);
  const jobs: string[] = [];
  try {
    const user = await state.localUser();
    for (let i = 0; i < paths.length; i += perJob)
      jobs.push((await state.queue()!.enqueueJob(user.id, 'bench', { paths: paths.slice(i, i + perJob) })).id);
  } finally {
    await state.close();
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  const running: Worker[] = [];
  try {
    const cpuBefore = clusterCpu(postmaster);
    const started = performance.now();
    for (let n = 0; n < workers; n++) running.push(startWorker(db));
    const exited = Promise.race(
      running.map(
        (w) =>
          new Promise<never>((_, reject) =>
            w.child.once('exit', (code) => reject(new Error(`worker ${w.child.pid} exited early (${code})`))),
          ),
      ),
    );
    exited.catch(() => {});
    await Promise.race([Promise.all(running.map((w) => w.ready)), exited]);
    const readySeconds = (performance.now() - started) / 1000;
    let lastLog = 0;
    let open = jobs.length;
    while (open > 0) {
      await Promise.race([sleep(100), exited]);
      const { rows } = await client.query<{ open: string; failed: string; documents: string }>(
        "SELECT count(*) FILTER (WHERE status IN ('queued', 'running')) AS open, count(*) FILTER (WHERE status = 'failed') AS failed, (SELECT count(*) FROM documents) AS documents FROM srv_jobs",
      );
      open = Number(rows[0].open);
      if (Number(rows[0].failed) > 0) throw new Error(`${rows[0].failed} jobs failed`);
      if (performance.now() - lastLog > 5000 || open === 0) {
        lastLog = performance.now();
        log(
          `${workers} worker(s): ${jobs.length - open}/${jobs.length} jobs, ${rows[0].documents}/${paths.length} documents, ${round((performance.now() - started) / 1000, 1)} s`,
        );
      }
    }
    const seconds = (performance.now() - started) / 1000;
    // Read before the workers exit: a process's counters go with it.
    const workerCpu = running.reduce((sum, w) => sum + (cpuSeconds(w.child.pid!) ?? NaN), 0);
    const cpuAfter = clusterCpu(postmaster);
    const summaries = await Promise.all(running.splice(0).map(stopWorker));
    const counts = (
      await client.query<{ documents: string; chunks: string; duplicates: string }>(
        'SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks, (SELECT count(*) - count(DISTINCT source) FROM documents) AS duplicates',
      )
    ).rows[0];
    return {
      workers,
      seconds: round(seconds),
      mbPerSecond: round(bytes / 1_000_000 / seconds),
      documents: Number(counts.documents),
      chunks: Number(counts.chunks),
      duplicates: Number(counts.duplicates),
      jobs: jobs.length,
      jobsFinished: summaries.reduce((sum, s) => sum + s.finished, 0),
      readySeconds: round(readySeconds),
      // Where the CPU went: busy cores = CPU seconds / wall seconds (this machine's cores are the ceiling).
      workerCpuSeconds: Number.isFinite(workerCpu) ? round(workerCpu, 1) : undefined,
      postgresCpuSeconds: cpuBefore !== undefined && cpuAfter !== undefined ? round(cpuAfter - cpuBefore, 1) : undefined,
    };
  } finally {
    await Promise.all(running.map(stopWorker));
    await client.end();
    if (!values.keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** One `dossier ingest DIR --db …` process, no queue: wall seconds from spawn to exit, with its report. */
async function direct(store: 'sqlite' | 'postgres', admin: pg.Client, files: string, bytes: number) {
  const name = `dossier_bench_direct_${process.pid}`;
  let db = join(dir, 'direct.db');
  if (store === 'postgres') {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    db = databaseUrl(adminUrl!, name);
  }
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, 'ingest', files, '--db', db, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const out: string[] = [];
    child.stdout!.on('data', (data: Buffer) => out.push(data.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`dossier ingest --db ${store} exited with ${code}`);
    const report = JSON.parse(out.join('')) as { documents: number; chunks: number };
    return {
      store,
      seconds: round(seconds),
      mbPerSecond: round(bytes / 1_000_000 / seconds),
      documents: report.documents,
      chunks: report.chunks,
    };
  } finally {
    if (store === 'postgres' && !values.keep) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(join(dir, 'direct.db'), { force: true });
    for (const suffix of ['-wal', '-shm']) rmSync(join(dir, `direct.db${suffix}`), { force: true });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-workers-'));
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
try {
  const corpus = writeCorpus(join(dir, 'files'), fileCount, megabytes * 1_000_000);
  const mb = round(corpus.bytes / 1_000_000);
  log(`${corpus.paths.length} Markdown files, ${mb} MB, jobs of ${perJob} files; workers ${workerCounts.join(', ')}`);
  const postmaster = await postmasterPid(admin);
  const results = [];
  for (const workers of workerCounts) {
    const result = await measure(admin, postmaster, workers, corpus.paths, corpus.bytes);
    log(`${workers} worker(s): ${result.mbPerSecond} MB/s (${result.seconds} s; ${result.documents} documents, ${result.chunks} chunks)`);
    results.push(result);
  }
  const baseline = [];
  if (values.baseline) {
    for (const store of ['postgres', 'sqlite'] as const) {
      log(`one \`dossier ingest\` process into ${store}, no queue…`);
      const result = await direct(store, admin, join(dir, 'files'), corpus.bytes);
      log(`${store}, no queue: ${result.mbPerSecond} MB/s (${result.seconds} s; ${result.documents} documents, ${result.chunks} chunks)`);
      baseline.push(result);
    }
  }
  // Exactly once: every worker count (and a plain ingest) must end with the same documents and chunks, no source twice.
  const [first] = results;
  const consistent =
    results.every(
      (r) => r.documents === first.documents && r.chunks === first.chunks && r.duplicates === 0 && r.documents === corpus.paths.length,
    ) && baseline.every((b) => b.documents === first.documents && b.chunks === first.chunks);
  if (!consistent) log('WARNING: document or chunk counts differ between worker counts (or a source was committed twice)');
  if (values.json)
    console.log(
      JSON.stringify({
        mb,
        files: corpus.paths.length,
        filesPerJob: perJob,
        consistent,
        results,
        ...(baseline.length ? { baseline } : {}),
      }),
    );
  else {
    console.log(`${corpus.paths.length} files, ${mb} MB, jobs of ${perJob} files`);
    console.log('workers  seconds   MB/s  documents  chunks  worker CPU s  postgres CPU s');
    for (const r of results) {
      console.log(
        `${String(r.workers).padStart(7)}  ${String(r.seconds).padStart(7)}  ${String(r.mbPerSecond).padStart(5)}  ${String(r.documents).padStart(9)}  ${String(r.chunks).padStart(6)}  ${String(r.workerCpuSeconds ?? '-').padStart(12)}  ${String(r.postgresCpuSeconds ?? '-').padStart(14)}`,
      );
    }
    for (const b of baseline)
      console.log(
        `one \`dossier ingest\` process into ${b.store}, no queue: ${b.seconds} s, ${b.mbPerSecond} MB/s (${b.documents} documents, ${b.chunks} chunks)`,
      );
    console.log(consistent ? 'same documents and chunks for every worker count' : 'COUNTS DIFFER');
  }
  if (!consistent) process.exitCode = 1;
} finally {
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
