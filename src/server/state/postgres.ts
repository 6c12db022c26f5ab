import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  badRole,
  badUserName,
  hashKey,
  INTERRUPTED_JOB,
  json,
  now,
  ROLES,
  USER_NAME,
  userExists,
  type ClaimedJob,
  type ConversationRecord,
  type JobPayload,
  type JobQueue,
  type JobRecord,
  type JobUpdate,
  type Lease,
  type MessageRecord,
  type Role,
  type RunRecord,
  type ServerState,
  type StoredEvent,
  type User,
  serverTablesTooNew,
} from './types.ts';
import { DossierError } from '../../errors/index.ts';
import { runLockedMigrations } from '../../store/postgres/schema.ts';
import { unavailableError } from '../../store/postgres/unavailable.ts';
import { loadPg, type PgModule } from '../../store/postgres/driver.ts';

/**
 * Advisory lock key for the server tables' migrations: its own key, so a server starting beside an
 * index migration does not wait on it (and the other way round).
 */
export const SERVER_SCHEMA_LOCK = 0x73727673; // "srvs"

/**
 * The `srv_*` tables as numbered migrations, the same tables and meaning as the SQLite ones (JSON kept
 * as text, so stored events replay byte for byte; timestamps ISO strings). `srv_meta.schema_version`
 * holds the last one applied; all pending ones run in one transaction under the advisory lock, so
 * whichever node starts first migrates and the others find nothing left to do. Migrations only add.
 */
export const SERVER_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'users, keys, members, conversations, messages, runs, events, jobs',
    sql: `
CREATE TABLE IF NOT EXISTS srv_users (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, admin BOOLEAN NOT NULL DEFAULT false, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS srv_keys (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES srv_users(id) ON DELETE CASCADE, hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS srv_members (collection TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES srv_users(id) ON DELETE CASCADE, role TEXT NOT NULL, PRIMARY KEY (collection, user_id));
CREATE INDEX IF NOT EXISTS srv_members_user ON srv_members (user_id);
CREATE TABLE IF NOT EXISTS srv_conversations (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, title TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS srv_conversations_user ON srv_conversations (user_id, created_at);
CREATE TABLE IF NOT EXISTS srv_messages (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES srv_conversations(id) ON DELETE CASCADE, parent_id TEXT, role TEXT NOT NULL, content TEXT NOT NULL, run_id TEXT, citations TEXT, created_at TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS srv_messages_conversation ON srv_messages (conversation_id, seq);
CREATE TABLE IF NOT EXISTS srv_runs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT, question TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL, finish_reason TEXT, result TEXT, created_at TEXT NOT NULL, finished_at TEXT);
CREATE TABLE IF NOT EXISTS srv_run_events (run_id TEXT NOT NULL REFERENCES srv_runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL, type TEXT NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS srv_jobs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, collection TEXT NOT NULL, status TEXT NOT NULL, progress TEXT, report TEXT, error TEXT, created_at TEXT NOT NULL, finished_at TEXT);
`,
  },
  {
    version: 2,
    name: 'ingestion queue: payload, attempts, lease, worker',
    // lease_until is the database's clock (now() + lease), so nodes with skewed clocks agree on expiry.
    sql: `
ALTER TABLE srv_jobs ADD COLUMN IF NOT EXISTS payload TEXT, ADD COLUMN IF NOT EXISTS attempts INTEGER NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS lease_until TIMESTAMPTZ, ADD COLUMN IF NOT EXISTS worker TEXT;
CREATE INDEX IF NOT EXISTS srv_jobs_claimable ON srv_jobs (created_at) WHERE status IN ('queued', 'running');
`,
  },
  {
    version: 3,
    name: 'rate limits shared by the nodes: requests per key per minute',
    // "window" is a minute number (epoch ms / 60000); quoted, as WINDOW is a keyword.
    sql: `
CREATE TABLE IF NOT EXISTS srv_rate_limits (key TEXT NOT NULL, "window" BIGINT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (key, "window"));
`,
  },
  {
    version: 4,
    name: 'run leases: the node running each run and until when (in-process jobs reuse worker and lease_until)',
    // Rows from before leases have none: recovery treats them as expired (their node cannot renew them).
    sql: `
ALTER TABLE srv_runs ADD COLUMN IF NOT EXISTS node TEXT, ADD COLUMN IF NOT EXISTS lease_until TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS srv_runs_running ON srv_runs (lease_until) WHERE status = 'running';
`,
  },
];

