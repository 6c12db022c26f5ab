import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SseParser } from '../src/client/sse.ts';
import { configFromEnv } from '../src/config/index.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The data sets (DOSSIER_DATA_DIR; CI sets it). */
export const SHARED_DATA = configFromEnv().dataDir;
export const CLI = join(REPO_ROOT, 'bin/dossier.js');

/** Skip reason when the shared data set is absent (tests must not fail for lack of it). */
export function sharedDataMissing(relative: string): string | false {
  return existsSync(join(SHARED_DATA, relative)) ? false : `shared data ${join(SHARED_DATA, relative)} is absent`;
}

/** A three-abstract BEIR dataset (aspirin, statins, vitamin D) in `dir`, with these queries and their relevant documents in the test split. */
export function writeTinyBeir(dir: string, queries: { id: string; text: string; relevant: string }[]): void {
  mkdirSync(join(dir, 'qrels'));
  const corpus = [
    { _id: 'd1', title: 'Aspirin and heart attacks', text: 'Daily aspirin lowers the risk of a second heart attack.' },
    { _id: 'd2', title: 'Statins', text: 'Statins reduce cholesterol in adults.' },
    { _id: 'd3', title: 'Vitamin D', text: 'Vitamin D supplements do not prevent fractures in older adults.' },
  ];
  writeFileSync(join(dir, 'corpus.jsonl'), corpus.map((c) => JSON.stringify(c)).join('\n'));
  writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify({ _id: q.id, text: q.text })).join('\n'));
  writeFileSync(
    join(dir, 'qrels', 'test.tsv'),
    `query-id\tcorpus-id\tscore\n${queries.map((q) => `${q.id}\t${q.relevant}\t1\n`).join('')}`,
  );
}

export function tempDir(prefix = 'dossier-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
  json: any;
}

function parseJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/**
 * Runs the CLI in this process through `main(argv, io)`, exactly as the `dossier` binary does but
 * without spawning Node (colour off; the environment is this process's plus `env`).
 */
export async function runCli(args: string[], options: { env?: Record<string, string>; signal?: AbortSignal } = {}): Promise<CliResult> {
  const { main } = await import('../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  const status = await main(args, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    signal: options.signal,
  });
  return { status, stdout, stderr, json: parseJson(stdout) };
}

/** The real binary in a child process (built JS in dist/): for start-up, signals, pipes. */
export function startCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runCliProcess(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = startCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    child.on('close', (status) => resolvePromise({ status: status ?? -1, stdout, stderr, json: parseJson(stdout) }));
  });
}

export type ServerBackend = 'sqlite' | 'postgres';

/** The backends the server suites run on: SQLite always, PostgreSQL when DOSSIER_TEST_PG names a cluster (else its suite is skipped, saying why). */
export function serverBackends(): ServerBackend[] {
  return ['sqlite', 'postgres'];
}

/** Why a backend's suite cannot run here, or false: `describe(name, { skip: backendSkip(backend) }, …)`. */
export function backendSkip(backend: ServerBackend): string | false {
  return backend === 'postgres' && !process.env.DOSSIER_TEST_PG
    ? 'DOSSIER_TEST_PG is unset: no PostgreSQL cluster for this suite (bash scripts/postgres-test-cluster.sh start)'
    : false;
}

/**
 * Where a test's index lives: `index.db` in a temporary folder, or a fresh PostgreSQL database of
 * its own (with a temporary folder beside it all the same). `cleanup` removes the folder, and for
 * PostgreSQL drops the database and the folders the server keeps for it under the OS temp dir.
 */
export async function backendDb(backend: ServerBackend = 'sqlite'): Promise<{ db: string; dir: string; cleanup: () => Promise<void> }> {
  const temp = tempDir();
  if (backend === 'sqlite') return { db: join(temp.dir, 'index.db'), dir: temp.dir, cleanup: async () => temp.cleanup() };
  const { freshDatabase } = await import('../src/store/postgres/test-database.ts');
  const { sideDir } = await import('../src/server/index.ts');
  const fresh = await freshDatabase();
  return {
    db: fresh.url,
    dir: temp.dir,
    cleanup: async () => {
      temp.cleanup();
      rmSync(dirname(sideDir(fresh.url, 'uploads')), { recursive: true, force: true });
      await fresh.drop();
    },
  };
}

