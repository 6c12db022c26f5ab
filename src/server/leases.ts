import { randomUUID } from 'node:crypto';
import { oneLine } from '../errors/index.ts';
import type { Lease, ServerState } from './state/index.ts';

/**
 * One server node's claim on the runs and in-process ingestion jobs it is running. Several nodes share
 * one database (PostgreSQL), so "stored as running" does not mean "left by a dead process": each row
 * names its node and a lease expiry, and a heartbeat renews the leases of what this node holds (every
 * `beatMs`, a third of the lease, at most 5 s). Recovery (`start(recover)`, then again at every beat)
 * closes only rows whose lease ran out, so a starting node leaves the live runs of others alone and a
 * surviving node closes those of a node that was killed, once the lease expires.
 */
export class NodeLeases {
  /** This node's id: random per server instance (two servers in one process are two nodes). */
  readonly node = randomUUID();
  /** How long a claim holds without a heartbeat: DOSSIER_RUN_LEASE_MS, default 30 s. */
  readonly ms: number;
  readonly beatMs: number;
  /** Called with a run this node lost (its lease ran out and another node closed it): stop it. */
  onLost: (runId: string) => void = () => undefined;
  private readonly runs = new Set<string>();
  private readonly jobs = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private recover: (() => Promise<void>) | undefined;
  private ticking: Promise<void> | undefined;
  private failing = false;
  private stopped = false;

  constructor(
    private readonly state: ServerState,
    ms = leaseFromEnv(),
  ) {
    this.ms = ms;
    this.beatMs = Math.max(50, Math.min(5000, Math.floor(ms / 3)));
  }

  /** What a new run or job row records: this node and the lease length. */
  get lease(): Lease {
    return { node: this.node, ms: this.ms };
  }

  /** Keeps renewing the lease of a run or job until the returned release is called. */
  hold(kind: 'run' | 'job', id: string): () => void {
    const set = kind === 'run' ? this.runs : this.jobs;
    set.add(id);
    this.ensureTimer();
    return () => void set.delete(id);
  }

  /** Recovers once now (its errors are thrown: a node that cannot reach its database does not start), then at every beat. */
  async start(recover: () => Promise<void>): Promise<void> {
    await recover();
    this.recover = recover;
    this.ensureTimer();
  }

  /** Stops the heartbeat and recovery (shutdown); waits for a beat in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  private ensureTimer(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void (this.ticking ??= this.beat().finally(() => (this.ticking = undefined))), this.beatMs);
    // The heartbeat alone never keeps a process alive (a listening server or a live run does).
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      if (this.runs.size > 0 || this.jobs.size > 0) {
        const lost = await this.state.renewLeases(this.lease, { runs: [...this.runs], jobs: [...this.jobs] });
        for (const id of lost) {
          this.runs.delete(id);
          this.onLost(id);
        }
      }
      await this.recover?.();
      if (this.failing) process.stderr.write('dossier serve: run leases renewed again\n');
      this.failing = false;
    } catch (error) {
      // The database restarting: said once, then retried at every beat until it answers.
      if (!this.failing) process.stderr.write(`dossier serve: could not renew run leases (retrying): ${oneLine(error)}\n`);
      this.failing = true;
    }
  }
}

function leaseFromEnv(): number {
  const value = Number(process.env.DOSSIER_RUN_LEASE_MS);
  return Number.isFinite(value) && value > 0 ? value : 30_000;
}
