import pc from 'picocolors';
import { DossierError, oneLine } from '../errors/index.ts';

/** Where a command reads settings and writes output: the process, or a test's buffers (in-process CLI tests). */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  /** Aborts a running command (Ctrl-C); a test may pass its own. */
  signal?: AbortSignal;
  /** What `-` reads (`dossier python -`); process.stdin when absent. */
  stdin?: AsyncIterable<string | Uint8Array>;
}

export interface Writable {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** A wrong command line: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Colors = ReturnType<typeof pc.createColors>;

/** Colours only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function colorsFor(stream: Writable, env: CliIo['env']): Colors {
  return pc.createColors(Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb');
}

/** What every command gets: the io, colours for stdout and stderr, and the `--json` switch. */
export interface CommandContext {
  io: CliIo;
  json: boolean;
  out: Colors;
  err: Colors;
  /** Prints one line to stdout. */
  print(line?: string): void;
  printJson(value: unknown): void;
}

export function commandContext(io: CliIo, json: boolean): CommandContext {
  return {
    io,
    json,
    out: colorsFor(io.stdout, io.env),
    err: colorsFor(io.stderr, io.env),
    print: (line = '') => io.stdout.write(`${line}\n`),
    printJson: (value) => io.stdout.write(`${JSON.stringify(value)}\n`),
  };
}

export interface ProgressBar {
  /** With `bytes` the bar measures bytes and shows both: "12/40 files · 3.1/9.8 MB". */
  update(done: number, total: number, detail?: string, bytes?: { done: number; total: number }): void;
  stop(): void;
}

const BYTE_UNITS: [number, string][] = [
  [1e9, 'GB'],
  [1e6, 'MB'],
  [1e3, 'KB'],
];

/** "3.1/9.8 MB": both in the unit that suits the total, decimal like file managers show. */
export function byteProgress(done: number, total: number): string {
  const [scale, unit] = BYTE_UNITS.find(([size]) => total >= size) ?? [1, 'B'];
  const show = (bytes: number) => (scale === 1 ? String(bytes) : (bytes / scale).toFixed(1));
  return `${show(done)}/${show(total)} ${unit}`;
}

/** A progress bar on stderr when it is a terminal; silent otherwise so logs stay clean. `unit` names what is counted ("files"). */
export async function progressBar(io: CliIo, label: string, options: { unit?: string } = {}): Promise<ProgressBar> {
  if (!io.stderr.isTTY) return { update() {}, stop() {} };
  const { default: cliProgress } = await import('cli-progress');
  const unit = options.unit ? ` ${options.unit}` : '';
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: `${label} [{bar}] {counts} {detail}`,
      hideCursor: true,
      clearOnComplete: true,
      barCompleteChar: '#',
      barIncompleteChar: '-',
      etaBuffer: 50,
    },
    cliProgress.Presets.legacy,
  );
  let started = false;
  return {
    update(done, total, detail = '', bytes) {
      const shown = detail.length > 50 ? `…${detail.slice(-49)}` : detail;
      const counts = `${done}/${total}${unit}${bytes ? ` · ${byteProgress(bytes.done, bytes.total)}` : ''}`;
      const [value, end] = bytes && bytes.total > 0 ? [bytes.done, bytes.total] : [done, total];
      if (!started) {
        bar.start(end, value, { detail: shown, counts });
        started = true;
      } else {
        bar.setTotal(end);
        bar.update(value, { detail: shown, counts });
      }
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

/** The code shown for a failure: the DossierError's, or "usage"/"failed". */
export function errorCode(error: unknown): string {
  if (error instanceof UsageError) return 'usage';
  return DossierError.isInstance(error) ? error.code : 'failed';
}

/** One line on stderr (and `{error:{code,message}}` on stdout with --json); returns the exit code: 2 usage, 1 otherwise. */
export function reportFailure(error: unknown, context: Pick<CommandContext, 'io' | 'json'>): number {
  const message = oneLine(error);
  if (context.json) context.io.stdout.write(`${JSON.stringify({ error: { code: errorCode(error), message } })}\n`);
  context.io.stderr.write(`dossier: ${message}\n`);
  if (!(error instanceof UsageError) && !DossierError.isInstance(error) && context.io.env.DOSSIER_DEBUG)
    context.io.stderr.write(`${(error as Error)?.stack}\n`);
  return error instanceof UsageError ? 2 : 1;
}
