import cliProgress from 'cli-progress';
import pc from 'picocolors';
import { DossierError, oneLine } from '../errors/index.ts';

/** Colours only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export const colors = pc.createColors(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb');

export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A progress bar on stderr when it is a terminal; silent otherwise so logs stay clean. */
export function progressBar(label: string): { update(done: number, total: number, detail?: string): void; stop(): void } {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
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
    },
  };
}

/** Prints a one-line reason and sets the exit code: 2 for usage errors, 1 for everything else. */
export function reportFailure(error: unknown, json: boolean): void {
  const message = oneLine(error);
  const code = error instanceof UsageError ? 2 : 1;
  if (json) printJson({ error: message, code: DossierError.isInstance(error) ? error.code : code === 2 ? 'usage' : 'failed' });
  process.stderr.write(`dossier: ${message}\n`);
  process.exitCode = code;
}
