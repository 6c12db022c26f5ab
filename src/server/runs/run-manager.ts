import { randomUUID } from 'node:crypto';
import type { AskOptions, AskResult } from '../../ask/ask.ts';
import type { AgentEvent } from '../../protocol/events.ts';
import type { Dossier } from '../../dossier.ts';
import { DossierError, oneLine } from '../../errors/index.ts';
import type { NodeLeases } from '../leases.ts';
import type { Principal } from '../principal.ts';
import type { ServerState, StoredEvent } from '../state/index.ts';

export interface RunRequest {
  question: string;
  mode: 'rag' | 'research';
  model?: string;
  collections?: string[];
  conversationId?: string;
  maxSteps?: number;
  /** Research mode: the model that judges the draft claim by claim; default the run's model. */
  critiqueModel?: string;
}

type Listener = (event: StoredEvent) => void;

interface LiveRun {
  /** Every event of the run stored so far, in seq order: what a subscriber of a live run reads first. */
  events: StoredEvent[];
  listeners: Set<Listener>;
  controller: AbortController;
  done: Promise<AskResult>;
  /** Storing then publishing each event, chained so they land and reach listeners in order. */
  writes: Promise<void>;
}

/** Bookkeeping around a run: `beforeRun` once it is stored, before it starts; `afterRun` once it has finished, before it is marked finished. */
export interface RunHooks {
  beforeRun?: (runId: string) => Promise<void>;
  afterRun?: (result: AskResult) => Promise<void>;
}

/**
 * Runs started over HTTP: each run's events are numbered and stored as they happen (the SSE `id`
 * is the number), so a client that reconnects with `Last-Event-ID` gets exactly what it missed,
 * from the database, then the rest live. No broker: a run started on another node (one database,
 * several processes) is followed by polling its stored events. Each run is held under this node's
 * lease (leases.ts), renewed while it is live; a run whose node was killed is closed once its lease
 * runs out, by whichever node recovers first (`recoverInterrupted`), with `run-finish` (reason `error`).
 * The agent reports events synchronously and the state is async: each event is stored through one
 * ordered chain and, once stored, kept in memory (what subscribers of a live run read) and
 * published; a run leaves `live` only once every event and its result are stored, so from then on
 * the database has it all.
 */
export class RunManager {
  private readonly live = new Map<string, LiveRun>();

  constructor(
    private readonly state: ServerState,
    private readonly dossier: Dossier,
    private readonly leases: NodeLeases,
    private readonly askDefaults: Pick<AskOptions, 'policy' | 'runsDir' | 'model'> = {},
  ) {
    // A run this node lost its lease on has been closed by another node: stop spending on it.
    leases.onLost = (runId) => void this.cancel(runId);
  }

  /** Closes the runs whose node stopped (their lease ran out): an error event, `run-finish`, status failed. */
  async recoverInterrupted(): Promise<void> {
    for (const id of await this.state.claimExpiredRuns(this.leases.lease)) {
      const error = { code: 'interrupted', message: 'the server running this run stopped while it was going (its lease expired)' };
      await this.state.appendEvent(id, (await this.state.lastSeq(id)) + 1, { type: 'error', step: 0, ...error } as never);
      await this.state.appendEvent(id, (await this.state.lastSeq(id)) + 1, {
        type: 'run-finish',
        finishReason: 'error',
        steps: 0,
        toolCalls: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        ms: 0,
      } as never);
      await this.state.finishRun(id, 'failed', 'error', { error });
    }
  }

