import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, openAsBlob, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { runWorker, type WorkerOptions } from '../src/server/queue.ts';
import { openServerState, type ServerState } from '../src/server/state/index.ts';
import { backendDb, runCli, startCli, tempDir, parseFrames } from './helpers.ts';

// The durable ingestion queue on PostgreSQL: SKIP LOCKED claims (no job twice), leases that let a
// retry pick up a SIGKILLed worker's job without committing any document twice, and a server that
// only enqueues while a separate `dossier worker` ingests. The built binary is used where a process
// is killed or signalled (npm test builds first).

const SKIP = process.env.DOSSIER_TEST_PG
  ? false
  : 'DOSSIER_TEST_PG is unset: no PostgreSQL cluster for the queue tests (bash scripts/postgres-test-cluster.sh start)';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Markdown files with distinct content, so each is its own document. */
function writeFiles(dir: string, count: number, paragraphs = 2): string[] {
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, n) => {
    const path = join(dir, `note-${String(n).padStart(4, '0')}.md`);
    const body = Array.from(
      { length: paragraphs },
      (_, p) => `Buoy ${n} paragraph ${p}: salinity ${n * 7 + p} and temperature ${(n % 17) + p} were logged while the tide turned.`,
    ).join('\n\n');
    writeFileSync(path, `# Note ${n}\n\n${body}\n`);
    return path;
  });
}

/** Documents per source: every value must be 1 for "committed exactly once". */
async function countsBySource(dossier: Dossier): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const document of await dossier.listDocuments({ limit: 10_000 }))
    counts.set(document.source, (counts.get(document.source) ?? 0) + 1);
  return counts;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

