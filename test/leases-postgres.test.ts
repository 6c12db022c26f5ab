import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { createDossier, type Dossier } from '../src/dossier.ts';
import { REGRESSION_DIR } from '../src/eval/regression.ts';
import { startServer } from '../src/server/index.ts';
import { startOpenAIServer, type OpenAIServer } from '../src/testing/protocol-server/openai.ts';
import { backendDb, parseFrames, startCli, type Frame } from './helpers.ts';

// Runs are held under their node's lease (src/server/leases.ts). On one PostgreSQL database with
// several nodes, a node starting must leave another node's live run alone, and a run whose node was
// killed must be closed by a surviving node once the lease runs out. Slow runs come from a scripted
// OpenAI-compatible model that answers late (or never).

const LEASE_MS = 1500;
// Read when a server starts; short so a dead node's lease runs out within the test.
process.env.DOSSIER_RUN_LEASE_MS = String(LEASE_MS);

type Server = Awaited<ReturnType<typeof startServer>>;
const json = async (response: Response) => (await response.json()) as any;
const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

/** Reads an SSE body until `enough(frames)` holds (or, with `enough` never true, to its end). */
async function readFrames(
  response: Response,
  enough: (frames: Frame[]) => boolean = () => false,
): Promise<{ frames: Frame[]; rest: () => Promise<Frame[]> }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const read = async (until: (frames: Frame[]) => boolean) => {
    for (;;) {
      if (until(parseFrames(text))) return parseFrames(text);
      const { value, done } = await reader.read();
      if (done) return parseFrames(text);
      text += decoder.decode(value, { stream: true });
    }
  };
  const frames = await read(enough);
  return { frames, rest: () => read(() => false) };
}

const ownFinish = (frames: Frame[]) => frames.filter((f) => f.event === 'run-finish' && f.data.path === undefined);

describe('run leases: nodes on one PostgreSQL database close only runs whose node stopped', {
  skip: process.env.DOSSIER_TEST_PG
    ? false
    : 'DOSSIER_TEST_PG is unset: no PostgreSQL cluster for the lease test (bash scripts/postgres-test-cluster.sh start)',
}, () => {
  let db: string;
  let cleanup: () => Promise<void>;
  let model: OpenAIServer;
  const dossiers: Dossier[] = [];
  const servers: Server[] = [];
  let killed: ChildProcess | undefined;

  before(async () => {
    const place = await backendDb('postgres');
    db = place.db;
    cleanup = place.cleanup;
    model = await startOpenAIServer();
    process.env.DOSSIER_BASE_URL = model.baseURL;
    const seed = await createDossier({ db });
    await seed.ingest([join(REGRESSION_DIR, 'corpus')]);
    await seed.close();
  });
  after(async () => {
    if (killed && killed.exitCode === null && killed.signalCode === null) killed.kill('SIGKILL');
    for (const server of servers) await server.close();
    for (const dossier of dossiers) await dossier.close();
    await model?.close();
    await cleanup?.();
  });

  async function node(): Promise<Server> {
    const dossier = await createDossier({ db });
    dossiers.push(dossier);
    const server = await startServer({ dossier, db, port: 0, workers: 0 });
    servers.push(server);
    return server;
  }

  it("a node starting on the database leaves another node's live run alone: the run finishes normally", async () => {
    const a = await node();
    // The model answers after several leases' worth of time: only A's heartbeat keeps the run alive.
    model.chat.enqueue({ type: 'text', text: 'The Tern-4 sea trial took place in the Hardangerfjord.', delayMs: 4 * LEASE_MS });
    const response = await post(`${a.url}/v1/ask`, {
      question: 'Where did the Tern-4 sea trial take place?',
      model: 'openai-compatible:slow',
      stream: true,
    });
    assert.equal(response.status, 200);
    const runId = response.headers.get('x-dossier-run-id')!;
    const stream = await readFrames(response, (frames) => frames.some((f) => f.event === 'run-start'));
    // B starts while A's run is live (its start-up recovery runs), then keeps recovering at every beat.
    const b = await node();
    assert.equal((await json(await fetch(`${b.url}/v1/runs/${runId}`))).status, 'running', 'B did not close A’s run at its start');
    const frames = await stream.rest();
    // The model's answer, ended by A (the answer cites nothing, hence no-evidence), not closed as interrupted.
    const finishes = ownFinish(frames);
    assert.equal(finishes.length, 1, JSON.stringify(frames.map((f) => f.data)));
    assert.notEqual(finishes[0]!.data.finishReason, 'error');
    assert.ok(!frames.some((f) => f.event === 'error'), 'no interrupted error');
    const run = await json(await fetch(`${b.url}/v1/runs/${runId}`));
    assert.deepEqual([run.status, run.finishReason], ['finished', finishes[0]!.data.finishReason]);
    assert.match(JSON.stringify(run.result), /Hardangerfjord/);
  });

  it('a run of a node killed with SIGKILL is closed by the surviving node once the lease runs out', async () => {
    const survivor = servers[1] ?? (await node());
    // The dying node: the built CLI, its model call never answered, so its run is live when it dies.
    model.chat.enqueue({ type: 'hang' });
    const child = startCli(['serve', '--port', '0', '--db', db, '--workers', '0'], {
      env: { DOSSIER_RUN_LEASE_MS: String(LEASE_MS), DOSSIER_BASE_URL: model.baseURL },
    });
    killed = child;
    let stderr = '';
    child.stderr!.on('data', (data) => (stderr += data));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const match = /^listening on (\S+)$/.exec(line);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    const controller = new AbortController();
    const response = await post(
      `${url}/v1/ask`,
      { question: 'Who leads the team that built the Tern-4 salinity sensor?', model: 'openai-compatible:slow', stream: true },
      controller.signal,
    );
    const runId = response.headers.get('x-dossier-run-id')!;
    await readFrames(response, (frames) => frames.some((f) => f.event === 'run-start'));
    // A client of the survivor follows the run (polling the stored events) from before the kill.
    const following = readFrames(await fetch(`${survivor.url}/v1/runs/${runId}/events`));
    following.catch(() => undefined); // awaited below; this only keeps a failed run from also being an unhandled rejection
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    controller.abort();
    const killedAt = Date.now();

    let run: any;
    for (const deadline = killedAt + 10 * LEASE_MS + 5000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
      run = await json(await fetch(`${survivor.url}/v1/runs/${runId}`));
      if (run.status !== 'running') break;
    }
    assert.deepEqual([run.status, run.finishReason], ['failed', 'error'], 'closed by the surviving node, no restart needed');
    const frames = (await following).frames;
    assert.deepEqual(
      frames.map((f) => f.id),
      frames.map((_, i) => i + 1),
      'every stored event once, in order',
    );
    const [error, finish] = frames.slice(-2);
    assert.deepEqual([error!.event, error!.data.code], ['error', 'interrupted']);
    assert.deepEqual([finish!.event, finish!.data.finishReason, finish!.data.path], ['run-finish', 'error', undefined]);
  });
});
