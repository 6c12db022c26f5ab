import { createHash } from 'node:crypto';
import { DossierError } from '../../errors/index.ts';
import type { RunRecord as RunShape } from '../../protocol/json-shapes.ts';

/**
 * What the server keeps beside the index, in the same database (tables `srv_*`): users, API keys
 * (only their SHA-256 is stored), collection memberships, conversations and their messages, runs
 * and every event of every run (what resumable streams replay), and ingestion jobs. Its own
 * connection, so the index's store stays as it is; every id a client sees is a random UUID.
 * One async interface, two implementations: SQLite (the index file) and PostgreSQL (postgres.ts);
 * `openServerState(db)` picks by the `postgres://` prefix.
 */
export type Role = 'reader' | 'writer' | 'owner';
export const ROLES: readonly Role[] = ['reader', 'writer', 'owner'];

export interface User {
  id: string;
  name: string;
  admin: boolean;
  createdAt: string;
}

/** A stored run: what `GET /v1/runs/:id` shows (json-shapes.ts), and whose it is. */
export interface RunRecord extends Omit<RunShape, 'result'> {
  userId: string;
  /** The run's result (the `ask --json` object) once it has finished. */
  result?: unknown;
}

export interface StoredEvent {
  seq: number;
  event: Record<string, unknown> & { type: string };
}

export interface ConversationRecord {
  id: string;
  userId: string;
  title: string;
  createdAt: string;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  parentId?: string;
  role: 'user' | 'assistant';
  content: string;
  runId?: string;
  createdAt: string;
  /** Assistant messages: the citations of the answer. */
  citations?: unknown[];
}

export interface JobRecord {
  id: string;
  userId: string;
  collection: string;
  /** `queued` only on PostgreSQL, where jobs wait in the queue for a worker (queue.ts). */
  status: 'queued' | 'running' | 'finished' | 'failed';
  progress?: unknown;
  report?: unknown;
  error?: string;
  createdAt: string;
  finishedAt?: string;
  /** Queued jobs: how many times a worker has claimed it. */
  attempts?: number;
}

/** What a queued job ingests: files on a file system every worker sees (uploads are saved first). */
export interface JobPayload {
  paths: string[];
  metadata?: Record<string, unknown>;
}

/** A claimed job: its row and what to ingest. */
export interface ClaimedJob extends JobRecord {
  payload: JobPayload;
  attempts: number;
}

/**
 * The durable ingestion queue (PostgreSQL only; see state-postgres.ts for why SKIP LOCKED). Every
 * write after the claim names the worker, so a worker that lost its lease changes nothing.
 */
export interface JobQueue {
  enqueueJob(userId: string, collection: string, payload: JobPayload): Promise<JobRecord>;
  /** Calls `onQueued` whenever a job is enqueued (by any node); resolves with the unsubscribe. */
  listen?(onQueued: () => void): Promise<() => Promise<void>>;
  /** The oldest claimable job (queued, or running with an expired lease), leased to `worker`; undefined when none. */
  claimJob(worker: string, leaseMs: number, maxAttempts: number): Promise<ClaimedJob | undefined>;
  /** Extends the lease and stores the progress; false when the lease was lost (another worker has the job). */
  heartbeat(id: string, worker: string, leaseMs: number, progress?: unknown): Promise<boolean>;
  completeJob(
    id: string,
    worker: string,
    outcome: { status: 'finished'; report: unknown } | { status: 'failed'; error: string },
  ): Promise<boolean>;
  /** Puts a job back in the queue (a worker stopping): the attempt is not counted. */
  releaseJob(id: string, worker: string): Promise<void>;
}

/**
 * Who holds a live run or an in-process ingestion job: the node (one id per server process, see
 * leases.ts) and how long the claim lasts without a heartbeat. A row whose lease has run out belongs
 * to a node that stopped; only such rows are closed by recovery, so a starting node never closes the
 * live runs of another node on the same database.
 */
export interface Lease {
  node: string;
  ms: number;
}

