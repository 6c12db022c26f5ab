import { oneLine } from '../errors/index.ts';
import type { ServerDeps } from './app.ts';
import type { JobRecord, JobUpdate } from './state/index.ts';

/**
 * An in-process job (an upload on SQLite, a graph build on either backend): its row is created
 * running under this node's lease, `work` runs off the request path with a progress callback, and
 * the row ends finished with the report or failed with the one-line error. Polled with
 * `GET /v1/jobs/:jobId` and streamed by `GET /v1/jobs/:jobId/events`.
 */
export async function startJob(
  deps: ServerDeps,
  userId: string,
  collection: string,
  work: (progress: (progress: unknown) => void) => Promise<unknown>,
): Promise<JobRecord> {
  const job = await deps.state.createJob(userId, collection, deps.leases.lease);
  // Held under this node's lease while it runs: only a job whose node stopped is failed by recovery.
  const release = deps.leases.hold('job', job.id);
  // The job's updates are chained so they land in order: a late progress never overwrites the finish.
  let updates = Promise.resolve();
  const update = (change: JobUpdate) =>
    (updates = updates
      .then(() => deps.state.updateJob(job.id, change))
      .catch((error: unknown) => {
        process.stderr.write(`dossier serve: job ${job.id}: could not store its progress: ${oneLine(error)}\n`);
      }));
  void Promise.resolve()
    .then(() => work((progress) => void update({ progress })))
    .then((report) => update({ status: 'finished', report }))
    .catch((error: unknown) => update({ status: 'failed', error: oneLine(error) }))
    .finally(release);
  return job;
}
