import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { DossierError, type ErrorCode } from '../errors/index.ts';
import type { PrepareFileTask, PrepareResult } from './prepare.ts';
import { retryable } from './retryable.ts';

// Built code runs the built .js worker, so the published package needs no TypeScript loader; from
// sources a small shim registers tsx inside the worker first (workers do not inherit the loader).
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './prepare-worker-dev.mjs' : './prepare-worker-main.js', import.meta.url);

type Reply =
  | { id: number; ok: true; prepared: PrepareResult }
  | { id: number; ok: false; code: ErrorCode; error: string; retryable: boolean };

/**
 * A small pool of worker threads that parse and prepare files, so ingestion uses every core while
 * the main thread writes to SQLite. A worker that dies fails only the file it was working on.
 */
export class PreparePool {
  private readonly idle: Worker[] = [];
  private readonly waiting: (() => void)[] = [];
  private readonly workers = new Set<Worker>();
  private nextId = 0;

  constructor(readonly size = Math.max(1, Math.min(4, availableParallelism()))) {}

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL);
    this.workers.add(worker);
    return worker;
  }

  private async acquire(): Promise<Worker> {
    const worker = this.idle.pop();
    if (worker) return worker;
    if (this.workers.size < this.size) return this.spawn();
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.acquire();
  }

  private release(worker: Worker): void {
    if (this.workers.has(worker)) this.idle.push(worker);
    this.waiting.shift()?.();
  }

  async prepare(task: PrepareFileTask): Promise<PrepareResult> {
    const worker = await this.acquire();
    const id = this.nextId++;
    return new Promise<PrepareResult>((resolve, reject) => {
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        cleanup();
        this.release(worker);
        if (reply.ok) resolve(reply.prepared);
        else {
          const error = new DossierError(reply.code, reply.error);
          reject(reply.retryable ? retryable(error) : error);
        }
      };
      const onError = (error: Error) => {
        cleanup();
        this.workers.delete(worker);
        this.release(worker);
        reject(retryable(new DossierError('parse-failed', `reader crashed: ${error.message}`, { cause: error })));
      };
      const onExit = (code: number) => onError(new Error(`worker exited with code ${code}`));
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, task }, [task.bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    const all = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    await Promise.all(all.map((worker) => worker.terminate()));
  }
}
