import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Dossier } from '../dossier.ts';
import { oneLine } from '../errors/index.ts';
import type { PreparePool } from '../ingest/worker-pool.ts';
import type { ClaimedJob, JobQueue } from './state/index.ts';

/**
 * The worker side of the durable ingestion queue (the table and why SKIP LOCKED: state-postgres.ts).
 * `dossier worker` and `dossier serve --workers N` both run this loop: claim a job under a lease,
 * ingest its files while a heartbeat renews the lease and stores the progress, then finish or fail
 * the row. Stopping (the signal) stops claiming; a job in hand is released back to the queue.
 */

export interface WorkerOptions {
  dossier: Dossier;
  queue: JobQueue;
  /** Jobs processed at once (default 1). */
  concurrency?: number;
  signal: AbortSignal;
  /** How long a claim holds without a heartbeat (default 30 s, or $DOSSIER_JOB_LEASE_MS). */
  leaseMs?: number;
  /** Wait between two looks at an empty queue (default 2 s, or $DOSSIER_JOB_POLL_MS); an enqueue notification cuts it short. */
  pollMs?: number;
  /** Claims after which a job whose worker keeps dying is failed (default 3). */
  maxAttempts?: number;
  /** Threads that parse and embed for each job (the pipeline's `workers`); a server sets 1 to keep its main thread free. */
  prepareWorkers?: number;
  /** Prefix of the worker id stored in the row (default host:pid). */
  name?: string;
  /** One call per job as it ends. */
  onJob?: (event: { job: ClaimedJob; worker: string; outcome: 'finished' | 'failed' | 'released' | 'lost'; detail: string }) => void;
}

export interface WorkerSummary {
  finished: number;
  failed: number;
  released: number;
  lost: number;
}

const envMs = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/** Waits `ms`, or less when stopped or woken (a job was enqueued). */
const sleep = (ms: number, signal: AbortSignal, wakers: Set<() => void>) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      wakers.delete(done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
    wakers.add(done);
  });

/** Runs until `signal` aborts and the jobs in hand are finished or released; resolves with the tally. */
export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const leaseMs = options.leaseMs ?? envMs('DOSSIER_JOB_LEASE_MS', 30_000);
  const pollMs = options.pollMs ?? envMs('DOSSIER_JOB_POLL_MS', 2000);
  const maxAttempts = options.maxAttempts ?? 3;
  const base = options.name ?? `${hostname()}:${process.pid}`;
  const summary: WorkerSummary = { finished: 0, failed: 0, released: 0, lost: 0 };
  const { queue, signal } = options;
  const wakers = new Set<() => void>();
  const unlisten = await queue
    .listen?.(() => [...wakers].forEach((wake) => wake()))
    .catch((error: unknown) => {
      process.stderr.write(`dossier worker: no enqueue notifications (polling every ${pollMs} ms): ${oneLine(error)}\n`);
      return undefined;
    });

  // One set of parsing threads for the whole run: a job starting its own cost ~1.5 CPU-s each.
  const { PreparePool } = await import('../ingest/worker-pool.ts');
  const preparePool = options.prepareWorkers === 0 ? undefined : new PreparePool(options.prepareWorkers);

  const slot = async (n: number) => {
    // One id per slot and run, so two slots (or a restarted process with the same pid) never share a lease.
    const worker = `${base}:${n}:${randomUUID().slice(0, 8)}`;
    while (!signal.aborted) {
      let job: ClaimedJob | undefined;
      try {
        job = await queue.claimJob(worker, leaseMs, maxAttempts);
      } catch (error) {
        // The database restarting is not the end of the worker: try again after a pause.
        process.stderr.write(`dossier worker: could not claim a job: ${oneLine(error)}\n`);
      }
      if (!job) {
        await sleep(pollMs, signal, wakers);
        continue;
      }
      const outcome = await processJob(options.dossier, queue, job, worker, leaseMs, signal, preparePool);
      summary[outcome.outcome]++;
      options.onJob?.({ job, worker, ...outcome });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, (_, n) => slot(n)));
  } finally {
    await Promise.all([unlisten?.(), preparePool?.close()]);
  }
  return summary;
}

async function processJob(
  dossier: Dossier,
  queue: JobQueue,
  job: ClaimedJob,
  worker: string,
  leaseMs: number,
  stop: AbortSignal,
  preparePool: PreparePool | undefined,
): Promise<{ outcome: 'finished' | 'failed' | 'released' | 'lost'; detail: string }> {
  // Aborted when the worker stops or the lease is lost: the pipeline stops taking new files.
  const controller = new AbortController();
  const onStop = () => controller.abort();
  stop.addEventListener('abort', onStop, { once: true });
  let lost = false;
  let progress: unknown;
  let sent: unknown;
  // The heartbeat carries the progress too, so a job's events stream sees it without extra writes;
  // it beats well inside the lease so one slow write does not let it expire.
  const beatMs = Math.max(50, Math.min(500, leaseMs / 3));
  let beating = Promise.resolve();
  const beat = () =>
    (beating = beating.then(async () => {
      if (lost) return;
      const changed = progress !== sent ? progress : undefined;
      sent = progress;
      try {
        if (!(await queue.heartbeat(job.id, worker, leaseMs, changed))) {
          lost = true;
          controller.abort();
        }
      } catch (error) {
        process.stderr.write(`dossier worker: job ${job.id}: heartbeat failed: ${oneLine(error)}\n`);
      }
    }));
  const timer = setInterval(beat, beatMs);
  try {
    const report = await dossier.ingest(job.payload.paths, {
      collection: job.collection,
      metadata: job.payload.metadata,
      ...(preparePool ? { preparePool } : { workers: 0 }),
      onProgress: (p) => (progress = p),
      signal: controller.signal,
    });
    clearInterval(timer);
    await beating;
    if (lost) return { outcome: 'lost', detail: 'lease lost to another worker' };
    if (controller.signal.aborted) {
      // Stopped mid-job: what was committed stays (and is skipped as unchanged on the retry).
      await queue.releaseJob(job.id, worker);
      return { outcome: 'released', detail: 'worker stopping; job back in the queue' };
    }
    const ok = await queue.completeJob(job.id, worker, { status: 'finished', report });
    return ok
      ? {
          outcome: 'finished',
          detail: `ingested ${report.ingested}, skipped ${report.skipped}, failed ${report.failed.length} in ${report.seconds}s`,
        }
      : { outcome: 'lost', detail: 'lease lost to another worker' };
  } catch (error) {
    clearInterval(timer);
    await beating;
    const message = oneLine(error);
    const ok = await queue.completeJob(job.id, worker, { status: 'failed', error: message }).catch(() => false);
    return ok ? { outcome: 'failed', detail: message } : { outcome: 'lost', detail: message };
  } finally {
    stop.removeEventListener('abort', onStop);
  }
}