export const SERVER_SCHEMA_VERSION = SERVER_MIGRATIONS[SERVER_MIGRATIONS.length - 1]!.version;

/** Applies the pending server migrations under the advisory lock; returns the versions this call applied. */
function migrate(pool: pg.Pool, where: string): Promise<number[]> {
  return runLockedMigrations(pool, {
    lock: SERVER_SCHEMA_LOCK,
    metaTable: 'srv_meta',
    migrations: SERVER_MIGRATIONS.map((migration) => ({
      version: migration.version,
      name: migration.name,
      up: async (client) => void (await client.query(migration.sql)),
    })),
    tooNew: (version) => serverTablesTooNew(where, version, SERVER_SCHEMA_VERSION),
  });
}

type Row = Record<string, any>;

const toUser = (r: Row | undefined): User | undefined =>
  r ? { id: r.id, name: r.name, admin: r.admin === true, createdAt: r.created_at } : undefined;
const toConversation = (r: Row): ConversationRecord => ({ id: r.id, userId: r.user_id, title: r.title, createdAt: r.created_at });

/** host:port of a connection string, for messages (never the password). */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'unknown host';
  }
}

/** PostgreSQL: the `srv_*` tables in the index's database, on a pool of their own. */
export class PgServerState implements ServerState, JobQueue {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    /** The `pg` driver (an optional peer dependency, loaded when a postgres:// state is opened). */
    private readonly driver: PgModule,
    /** Migration versions this instance applied when it opened (empty when another node did). */
    readonly migrated: number[],
  ) {}

  static async open(url: string): Promise<PgServerState> {
    // A bounded wait for a connection: with PostgreSQL unreachable a request fails (503) instead of hanging.
    const driver = await loadPg();
    const pool = new driver.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000, application_name: 'dossier-server' });
    // An idle client's error (the server restarting) must not crash the process; the next query reports it.
    pool.on('error', () => undefined);
    // Nor a checked-out client's between two queries (pg emits it on the client, unheard by the pool).
    pool.on('connect', (client) => client.on('error', () => undefined));
    const host = hostOf(url);
    try {
      return new PgServerState(pool, url, driver, await migrate(pool, `PostgreSQL at ${host}`));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw unavailableError(error, host) ?? error;
    }
  }

  /** PostgreSQL down or restarting becomes 'store-unavailable' (HTTP 503); any other error is left as it is. */
  private mapped(error: unknown): unknown {
    // 22021 / 22P05: text (or JSON) holding U+0000, which PostgreSQL cannot store; the HTTP API refuses it first.
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === '22021' || code === '22P05')
      return new DossierError('bad-input', 'text holds a NUL character (U+0000), which PostgreSQL cannot store', { cause: error });
    return unavailableError(error, hostOf(this.url)) ?? error;
  }

  private async query(sql: string, params: unknown[] = []): Promise<pg.QueryResult<Row>> {
    try {
      return await this.pool.query(sql, params);
    } catch (error) {
      throw this.mapped(error);
    }
  }

  private async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.query(sql, params)).rows;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  queue(): JobQueue {
    return this;
  }

  // Users and keys

  async createUser(name: string, options: { admin?: boolean } = {}): Promise<User> {
    if (!USER_NAME.test(name)) throw badUserName(name);
    const user: User = { id: randomUUID(), name, admin: options.admin === true, createdAt: now() };
    // The unique name decides between two nodes creating the same user at once.
    const inserted = await this.rows(
      'INSERT INTO srv_users (id, name, admin, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id',
      [user.id, user.name, user.admin, user.createdAt],
    );
    if (inserted.length === 0) throw userExists(name);
    return user;
  }

  async localUser(): Promise<User> {
    const found = await this.userByName('local');
    if (found) return found;
    // Concurrent first requests each try; whichever inserts first wins and all read that one.
    await this.rows('INSERT INTO srv_users (id, name, admin, created_at) VALUES ($1, $2, true, $3) ON CONFLICT (name) DO NOTHING', [
      randomUUID(),
      'local',
      now(),
    ]);
    return (await this.userByName('local'))!;
  }

  async userByName(name: string): Promise<User | undefined> {
    return toUser((await this.rows('SELECT * FROM srv_users WHERE name = $1', [name]))[0]);
  }

  async user(id: string): Promise<User | undefined> {
    return toUser((await this.rows('SELECT * FROM srv_users WHERE id = $1', [id]))[0]);
  }

  async users(): Promise<User[]> {
    return (await this.rows('SELECT * FROM srv_users ORDER BY created_at')).map((row) => toUser(row)!);
  }

  async createKey(userId: string): Promise<{ id: string; apiKey: string }> {
    if (!(await this.user(userId))) throw new DossierError('not-found', 'no such user');
    const apiKey = `dsk_${randomBytes(32).toString('base64url')}`;
    const id = randomUUID();
    await this.rows('INSERT INTO srv_keys (id, user_id, hash, created_at) VALUES ($1, $2, $3, $4)', [id, userId, hashKey(apiKey), now()]);
    return { id, apiKey };
  }

  async userByKey(apiKey: string): Promise<User | undefined> {
    return toUser(
      (await this.rows('SELECT u.* FROM srv_keys k JOIN srv_users u ON u.id = k.user_id WHERE k.hash = $1', [hashKey(apiKey)]))[0],
    );
  }

  // Collections

  async grant(collection: string, userId: string, role: Role): Promise<void> {
    if (!ROLES.includes(role)) throw badRole(role);
    await this.rows(
      'INSERT INTO srv_members (collection, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (collection, user_id) DO UPDATE SET role = excluded.role',
      [collection, userId, role],
    );
  }

  async revoke(collection: string, userId: string): Promise<void> {
    await this.rows('DELETE FROM srv_members WHERE collection = $1 AND user_id = $2', [collection, userId]);
  }

  async memberships(userId: string): Promise<Array<{ collection: string; role: Role }>> {
    // COLLATE "C": byte order, as SQLite's ORDER BY, whatever the database's locale.
    return (await this.rows('SELECT collection, role FROM srv_members WHERE user_id = $1 ORDER BY collection COLLATE "C"', [
      userId,
    ])) as Array<{ collection: string; role: Role }>;
  }

  async members(collection: string): Promise<Array<{ userId: string; name: string; role: Role }>> {
    return (await this.rows(
      'SELECT m.user_id AS "userId", u.name, m.role FROM srv_members m JOIN srv_users u ON u.id = m.user_id WHERE m.collection = $1 ORDER BY u.name COLLATE "C"',
      [collection],
    )) as Array<{ userId: string; name: string; role: Role }>;
  }

  // Runs and their events

  async createRun(run: Omit<RunRecord, 'status' | 'createdAt'>, lease: Lease): Promise<RunRecord> {
    const record: RunRecord = { ...run, status: 'running', createdAt: now() };
    // lease_until on the database's clock, as for queue jobs: nodes with skewed clocks agree on expiry.
    await this.rows(
      'INSERT INTO srv_runs (id, user_id, conversation_id, question, mode, status, created_at, node, lease_until) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9::double precision / 1000))',
      [
        record.id,
        record.userId,
        record.conversationId ?? null,
        record.question,
        record.mode,
        record.status,
        record.createdAt,
        lease.node,
        lease.ms,
      ],
    );
    return record;
  }

  async appendEvent(runId: string, seq: number, event: { type: string }): Promise<void> {
    await this.rows('INSERT INTO srv_run_events (run_id, seq, type, event) VALUES ($1, $2, $3, $4)', [
      runId,
      seq,
      event.type,
      JSON.stringify(event),
    ]);
  }

  async finishRun(runId: string, status: 'finished' | 'failed', finishReason: string, result: unknown): Promise<void> {
    await this.rows(
      "UPDATE srv_runs SET status = $1, finish_reason = $2, result = $3, finished_at = $4, lease_until = NULL WHERE id = $5 AND status = 'running'",
      [status, finishReason, JSON.stringify(result ?? null), now(), runId],
    );
  }

  async run(id: string): Promise<RunRecord | undefined> {
    const row = (await this.rows('SELECT * FROM srv_runs WHERE id = $1', [id]))[0];
    if (!row) return undefined;
    return {
      id: row.id,
      userId: row.user_id,
      ...(row.conversation_id ? { conversationId: row.conversation_id } : {}),
      question: row.question,
      mode: row.mode,
      status: row.status as RunRecord['status'],
      ...(row.finish_reason ? { finishReason: row.finish_reason } : {}),
      createdAt: row.created_at,
      ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
      ...(row.result ? { result: json(row.result) } : {}),
    };
  }

  async events(runId: string, afterSeq = 0): Promise<StoredEvent[]> {
    return (await this.rows('SELECT seq, event FROM srv_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq', [runId, afterSeq])).map(
      (row) => ({ seq: row.seq, event: JSON.parse(row.event) }),
    );
  }

  async lastSeq(runId: string): Promise<number> {
    return (await this.rows('SELECT COALESCE(MAX(seq), 0) AS seq FROM srv_run_events WHERE run_id = $1', [runId]))[0]!.seq;
  }

  // Rate limits

  private prunedWindow = 0;

  async countRequest(key: string, window: number): Promise<number> {
    // One atomic upsert: two nodes counting at once both land, neither reads a stale count.
    const [row] = await this.rows(
      'INSERT INTO srv_rate_limits (key, "window", count) VALUES ($1, $2, 1) ON CONFLICT (key, "window") DO UPDATE SET count = srv_rate_limits.count + 1 RETURNING count',
      [key, window],
    );
    if (window !== this.prunedWindow) {
      // Past minutes are never read again: each node drops them once a minute, in the background.
      this.prunedWindow = window;
      void this.rows('DELETE FROM srv_rate_limits WHERE "window" < $1', [window - 1]).catch(() => undefined);
    }
    return row!.count;
  }

  async renewLeases(lease: Lease, held: { runs: string[]; jobs: string[] }): Promise<string[]> {
    const until = 'now() + make_interval(secs => $3::double precision / 1000)';
    if (held.jobs.length > 0)
      await this.rows(
        `UPDATE srv_jobs SET lease_until = ${until} WHERE id = ANY($1) AND worker = $2 AND status = 'running' AND payload IS NULL`,
        [held.jobs, lease.node, lease.ms],
      );
    if (held.runs.length === 0) return [];
    const renewed = new Set(
      (
        await this.rows(`UPDATE srv_runs SET lease_until = ${until} WHERE id = ANY($1) AND node = $2 AND status = 'running' RETURNING id`, [
          held.runs,
          lease.node,
          lease.ms,
        ])
      ).map((row) => row.id as string),
    );
    return held.runs.filter((id) => !renewed.has(id));
  }

  async claimExpiredRuns(lease: Lease): Promise<string[]> {
    // SKIP LOCKED and the re-checked expiry: two nodes recovering at once never take the same run.
    const claimed = await this.rows(
      `UPDATE srv_runs SET node = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id IN (SELECT id FROM srv_runs WHERE status = 'running' AND (lease_until IS NULL OR lease_until < now()) FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [lease.node, lease.ms],
    );
    return claimed.map((row) => row.id as string);
  }

  // Conversations

  async createConversation(userId: string, title: string): Promise<ConversationRecord> {
    const record: ConversationRecord = { id: randomUUID(), userId, title: title.slice(0, 200), createdAt: now() };
    await this.rows('INSERT INTO srv_conversations (id, user_id, title, created_at) VALUES ($1, $2, $3, $4)', [
      record.id,
      record.userId,
      record.title,
      record.createdAt,
    ]);
    return record;
  }

  async conversation(id: string): Promise<ConversationRecord | undefined> {
    const row = (await this.rows('SELECT * FROM srv_conversations WHERE id = $1', [id]))[0];
    return row ? toConversation(row) : undefined;
  }

  async conversations(userId: string): Promise<ConversationRecord[]> {
    return (await this.rows('SELECT * FROM srv_conversations WHERE user_id = $1 ORDER BY created_at DESC', [userId])).map(toConversation);
  }

  async deleteConversation(id: string): Promise<void> {
    await this.rows('DELETE FROM srv_conversations WHERE id = $1', [id]);
  }

  async addMessage(message: Omit<MessageRecord, 'id' | 'createdAt'>): Promise<MessageRecord> {
    const record: MessageRecord = { ...message, id: randomUUID(), createdAt: now() };
    // The next seq in the same statement as the insert, so no other write slips in between.
    await this.rows(
      'INSERT INTO srv_messages (id, conversation_id, parent_id, role, content, run_id, citations, created_at, seq) SELECT $1, $2, $3, $4, $5, $6, $7, $8, COALESCE(MAX(seq), 0) + 1 FROM srv_messages WHERE conversation_id = $2',
      [
        record.id,
        record.conversationId,
        record.parentId ?? null,
        record.role,
        record.content,
        record.runId ?? null,
        record.citations ? JSON.stringify(record.citations) : null,
        record.createdAt,
      ],
    );
    return record;
  }

  async messages(conversationId: string): Promise<MessageRecord[]> {
    return (await this.rows('SELECT * FROM srv_messages WHERE conversation_id = $1 ORDER BY seq', [conversationId])).map((row) => ({
      id: row.id,
      conversationId: row.conversation_id,
      ...(row.parent_id ? { parentId: row.parent_id } : {}),
      role: row.role as 'user' | 'assistant',
      content: row.content,
      ...(row.run_id ? { runId: row.run_id } : {}),
      ...(row.citations ? { citations: json(row.citations) } : {}),
      createdAt: row.created_at,
    }));
  }

  // Ingestion jobs

  async createJob(userId: string, collection: string, lease: Lease): Promise<JobRecord> {
    const record: JobRecord = { id: randomUUID(), userId, collection, status: 'running', createdAt: now() };
    await this.rows(
      'INSERT INTO srv_jobs (id, user_id, collection, status, created_at, worker, lease_until) VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision / 1000))',
      [record.id, userId, collection, record.status, record.createdAt, lease.node, lease.ms],
    );
    return record;
  }

  async updateJob(id: string, update: JobUpdate): Promise<void> {
    const current = await this.job(id);
    if (!current) return;
    const next = { ...current, ...update };
    await this.rows('UPDATE srv_jobs SET status = $1, progress = $2, report = $3, error = $4, finished_at = $5 WHERE id = $6', [
      next.status,
      next.progress === undefined ? null : JSON.stringify(next.progress),
      next.report === undefined ? null : JSON.stringify(next.report),
      next.error ?? null,
      next.status === 'running' || next.status === 'queued' ? null : now(),
      id,
    ]);
  }

  async job(id: string): Promise<JobRecord | undefined> {
    const row = (await this.rows('SELECT * FROM srv_jobs WHERE id = $1', [id]))[0];
    return row ? toJob(row) : undefined;
  }

  /**
   * Only jobs of the in-process kind (no payload) whose lease ran out are failed: a queued job left
   * running by a killed process is not lost, its lease runs out and another worker claims it again.
   */
  async failInterruptedJobs(): Promise<number> {
    return (
      (
        await this.query(
          "UPDATE srv_jobs SET status = 'failed', error = $1, finished_at = $2, lease_until = NULL WHERE status = 'running' AND payload IS NULL AND (lease_until IS NULL OR lease_until < now())",
          [INTERRUPTED_JOB, now()],
        )
      ).rowCount ?? 0
    );
  }

  // The ingestion queue.
  //
  // Why a table with SELECT … FOR UPDATE SKIP LOCKED rather than a broker: no extra dependency to run,
  // and the queue is transactional with the jobs table clients already read (GET /v1/jobs/:id and its
  // events see the claim, the progress and the end in the same row). SKIP LOCKED lets any number of
  // workers claim at once without waiting on each other or taking the same row. A lease, not a lock
  // held for the whole ingest, marks a claim: a killed worker's job becomes claimable when the lease
  // runs out. A retry re-ingests the same files, which is safe because the documents commit is
  // idempotent by content hash: documents the first attempt committed are skipped as unchanged, so a
  // retried job commits each document exactly once.

  async enqueueJob(userId: string, collection: string, payload: JobPayload): Promise<JobRecord> {
    const record: JobRecord = { id: randomUUID(), userId, collection, status: 'queued', createdAt: now(), attempts: 0 };
    await this.rows(
      'INSERT INTO srv_jobs (id, user_id, collection, status, created_at, payload, attempts) VALUES ($1, $2, $3, $4, $5, $6, 0)',
      [record.id, userId, collection, record.status, record.createdAt, JSON.stringify(payload)],
    );
    // Wakes idle workers at once instead of at their next poll; a lost notification only costs a poll.
    await this.rows('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, record.id]);
    return record;
  }

  async listen(onQueued: () => void): Promise<() => Promise<void>> {
    // A connection of its own: LISTEN holds it for as long as the worker runs. When it drops (the
    // database restarted), it is opened again with a growing pause, and the worker is woken once
    // then: jobs queued while it was gone sent their notifications to nobody.
    let closed = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let pauseMs = LISTEN_RETRY_MIN_MS;
    const open = async (): Promise<void> => {
      const next = new this.driver.Client({ connectionString: this.url });
      next.on('error', () => undefined);
      next.on('end', () => {
        if (closed || client !== next) return;
        client = undefined;
        schedule();
      });
      next.on('notification', () => onQueued());
      try {
        await next.connect();
        await next.query(`LISTEN ${JOBS_CHANNEL}`);
      } catch (error) {
        next.end().catch(() => undefined);
        throw this.mapped(error);
      }
      if (closed) {
        await next.end().catch(() => undefined);
        return;
      }
      client = next;
    };
    const schedule = () => {
      if (closed || retry) return;
      retry = setTimeout(() => {
        retry = undefined;
        open().then(
          () => {
            pauseMs = LISTEN_RETRY_MIN_MS;
            onQueued();
          },
          () => {
            pauseMs = Math.min(LISTEN_RETRY_MAX_MS, pauseMs * 2);
            schedule();
          },
        );
      }, pauseMs);
      retry.unref();
    };
    await open();
    return async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    };
  }

  async claimJob(worker: string, leaseMs: number, maxAttempts: number): Promise<ClaimedJob | undefined> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw this.mapped(error);
    });
    try {
      await client.query('BEGIN');
      // Expired jobs that used all their attempts end here, failed, instead of being claimed again.
      await client.query(
        `UPDATE srv_jobs SET status = 'failed', error = $1, finished_at = $2, lease_until = NULL
         WHERE id IN (SELECT id FROM srv_jobs WHERE status = 'running' AND payload IS NOT NULL AND lease_until < now() AND attempts >= $3 FOR UPDATE SKIP LOCKED)`,
        [`its worker stopped ${maxAttempts} times while ingesting (lease expired); not retried again`, now(), maxAttempts],
      );
      const claimed = await client.query(
        `UPDATE srv_jobs SET status = 'running', attempts = attempts + 1, worker = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000)
         WHERE id = (SELECT id FROM srv_jobs WHERE payload IS NOT NULL AND (status = 'queued' OR (status = 'running' AND lease_until < now())) ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [worker, leaseMs],
      );
      await client.query('COMMIT');
      const row = claimed.rows[0];
      return row ? { ...toJob(row), payload: JSON.parse(row.payload) as JobPayload, attempts: row.attempts } : undefined;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.mapped(error);
    } finally {
      client.release();
    }
  }

  async heartbeat(id: string, worker: string, leaseMs: number, progress?: unknown): Promise<boolean> {
    const result = await this.query(
      `UPDATE srv_jobs SET lease_until = now() + make_interval(secs => $3::double precision / 1000), progress = COALESCE($4, progress) WHERE id = $1 AND worker = $2 AND status = 'running'`,
      [id, worker, leaseMs, progress === undefined ? null : JSON.stringify(progress)],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async completeJob(
    id: string,
    worker: string,
    outcome: { status: 'finished'; report: unknown } | { status: 'failed'; error: string },
  ): Promise<boolean> {
    const result = await this.query(
      `UPDATE srv_jobs SET status = $3, report = $4, error = $5, finished_at = $6, lease_until = NULL WHERE id = $1 AND worker = $2 AND status = 'running'`,
      [
        id,
        worker,
        outcome.status,
        outcome.status === 'finished' ? JSON.stringify(outcome.report ?? null) : null,
        outcome.status === 'failed' ? outcome.error : null,
        now(),
      ],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async releaseJob(id: string, worker: string): Promise<void> {
    await this.query(
      `UPDATE srv_jobs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), worker = NULL, lease_until = NULL WHERE id = $1 AND worker = $2 AND status = 'running'`,
      [id, worker],
    );
  }
}

const JOBS_CHANNEL = 'srv_jobs_queued';
/** Pauses between attempts to listen again after the connection dropped: 250 ms doubling to 5 s. */
const LISTEN_RETRY_MIN_MS = 250;
const LISTEN_RETRY_MAX_MS = 5000;

const toJob = (row: Row): JobRecord => ({
  id: row.id,
  userId: row.user_id,
  collection: row.collection,
  status: row.status as JobRecord['status'],
  ...(row.progress ? { progress: json(row.progress) } : {}),
  ...(row.report ? { report: json(row.report) } : {}),
  ...(row.error ? { error: row.error } : {}),
  createdAt: row.created_at,
  ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
  ...(row.payload ? { attempts: row.attempts } : {}),
});
