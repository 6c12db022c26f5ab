import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { DossierError } from '../../errors/index.ts';
import { hashKey, INTERRUPTED_JOB, type JobQueue, type Lease, type MessageRecord, type RunRecord, type ServerState } from './types.ts';

/** What `make` returns: a fresh, empty server state, and how to release it. */
export interface ServerStateUnderTest {
  state: ServerState;
  cleanup(): Promise<void>;
  /**
   * The stored rows of one `srv_*` table, read beside the interface: lets the suite check what is
   * kept on disk (API keys only as their SHA-256). Without it those checks are skipped, saying so.
   */
  rows?(table: string): Promise<Array<Record<string, unknown>>>;
}

export interface ServerStateContractOptions {
  /** Why the suite cannot run here (a backend that is not reachable): reported as skipped with it, never dropped. */
  skip?: string | false;
  /**
   * The backend has the durable ingestion queue (`queue()` returns one: PostgreSQL). Without it the
   * suite asserts that `queue()` is undefined (SQLite ingests in-process), and says so in the test name.
   */
  queue?: boolean;
  /** The backend counts requests for a rate limit shared by every node (`countRequest`: PostgreSQL); otherwise it must be absent. */
  sharedRateLimit?: boolean;
  /**
   * The backend cannot store U+0000 in text (PostgreSQL) and refuses it as bad-input; otherwise it
   * stores it as given. The HTTP API refuses such text before either sees it.
   */
  refusesNul?: boolean;
}

/**
 * The one behaviour suite both ServerState implementations (server/state/sqlite.ts, postgres.ts)
 * must pass: what the server relies on, identical on both. `make` returns a fresh, empty state for
 * every test; `cleanup` releases it. Where the backends legitimately differ (the queue, the shared
 * rate limit) the options say which is which and the test names state it.
 */
