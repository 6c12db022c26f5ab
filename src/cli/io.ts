import pc from 'picocolors';
import { DossierError, oneLine } from '../errors/index.ts';

/** Where a command reads settings and writes output: the process, or a test's buffers (in-process CLI tests). */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  /** Aborts a running command (Ctrl-C); a test may pass its own. */
  signal?: AbortSignal;
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
  update(done: number, total: number, detail?: string): void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal; silent otherwise so logs stay clean. */
export async function progressBar(io: CliIo, label: string): Promise<ProgressBar> {
  if (!io.stderr.isTTY) return { update() {}, stop() {} };
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: `${label} [{bar}] {value}/{total} {detail}`,
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
    update(done, total, detail = '') {
      const shown = detail.length > 50 ? `…${detail.slice(-49)}` : detail;
      if (!started) {
        bar.start(total, done, { detail: shown });
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done, { detail: shown });
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
  if (!(error instanceof UsageError) && !DossierError.isInstance(error) && context.io.env.DOSSIER_DEBUG) context.io.stderr.write(`${(error as Error)?.stack}\n`);
  return error instanceof UsageError ? 2 : 1;
}
