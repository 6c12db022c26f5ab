import type { StoredEvent } from '../state/index.ts';
import type { RunManager } from './run-manager.ts';

/**
 * The one subscription to a run's events that every streaming surface reads (the SSE stream of
 * /v1/ask and /v1/runs/:id/events, /v1/chat, /v1/chat/completions): the stored events after
 * `afterSeq` first, then live ones, each once and in order, until the top-level `run-finish`
 * (nested agents finish too, with a `path`). It also ends when nothing more will come (the run
 * settled, or another node's run stopped being stored as running) or when `signal` aborts.
 */
export async function* runEventStream(
  runs: RunManager,
  runId: string,
  options: { afterSeq?: number; signal?: AbortSignal; done?: Promise<unknown> } = {},
): AsyncGenerator<StoredEvent> {
  const queue: StoredEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const end = () => {
    ended = true;
    wake?.();
  };
  void options.done?.finally(end);
  const unsubscribe = await runs.subscribe(
    runId,
    options.afterSeq ?? 0,
    (event) => {
      queue.push(event);
      wake?.();
    },
    end,
  );
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort);
  try {
    for (;;) {
      while (queue.length) {
        const stored = queue.shift()!;
        yield stored;
        if (stored.event.type === 'run-finish' && !stored.event.path) return;
      }
      // run-finish is published before the run settles, so an ended run has nothing left to deliver.
      if (ended || options.signal?.aborted) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        // A run that ended between checks has delivered everything already.
        setTimeout(resolve, 1000).unref?.();
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
