import { randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { DossierError } from '../../errors/index.ts';
import {
  type Role,
  ROLES,
  type User,
  type RunRecord,
  type StoredEvent,
  type ConversationRecord,
  type MessageRecord,
  type JobRecord,
  type Lease,
  type ServerState,
  type JobUpdate,
  USER_NAME,
  badUserName,
  userExists,
  badRole,
  INTERRUPTED_JOB,
  serverTablesTooNew,
  now,
  hashKey,
  json,
} from './types.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS srv_users (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, admin INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS srv_keys (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES srv_users(id) ON DELETE CASCADE, hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS srv_members (collection TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES srv_users(id) ON DELETE CASCADE, role TEXT NOT NULL, PRIMARY KEY (collection, user_id));
CREATE TABLE IF NOT EXISTS srv_conversations (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, title TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS srv_messages (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES srv_conversations(id) ON DELETE CASCADE, parent_id TEXT, role TEXT NOT NULL, content TEXT NOT NULL, run_id TEXT, citations TEXT, created_at TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS srv_messages_conversation ON srv_messages (conversation_id, seq);
CREATE TABLE IF NOT EXISTS srv_runs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, conversation_id TEXT, question TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL, finish_reason TEXT, result TEXT, created_at TEXT NOT NULL, finished_at TEXT);
CREATE TABLE IF NOT EXISTS srv_run_events (run_id TEXT NOT NULL REFERENCES srv_runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL, type TEXT NOT NULL, event TEXT NOT NULL, PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS srv_jobs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, collection TEXT NOT NULL, status TEXT NOT NULL, progress TEXT, report TEXT, error TEXT, created_at TEXT NOT NULL, finished_at TEXT);
`;

/**
 * The SQLite server tables as numbered migrations, like the PostgreSQL ones (state-postgres.ts):
 * `srv_meta.schema_version` holds the last one applied (a file from before versioning has the tables
 * but no srv_meta: version 1 is idempotent, so it is simply applied again). Pending ones run in one
 * IMMEDIATE transaction, so two processes opening the file migrate it once.
 */
const SQLITE_MIGRATIONS: ReadonlyArray<{ version: number; name: string; up(db: Database.Database): void }> = [
  { version: 1, name: 'users, keys, members, conversations, messages, runs, events, jobs', up: (db) => db.exec(SCHEMA) },
  {
    version: 2,
    name: 'run and job leases: the node holding each and until when (ISO time)',
    up(db) {
      const add = (table: string, column: string, type: string) => {
        const columns = (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
        if (!columns.includes(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      };
      add('srv_runs', 'node', 'TEXT');
      add('srv_runs', 'lease_until', 'TEXT');
      add('srv_jobs', 'worker', 'TEXT');
      add('srv_jobs', 'lease_until', 'TEXT');
      db.exec("CREATE INDEX IF NOT EXISTS srv_runs_running ON srv_runs (lease_until) WHERE status = 'running'");
    },
  },
];

export const SQLITE_SERVER_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

/** Applies the pending SQLite server migrations; returns the versions applied. */
function migrateSqlite(db: Database.Database, path: string): number[] {
  return db
    .transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS srv_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const row = db.prepare("SELECT value FROM srv_meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
      const from = Number(row?.value ?? 0);
      if (from > SQLITE_SERVER_SCHEMA_VERSION) throw serverTablesTooNew(path, from, SQLITE_SERVER_SCHEMA_VERSION);
      const applied: number[] = [];
      for (const migration of SQLITE_MIGRATIONS) {
        if (migration.version <= from) continue;
        migration.up(db);
        db.prepare(
          "INSERT INTO srv_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        ).run(String(migration.version));
        applied.push(migration.version);
      }
      return applied;
    })
    .immediate();
}

/** The ISO time `ms` from now: SQLite lease expiry (ISO strings of one format compare as times). */
const leaseUntil = (ms: number) => new Date(Date.now() + ms).toISOString();
/** SQLite: the tables live in the index file, on a connection of their own (better-sqlite3 is synchronous; the methods resolve at once). */
export class SqliteServerState implements ServerState {
  readonly db: Database.Database;
  /** Migration versions this instance applied when it opened (empty when the file was current). */
  readonly migrated: number[];

  constructor(path: string) {
    if (path === ':memory:') throw new DossierError('config', 'the server needs an index file, not :memory:');
    this.db = new Database(path);
    try {
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('foreign_keys = ON');
      this.migrated = migrateSqlite(this.db, path);
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  queue(): undefined {
    return undefined;
  }

  // Users and keys

  async createUser(name: string, options: { admin?: boolean } = {}): Promise<User> {
    if (!USER_NAME.test(name)) throw badUserName(name);
    const user: User = { id: randomUUID(), name, admin: options.admin === true, createdAt: now() };
    // The unique name decides, in the insert itself: a check before it would let two calls made at
    // once (each awaiting between check and insert) both pass, and the second fail on the constraint.
    const inserted = this.db
      .prepare('INSERT INTO srv_users (id, name, admin, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING')
      .run(user.id, user.name, user.admin ? 1 : 0, user.createdAt);
    if (inserted.changes === 0) throw userExists(name);
    return user;
  }

  /** The local user of a loopback server without keys: created once, an admin. */
  async localUser(): Promise<User> {
    const found = await this.userByName('local');
    if (found) return found;
    // Concurrent first requests each try; whichever inserts first wins and all read that one.
    this.db
      .prepare("INSERT INTO srv_users (id, name, admin, created_at) VALUES (?, 'local', 1, ?) ON CONFLICT (name) DO NOTHING")
      .run(randomUUID(), now());
    return (await this.userByName('local'))!;
  }

  async userByName(name: string): Promise<User | undefined> {
    return this.toUser(this.db.prepare('SELECT * FROM srv_users WHERE name = ?').get(name));
  }

  async user(id: string): Promise<User | undefined> {
    return this.toUser(this.db.prepare('SELECT * FROM srv_users WHERE id = ?').get(id));
  }

  async users(): Promise<User[]> {
    return (this.db.prepare('SELECT * FROM srv_users ORDER BY created_at').all() as unknown[]).map((row) => this.toUser(row)!);
  }

  /** A new API key for the user; the key itself is returned once and never stored. */
  async createKey(userId: string): Promise<{ id: string; apiKey: string }> {
    if (!(await this.user(userId))) throw new DossierError('not-found', 'no such user');
    const apiKey = `dsk_${randomBytes(32).toString('base64url')}`;
    const id = randomUUID();
    this.db.prepare('INSERT INTO srv_keys (id, user_id, hash, created_at) VALUES (?, ?, ?, ?)').run(id, userId, hashKey(apiKey), now());
    return { id, apiKey };
  }

  async userByKey(apiKey: string): Promise<User | undefined> {
    const row = this.db.prepare('SELECT u.* FROM srv_keys k JOIN srv_users u ON u.id = k.user_id WHERE k.hash = ?').get(hashKey(apiKey));
    return this.toUser(row);
  }

  // Collections

  async grant(collection: string, userId: string, role: Role): Promise<void> {
    if (!ROLES.includes(role)) throw badRole(role);
    this.db
      .prepare(
        'INSERT INTO srv_members (collection, user_id, role) VALUES (?, ?, ?) ON CONFLICT (collection, user_id) DO UPDATE SET role = excluded.role',
      )
      .run(collection, userId, role);
  }

  async revoke(collection: string, userId: string): Promise<void> {
    this.db.prepare('DELETE FROM srv_members WHERE collection = ? AND user_id = ?').run(collection, userId);
  }

  /** The collections a user is a member of, with the role. */
  async memberships(userId: string): Promise<Array<{ collection: string; role: Role }>> {
    return this.db.prepare('SELECT collection, role FROM srv_members WHERE user_id = ? ORDER BY collection').all(userId) as Array<{
      collection: string;
      role: Role;
    }>;
  }

  async members(collection: string): Promise<Array<{ userId: string; name: string; role: Role }>> {
    return this.db
      .prepare(
        'SELECT m.user_id AS userId, u.name, m.role FROM srv_members m JOIN srv_users u ON u.id = m.user_id WHERE m.collection = ? ORDER BY u.name',
      )
      .all(collection) as Array<{ userId: string; name: string; role: Role }>;
  }

  // Runs and their events

  async createRun(run: Omit<RunRecord, 'status' | 'createdAt'>, lease: Lease): Promise<RunRecord> {
    const record: RunRecord = { ...run, status: 'running', createdAt: now() };
    this.db
      .prepare(
        'INSERT INTO srv_runs (id, user_id, conversation_id, question, mode, status, created_at, node, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        record.id,
        record.userId,
        record.conversationId ?? null,
        record.question,
        record.mode,
        record.status,
        record.createdAt,
        lease.node,
        leaseUntil(lease.ms),
      );
    return record;
  }

  async appendEvent(runId: string, seq: number, event: { type: string }): Promise<void> {
    this.db
      .prepare('INSERT INTO srv_run_events (run_id, seq, type, event) VALUES (?, ?, ?, ?)')
      .run(runId, seq, event.type, JSON.stringify(event));
  }

  async finishRun(runId: string, status: 'finished' | 'failed', finishReason: string, result: unknown): Promise<void> {
    this.db
      .prepare(
        "UPDATE srv_runs SET status = ?, finish_reason = ?, result = ?, finished_at = ?, lease_until = NULL WHERE id = ? AND status = 'running'",
      )
      .run(status, finishReason, JSON.stringify(result ?? null), now(), runId);
  }

  async run(id: string): Promise<RunRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM srv_runs WHERE id = ?').get(id) as Record<string, string | null> | undefined;
    if (!row) return undefined;
    return {
      id: row.id!,
      userId: row.user_id!,
      ...(row.conversation_id ? { conversationId: row.conversation_id } : {}),
      question: row.question!,
      mode: row.mode!,
      status: row.status as RunRecord['status'],
      ...(row.finish_reason ? { finishReason: row.finish_reason } : {}),
      createdAt: row.created_at!,
      ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
      ...(row.result ? { result: json(row.result) } : {}),
    };
  }

  /** Stored events after `afterSeq`, in order. */
  async events(runId: string, afterSeq = 0): Promise<StoredEvent[]> {
    return (
      this.db.prepare('SELECT seq, event FROM srv_run_events WHERE run_id = ? AND seq > ? ORDER BY seq').all(runId, afterSeq) as Array<{
        seq: number;
        event: string;
      }>
    ).map((row) => ({ seq: row.seq, event: JSON.parse(row.event) }));
  }

  async lastSeq(runId: string): Promise<number> {
    return (this.db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM srv_run_events WHERE run_id = ?').get(runId) as { seq: number }).seq;
  }

  async renewLeases(lease: Lease, held: { runs: string[]; jobs: string[] }): Promise<string[]> {
    const until = leaseUntil(lease.ms);
    const run = this.db.prepare("UPDATE srv_runs SET lease_until = ? WHERE id = ? AND node = ? AND status = 'running'");
    const job = this.db.prepare("UPDATE srv_jobs SET lease_until = ? WHERE id = ? AND worker = ? AND status = 'running'");
    return this.db.transaction(() => {
      for (const id of held.jobs) job.run(until, id, lease.node);
      return held.runs.filter((id) => run.run(until, id, lease.node).changes === 0);
    })();
  }

  async claimExpiredRuns(lease: Lease): Promise<string[]> {
    // IMMEDIATE: another process on the file claims after this one, and finds nothing left.
    return this.db
      .transaction(() => {
        const ids = (
          this.db
            .prepare("SELECT id FROM srv_runs WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?)")
            .all(now()) as Array<{ id: string }>
        ).map((row) => row.id);
        const claim = this.db.prepare('UPDATE srv_runs SET node = ?, lease_until = ? WHERE id = ?');
        for (const id of ids) claim.run(lease.node, leaseUntil(lease.ms), id);
        return ids;
      })
      .immediate();
  }

  // Conversations

  async createConversation(userId: string, title: string): Promise<ConversationRecord> {
    const record: ConversationRecord = { id: randomUUID(), userId, title: title.slice(0, 200), createdAt: now() };
    this.db
      .prepare('INSERT INTO srv_conversations (id, user_id, title, created_at) VALUES (?, ?, ?, ?)')
      .run(record.id, record.userId, record.title, record.createdAt);
    return record;
  }

  async conversation(id: string): Promise<ConversationRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM srv_conversations WHERE id = ?').get(id) as Record<string, string> | undefined;
    return row ? { id: row.id, userId: row.user_id, title: row.title, createdAt: row.created_at } : undefined;
  }

  async conversations(userId: string): Promise<ConversationRecord[]> {
    return (
      this.db.prepare('SELECT * FROM srv_conversations WHERE user_id = ? ORDER BY created_at DESC').all(userId) as Array<
        Record<string, string>
      >
    ).map((row) => ({ id: row.id, userId: row.user_id, title: row.title, createdAt: row.created_at }));
  }

  async deleteConversation(id: string): Promise<void> {
    this.db.prepare('DELETE FROM srv_conversations WHERE id = ?').run(id);
  }

  async addMessage(message: Omit<MessageRecord, 'id' | 'createdAt'>): Promise<MessageRecord> {
    const record: MessageRecord = { ...message, id: randomUUID(), createdAt: now() };
    const seq = (
      this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM srv_messages WHERE conversation_id = ?').get(record.conversationId) as {
        seq: number;
      }
    ).seq;
    this.db
      .prepare(
        'INSERT INTO srv_messages (id, conversation_id, parent_id, role, content, run_id, citations, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        record.id,
        record.conversationId,
        record.parentId ?? null,
        record.role,
        record.content,
        record.runId ?? null,
        record.citations ? JSON.stringify(record.citations) : null,
        record.createdAt,
        seq,
      );
    return record;
  }

  async messages(conversationId: string): Promise<MessageRecord[]> {
    return (
      this.db.prepare('SELECT * FROM srv_messages WHERE conversation_id = ? ORDER BY seq').all(conversationId) as Array<
        Record<string, string | null>
      >
    ).map((row) => ({
      id: row.id!,
      conversationId: row.conversation_id!,
      ...(row.parent_id ? { parentId: row.parent_id } : {}),
      role: row.role as 'user' | 'assistant',
      content: row.content!,
      ...(row.run_id ? { runId: row.run_id } : {}),
      ...(row.citations ? { citations: json(row.citations) } : {}),
      createdAt: row.created_at!,
    }));
  }

  // Ingestion jobs

  async createJob(userId: string, collection: string, lease: Lease): Promise<JobRecord> {
    const record: JobRecord = { id: randomUUID(), userId, collection, status: 'running', createdAt: now() };
    this.db
      .prepare('INSERT INTO srv_jobs (id, user_id, collection, status, created_at, worker, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(record.id, userId, collection, record.status, record.createdAt, lease.node, leaseUntil(lease.ms));
    return record;
  }

  async updateJob(id: string, update: JobUpdate): Promise<void> {
    const current = await this.job(id);
    if (!current) return;
    const next = { ...current, ...update };
    this.db
      .prepare('UPDATE srv_jobs SET status = ?, progress = ?, report = ?, error = ?, finished_at = ? WHERE id = ?')
      .run(
        next.status,
        next.progress === undefined ? null : JSON.stringify(next.progress),
        next.report === undefined ? null : JSON.stringify(next.report),
        next.error ?? null,
        next.status === 'running' || next.status === 'queued' ? null : now(),
        id,
      );
  }

  async job(id: string): Promise<JobRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM srv_jobs WHERE id = ?').get(id) as Record<string, string | null> | undefined;
    if (!row) return undefined;
    return {
      id: row.id!,
      userId: row.user_id!,
      collection: row.collection!,
      status: row.status as JobRecord['status'],
      ...(row.progress ? { progress: json(row.progress) } : {}),
      ...(row.report ? { report: json(row.report) } : {}),
      ...(row.error ? { error: row.error } : {}),
      createdAt: row.created_at!,
      ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
    };
  }

  async failInterruptedJobs(): Promise<number> {
    return this.db
      .prepare(
        "UPDATE srv_jobs SET status = 'failed', error = ?, finished_at = ?, lease_until = NULL WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?)",
      )
      .run(INTERRUPTED_JOB, now(), now()).changes;
  }

  private toUser(row: unknown): User | undefined {
    if (!row) return undefined;
    const r = row as { id: string; name: string; admin: number; created_at: string };
    return { id: r.id, name: r.name, admin: r.admin === 1, createdAt: r.created_at };
  }
}
