import { randomUUID } from 'node:crypto';
import type { AskOptions, AskResult } from '../agent/ask.ts';
import type { AgentEvent } from '../agent/events.ts';
import type { Dossier } from '../dossier.ts';
import { oneLine } from '../errors/index.ts';
import type { Principal } from './principal.ts';
import type { ServerState, StoredEvent } from './state.ts';

export interface RunRequest {
  question: string;
  mode: 'rag' | 'research';
  model?: string;
  collections?: string[];
  conversationId?: string;
  maxSteps?: number;
}

type Listener = (event: StoredEvent) => void;

interface LiveRun {
  listeners: Set<Listener>;
  controller: AbortController;
  done: Promise<AskResult>;
}

/**
 * Runs started over HTTP: each run's events are numbered and stored as they happen (the SSE `id`
 * is the number), so a client that reconnects with `Last-Event-ID` gets exactly what it missed,
 * from the database, then the rest live. No broker: one process, one SQLite file. A run a killed
 * process left running is closed on the next start with `run-finish` (finish reason `error`).
 */
export class RunManager {
  private readonly live = new Map<string, LiveRun>();

  constructor(
    private readonly state: ServerState,
    private readonly dossier: Dossier,
    private readonly askDefaults: Pick<AskOptions, 'policy' | 'runsDir' | 'model'> = {},
  ) {
    for (const id of state.runsLeftRunning()) {
      const error = { code: 'interrupted', message: 'the server stopped while this run was going' };
      state.appendEvent(id, state.lastSeq(id) + 1, { type: 'error', step: 0, ...error } as never);
      state.appendEvent(id, state.lastSeq(id) + 1, { type: 'run-finish', finishReason: 'error', steps: 0, toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0 }, ms: 0 } as never);
      state.finishRun(id, 'failed', 'error', { error });
    }
  }

  /** Starts a run in the background; its events are stored and published as they come. */
  start(principal: Principal, request: RunRequest, extra: Pick<AskOptions, 'question'> & { context?: string } = { question: request.question }): { runId: string; done: Promise<AskResult> } {
    const runId = randomUUID();
    const scope = principal.readScope(request.collections);
    this.state.createRun({ id: runId, userId: principal.user.id, ...(request.conversationId ? { conversationId: request.conversationId } : {}), question: request.question, mode: request.mode });
    const listeners = new Set<Listener>();
    const controller = new AbortController();
    let seq = 0;
    const onEvent = (event: AgentEvent) => {
      const stored = { seq: ++seq, event: event as unknown as StoredEvent['event'] };
      this.state.appendEvent(runId, stored.seq, event);
      for (const listener of listeners) listener(stored);
    };
    const done = this.dossier
      .ask({ ...this.askDefaults, question: extra.question, mode: request.mode, ...(request.model ? { model: request.model } : {}), maxSteps: request.maxSteps, scope, runId, signal: controller.signal, onEvent })
      .then((result) => {
        this.state.finishRun(runId, result.error ? 'failed' : 'finished', result.finishReason, result);
        return result;
      })
      .catch((error: unknown) => {
        // A run that could not even start (bad model name, policy file) still ends with a reason.
        const failure = { code: (error as { code?: string }).code ?? 'failed', message: oneLine(error) };
        onEvent({ type: 'error', step: 0, ...failure });
        onEvent({ type: 'run-finish', finishReason: 'error', steps: 0, toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0 }, ms: 0 });
        const result = { answer: `The run failed: ${failure.message}`, citations: [], unresolvedCitations: [], finishReason: 'error', partial: true, steps: 0, toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0 }, model: request.model ?? '', error: failure, runId, ms: 0 } satisfies AskResult;
        this.state.finishRun(runId, 'failed', 'error', result);
        return result;
      })
      .finally(() => this.live.delete(runId));
    this.live.set(runId, { listeners, controller, done });
    return { runId, done };
  }

  /**
   * Every event after `afterSeq`: the stored ones first, then live ones until `run-finish`. Returns
   * an unsubscribe function. Events are delivered once each, in order, with no gap between the
   * stored and the live part.
   */
  subscribe(runId: string, afterSeq: number, listener: Listener): () => void {
    let delivered = afterSeq;
    const deliver = (event: StoredEvent) => {
      if (event.seq <= delivered) return;
      delivered = event.seq;
      listener(event);
    };
    const live = this.live.get(runId);
    // Subscribe first, then read what is stored: an event stored in between comes once, by seq.
    live?.listeners.add(deliver);
    for (const event of this.state.events(runId, afterSeq)) deliver(event);
    return () => live?.listeners.delete(deliver);
  }

  isLive(runId: string): boolean {
    return this.live.has(runId);
  }

  cancel(runId: string): boolean {
    const live = this.live.get(runId);
    live?.controller.abort();
    return Boolean(live);
  }

  /** Waits for every running run (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.live.values()].map((run) => run.done));
  }
}
