import { Worker } from 'node:worker_threads';
import { DossierError } from '../../errors/index.ts';

// Plain JS in both src/ and dist/ (the build copies .mjs files), so no TypeScript loader is needed.
const WORKER_URL = new URL('./sandbox-worker.mjs', import.meta.url);

export const PYTHON_DEFAULTS = { timeoutMs: 10_000, memoryMb: 256, outputBytes: 64 * 1024 } as const;
/** The interpreter alone takes about 32 MiB of its heap; a smaller cap could not run anything. */
export const PYTHON_LIMITS = { timeoutMs: [1, 3_600_000], memoryMb: [64, 2048], outputBytes: [1024, 16 * 1024 * 1024] } as const;
/** Appended to stdout or stderr that hit the output cap. */
export const TRUNCATED_MARK = '\n[truncated]';
const START_TIMEOUT_MS = 60_000;
const MiB = 1024 * 1024;

export interface PythonRunOptions {
  /** Wall-clock limit for the code (start-up of a new interpreter not included); default 10 000. */
  timeoutMs?: number;
  /** Cap on the interpreter's WebAssembly heap, the interpreter itself included; default 256. */
  memoryMb?: number;
  /** Stops the run: the worker is terminated and the call rejects with an `aborted` DossierError. */
  signal?: AbortSignal;
  /** Bytes kept of stdout and of stderr each; default 64 KiB. */
  outputBytes?: number;
}

export interface PythonResult {
  stdout: string;
  stderr: string;
  /** null, or one line: "TimeoutError: …", "MemoryError: …" or the Python exception's last line. */
  error: string | null;
  /** How long the code ran (not counting queueing or a new interpreter's start-up). */
  ms: number;
}

interface Live {
  worker: Worker;
  ready: Promise<void>;
  heapBytes: number;
}

type Done = { type: 'done'; id: number; error: string | null; fatal: boolean; heapBytes: number };