/** The server's own records; every method is async so the PostgreSQL implementation fits the same callers. */
export interface ServerState {
  close(): Promise<void>;
  /** Resolves when the database answers (readiness); rejects with the reason otherwise. */
  ping(): Promise<void>;
  createUser(name: string, options?: { admin?: boolean }): Promise<User>;
  /** The local user of a loopback server without keys: created once, an admin. */
  localUser(): Promise<User>;
  userByName(name: string): Promise<User | undefined>;
  user(id: string): Promise<User | undefined>;
  users(): Promise<User[]>;
  /** A new API key for the user; the key itself is returned once and never stored. */
  createKey(userId: string): Promise<{ id: string; apiKey: string }>;
  userByKey(apiKey: string): Promise<User | undefined>;
  grant(collection: string, userId: string, role: Role): Promise<void>;
  revoke(collection: string, userId: string): Promise<void>;
  /** The collections a user is a member of, with the role. */
  memberships(userId: string): Promise<Array<{ collection: string; role: Role }>>;
  members(collection: string): Promise<Array<{ userId: string; name: string; role: Role }>>;
  /** A new running run held by `lease.node` for `lease.ms`. */
  createRun(run: Omit<RunRecord, 'status' | 'createdAt'>, lease: Lease): Promise<RunRecord>;
  appendEvent(runId: string, seq: number, event: { type: string }): Promise<void>;
  /** Ends a running run (once: a run already ended, e.g. closed by recovery, stays as it is). */
  finishRun(runId: string, status: 'finished' | 'failed', finishReason: string, result: unknown): Promise<void>;
  run(id: string): Promise<RunRecord | undefined>;
  /** Stored events after `afterSeq`, in order. */
  events(runId: string, afterSeq?: number): Promise<StoredEvent[]>;
  lastSeq(runId: string): Promise<number>;
  /**
   * Extends the leases of the runs and in-process jobs this node holds; returns the runs it no longer
   * holds (their lease ran out and another node closed them), which the node should stop.
   */
  renewLeases(lease: Lease, held: { runs: string[]; jobs: string[] }): Promise<string[]>;
  /**
   * Takes over the running runs whose lease has run out (their node stopped or was killed), so that
   * exactly one node closes each; the caller then gives each a closing run-finish and fails it.
   */
  claimExpiredRuns(lease: Lease): Promise<string[]>;
  createConversation(userId: string, title: string): Promise<ConversationRecord>;
  conversation(id: string): Promise<ConversationRecord | undefined>;
  conversations(userId: string): Promise<ConversationRecord[]>;
  deleteConversation(id: string): Promise<void>;
  addMessage(message: Omit<MessageRecord, 'id' | 'createdAt'>): Promise<MessageRecord>;
  messages(conversationId: string): Promise<MessageRecord[]>;
  /** An in-process ingestion job (SQLite), held by `lease.node` while it runs. */
  createJob(userId: string, collection: string, lease: Lease): Promise<JobRecord>;
  updateJob(id: string, update: JobUpdate): Promise<void>;
  job(id: string): Promise<JobRecord | undefined>;
  /** In-process jobs whose lease ran out (their node stopped while they ran): reported failed. */
  failInterruptedJobs(): Promise<number>;
  /** The durable queue where the backend has one (PostgreSQL); SQLite ingests in-process. */
  queue(): JobQueue | undefined;
  /**
   * Counts one request of `key` in the minute `window` and returns the count so far, for a rate
   * limit shared by every node on the database. Absent (SQLite): each process counts in memory.
   */
  countRequest?(key: string, window: number): Promise<number>;
}

export type JobUpdate = { status?: JobRecord['status']; progress?: unknown; report?: unknown; error?: string };

export const isPostgresUrl = (db: string) => /^postgres(ql)?:\/\//.test(db);

export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const badUserName = (name: string) => new DossierError('bad-input', `user name "${name}" must be 1–64 letters, digits, . _ @ or -`);
export const userExists = (name: string) => new DossierError('bad-input', `user "${name}" exists already`);
export const badRole = (role: string) => new DossierError('bad-input', `role must be reader, writer or owner, got "${role}"`);
/** An in-process job (an upload or a graph build) whose server stopped: what it had committed stays, the rest was not done. */
export const INTERRUPTED_JOB =
  'the server stopped while this job ran; what it had not committed yet was not done (upload again, or build the graph again)';

/** The one-line refusal of server tables made by a newer Dossier (both backends). */
export function serverTablesTooNew(where: string, found: number, reads: number): DossierError {
  return new DossierError(
    'store-failed',
    `the server tables in ${where} have schema version ${found}, newer than this Dossier reads (${reads}); upgrade Dossier`,
  );
}

export const now = () => new Date().toISOString();
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const json = (text: unknown) => (typeof text === 'string' ? JSON.parse(text) : undefined);