/**
 * The regression corpus's SQLite index, built once per `npm test` run (scripts/test.mjs names a
 * cache folder in DOSSIER_TEST_CACHE) and keyed by the corpus's content and the schema version;
 * tests get a copy. Without the variable (a single test file run by hand) there is no cache.
 */
async function cachedRegressionIndex(): Promise<string | undefined> {
  const cacheDir = process.env.DOSSIER_TEST_CACHE;
  if (!cacheDir) return undefined;
  const { createDossier } = await import('../src/dossier.ts');
  const { REGRESSION_DIR } = await import('../src/eval/regression.ts');
  const { SCHEMA_VERSION } = await import('../src/store/sqlite/schema.ts');
  const corpus = join(REGRESSION_DIR, 'corpus');
  const key = createHash('sha256').update(`schema ${SCHEMA_VERSION}\n`);
  for (const name of readdirSync(corpus).sort()) key.update(`${name}\n`).update(readFileSync(join(corpus, name)));
  const file = join(cacheDir, `regression-${key.digest('hex').slice(0, 16)}.db`);
  if (existsSync(file)) return file;
  // Built under a name of its own, then renamed into place: a test in another process that built
  // it at the same time renames an identical index over it, and no reader sees a half-built file.
  const building = `${file}.${process.pid}.building`;
  const dossier = await createDossier({ db: building });
  try {
    await dossier.ingest([corpus]);
  } finally {
    await dossier.close();
  }
  renameSync(building, file);
  return file;
}

/**
 * A fresh index of the regression corpus (eval/regression/corpus) in a temporary folder (or, on
 * PostgreSQL, a fresh database); `env` is the Dossier's (e.g. a scripted model's DOSSIER_MODEL).
 */
export async function regressionIndex(
  backend: ServerBackend = 'sqlite',
  options: { env?: Record<string, string | undefined> } = {},
): Promise<{
  dossier: import('../src/dossier.ts').Dossier;
  db: string;
  dir: string;
  cleanup: () => Promise<void>;
  removeFiles: () => Promise<void>;
}> {
  const { createDossier } = await import('../src/dossier.ts');
  const { REGRESSION_DIR } = await import('../src/eval/regression.ts');
  const temp = await backendDb(backend);
  const db = temp.db;
  const cached = backend === 'sqlite' ? await cachedRegressionIndex() : undefined;
  if (cached) copyFileSync(cached, db);
  const dossier = await createDossier({ db, ...(options.env ? { env: options.env } : {}) });
  if (!cached) await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
  return {
    dossier,
    db,
    dir: temp.dir,
    /** Only the files, or the database (for a test that closes the index itself). */
    removeFiles: temp.cleanup,
    cleanup: async () => {
      await dossier.close();
      await temp.cleanup();
    },
  };
}

/** One Server-Sent Events frame of a Dossier stream: `data` is parsed JSON (or the text, e.g. `[DONE]`). */
export interface Frame {
  event: string;
  id: number;
  data: any;
}

/**
 * SSE text as frames, read by the client's parser (`dossier/client`'s one SSE parser; comments such
 * as the keep-alive are not frames); a trailing partial frame is left out.
 */
export function parseFrames(text: string): Frame[] {
  return new SseParser().feed(text).map((message) => ({ event: message.event, id: Number(message.id), data: jsonOrText(message.data) }));
}

function jsonOrText(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/**
 * A module and what it needs at run time, bundled into a world-readable temporary folder, for a
 * child process that runs as another user (`nobody`): the checkout may sit in a folder only root can
 * enter, so that child must not read anything from it. Native packages named in `nativePackages`
 * are copied whole (with their own dependencies listed), the rest is bundled by esbuild.
 */
export async function worldReadableBundle(entry: string, nativePackages: string[]): Promise<{ module: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-bundle-'));
  const { build } = await import('esbuild');
  const module = join(dir, 'bundle.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: nativePackages,
    outfile: module,
    logLevel: 'error',
  });
  for (const name of nativePackages)
    cpSync(join(REPO_ROOT, 'node_modules', name), join(dir, 'node_modules', name), { recursive: true, dereference: true });
  const open = (path: string) => {
    chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644 | (statSync(path).mode & 0o111 ? 0o111 : 0));
    if (statSync(path).isDirectory()) for (const child of readdirSync(path)) open(join(path, child));
  };
  open(dir);
  return { module, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
