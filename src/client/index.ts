/**
 * `dossier/client`: a typed client of the Dossier HTTP API (`dossier serve`). Browser-safe: it
 * uses only fetch, ReadableStream, TextDecoder, FormData and Blob, so it runs in browsers, Deno,
 * Bun and Node ≥ 20 alike. Its types come from ./types.ts and two dependency-free modules
 * (agent/events.ts, store/types.ts), so a browser project type-checks it without @types/node.
 */
import type { AgentEvent, Citation } from '../protocol/events.ts';
import type { Filter, StoredChunk, StoredDocument } from '../store/types.ts';
import { readSse, SseParser } from './sse.ts';
import type { AskResult, DocumentSummary, IngestProgress, IngestReport, RunRecord, SearchHit, SearchMode } from '../protocol/json-shapes.ts';

export { readSse, SseParser, type SseMessage } from './sse.ts';
export type { AskResult, DocumentSummary, IngestProgress, IngestReport, RunRecord, SearchHit, SearchMode, SubagentRecord } from '../protocol/json-shapes.ts';
export type { AgentEvent, Citation, ClaimCheck, EvidenceSummary, FinishReason, PlanItem, ToolCallRecord, Usage } from '../protocol/events.ts';
export type { Filter, IndexIdentity, StoredChunk, StoredDocument } from '../store/types.ts';

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the server is, e.g. "http://127.0.0.1:8787" (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` (servers started with `--auth keys`). */
  apiKey?: string;
  /** A fetch to use instead of the global one (a proxy, a test harness, a framework's fetch). */
  fetch?: FetchLike;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
}

const marker = Symbol.for('dossier.client-error');

/**
 * A request that failed: `status` and `code` from the server's `{error:{code,message}}` body, or
 * status 0 with code `network` (no response), `stream-interrupted` (a resumable stream gave up),
 * `bad-response` (a body that is not what the API sends).
 */
export class DossierClientError extends Error {
  readonly [marker] = true;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DossierClientError';
  }

  /** Survives duplicated copies of this module (a marker symbol, not `instanceof`). */
  static isInstance(value: unknown): value is DossierClientError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

// Request and response types

export interface Health {
  ok: true;
  version: string;
}
export interface Readiness {
  ready: boolean;
  documents?: number;
  error?: string;
}
export type UploadFile = Blob | { name: string; data: Blob | ArrayBuffer | ArrayBufferView | string; type?: string };
export interface UploadOptions {
  collection?: string;
  /** Merged into every uploaded document's metadata. */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}
export interface IngestJob {
  id: string;
  collection: string;
  /** `queued` on a PostgreSQL-backed server until a worker claims the job. */
  status: 'queued' | 'running' | 'finished' | 'failed';
  /** Queued jobs: claims so far. */
  attempts?: number;
  progress?: IngestProgress;
  report?: IngestReport;
  error?: string;
}
export interface ListDocumentsOptions {
  collection?: string;
  filter?: Filter;
  limit?: number;
  offset?: number;
}
export interface SearchRequest {
  query: string;
  mode?: SearchMode;
  k?: number;
  filter?: Filter;
  collections?: string[];
}
export interface SearchResponse {
  hits: SearchHit[];
  ms: number;
}
export interface Collection {
  name: string;
  documents: number;
  role: 'reader' | 'writer' | 'owner';
}
export interface AskRequest {
  question: string;
  mode?: 'rag' | 'research';
  model?: string;
  /** Ask within a conversation: a follow-up is read in the light of the earlier turns. */
  conversationId?: string;
  collections?: string[];
  maxSteps?: number;
}
/** One event of a run with its number (the SSE `id`): increasing, from 1. */
export interface RunEvent {
  id: number;
  event: AgentEvent;
}
export interface StreamOptions {
  signal?: AbortSignal;
  /** Reconnects in a row that bring no new event before giving up (default 5). */
  maxRetries?: number;
  /** Wait before a reconnect unless the server sent `retry` (default 250 ms). */
  retryDelayMs?: number;
}
/** The events of a run, resumed across dropped connections until the top-level `run-finish`. */
export interface RunEventStream extends AsyncIterable<RunEvent> {
  /** Known from the response header or the `run-start` event. */
  readonly runId: string | undefined;
  /** The id of the last event yielded (what a reconnect sends as Last-Event-ID). */
  readonly lastEventId: number;
  /** How many times the stream reconnected. */
  readonly reconnects: number;
}
export interface Conversation {
  id: string;
  title: string;
  createdAt: string;
}
export interface Message {
  id: string;
  parentId?: string;
  role: 'user' | 'assistant';
  content: string;
  runId?: string;
  createdAt: string;
  citations?: Citation[];
}
export interface Me {
  user: { id: string; name: string; admin: boolean };
  collections: { collection: string; role: string }[];
}
export type Role = 'reader' | 'writer' | 'owner';

interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  body?: FormData | string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Statuses that are answers, not errors (`/ready` is 503 when not ready). */
  accept?: number[];
}

const path = (strings: TemplateStringsArray, ...parts: Array<string | number>) => strings.reduce((out, s, i) => out + s + (i < parts.length ? encodeURIComponent(String(parts[i])) : ''), '');

export type DossierClient = ReturnType<typeof createClient>;

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method of another object.
  const doFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function request(method: string, route: string, opts: RequestOptions = {}): Promise<Response> {
    const params = Object.entries(opts.query ?? {}).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
    const url = base + route + (params.length ? `?${new URLSearchParams(params.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '');
    const headers: Record<string, string> = { ...options.headers, ...opts.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    let response: Response;
    try {
      response = await doFetch(url, { method, headers, body, signal: opts.signal });
    } catch (error) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw new DossierClientError(0, 'network', `${method} ${route}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
    if (!response.ok && !opts.accept?.includes(response.status)) throw await errorOf(response, method, route);
    return response;
  }

  async function json<T>(method: string, route: string, opts?: RequestOptions): Promise<T> {
    const response = await request(method, route, opts);
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw new DossierClientError(response.status, 'bad-response', `${method} ${route}: the response is not JSON`, { cause: error });
    }
  }

  /**
   * Follows a run's events. `first` is the response that opened the stream (POST /v1/ask), if any;
   * after a drop (a read error, or the body ending before `run-finish`) it reconnects to
   * GET /v1/runs/:id/events with Last-Event-ID and skips any id it has already yielded.
   */
  function follow(first: Response | undefined, knownRunId: string | undefined, after: number, opts: StreamOptions): RunEventStream {
    const state = { runId: knownRunId, lastEventId: after, reconnects: 0 };
    const maxRetries = opts.maxRetries ?? 5;
    const signal = opts.signal;
    async function* events(): AsyncGenerator<RunEvent, void, undefined> {
      let response = first;
      let failures = 0;
      for (;;) {
        if (!response) {
          if (!state.runId) throw new DossierClientError(0, 'stream-interrupted', 'the event stream dropped before the run was named, so it cannot be resumed');
          try {
            response = await request('GET', path`/v1/runs/${state.runId}/events`, { headers: { accept: 'text/event-stream', ...(state.lastEventId > 0 ? { 'last-event-id': String(state.lastEventId) } : {}) }, signal });
          } catch (error) {
            // A 4xx (the run is gone, the key was revoked) will not get better by retrying.
            if (!DossierClientError.isInstance(error) || (error.status >= 400 && error.status < 500 && error.status !== 429)) throw error;
            if (++failures > maxRetries) throw error;
            await sleep(opts.retryDelayMs ?? 250, signal);
            continue;
          }
        }
        const parser = new SseParser();
        const iterator = readSse(response, parser);
        let progressed = false;
        let dropped: unknown;
        try {
          for (;;) {
            let next: IteratorResult<{ data: string; id: string }>;
            try {
              next = await iterator.next();
            } catch (error) {
              dropped = error;
              break;
            }
            if (next.done) break;
            const id = Number(next.value.id);
            // Ids are increasing: one at or below the last yielded is a repeat after a reconnect.
            if (!Number.isInteger(id) || id <= state.lastEventId) continue;
            let event: AgentEvent;
            try {
              event = JSON.parse(next.value.data) as AgentEvent;
            } catch (error) {
              throw new DossierClientError(response.status, 'bad-response', `event ${id} is not JSON`, { cause: error });
            }
            state.lastEventId = id;
            progressed = true;
            if (event.type === 'run-start' && !event.path) state.runId ??= event.runId;
            yield { id, event };
            if (event.type === 'run-finish' && !event.path) return;
          }
        } finally {
          await iterator.return(undefined);
        }
        if (signal?.aborted) throw signal.reason;
        response = undefined;
        failures = progressed ? 0 : failures + 1;
        if (failures > maxRetries) throw new DossierClientError(0, 'stream-interrupted', `the event stream of run ${state.runId} dropped ${failures} times without progress${dropped ? `: ${(dropped as Error).message ?? String(dropped)}` : ''}`, { cause: dropped });
        state.reconnects++;
        await sleep(parser.retry ?? opts.retryDelayMs ?? 250, signal);
      }
    }
    return {
      get runId() {
        return state.runId;
      },
      get lastEventId() {
        return state.lastEventId;
      },
      get reconnects() {
        return state.reconnects;
      },
      [Symbol.asyncIterator]: () => events(),
    };
  }

  /** POST /v1/ask with `stream: true`, opened lazily when iteration starts. */
  function askStream(body: AskRequest, opts: StreamOptions = {}): RunEventStream {
    let inner: RunEventStream | undefined;
    return {
      get runId() {
        return inner?.runId;
      },
      get lastEventId() {
        return inner?.lastEventId ?? 0;
      },
      get reconnects() {
        return inner?.reconnects ?? 0;
      },
      async *[Symbol.asyncIterator]() {
        // Not retried: a second POST would start a second run. Drops after this are resumed.
        const response = await request('POST', '/v1/ask', { json: { ...body, stream: true }, headers: { accept: 'text/event-stream' }, signal: opts.signal });
        // A browser hides this header unless the server exposes it; run-start names the run too.
        inner = follow(response, response.headers.get('x-dossier-run-id') ?? undefined, 0, opts);
        yield* inner;
      },
    };
  }

  const ask = (body: AskRequest, opts: { signal?: AbortSignal } = {}) => json<AskResult>('POST', '/v1/ask', { json: { ...body, stream: false }, signal: opts.signal });

  return {
    /** GET /health: the process is up. */
    health: () => json<Health>('GET', '/health'),
    /** GET /ready: the index answers a read (`ready: false` with the error when not). */
    ready: () => json<Readiness>('GET', '/ready', { accept: [503] }),
    /** GET /openapi.json: the OpenAPI 3.1 document of every route. */
    openapi: () => json<Record<string, unknown>>('GET', '/openapi.json'),

    documents: {
      /** POST /v1/documents: uploads files; ingestion runs as a background job (see `job`, `waitForJob`). */
      upload: async (files: UploadFile | UploadFile[], opts: UploadOptions = {}): Promise<IngestJob> => {
        const form = new FormData();
        for (const file of Array.isArray(files) ? files : [files]) {
          const [blob, name] = toBlob(file);
          form.append('file', blob, name);
        }
        if (opts.collection !== undefined) form.append('collection', opts.collection);
        if (opts.metadata !== undefined) form.append('metadata', JSON.stringify(opts.metadata));
        return (await json<{ job: IngestJob }>('POST', '/v1/documents', { body: form, signal: opts.signal })).job;
      },
      /** GET /v1/jobs/:id: an ingestion job, its progress, then its report. */
      job: async (id: string): Promise<IngestJob> => (await json<{ job: IngestJob }>('GET', path`/v1/jobs/${id}`)).job,
      /** Polls a job until it is neither queued nor running; returns it finished or failed (check `status`). */
      waitForJob: async (id: string, opts: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<IngestJob> => {
        const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
        for (;;) {
          const job = (await json<{ job: IngestJob }>('GET', path`/v1/jobs/${id}`, { signal: opts.signal })).job;
          if (job.status === 'finished' || job.status === 'failed') return job;
          if (Date.now() > deadline) throw new DossierClientError(0, 'timeout', `job ${id} is still running after ${opts.timeoutMs ?? 120_000} ms`);
          await sleep(opts.intervalMs ?? 100, opts.signal);
        }
      },
      /** GET /v1/jobs/:id/events: the job as it goes (`progress` events), ending with `job-finish` and the finished job. */
      jobEvents: async function* (id: string, opts: { signal?: AbortSignal } = {}): AsyncGenerator<{ event: 'progress' | 'job-finish'; job: IngestJob }, void, undefined> {
        const response = await request('GET', path`/v1/jobs/${id}/events`, { signal: opts.signal, headers: { accept: 'text/event-stream' } });
        for await (const message of readSse(response)) {
          const event = message.event === 'job-finish' ? 'job-finish' : 'progress';
          yield { event, job: JSON.parse(message.data) as IngestJob };
          if (event === 'job-finish') return;
        }
      },
      /** GET /v1/documents: the documents the caller may read. */
      list: async (opts: ListDocumentsOptions = {}): Promise<DocumentSummary[]> =>
        (await json<{ documents: DocumentSummary[] }>('GET', '/v1/documents', { query: { collection: opts.collection, filter: opts.filter ? JSON.stringify(opts.filter) : undefined, limit: opts.limit, offset: opts.offset } })).documents,
      /** GET /v1/documents/:id */
      get: async (id: number): Promise<StoredDocument> => (await json<{ document: StoredDocument }>('GET', path`/v1/documents/${id}`)).document,
      /** GET /v1/documents/:id/chunks: in document order. */
      chunks: async (id: number): Promise<StoredChunk[]> => (await json<{ chunks: StoredChunk[] }>('GET', path`/v1/documents/${id}/chunks`)).chunks,
      /** PATCH /v1/documents/:id: merges into the metadata (a key set to null is removed). */
      patchMetadata: async (id: number, metadata: Record<string, unknown>): Promise<StoredDocument> => (await json<{ document: StoredDocument }>('PATCH', path`/v1/documents/${id}`, { json: { metadata } })).document,
      /** DELETE /v1/documents/:id: the document with its chunks and vectors. */
      delete: (id: number) => json<{ deleted: true }>('DELETE', path`/v1/documents/${id}`),
    },

    /** POST /v1/search */
    search: (body: SearchRequest, opts: { signal?: AbortSignal } = {}) => json<SearchResponse>('POST', '/v1/search', { json: body, signal: opts.signal }),
    /** GET /v1/collections: readable collections, their document counts and the caller's role. */
    collections: async (): Promise<Collection[]> => (await json<{ collections: Collection[] }>('GET', '/v1/collections')).collections,

    /** POST /v1/ask: waits for the run and returns the `ask --json` object. */
    ask,
    /** POST /v1/ask with `stream: true`: the run's events as they happen, resumed if the connection drops. */
    askStream,
    /** GET /v1/runs/:id: status, and the result once finished. */
    run: (runId: string) => json<RunRecord>('GET', path`/v1/runs/${runId}`),
    /** GET /v1/runs/:id/events: the events after `after` (default all), resumed across drops, until `run-finish`. */
    runEvents: (runId: string, opts: StreamOptions & { after?: number } = {}): RunEventStream => follow(undefined, runId, opts.after ?? 0, opts),

    conversations: {
      create: (opts: { title?: string } = {}) => json<Conversation>('POST', '/v1/conversations', { json: opts }),
      list: async (): Promise<Conversation[]> => (await json<{ conversations: Conversation[] }>('GET', '/v1/conversations')).conversations,
      get: (id: string) => json<Conversation & { messages: Message[] }>('GET', path`/v1/conversations/${id}`),
      messages: async (id: string): Promise<Message[]> => (await json<{ messages: Message[] }>('GET', path`/v1/conversations/${id}/messages`)).messages,
      /** The conversation as Markdown. */
      export: async (id: string): Promise<string> => (await request('GET', path`/v1/conversations/${id}/export`)).text(),
      delete: (id: string) => json<{ deleted: true }>('DELETE', path`/v1/conversations/${id}`),
      /** `ask` within the conversation. */
      ask: (id: string, body: Omit<AskRequest, 'conversationId'>, opts?: { signal?: AbortSignal }) => ask({ ...body, conversationId: id }, opts),
    },

    /** GET /v1/me: the caller, and their collections and roles. */
    me: () => json<Me>('GET', '/v1/me'),
    users: {
      /** POST /v1/users (admin): the user and a first API key, shown once. */
      create: (body: { name: string; admin?: boolean }) => json<{ userId: string; apiKey: string }>('POST', '/v1/users', { json: body }),
    },
    keys: {
      /** POST /v1/keys: a new key for yourself, or for `user` (admin). */
      create: (body: { user?: string } = {}) => json<{ apiKey: string }>('POST', '/v1/keys', { json: body }),
    },
    /** PUT /v1/collections/:collection/members/:user (owner or admin). */
    grant: (collection: string, user: string, role: Role) => json<{ collection: string; user: string; role: Role }>('PUT', path`/v1/collections/${collection}/members/${user}`, { json: { role } }),
  };
}

function toBlob(file: UploadFile): [Blob, string] {
  if (file instanceof Blob) {
    const name = (file as Blob & { name?: unknown }).name;
    return [file, typeof name === 'string' && name ? name : 'upload'];
  }
  const data = file.data;
  const blob = data instanceof Blob ? data : new Blob([data] as ConstructorParameters<typeof Blob>[0], file.type ? { type: file.type } : {});
  return [blob, file.name];
}

async function errorOf(response: Response, method: string, route: string): Promise<DossierClientError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body.error && typeof body.error.code === 'string') return new DossierClientError(response.status, body.error.code, typeof body.error.message === 'string' ? body.error.message : response.statusText);
  } catch {
    // Not the API's error body (a proxy's page, say): fall through.
  }
  return new DossierClientError(response.status, `http-${response.status}`, `${method} ${route}: ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