function checked(options: PythonRunOptions, name: 'timeoutMs' | 'memoryMb' | 'outputBytes'): number {
  const value = options[name] ?? PYTHON_DEFAULTS[name];
  const [min, max] = PYTHON_LIMITS[name];
  if (!Number.isInteger(value) || value < min || value > max)
    throw new DossierError('bad-input', `${name} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}

function abortError(signal: AbortSignal): DossierError {
  const reason = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new DossierError('aborted', `the Python run was aborted${reason}`);
}

/** UTF-8 text of a shared buffer's bytes; a character cut in half at the cap is dropped, not mangled. */
function decode(bytes: Uint8Array, cut: boolean): string {
  let end = bytes.length;
  if (cut) {
    let start = end - 1;
    while (start >= 0 && start > end - 4 && (bytes[start] & 0xc0) === 0x80) start--;
    if (start >= 0) {
      const lead = bytes[start];
      const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (start + size > end) end = start;
    }
  }
  // slice(): TextDecoder does not read shared memory.
  return new TextDecoder().decode(bytes.slice(0, end)) + (cut ? TRUNCATED_MARK : '');
}

/**
 * Python 3 (Pyodide, the standard library only) in a worker thread, with no host files, network or
 * JavaScript access (see sandbox-worker.mjs for the layers). Limits:
 * - time: the parent terminates the worker at `timeoutMs`, whatever the code is doing;
 * - memory: the worker refuses to grow the interpreter's WebAssembly memory past `memoryMb`, so the
 *   code gets a MemoryError; the worker's JavaScript heap has its own V8 cap as a backstop;
 * - output: stdout and stderr are kept up to `outputBytes` each, then marked "[truncated]".
 * One warm interpreter serves call after call (each in a fresh namespace, loaded modules reset);
 * after a timeout, a memory error or an abort the next call gets a new one. Calls are queued.
 */
export class PythonSandbox {
  private live: Live | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private nextId = 0;
  private started = 0;

  /** How many interpreters this sandbox has started (a warm call starts none). */
  get workersStarted(): number {
    return this.started;
  }

  runPython(code: string, options: PythonRunOptions = {}): Promise<PythonResult> {
    let limits: { timeoutMs: number; memoryMb: number; outputBytes: number };
    try {
      limits = {
        timeoutMs: checked(options, 'timeoutMs'),
        memoryMb: checked(options, 'memoryMb'),
        outputBytes: checked(options, 'outputBytes'),
      };
      if (typeof code !== 'string') throw new DossierError('bad-input', 'the Python code must be a string');
    } catch (error) {
      return Promise.reject(error);
    }
    const run = this.tail.then(() => this.execute(code, limits, options.signal));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Terminates the interpreter; later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.discard();
  }

  private spawn(): Live {
    // The V8 heap cap bounds what JavaScript in the worker can take; Python's own memory is the
    // WebAssembly heap, capped per call inside the worker.
    // (Piping the worker's stdio here would keep the process alive; the worker silences its console.)
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
    this.started++;
    const live: Live = { worker, heapBytes: 0, ready: Promise.resolve() };
    live.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`it did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', fail);
        worker.off('exit', onExit);
      };
      const fail = (error: Error) => {
        cleanup();
        reject(new DossierError('config', `the Python sandbox could not start: ${error.message.split('\n')[0]}`, { cause: error }));
      };
      const onExit = (exitCode: number) => fail(new Error(`the worker exited with code ${exitCode}`));
      const onMessage = (message: { type: string; heapBytes?: number; error?: string }) => {
        if (message.type === 'ready') {
          cleanup();
          live.heapBytes = message.heapBytes ?? 0;
          resolve();
        } else if (message.type === 'failed') fail(new Error(message.error));
      };
      worker.on('message', onMessage);
      worker.on('error', fail);
      worker.on('exit', onExit);
    });
    return live;
  }

  private async discard(): Promise<void> {
    const live = this.live;
    this.live = undefined;
    if (live) await live.worker.terminate();
  }

  private async warm(memoryMb: number, signal: AbortSignal | undefined): Promise<Live> {
    // WebAssembly memory never shrinks: an interpreter grown past this call's cap is replaced.
    if (this.live && this.live.heapBytes > memoryMb * MiB) await this.discard();
    if (!this.live) this.live = this.spawn();
    const live = this.live;
    live.worker.ref();
    try {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(abortError(signal!));
        signal?.addEventListener('abort', onAbort, { once: true });
        live.ready.then(resolve, reject).finally(() => signal?.removeEventListener('abort', onAbort));
      });
    } catch (error) {
      await this.discard();
      throw error;
    }
    return live;
  }

  private async execute(
    code: string,
    limits: { timeoutMs: number; memoryMb: number; outputBytes: number },
    signal: AbortSignal | undefined,
  ): Promise<PythonResult> {
    if (this.closed) throw new DossierError('bad-input', 'the Python sandbox is closed');
    if (signal?.aborted) throw abortError(signal);
    const live = await this.warm(limits.memoryMb, signal);
    const { worker } = live;
    // [stdout bytes, stderr bytes, stdout cut, stderr cut], then the two streams' bytes.
    const output = new SharedArrayBuffer(16 + 2 * limits.outputBytes);
    const header = new Int32Array(output, 0, 4);
    const id = this.nextId++;
    const started = performance.now();

    const outcome = await new Promise<{ error: string | null; replace: boolean; aborted?: boolean }>((resolve) => {
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const finish = (result: { error: string | null; replace: boolean; aborted?: boolean }) => {
        cleanup();
        resolve(result);
      };
      const timer = setTimeout(
        () => finish({ error: `TimeoutError: the code ran longer than ${limits.timeoutMs} ms`, replace: true }),
        limits.timeoutMs,
      );
      const onAbort = () => finish({ error: null, replace: true, aborted: true });
      const onMessage = (message: Done) => {
        if (message.type !== 'done' || message.id !== id) return;
        live.heapBytes = message.heapBytes;
        finish({ error: message.error, replace: message.fatal });
      };
      const onError = (error: Error & { code?: string }) => {
        const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|allocation failed/i.test(error.message);
        finish({
          error: memory ? 'MemoryError' : `InternalError: the Python worker crashed: ${error.message.split('\n')[0]}`,
          replace: true,
        });
      };
      const onExit = (exitCode: number) =>
        finish({ error: `InternalError: the Python worker exited with code ${exitCode}`, replace: true });
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ type: 'run', id, code, memoryBytes: limits.memoryMb * MiB, output, outputBytes: limits.outputBytes });
    });
    const ms = Math.round((performance.now() - started) * 100) / 100;

    // Terminating first: output read afterwards cannot change under us.
    if (outcome.replace) await this.discard();
    else worker.unref();
    if (outcome.aborted) throw abortError(signal!);
    const stream = (slot: 0 | 1) =>
      decode(new Uint8Array(output, 16 + slot * limits.outputBytes, Atomics.load(header, slot)), Atomics.load(header, slot + 2) === 1);
    let error = outcome.error;
    if (error !== null && /^MemoryError\b/.test(error))
      error = `MemoryError: the code needed more memory than its ${limits.memoryMb} MB cap`;
    return { stdout: stream(0), stderr: stream(1), error, ms };
  }
}

let shared: PythonSandbox | undefined;

/** The process's shared sandbox, started on first use; its idle worker never keeps the process alive. */
export function sharedPythonSandbox(): PythonSandbox {
  shared ??= new PythonSandbox();
  return shared;
}

/** Runs code in the shared sandbox (calls from anywhere in the process queue on its one interpreter). */
export function runPython(code: string, options: PythonRunOptions = {}): Promise<PythonResult> {
  return sharedPythonSandbox().runPython(code, options);
}