  /**
   * Starts a run in the background once it is stored; its events are stored and published as they
   * come. `done` settles (never rejects) once the run, its events and `hooks.afterRun` are stored.
   */
  async start(
    principal: Principal,
    request: RunRequest,
    extra: Pick<AskOptions, 'question'> & { context?: string } = { question: request.question },
    hooks: RunHooks = {},
  ): Promise<{ runId: string; done: Promise<AskResult> }> {
    if (request.critiqueModel !== undefined && request.mode !== 'research')
      throw new DossierError('bad-input', 'critiqueModel needs mode "research" (only research mode critiques its draft)');
    const runId = randomUUID();
    const scope = principal.readScope(request.collections);
    await this.state.createRun(
      {
        id: runId,
        userId: principal.user.id,
        ...(request.conversationId ? { conversationId: request.conversationId } : {}),
        question: request.question,
        mode: request.mode,
      },
      this.leases.lease,
    );
    await hooks.beforeRun?.(runId);
    // Renewed from here until the run is stored finished (a run whose beforeRun failed is left to expire and be closed).
    const release = this.leases.hold('run', runId);
    const live: LiveRun = {
      events: [],
      listeners: new Set(),
      controller: new AbortController(),
      done: undefined as never,
      writes: Promise.resolve(),
    };
    let seq = 0;
    // Published only once stored: whatever a client has seen survives a crash, and recovery never reuses its seq.
    const publish = async (stored: StoredEvent) => {
      await this.state.appendEvent(runId, stored.seq, stored.event).catch((error: unknown) => bookkeepingFailed(runId, error));
      live.events.push(stored);
      for (const listener of live.listeners) listener(stored);
    };
    const onEvent = (event: AgentEvent) => {
      const stored = { seq: ++seq, event: event as unknown as StoredEvent['event'] };
      live.writes = live.writes.then(() => publish(stored)).catch((error: unknown) => bookkeepingFailed(runId, error));
    };
    this.live.set(runId, live);
    live.done = (async (): Promise<AskResult> => {
      let result: AskResult;
      try {
        result = await this.dossier.ask({
          ...this.askDefaults,
          question: extra.question,
          mode: request.mode,
          ...(request.model ? { model: request.model } : {}),
          ...(request.critiqueModel ? { critiqueModel: request.critiqueModel } : {}),
          maxSteps: request.maxSteps,
          scope,
          runId,
          signal: live.controller.signal,
          onEvent,
        });
      } catch (error) {
        // A run that could not even start (bad model name, policy file) still ends with a reason.
        const failure = { code: (error as { code?: string }).code ?? 'failed', message: oneLine(error) };
        onEvent({ type: 'error', step: 0, ...failure });
        onEvent({ type: 'run-finish', finishReason: 'error', steps: 0, toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0 }, ms: 0 });
        result = {
          answer: `The run failed: ${failure.message}`,
          citations: [],
          unresolvedCitations: [],
          finishReason: 'error',
          partial: true,
          steps: 0,
          toolCalls: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
          model: request.model ?? '',
          error: failure,
          runId,
          ms: 0,
        } satisfies AskResult;
      }
      // Every event is stored before the run is marked finished, so a finished run replays whole.
      await live.writes;
      try {
        await hooks.afterRun?.(result);
        await this.state.finishRun(runId, result.error ? 'failed' : 'finished', result.finishReason, result);
      } catch (error) {
        bookkeepingFailed(runId, error);
      }
      return result;
    })().finally(() => {
      release();
      this.live.delete(runId);
    });
    return { runId, done: live.done };
  }

  /**
   * Every event after `afterSeq`: the stored ones first, then live ones until `run-finish`. Resolves
   * to an unsubscribe function once what was already there has been delivered; `onEnd` is called
   * once nothing more will come. Events are delivered once each, in order, with no gap between the
   * stored and the live part: a live run's events are all in memory (read and subscribed in one
   * synchronous step). A run that is not live here but stored as running belongs to another node
   * (several `dossier serve` on one database): its stored events are polled until its `run-finish`.
   */
  async subscribe(runId: string, afterSeq: number, listener: Listener, onEnd: () => void = () => undefined): Promise<() => void> {
    let delivered = afterSeq;
    let stopped = false;
    let finished = false;
    const deliver = (event: StoredEvent) => {
      if (stopped || event.seq <= delivered) return;
      delivered = event.seq;
      if (event.event.type === 'run-finish' && !(event.event as { path?: unknown }).path) finished = true;
      listener(event);
    };
    const live = this.live.get(runId);
    if (live) {
      for (const event of live.events) deliver(event);
      live.listeners.add(deliver);
      void live.done.finally(() => stopped || onEnd());
      return () => {
        stopped = true;
        live.listeners.delete(deliver);
      };
    }
    // The status is read before the events: a run seen finished has all its events stored already.
    const readStored = async (): Promise<boolean> => {
      const running = (await this.state.run(runId))?.status === 'running';
      for (const event of await this.state.events(runId, delivered)) deliver(event);
      return running && !finished;
    };
    if (!(await readStored())) {
      onEnd();
      return () => (stopped = true);
    }
    void (async () => {
      try {
        while (!stopped) {
          await sleep(REMOTE_POLL_MS);
          if (stopped || !(await readStored())) break;
        }
      } catch (error) {
        // The database failing mid-poll ends the stream; the client reconnects with Last-Event-ID.
        bookkeepingFailed(runId, error);
      }
      if (!stopped) onEnd();
    })();
    return () => (stopped = true);
  }

  /**
   * Resolves once a run is over and stored: a live one when it is done; one of another node's once
   * its stored status leaves `running` (it stores the result just after `run-finish`), at most
   * REMOTE_SETTLE_MS; at once for any other.
   */
  async settled(runId: string): Promise<void> {
    const live = this.live.get(runId);
    if (live) return void (await live.done);
    for (const deadline = Date.now() + REMOTE_SETTLE_MS; Date.now() < deadline; await sleep(REMOTE_POLL_MS)) {
      if ((await this.state.run(runId))?.status !== 'running') return;
    }
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

/** How often a run another node is running is read again from the database. */
const REMOTE_POLL_MS = 150;
/** How long, after another node's run-finish, to wait for it to store the run's result. */
const REMOTE_SETTLE_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A store failure after the run began: the run itself went on, so it is reported, not thrown (`done` never rejects). */
function bookkeepingFailed(runId: string, error: unknown): void {
  process.stderr.write(`dossier serve: run ${runId}: could not store its record: ${oneLine(error)}\n`);
}