export function serverStateContract(
  name: string,
  make: () => Promise<ServerStateUnderTest>,
  options: ServerStateContractOptions = {},
): void {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Long enough never to run out during a test. */
  const LONG = 60_000;
  /** Short leases run out after `expire()`. */
  const SHORT = 1;
  const expire = () => sleep(40);
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
  const code = (expected: string, message?: RegExp) => (error: unknown) =>
    DossierError.isInstance(error) && error.code === expected && (!message || message.test(error.message));

  async function withState(test: (state: ServerState, made: ServerStateUnderTest) => Promise<void>): Promise<void> {
    const made = await make();
    try {
      await test(made.state, made);
    } finally {
      await made.cleanup();
    }
  }

  const runOf = (userId: string, extra: Partial<RunRecord> = {}) => ({
    id: randomUUID(),
    userId,
    question: 'Where was the sea trial?',
    mode: 'agent',
    ...extra,
  });

  describe(`ServerState contract: ${name}`, { skip: options.skip ?? false }, () => {
    it('answers a ping', () => withState(async (state) => assert.equal(await state.ping(), undefined)));

    it('refuses rows that point at nothing: a grant to an unknown user, an event of an unknown run, a message in an unknown conversation', () =>
      withState(async (state) => {
        await assert.rejects(() => state.grant('notes', randomUUID(), 'reader'));
        await assert.rejects(() => state.appendEvent(randomUUID(), 1, { type: 'run-start' }));
        await assert.rejects(() => state.addMessage({ conversationId: randomUUID(), role: 'user', content: 'hello' }));
        assert.deepEqual(await state.members('notes'), []);
      }));

    if (options.refusesNul) {
      it('refuses text holding U+0000 as bad-input (questions, titles, messages), never a raw driver error', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          await assert.rejects(() => state.createRun(runOf(user.id, { question: 'nul \u0000 here' }), { node: 'n', ms: LONG }), {
            code: 'bad-input',
          });
          await assert.rejects(() => state.createConversation(user.id, 'title \u0000'), { code: 'bad-input' });
          const conversation = await state.createConversation(user.id, 'title');
          await assert.rejects(() => state.addMessage({ conversationId: conversation.id, role: 'user', content: 'content \u0000' }), {
            code: 'bad-input',
          });
        }));
    } else {
      it('stores text holding U+0000 as given (questions, titles, messages)', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const run = await state.createRun(runOf(user.id, { question: 'nul \u0000 here' }), { node: 'n', ms: LONG });
          assert.equal((await state.run(run.id))?.question, 'nul \u0000 here');
          const conversation = await state.createConversation(user.id, 'title \u0000');
          assert.equal((await state.conversation(conversation.id))?.title, 'title \u0000');
          await state.addMessage({ conversationId: conversation.id, role: 'user', content: 'content \u0000' });
          assert.equal((await state.messages(conversation.id))[0]?.content, 'content \u0000');
        }));
    }

    describe('users', () => {
      it('creates a user and finds it by name and by id; an unknown name or id finds none', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          assert.match(alice.id, UUID);
          assert.match(alice.createdAt, ISO);
          assert.deepEqual([alice.name, alice.admin], ['alice', false]);
          assert.deepEqual(await state.userByName('alice'), alice);
          assert.deepEqual(await state.user(alice.id), alice);
          assert.equal(await state.userByName('bob'), undefined);
          assert.equal(await state.userByName('ALICE'), undefined, 'names are case-sensitive');
          assert.equal(await state.user(randomUUID()), undefined);
        }));

      it('keeps the admin flag', () =>
        withState(async (state) => {
          const root = await state.createUser('root', { admin: true });
          const plain = await state.createUser('plain', { admin: false });
          assert.equal(root.admin, true);
          assert.equal((await state.userByName('root'))?.admin, true);
          assert.equal((await state.user(plain.id))?.admin, false);
        }));

      it('lists the users in the order they were made', () =>
        withState(async (state) => {
          assert.deepEqual(await state.users(), []);
          const made = [];
          for (const name of ['carol', 'Alice', 'bob']) {
            made.push(await state.createUser(name));
            await sleep(3); // distinct creation times: the order is by creation time
          }
          assert.deepEqual(await state.users(), made);
        }));

      it('refuses a duplicate name (bad-input, "exists already") and leaves the first user as it was', () =>
        withState(async (state) => {
          const first = await state.createUser('dana', { admin: true });
          await assert.rejects(() => state.createUser('dana'), code('bad-input', /user "dana" exists already/));
          assert.deepEqual(await state.users(), [first]);
        }));

      it('refuses a duplicate name the same way when both are created at once', () =>
        withState(async (state) => {
          const outcomes = await Promise.allSettled([state.createUser('erin'), state.createUser('erin')]);
          assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, 'one is created');
          const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
          assert.ok(code('bad-input', /exists already/)(refused.reason), `refused with bad-input, not ${refused.reason}`);
          assert.equal((await state.users()).length, 1);
        }));

      it('refuses a malformed name with bad-input', () =>
        withState(async (state) => {
          for (const name of ['', 'has space', '-dash-first', 'x'.repeat(65), 'semi;colon']) {
            await assert.rejects(() => state.createUser(name), code('bad-input', /must be 1–64 letters/), JSON.stringify(name));
          }
          assert.deepEqual(await state.users(), []);
        }));

      it('makes the local user once, an admin named "local", also when first asked for by several requests at once', () =>
        withState(async (state) => {
          const [a, b, c] = await Promise.all([state.localUser(), state.localUser(), state.localUser()]);
          assert.deepEqual([a.name, a.admin], ['local', true]);
          assert.deepEqual([b, c], [a, a]);
          assert.deepEqual(await state.localUser(), a);
          assert.deepEqual(await state.users(), [a]);
          await assert.rejects(() => state.createUser('local'), code('bad-input', /exists already/));
        }));
    });

    describe('API keys', () => {
      it('a key finds its user; an unknown or altered key finds none; each key is new', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          const bob = await state.createUser('bob');
          const first = await state.createKey(alice.id);
          const second = await state.createKey(alice.id);
          const bobs = await state.createKey(bob.id);
          assert.match(first.id, UUID);
          assert.match(first.apiKey, /^dsk_[A-Za-z0-9_-]{43}$/);
          assert.equal(new Set([first.apiKey, second.apiKey, bobs.apiKey]).size, 3);
          assert.equal(new Set([first.id, second.id, bobs.id]).size, 3);
          assert.deepEqual(await state.userByKey(first.apiKey), alice);
          assert.deepEqual(await state.userByKey(second.apiKey), alice);
          assert.deepEqual(await state.userByKey(bobs.apiKey), bob);
          assert.equal(await state.userByKey('dsk_unknown'), undefined);
          assert.equal(await state.userByKey(`${first.apiKey}x`), undefined);
          assert.equal(await state.userByKey(''), undefined);
        }));

      it('refuses a key for an unknown user with not-found', () =>
        withState(async (state) => assert.rejects(() => state.createKey(randomUUID()), code('not-found'))));

      it('stores a key only as its SHA-256, never in clear', (t) =>
        withState(async (state, made) => {
          if (!made.rows) return void t.skip('make() gave no rows(): the stored keys cannot be read here');
          const alice = await state.createUser('alice');
          const { id, apiKey } = await state.createKey(alice.id);
          const rows = await made.rows('srv_keys');
          assert.deepEqual(
            rows.map((row) => [row.id, row.user_id, row.hash]),
            [[id, alice.id, hashKey(apiKey)]],
          );
          assert.doesNotMatch(JSON.stringify(rows), new RegExp(apiKey.slice(4)), 'no column holds the key');
        }));
    });

    describe('memberships', () => {
      it('grants a role, changes it on a second grant, revokes it; memberships are by collection in byte order', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          assert.deepEqual(await state.memberships(alice.id), []);
          await state.grant('beta', alice.id, 'reader');
          await state.grant('alpha', alice.id, 'owner');
          await state.grant('Zeta', alice.id, 'writer');
          assert.deepEqual(await state.memberships(alice.id), [
            { collection: 'Zeta', role: 'writer' },
            { collection: 'alpha', role: 'owner' },
            { collection: 'beta', role: 'reader' },
          ]);
          await state.grant('beta', alice.id, 'writer');
          assert.deepEqual(
            (await state.memberships(alice.id)).find((m) => m.collection === 'beta'),
            { collection: 'beta', role: 'writer' },
            'one membership, the new role',
          );
          await state.revoke('alpha', alice.id);
          await state.revoke('alpha', alice.id); // not a member any more: nothing to do
          await state.revoke('never-granted', alice.id);
          assert.deepEqual(
            (await state.memberships(alice.id)).map((m) => m.collection),
            ['Zeta', 'beta'],
          );
        }));

      it("a collection's members are listed by name in byte order, with their id and role", () =>
        withState(async (state) => {
          const bob = await state.createUser('bob');
          const alice = await state.createUser('alice');
          const zed = await state.createUser('Zed');
          const other = await state.createUser('other');
          await state.grant('notes', bob.id, 'reader');
          await state.grant('notes', alice.id, 'owner');
          await state.grant('notes', zed.id, 'writer');
          await state.grant('elsewhere', other.id, 'owner');
          assert.deepEqual(await state.members('notes'), [
            { userId: zed.id, name: 'Zed', role: 'writer' },
            { userId: alice.id, name: 'alice', role: 'owner' },
            { userId: bob.id, name: 'bob', role: 'reader' },
          ]);
          assert.deepEqual(await state.members('nobody-here'), []);
          assert.deepEqual(await state.memberships(other.id), [{ collection: 'elsewhere', role: 'owner' }]);
        }));

      it('refuses an unknown role with bad-input and grants nothing', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          await assert.rejects(
            () => state.grant('notes', alice.id, 'admin' as never),
            code('bad-input', /role must be reader, writer or owner, got "admin"/),
          );
          assert.deepEqual(await state.memberships(alice.id), []);
        }));
    });

    describe('runs and their events', () => {
      const lease: Lease = { node: 'node-a', ms: LONG };

      it('creates a running run and reads it back; an unknown run is undefined', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const conversation = await state.createConversation(user.id, 'Trials');
          const plain = await state.createRun(runOf(user.id), lease);
          const inConversation = await state.createRun(runOf(user.id, { conversationId: conversation.id, mode: 'research' }), lease);
          assert.equal(plain.status, 'running');
          assert.match(plain.createdAt, ISO);
          assert.deepEqual(await state.run(plain.id), plain);
          assert.equal('conversationId' in (await state.run(plain.id))!, false, 'no conversationId key when there is none');
          assert.deepEqual(await state.run(inConversation.id), inConversation);
          assert.equal(inConversation.conversationId, conversation.id);
          assert.equal(await state.run(randomUUID()), undefined);
        }));

      it('stores events as given and returns them in seq order, all or after a seq; lastSeq is the highest, 0 with none', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const run = await state.createRun(runOf(user.id), lease);
          assert.deepEqual(await state.events(run.id), []);
          assert.equal(await state.lastSeq(run.id), 0);
          const events = [
            { type: 'run-start', question: 'Where?', nested: { list: [1, 'two', null], unicode: 'Größe — ✓' } },
            { type: 'text-delta', text: 'The trial ' },
            { type: 'text-delta', text: 'was in the fjord.' },
            { type: 'run-finish', finishReason: 'answered', usage: { inputTokens: 10, outputTokens: 5 } },
          ];
          // Appended out of order (two writers): read back by seq all the same.
          for (const seq of [1, 3, 2, 4]) await state.appendEvent(run.id, seq, events[seq - 1]!);
          assert.deepEqual(
            await state.events(run.id),
            events.map((event, i) => ({ seq: i + 1, event })),
          );
          assert.deepEqual(await state.events(run.id, 0), await state.events(run.id));
          assert.deepEqual(
            (await state.events(run.id, 2)).map((e) => e.seq),
            [3, 4],
          );
          assert.deepEqual(await state.events(run.id, 4), []);
          assert.equal(await state.lastSeq(run.id), 4);
          const other = await state.createRun(runOf(user.id), lease);
          assert.deepEqual(await state.events(other.id), [], "another run's events are its own");
          assert.equal(await state.lastSeq(other.id), 0);
          assert.equal(await state.lastSeq(randomUUID()), 0);
        }));

      it('refuses an event whose seq is stored already (a seq is never reused) and keeps the first', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const run = await state.createRun(runOf(user.id), lease);
          await state.appendEvent(run.id, 1, { type: 'run-start' });
          await assert.rejects(() => state.appendEvent(run.id, 1, { type: 'other' }));
          assert.deepEqual(await state.events(run.id), [{ seq: 1, event: { type: 'run-start' } }]);
        }));

      it('finishRun ends a running run once, with status, reason, time and result; a second finish changes nothing', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const done = await state.createRun(runOf(user.id), lease);
          const result = { answer: 'In the fjord [1].', citations: [{ id: 1, source: 'a.md' }], finishReason: 'answered' };
          await state.finishRun(done.id, 'finished', 'answered', result);
          const finished = await state.run(done.id);
          assert.deepEqual(
            { ...finished, finishedAt: undefined },
            { ...done, status: 'finished', finishReason: 'answered', result, finishedAt: undefined },
          );
          assert.match(finished!.finishedAt!, ISO);
          await state.finishRun(done.id, 'failed', 'error', { error: 'late' });
          assert.deepEqual(await state.run(done.id), finished, 'the first finish stands');

          const failed = await state.createRun(runOf(user.id), lease);
          await state.finishRun(failed.id, 'failed', 'error', { error: { code: 'interrupted' } });
          assert.deepEqual(
            [(await state.run(failed.id))?.status, (await state.run(failed.id))?.finishReason, (await state.run(failed.id))?.result],
            ['failed', 'error', { error: { code: 'interrupted' } }],
          );

          const empty = await state.createRun(runOf(user.id), lease);
          await state.finishRun(empty.id, 'finished', 'no-evidence', undefined);
          assert.equal((await state.run(empty.id))?.result, null, 'no result is stored as null');
          await state.finishRun(randomUUID(), 'finished', 'answered', {}); // an unknown run: nothing to do
        }));
    });

    describe('leases', () => {
      const a: Lease = { node: 'node-a', ms: LONG };
      const b: Lease = { node: 'node-b', ms: LONG };

      it('renewLeases returns the held runs the node no longer holds: ended, another node’s, unknown; [] when it holds them all', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const live = await state.createRun(runOf(user.id), a);
          const ended = await state.createRun(runOf(user.id), a);
          await state.finishRun(ended.id, 'finished', 'answered', {});
          const others = await state.createRun(runOf(user.id), b);
          const unknown = randomUUID();
          assert.deepEqual(await state.renewLeases(a, { runs: [live.id], jobs: [] }), []);
          assert.deepEqual(await state.renewLeases(a, { runs: [unknown, live.id, ended.id, others.id], jobs: [] }), [
            unknown,
            ended.id,
            others.id,
          ]);
          assert.deepEqual(await state.renewLeases(a, { runs: [], jobs: [] }), []);
          assert.deepEqual(await state.renewLeases(b, { runs: [others.id], jobs: [] }), []);
        }));

      it('a renewed lease does not run out: the run is not claimed as expired', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const run = await state.createRun(runOf(user.id), { node: a.node, ms: 300 });
          assert.deepEqual(await state.renewLeases(a, { runs: [run.id], jobs: [] }), []);
          await sleep(400);
          assert.deepEqual(await state.claimExpiredRuns(b), []);
          assert.equal((await state.run(run.id))?.status, 'running');
        }));

      it('claimExpiredRuns takes over running runs whose lease ran out, once; live and ended runs are left alone', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const live = await state.createRun(runOf(user.id), a);
          const expired = await state.createRun(runOf(user.id), { node: a.node, ms: SHORT });
          const endedExpired = await state.createRun(runOf(user.id), { node: a.node, ms: SHORT });
          await state.finishRun(endedExpired.id, 'failed', 'error', {});
          await expire();
          assert.deepEqual(await state.claimExpiredRuns(b), [expired.id]);
          assert.deepEqual(await state.claimExpiredRuns(b), [], 'claimed with a new lease: not claimed again');
          assert.deepEqual(await state.claimExpiredRuns({ node: 'node-c', ms: LONG }), [], 'nor by a third node');
          // The claim does not end the run (the claimer writes its closing events and fails it) …
          assert.equal((await state.run(expired.id))?.status, 'running');
          // … but the run is the claimer's now: its first node finds it lost, the claimer still holds it.
          assert.deepEqual(await state.renewLeases(a, { runs: [live.id, expired.id], jobs: [] }), [expired.id]);
          assert.deepEqual(await state.renewLeases(b, { runs: [expired.id], jobs: [] }), []);
          assert.equal((await state.run(live.id))?.status, 'running');
        }));

      it('claimExpiredRuns also takes a run of the claiming node whose lease ran out (expiry, not the node, decides)', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const run = await state.createRun(runOf(user.id), { node: a.node, ms: SHORT });
          await expire();
          assert.deepEqual(await state.claimExpiredRuns(a), [run.id]);
          assert.deepEqual(await state.claimExpiredRuns(b), []);
        }));

      it('claimExpiredRuns with several claiming at once gives each expired run to exactly one', () =>
        withState(async (state) => {
          const user = await state.createUser('alice');
          const runs = [];
          for (let i = 0; i < 6; i++) runs.push(await state.createRun(runOf(user.id), { node: a.node, ms: SHORT }));
          await expire();
          const claims = await Promise.all(['b', 'c', 'd'].map((node) => state.claimExpiredRuns({ node, ms: LONG })));
          assert.deepEqual(claims.flat().sort(), runs.map((r) => r.id).sort());
        }));
    });

    describe('conversations and messages', () => {
      it('creates conversations (titles cut to 200 characters) and lists a user’s newest first', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          const bob = await state.createUser('bob');
          const first = await state.createConversation(alice.id, 'First');
          await sleep(3);
          const long = await state.createConversation(alice.id, 'L'.repeat(250));
          await sleep(3);
          const bobs = await state.createConversation(bob.id, 'Bob’s');
          assert.match(first.id, UUID);
          assert.match(first.createdAt, ISO);
          assert.equal(long.title, 'L'.repeat(200));
          assert.deepEqual(await state.conversation(long.id), long);
          assert.deepEqual(await state.conversations(alice.id), [long, first]);
          assert.deepEqual(await state.conversations(bob.id), [bobs]);
          assert.deepEqual(await state.conversations(randomUUID()), []);
          assert.equal(await state.conversation(randomUUID()), undefined);
        }));

      it('keeps messages in the order added, with parent, run and citations as given', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          const conversation = await state.createConversation(alice.id, 'Trials');
          const run = await state.createRun(runOf(alice.id, { conversationId: conversation.id }), { node: 'n', ms: LONG });
          const question = await state.addMessage({ conversationId: conversation.id, role: 'user', content: 'Where was the trial?' });
          const answer = await state.addMessage({
            conversationId: conversation.id,
            parentId: question.id,
            role: 'assistant',
            content: 'In the fjord [1].',
            runId: run.id,
            citations: [{ id: 1, source: 'a.md', quote: 'fjord' }],
          });
          // Added within the same millisecond: the order added still holds.
          const rest: MessageRecord[] = [];
          for (let i = 0; i < 8; i++)
            rest.push(
              await state.addMessage({
                conversationId: conversation.id,
                parentId: (rest[i - 1] ?? answer).id,
                role: i % 2 ? 'assistant' : 'user',
                content: `turn ${i}`,
              }),
            );
          assert.match(question.id, UUID);
          assert.match(question.createdAt, ISO);
          assert.equal('parentId' in question || 'runId' in question || 'citations' in question, false);
          const stored = await state.messages(conversation.id);
          assert.deepEqual(stored, [question, answer, ...rest]);
          assert.equal('parentId' in stored[0]!, false, 'no parentId key for a first message');
          assert.deepEqual(await state.messages(randomUUID()), []);
        }));

      it('deleting a conversation removes it and its messages, and nothing of another', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          const gone = await state.createConversation(alice.id, 'Gone');
          const kept = await state.createConversation(alice.id, 'Kept');
          await state.addMessage({ conversationId: gone.id, role: 'user', content: 'one' });
          await state.addMessage({ conversationId: gone.id, role: 'assistant', content: 'two' });
          const keptMessage = await state.addMessage({ conversationId: kept.id, role: 'user', content: 'stays' });
          await state.deleteConversation(gone.id);
          assert.equal(await state.conversation(gone.id), undefined);
          assert.deepEqual(await state.messages(gone.id), []);
          assert.deepEqual(await state.conversations(alice.id), [kept]);
          assert.deepEqual(await state.messages(kept.id), [keptMessage]);
          await state.deleteConversation(randomUUID()); // unknown: nothing to do
        }));
    });

    describe('in-process ingestion jobs', () => {
      const lease: Lease = { node: 'node-a', ms: LONG };

      it('creates a running job and updates its progress, then its end (finishedAt set, progress kept)', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          const job = await state.createJob(alice.id, 'notes', lease);
          assert.match(job.id, UUID);
          assert.match(job.createdAt, ISO);
          assert.deepEqual(
            { ...job, id: undefined, createdAt: undefined },
            { id: undefined, createdAt: undefined, userId: alice.id, collection: 'notes', status: 'running' },
          );
          assert.deepEqual(await state.job(job.id), job);
          await state.updateJob(job.id, { progress: { files: 2, done: 1 } });
          assert.deepEqual(await state.job(job.id), { ...job, progress: { files: 2, done: 1 } });
          await state.updateJob(job.id, { status: 'finished', report: { added: 2, errors: [] } });
          const finished = await state.job(job.id);
          assert.deepEqual(
            { ...finished, finishedAt: undefined },
            { ...job, status: 'finished', progress: { files: 2, done: 1 }, report: { added: 2, errors: [] }, finishedAt: undefined },
          );
          assert.match(finished!.finishedAt!, ISO);

          const failed = await state.createJob(alice.id, 'notes', lease);
          await state.updateJob(failed.id, { status: 'failed', error: 'disk full' });
          assert.deepEqual([(await state.job(failed.id))?.status, (await state.job(failed.id))?.error], ['failed', 'disk full']);
          assert.equal(await state.job(randomUUID()), undefined);
          await state.updateJob(randomUUID(), { status: 'finished' }); // unknown: nothing to do
        }));

      it('failInterruptedJobs fails only running jobs whose lease ran out, once; a renewed lease keeps a job', () =>
        withState(async (state) => {
          const alice = await state.createUser('alice');
          const live = await state.createJob(alice.id, 'notes', lease);
          const interrupted = await state.createJob(alice.id, 'notes', { node: 'node-b', ms: SHORT });
          const renewed = await state.createJob(alice.id, 'notes', { node: lease.node, ms: 300 });
          const ended = await state.createJob(alice.id, 'notes', { node: 'node-b', ms: SHORT });
          await state.updateJob(ended.id, { status: 'finished', report: {} });
          assert.deepEqual(await state.renewLeases(lease, { runs: [], jobs: [renewed.id] }), []);
          await sleep(400);
          assert.equal(await state.failInterruptedJobs(), 1);
          const failed = await state.job(interrupted.id);
          assert.deepEqual([failed?.status, failed?.error], ['failed', INTERRUPTED_JOB]);
          assert.match(failed!.finishedAt!, ISO);
          for (const id of [live.id, renewed.id]) assert.equal((await state.job(id))?.status, 'running');
          assert.equal((await state.job(ended.id))?.status, 'finished');
          assert.equal(await state.failInterruptedJobs(), 0, 'nothing left to fail');
        }));
    });

    if (options.queue) {
      describe('the durable ingestion queue (this backend has one)', () => {
        async function withQueue(test: (queue: JobQueue, state: ServerState, userId: string) => Promise<void>): Promise<void> {
          await withState(async (state) => {
            const queue = state.queue();
            assert.ok(queue, 'queue() returns the queue');
            await test(queue, state, (await state.createUser('alice')).id);
          });
        }
        const payload = (n: number) => ({ paths: [`/shared/uploads/${n}.md`], metadata: { batch: n } });

        it('enqueues jobs as queued with no attempts; claims hand them out oldest first with their payload, then none', () =>
          withQueue(async (queue, state, userId) => {
            const first = await queue.enqueueJob(userId, 'notes', payload(1));
            await sleep(3);
            const second = await queue.enqueueJob(userId, 'notes', payload(2));
            assert.deepEqual([first.status, first.attempts], ['queued', 0]);
            assert.deepEqual(await state.job(first.id), first);
            const claimed = await queue.claimJob('w1', LONG, 3);
            assert.deepEqual([claimed?.id, claimed?.status, claimed?.attempts, claimed?.payload], [first.id, 'running', 1, payload(1)]);
            assert.deepEqual([(await state.job(first.id))?.status, (await state.job(first.id))?.attempts], ['running', 1]);
            assert.equal((await queue.claimJob('w2', LONG, 3))?.id, second.id, 'another worker gets the next');
            assert.equal(await queue.claimJob('w3', LONG, 3), undefined);
          }));

        it('several workers claiming at once never get the same job', () =>
          withQueue(async (queue, _state, userId) => {
            const ids = [];
            for (let i = 0; i < 5; i++) ids.push((await queue.enqueueJob(userId, 'notes', payload(i))).id);
            const claims = await Promise.all(['w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7'].map((worker) => queue.claimJob(worker, LONG, 3)));
            assert.deepEqual(
              claims
                .filter((c) => c !== undefined)
                .map((c) => c.id)
                .sort(),
              ids.sort(),
            );
          }));

        it('only the claiming worker can heartbeat and complete; a completed job takes no more writes', () =>
          withQueue(async (queue, state, userId) => {
            const { id } = await queue.enqueueJob(userId, 'notes', payload(1));
            await queue.claimJob('w1', LONG, 3);
            assert.equal(await queue.heartbeat(id, 'w1', LONG, { done: 1 }), true);
            assert.deepEqual((await state.job(id))?.progress, { done: 1 });
            assert.equal(await queue.heartbeat(id, 'w1', LONG), true, 'a heartbeat without progress keeps the last');
            assert.deepEqual((await state.job(id))?.progress, { done: 1 });
            assert.equal(await queue.heartbeat(id, 'w2', LONG, { done: 9 }), false);
            assert.equal(await queue.completeJob(id, 'w2', { status: 'failed', error: 'not mine' }), false);
            assert.equal(await queue.completeJob(id, 'w1', { status: 'finished', report: { added: 1 } }), true);
            const job = await state.job(id);
            assert.deepEqual([job?.status, job?.report, job?.progress, job?.error], ['finished', { added: 1 }, { done: 1 }, undefined]);
            assert.match(job!.finishedAt!, ISO);
            assert.equal(await queue.heartbeat(id, 'w1', LONG), false);
            assert.equal(await queue.completeJob(id, 'w1', { status: 'failed', error: 'again' }), false);
            assert.equal(await queue.claimJob('w2', LONG, 3), undefined, 'a finished job is not claimed');

            const failing = await queue.enqueueJob(userId, 'notes', payload(2));
            await queue.claimJob('w1', LONG, 3);
            assert.equal(await queue.completeJob(failing.id, 'w1', { status: 'failed', error: 'parse error' }), true);
            assert.deepEqual([(await state.job(failing.id))?.status, (await state.job(failing.id))?.error], ['failed', 'parse error']);
          }));

        it('a released job is queued again and its attempt not counted; only its worker can release it', () =>
          withQueue(async (queue, state, userId) => {
            const { id } = await queue.enqueueJob(userId, 'notes', payload(1));
            await queue.claimJob('w1', LONG, 3);
            await queue.releaseJob(id, 'w2');
            assert.equal((await state.job(id))?.status, 'running', "another worker's release changes nothing");
            await queue.releaseJob(id, 'w1');
            assert.deepEqual([(await state.job(id))?.status, (await state.job(id))?.attempts], ['queued', 0]);
            assert.equal(await queue.heartbeat(id, 'w1', LONG), false, 'released: no longer the worker’s');
            const again = await queue.claimJob('w2', LONG, 3);
            assert.deepEqual([again?.id, again?.attempts], [id, 1]);
          }));

        it("a job whose lease ran out is claimed again by another worker (one more attempt); the first worker's writes then change nothing", () =>
          withQueue(async (queue, state, userId) => {
            const { id } = await queue.enqueueJob(userId, 'notes', payload(1));
            await queue.claimJob('w1', SHORT, 3);
            await expire();
            const retried = await queue.claimJob('w2', LONG, 3);
            assert.deepEqual([retried?.id, retried?.attempts, retried?.payload], [id, 2, payload(1)]);
            assert.equal(await queue.heartbeat(id, 'w1', LONG), false);
            assert.equal(await queue.completeJob(id, 'w1', { status: 'finished', report: {} }), false);
            assert.equal(await queue.completeJob(id, 'w2', { status: 'finished', report: { added: 1 } }), true);
            assert.equal((await state.job(id))?.attempts, 2);
          }));

        it('a job whose lease ran out after its last attempt is failed instead of claimed again', () =>
          withQueue(async (queue, state, userId) => {
            const { id } = await queue.enqueueJob(userId, 'notes', payload(1));
            await queue.claimJob('w1', SHORT, 2);
            await expire();
            assert.equal((await queue.claimJob('w2', SHORT, 2))?.attempts, 2);
            await expire();
            assert.equal(await queue.claimJob('w3', LONG, 2), undefined);
            const job = await state.job(id);
            assert.equal(job?.status, 'failed');
            assert.match(job?.error ?? '', /stopped 2 times/);
          }));

        it('queued jobs and in-process jobs stay apart: claims skip in-process jobs, failInterruptedJobs skips queued ones', () =>
          withQueue(async (queue, state, userId) => {
            const inProcess = await state.createJob(userId, 'notes', { node: 'node-a', ms: SHORT });
            const queued = await queue.enqueueJob(userId, 'notes', payload(1));
            await queue.claimJob('w1', SHORT, 3);
            await expire();
            assert.equal(await state.failInterruptedJobs(), 1, 'the in-process job only');
            assert.equal((await state.job(inProcess.id))?.status, 'failed');
            assert.equal((await state.job(queued.id))?.status, 'running', 'an expired queued job waits to be retried, not failed');
            assert.equal((await queue.claimJob('w2', LONG, 3))?.id, queued.id);
            assert.equal(await queue.claimJob('w3', LONG, 3), undefined);
          }));

        it('listen, where present, wakes a listener when a job is enqueued', { timeout: 10_000 }, () =>
          withQueue(async (queue, _state, userId) => {
            if (!queue.listen) return;
            let woken!: () => void;
            const wake = new Promise<void>((resolve) => (woken = resolve));
            const unlisten = await queue.listen(() => woken());
            try {
              await queue.enqueueJob(userId, 'notes', payload(1));
              await wake;
            } finally {
              await unlisten();
            }
          }),
        );
      });
    } else {
      it('has no durable queue on this backend: queue() is undefined (ingestion runs in-process)', () =>
        withState(async (state) => assert.equal(state.queue(), undefined)));
    }

    if (options.sharedRateLimit) {
      it('counts requests per key and minute window for the shared rate limit (this backend has countRequest)', () =>
        withState(async (state) => {
          assert.ok(state.countRequest, 'countRequest is present');
          assert.deepEqual(
            [await state.countRequest('k1', 100), await state.countRequest('k1', 100), await state.countRequest('k1', 100)],
            [1, 2, 3],
          );
          assert.equal(await state.countRequest('k2', 100), 1, 'per key');
          assert.equal(await state.countRequest('k1', 101), 1, 'per window');
          const together = await Promise.all(Array.from({ length: 5 }, () => state.countRequest!('k3', 100)));
          assert.deepEqual(
            together.sort((x, y) => x - y),
            [1, 2, 3, 4, 5],
            'counts made at once all land',
          );
        }));
    } else {
      it('has no shared rate limit on this backend: countRequest is absent (each process counts in memory)', () =>
        withState(async (state) => assert.equal(state.countRequest, undefined)));
    }
  });
}
