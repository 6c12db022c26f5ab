import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DossierError } from '../errors/index.ts';
import type { IndexIdentity } from '../store/types.ts';
import type { AskResult } from '../protocol/json-shapes.ts';
import type { Citation } from '../protocol/events.ts';

/**
 * Runs paused for approval (finish reason `needs-approval`): the finished answer, withheld, with
 * everything needed to release or end it later. One JSON file per run in a runs folder beside the
 * index (`<db>.runs/`, or DOSSIER_RUNS_DIR); the decision is written into the same file, once.
 */
export interface PausedRun {
  runId: string;
  question: string;
  mode: string;
  reason: string;
  pausedAt: string;
  index: IndexIdentity;
  /** The result as `ask --json` gave it (its answer is the "waiting for approval" note). */
  result: AskResult;
  held: { answer: string; citations: Citation[]; unresolvedCitations: string[] };
  /** The run's trace, when it was written: the decision is appended to it. */
  trace?: string;
  decision?: { decision: 'approved' | 'denied'; by: string; time: string; note?: string };
}

const RUN_ID = /^[A-Za-z0-9-]{8,64}$/;

export class PausedRuns {
  constructor(readonly directory: string) {}

  private file(runId: string): string {
    if (!RUN_ID.test(runId)) throw new DossierError('bad-input', `"${runId}" is not a run id`);
    return join(this.directory, `${runId}.json`);
  }

  save(run: PausedRun): void {
    mkdirSync(this.directory, { recursive: true });
    const path = this.file(run.runId);
    // Written whole, then renamed: a crash never leaves half a run.
    writeFileSync(`${path}.tmp`, JSON.stringify(run, null, 2));
    renameSync(`${path}.tmp`, path);
  }

  load(runId: string): PausedRun {
    const path = this.file(runId);
    if (!existsSync(path)) throw new DossierError('not-found', `no paused run ${runId} in ${this.directory}`);
    return JSON.parse(readFileSync(path, 'utf8')) as PausedRun;
  }
}