describe('the PostgreSQL ingestion queue', { skip: SKIP }, () => {
  let place: Awaited<ReturnType<typeof backendDb>>;
  let dossier: Dossier;
  let state: ServerState;
  const children: ChildProcess[] = [];
  before(async () => {
    place = await backendDb('postgres');
    dossier = await createDossier({ db: place.db });
    state = await openServerState(place.db);
  });
  after(async () => {
    for (const child of children) await kill(child);
    await state?.close();
    await dossier?.close();
    await place?.cleanup();
  });

  it('two workers in parallel process every job exactly once', async () => {
    const queue = state.queue()!;
    assert.ok(queue, 'a PostgreSQL state has a queue');
    const user = await state.localUser();
    const files = writeFiles(join(place.dir, 'parallel'), 16);
    const jobs = await Promise.all(files.map((path) => queue.enqueueJob(user.id, 'parallel', { paths: [path] })));
    // A second node: its own index connection and its own state pool, on the same queue.
    const otherDossier = await createDossier({ db: place.db });
    const otherState = await openServerState(place.db);
    const stop = new AbortController();
    const claims: Array<{ job: string; worker: string }> = [];
    const base: Omit<WorkerOptions, 'dossier' | 'queue'> = {
      concurrency: 2,
      signal: stop.signal,
      pollMs: 20,
      onJob: ({ job, worker, outcome }) => (assert.equal(outcome, 'finished'), claims.push({ job: job.id, worker })),
    };
    const workers = [
      runWorker({ ...base, dossier, queue, name: 'a' }),
      runWorker({ ...base, dossier: otherDossier, queue: otherState.queue()!, name: 'b' }),
    ];
    try {
      const ended = await waitFor('every job to finish', async () => {
        const rows = await Promise.all(jobs.map((job) => state.job(job.id)));
        return rows.every((row) => row?.status === 'finished') ? rows : undefined;
      });
      stop.abort();
      const [a, b] = await Promise.all(workers);
      assert.equal(a.finished + b.finished, jobs.length);
      assert.ok(a.finished > 0 && b.finished > 0, `both workers took jobs (a ${a.finished}, b ${b.finished})`);
      // No job claimed twice: one claim each, one attempt each, one document per file.
      assert.deepEqual(claims.map((c) => c.job).sort(), jobs.map((j) => j.id).sort());
      for (const row of ended) assert.equal(row!.attempts, 1);
      const counts = await countsBySource(dossier);
      assert.deepEqual(
        files.map((path) => counts.get(path)),
        files.map(() => 1),
      );
    } finally {
      stop.abort();
      await Promise.all(workers);
      await otherState.close();
      await otherDossier.close();
    }

    // The claim itself under contention: many claims at once on a few queued jobs never hand one out twice.
    const more = await Promise.all(Array.from({ length: 6 }, () => queue.enqueueJob(user.id, 'parallel', { paths: [] })));
    const raced = await Promise.all(
      Array.from({ length: 20 }, async (_, n) => ({ worker: `racer-${n}`, job: await queue.claimJob(`racer-${n}`, 60_000, 3) })),
    );
    const claimed = raced.filter((r) => r.job !== undefined);
    assert.deepEqual(claimed.map((r) => r.job!.id).sort(), more.map((job) => job.id).sort());
    // Only the claimant may end a job.
    assert.equal(await queue.completeJob(claimed[0]!.job!.id, 'someone-else', { status: 'failed', error: 'not mine' }), false);
    for (const r of claimed) assert.equal(await queue.completeJob(r.job!.id, r.worker, { status: 'failed', error: 'raced' }), true);
  });

  it("a SIGKILLed worker's job is retried after its lease expires and commits each document once", async () => {
    const files = writeFiles(join(place.dir, 'killed'), 600, 6);
    const env = { DOSSIER_JOB_LEASE_MS: '1200', DOSSIER_JOB_POLL_MS: '50' };
    // Enqueued from the command line: the paths are what the worker reads (a shared file system).
    const queued = await runCli(['ingest', join(place.dir, 'killed'), '--queue', '--collection', 'killed', '--db', place.db, '--json']);
    assert.equal(queued.status, 0, queued.stderr);
    assert.equal(queued.json.job.status, 'queued');
    const id: string = queued.json.job.id;

    const first = startCli(['worker', '--db', place.db], { env });
    children.push(first);
    // Kill it in the middle: some documents committed, not all.
    const progress = await waitFor(
      'the first worker to be inside the job',
      async () => {
        const job = await state.job(id);
        const done = (job?.progress as { done?: number } | undefined)?.done ?? 0;
        return job?.status === 'running' && done >= 20 ? done : undefined;
      },
      20_000,
      10,
    );
    assert.equal(await kill(first), null);
    const interrupted = await state.job(id);
    assert.equal(interrupted!.status, 'running', 'a killed worker leaves its job running until the lease runs out');
    assert.equal(interrupted!.attempts, 1);
    const atKill = await countsBySource(dossier);
    const committedBefore = files.filter((path) => atKill.has(path)).length;
    assert.ok(
      committedBefore > 0 && committedBefore < files.length,
      `killed mid-job (progress ${progress}, ${committedBefore} of ${files.length} committed)`,
    );

    // Another worker claims it once the lease has expired, and finishes it.
    const stop = new AbortController();
    const outcomes: string[] = [];
    const worker = runWorker({
      dossier,
      queue: state.queue()!,
      signal: stop.signal,
      leaseMs: 1200,
      pollMs: 50,
      onJob: ({ outcome, detail }) => outcomes.push(`${outcome}: ${detail}`),
    });
    try {
      const done = await waitFor(
        'the retried job to end',
        async () => {
          const job = await state.job(id);
          return job?.status === 'finished' || job?.status === 'failed' ? job : undefined;
        },
        30_000,
      );
      assert.equal(done.status, 'finished', JSON.stringify(done));
      assert.equal(done.attempts, 2);
      const report = done.report as { ingested: number; skipped: number; failed: unknown[] };
      assert.ok(report.skipped >= committedBefore, `the retry skipped what the first attempt committed (${JSON.stringify(report)})`);
      assert.equal(report.failed.length, 0);
    } finally {
      stop.abort();
      await worker;
    }
    assert.deepEqual(
      outcomes.map((line) => line.split(':')[0]),
      ['finished'],
    );
    const counts = await countsBySource(dossier);
    assert.deepEqual(
      files.map((path) => counts.get(path)),
      files.map(() => 1),
    );
  });

  it('a server with --workers 0 enqueues, a separate dossier worker ingests, and the job events stream to the end', async () => {
    const server = startCli(['serve', '--port', '0', '--db', place.db, '--workers', '0']);
    children.push(server);
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server.stdout! }).on('line', (line) => {
        const match = /^listening on (\S+)$/.exec(line);
        if (match) resolve(match[1]);
      });
      server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const files = writeFiles(join(place.dir, 'served'), 40, 4);
    const form = new FormData();
    for (const path of files) form.append('file', await openAsBlob(path, { type: 'text/markdown' }), path.split('/').pop());
    form.append('collection', 'served');
    const response = await fetch(`${url}/v1/documents`, { method: 'POST', body: form });
    assert.equal(response.status, 202);
    const { job } = (await response.json()) as any;
    assert.equal(job.status, 'queued');
    await sleep(300);
    assert.equal(((await (await fetch(`${url}/v1/jobs/${job.id}`)).json()) as any).job.status, 'queued', 'no worker in the server');

    // The stream is open before any worker exists: it must follow the row from queued to finished.
    const stream = fetch(`${url}/v1/jobs/${job.id}/events`).then((r) => r.text());
    const worker = startCli(['worker', '--db', place.db, '--concurrency', '2'], {
      env: { DOSSIER_JOB_LEASE_MS: '900', DOSSIER_JOB_POLL_MS: '50' },
    });
    children.push(worker);
    let workerErr = '';
    worker.stderr!.on('data', (data) => (workerErr += data));
    const frames = parseFrames(await stream);
    assert.equal(frames[0]!.data.status, 'queued');
    assert.ok(
      frames.some((f) => f.event === 'progress' && f.data.status === 'running'),
      'progress while running',
    );
    const last = frames[frames.length - 1]!;
    assert.equal(last.event, 'job-finish');
    assert.equal(last.data.status, 'finished');
    assert.equal(last.data.report.ingested, files.length);
    assert.equal(last.data.attempts, 1);
    const listed = ((await (await fetch(`${url}/v1/documents?collection=served&limit=1000`)).json()) as any).documents;
    assert.equal(listed.length, files.length);

    // SIGTERM: the worker stops, having said one line for the job and a summary.
    assert.equal(await kill(worker, 'SIGTERM'), 0);
    assert.match(workerErr, new RegExp(`job ${job.id} \\(served, attempt 1\\) finished`));
    assert.match(workerErr, /stopped; 1 finished, 0 failed, 0 released/);
    await kill(server);
  });
});

describe('the queue needs PostgreSQL', () => {
  it('ingest --queue and dossier worker on an SQLite index are a one-line error', async () => {
    const temp = tempDir();
    try {
      const [file] = writeFiles(temp.dir, 1);
      const db = join(temp.dir, 'index.db');
      const queued = await runCli(['ingest', file!, '--queue', '--db', db]);
      assert.equal(queued.status, 2);
      assert.equal(queued.stdout, '');
      assert.match(queued.stderr, /^dossier: --queue needs a PostgreSQL index \(--db postgres:\/\/…\)[^\n]*\n$/);
      const worker = await runCli(['worker', '--db', db]);
      assert.equal(worker.status, 2);
      assert.match(worker.stderr, /^dossier: dossier worker needs a PostgreSQL index[^\n]*\n$/);
    } finally {
      temp.cleanup();
    }
  });
});
