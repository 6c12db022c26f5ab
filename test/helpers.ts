import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED_DATA = resolve(REPO_ROOT, '../shared/data');
export const CLI = join(REPO_ROOT, 'bin/dossier.js');

/** Skip reason when the shared data set is absent (tests must not fail for lack of it). */
export function sharedDataMissing(relative: string): string | false {
  return existsSync(join(SHARED_DATA, relative)) ? false : `shared data ${join(SHARED_DATA, relative)} is absent`;
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

/** Runs the real CLI as a user would, with colour off. */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

export function startCli(args: string[], options: { cwd?: string } = {}) {
  return spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Like runCli, without blocking this process's event loop (needed when this process serves HTTP to the CLI). */
export function runCliAsync(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    child.on('close', (status) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolvePromise({ status: status ?? -1, stdout, stderr, json });
    });
  });
}

/** A fresh index of the regression corpus (eval/regression/corpus) in a temporary folder. */
export async function regressionIndex(): Promise<{ dossier: import('../src/dossier.ts').Dossier; cleanup: () => void }> {
  const { createDossier } = await import('../src/dossier.ts');
  const { REGRESSION_DIR } = await import('../src/eval/regression.ts');
  const temp = tempDir();
  const dossier = await createDossier({ db: join(temp.dir, 'index.db') });
  await dossier.ingest([join(REGRESSION_DIR, 'corpus')]);
  return {
    dossier,
    cleanup: () => {
      dossier.close();
      temp.cleanup();
    },
  };
}
