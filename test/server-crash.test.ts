import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { openAsBlob, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { backendDb, backendSkip, serverBackends, startCli, parseFrames } from './helpers.ts';
import { call, startScriptedModel, type ScriptedModel } from './scripted-model.ts';

// The built `dossier serve` killed with SIGKILL (no shutdown code runs) in the middle of an ingest
// and in the middle of a streamed run; the next start on the same file must keep what was
// committed and close what was interrupted with an explicit reason. Runs and in-process jobs are
// held under a lease, closed only once it runs out (another node may be running them): a short
// one here, so the restarted server closes them within a second or two.

const LEASE_MS = 1000;

// The served runs are answered by the scripted model (test/scripted-model.ts), not the offline reader.
let model: ScriptedModel;
before(async () => (model = await startScriptedModel()));
after(async () => model.close());

async function serve(db: string, extra: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = startCli(['serve', '--port', '0', '--db', db, ...extra], { env: { DOSSIER_RUN_LEASE_MS: String(LEASE_MS), ...model.env } });
  let stderr = '';
  child.stderr!.on('data', (data) => (stderr += data));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening on (\S+)$/.exec(line);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { url, child };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const json = async (response: Response) => (await response.json()) as any;
const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

async function upload(url: string, files: Array<{ name: string; blob: Blob }>): Promise<string> {
  const form = new FormData();
  for (const file of files) form.append('file', file.blob, file.name);
  form.append('collection', 'docs');
  const response = await fetch(`${url}/v1/documents`, { method: 'POST', body: form });
  assert.equal(response.status, 202);
  return (await json(response)).job.id;
}

/** Polls `read` until `done` holds for its value (the restarted server closes leased rows once their lease runs out). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let value = await read();
  for (const deadline = Date.now() + 10 * LEASE_MS + 10_000; !done(value); value = await read()) {
    if (Date.now() > deadline) assert.fail(`${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return value;
}

async function waitForJob(url: string, id: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const { job } = await json(await fetch(`${url}/v1/jobs/${id}`));
    if (job.status === 'finished' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('job did not finish');
}

for (const backend of serverBackends()) {
  describe(`dossier serve survives SIGKILL (${backend})`, { skip: backendSkip(backend) }, () => {
    let temp: Awaited<ReturnType<typeof backendDb>>;
    let db: string;
    let current: ChildProcess | undefined;
    before(async () => {
      temp = await backendDb(backend);
      db = temp.db;
    });
    after(async () => {
      if (current && current.exitCode === null && current.signalCode === null) await kill(current);
      await temp.cleanup();
    });

    it('keeps committed documents, fails the interrupted job and closes the interrupted run with run-finish', async () => {
      // 1. Commit the regression corpus, then kill the server while a large upload is being ingested.
      let server = await serve(db);
      current = server.child;
      const corpus = readdirSync(join(REGRESSION_DIR, 'corpus')).map((name) => ({ name, path: join(REGRESSION_DIR, 'corpus', name) }));
      const committed = await waitForJob(
        server.url,
        await upload(server.url, await Promise.all(corpus.map(async (f) => ({ name: f.name, blob: await openAsBlob(f.path) })))),
      );
      assert.equal(committed.status, 'finished');
      assert.equal(committed.report.ingested, corpus.length);
      const before = (await json(await fetch(`${server.url}/v1/documents?limit=1000`))).documents;
      assert.equal(before.length, corpus.length);

      // ~12 MB of Markdown: one file, seconds of parsing, chunking and embedding.
      const big = join(temp.dir, 'big.md');
      const paragraph = 'The buoy logged salinity, temperature and current every ten minutes while the tide turned. ';
      const section = (n: number) => `## Log ${n}\n\n${paragraph.repeat(20)}\n\n`;
      writeFileSync(big, Array.from({ length: 6000 }, (_, n) => section(n)).join(''));
      const interruptedJob = await upload(server.url, [{ name: 'big.md', blob: await openAsBlob(big, { type: 'text/markdown' }) }]);
      await new Promise((resolve) => setTimeout(resolve, 300)); // well inside the ingest
      await kill(server.child);

      // 2. Restart: the job is failed with a reason, the committed documents are all there and
      // searchable, and no half-written document appeared. Then kill during a streamed research run.
      // PostgreSQL queues uploads: the killed server's job is not failed but waits for its lease to
      // run out and a worker to retry it (test/queue-postgres.test.ts). No workers here, so it stays put.
      const restart = backend === 'postgres' ? ['--workers', '0'] : [];
      server = await serve(db, restart);
      current = server.child;
      const restartedOnce = server;
      const job =
        backend === 'postgres'
          ? (await json(await fetch(`${server.url}/v1/jobs/${interruptedJob}`))).job
          : await eventually(
              async () => (await json(await fetch(`${restartedOnce.url}/v1/jobs/${interruptedJob}`))).job,
              (j) => j.status !== 'running',
              'the interrupted job is failed once its lease ran out',
            );
      if (backend === 'postgres') assert.match(job.status, /^(queued|running)$/, JSON.stringify(job));
      else {
        assert.equal(job.status, 'failed');
        assert.match(job.error, /server stopped/);
      }
      const afterIngestKill = (await json(await fetch(`${server.url}/v1/documents?limit=1000`))).documents;
      assert.deepEqual(afterIngestKill, before);
      const hits = (await json(await post(`${server.url}/v1/search`, { query: 'Tern-4 sea trial', k: 3 }))).hits;
      assert.match(hits[0].text, /Hardangerfjord/);

      // The planner's first move is a Python call that takes far longer than the test waits: the run
      // is live (not finished) when the kill comes.
      model.server.chat.enqueue({ type: 'tool-calls', calls: [call('python', { code: 'import time\ntime.sleep(60)\nprint(1)' })] });
      const controller = new AbortController();
      const response = await post(
        `${server.url}/v1/ask`,
        { question: 'By how many million euros did revenue grow from 2023 to 2024?', mode: 'research', stream: true },
        controller.signal,
      );
      const runId = response.headers.get('x-dossier-run-id')!;
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!/"toolName":"python"/.test(text)) {
        const { value, done } = await reader.read();
        assert.ok(!done, 'the stream ended before the python call');
        text += decoder.decode(value, { stream: true });
      }
      await kill(server.child);
      controller.abort();
      const seenBeforeKill = parseFrames(text).map((frame) => frame.data);
      assert.ok(!seenBeforeKill.some((e) => e.type === 'run-finish' && !e.path), 'the run had not finished at the kill');

      // 3. Restart: the run's stored events end with an explicit run-finish, reason error.
      server = await serve(db, restart);
      current = server.child;
      const restarted = server;
      const run = await eventually(
        async () => json(await fetch(`${restarted.url}/v1/runs/${runId}`)),
        (r) => r.status !== 'running',
        'the interrupted run is closed once its lease ran out',
      );
      assert.equal(run.status, 'failed');
      assert.equal(run.finishReason, 'error');
      const stream = await fetch(`${server.url}/v1/runs/${runId}/events`);
      const frames = parseFrames(await stream.text());
      assert.equal(frames[0].data.type, 'run-start');
      assert.ok(
        frames.some((f) => f.data.type === 'tool-call' && f.data.toolName === 'python'),
        'what happened before the kill is kept',
      );
      assert.deepEqual(
        frames.map((f) => f.id),
        frames.map((_, i) => i + 1),
      );
      const [error, finish] = frames.slice(-2).map((f) => f.data);
      assert.equal(error.type, 'error');
      assert.equal(error.code, 'interrupted');
      assert.deepEqual([finish.type, finish.finishReason, finish.path], ['run-finish', 'error', undefined]);
      // Still every committed document, and the server works normally after two crashes.
      assert.deepEqual((await json(await fetch(`${server.url}/v1/documents?limit=1000`))).documents, before);
      const ask = await json(await post(`${server.url}/v1/ask`, { question: 'Where did the Tern-4 sea trial take place?' }));
      assert.deepEqual([ask.finishReason, ask.answer], ['stop', model.answersTo('Where did the Tern-4 sea trial take place?').at(-1)]);
      await kill(server.child);
    });
  });
}
