/**
 * `dossier/client`: a typed client of the Dossier HTTP API (`dossier serve`). Browser-safe: it
 * uses only fetch, ReadableStream, TextDecoder, FormData and Blob, so it runs in browsers, Deno,
 * Bun and Node ≥ 20 alike. Its request and response types come from the route table in
 * protocol/http.ts, which the server's schemas are checked against; every type it uses comes from
 * dependency-free modules (protocol/, store/types.ts), so a browser project type-checks it
 * without @types/node.
 */
import type { AgentEvent } from '../protocol/events.ts';
import type {
  AskRequest,
  Collection,
  Conversation,
  CreateKeyRequest,
  CreateUserRequest,
  Deleted,
  GraphBuildJob,
  GraphBuildRequest,
  GraphCommunitiesQuery,
  GraphEntitiesQuery,
  GraphEntityDetail,
  GraphEntityQuery,
  Health,
  IngestJob,
  ListDocumentsQuery,
  Me,
  Message,
  Readiness,
  Role,
  RouteBody,
  RouteKey,
  RouteParams,
  RouteQuery,
  RouteResponse,
  SearchRequest,
  SearchResponse,
} from '../protocol/http.ts';
import type { AskResult, DocumentSummary, GraphCommunityView, GraphEntityView, RunRecord } from '../protocol/json-shapes.ts';
import type { Filter, StoredChunk, StoredDocument } from '../store/types.ts';
import { readSse, SseParser } from './sse.ts';

export { readSse, SseParser, type SseMessage } from './sse.ts';
export { parseCitationMarkers, rewriteCitationMarkers, stripCitationMarkers, type CitationMarker } from '../protocol/citations.ts';
export type {
  AskRequest,
  Collection,
  Conversation,
  CreateConversationRequest,
  CreateKeyRequest,
  CreateUserRequest,
  Deleted,
  EventStream,
  GrantRequest,
  GraphBuildJob,
  GraphBuildReport,
  GraphBuildRequest,
  GraphCommunitiesQuery,
  GraphEntitiesQuery,
  GraphEntityDetail,
  GraphEntityQuery,
  GraphPassage,
  Health,
  HttpRoutes,
  IngestJob,
  ListDocumentsQuery,
  Me,
  Message,
  PatchDocumentRequest,
  Readiness,
  Role,
  RouteBody,
  RouteEvents,
  RouteForm,
  RouteKey,
  RouteParams,
  RouteQuery,
  RouteResponse,
  RunEventsQuery,
  SearchRequest,
  SearchResponse,
  UploadForm,
} from '../protocol/http.ts';
export type {
  AskResult,
  DocumentSummary,
  GraphCommunityView,
  GraphEntityView,
  GraphRelationshipView,
  IngestProgress,
  IngestReport,
  RunRecord,
  SearchHit,
  SearchMode,
  SubagentRecord,
} from '../protocol/json-shapes.ts';
export type {
  AgentEvent,
  Citation,
  ClaimCheck,
  EvidenceSummary,
  FinishReason,
  PlanItem,
  ToolCallRecord,
  Usage,
} from '../protocol/events.ts';
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

// The client's own types (the wire types are in protocol/http.ts)

export type UploadFile = Blob | { name: string; data: Blob | ArrayBuffer | ArrayBufferView | string; type?: string };
export interface UploadOptions {
  collection?: string;
  /** Merged into every uploaded document's metadata. */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}
/** `GET /v1/documents`'s query, with the filter as an object (the client sends it as JSON). */
export type ListDocumentsOptions = Omit<ListDocumentsQuery, 'filter'> & { filter?: Filter };
/** What to ask: `POST /v1/ask`'s body without `stream`, which `ask` and `askStream` set. */
export type AskInput = Omit<AskRequest, 'stream'>;
export interface CallOptions {
  signal?: AbortSignal;
}
/** One event of a run with its number (the SSE `id`): increasing, from 1. */
export interface RunEvent {
  id: number;
  event: AgentEvent;
}
/** One message of an ingestion job's event stream. */
export interface JobEvent {
  event: 'progress' | 'job-finish';
  job: IngestJob;
}
export interface StreamOptions {
  signal?: AbortSignal;
  /** Reconnects in a row that bring no new event before giving up (default 5). */
  maxRetries?: number;
  /** Wait before a reconnect unless the server sent `retry` (default 250 ms). */
  retryDelayMs?: number;
  /** Called when the connection dropped before the run finished, before waiting to reconnect. */
  onReconnect?: (reconnect: { attempt: number; lastEventId: number }) => void;
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

/** Documents and ingestion jobs. */
export interface DocumentsClient {
  /** POST /v1/documents: uploads files; ingestion runs as a background job (see `job`, `waitForJob`). */
  upload(files: UploadFile | UploadFile[], opts?: UploadOptions): Promise<IngestJob>;
  /** GET /v1/jobs/:id: an ingestion job, its progress, then its report. */
  job(id: string): Promise<IngestJob>;
  /** Polls GET /v1/jobs/:id until the job is neither queued nor running; returns it finished or failed (check `status`). */
  waitForJob(id: string, opts?: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal }): Promise<IngestJob>;
  /** GET /v1/jobs/:id/events: the job as it goes (`progress` events), ending with `job-finish` and the finished job. */
  jobEvents(id: string, opts?: CallOptions): AsyncGenerator<JobEvent, void, undefined>;
  /** GET /v1/documents: the documents the caller may read (default the first 100). */
  list(opts?: ListDocumentsOptions): Promise<DocumentSummary[]>;
  /** GET /v1/documents/:id */
  get(id: number): Promise<StoredDocument>;
  /** GET /v1/documents/:id/chunks: in document order. */
  chunks(id: number): Promise<StoredChunk[]>;
  /** PATCH /v1/documents/:id: merges into the metadata (a key set to null is removed). */
  patchMetadata(id: number, metadata: Record<string, unknown>): Promise<StoredDocument>;
  /** DELETE /v1/documents/:id: the document with its chunks and vectors. */
  delete(id: number): Promise<Deleted>;
}

/** The caller's conversations. */
export interface ConversationsClient {
  /** POST /v1/conversations (the title defaults to "Conversation"). */
  create(opts?: { title?: string }): Promise<Conversation>;
  /** GET /v1/conversations */
  list(): Promise<Conversation[]>;
  /** GET /v1/conversations/:id: the conversation with its messages. */
  get(id: string): Promise<Conversation & { messages: Message[] }>;
  /** GET /v1/conversations/:id/messages: oldest first. */
  messages(id: string): Promise<Message[]>;
  /** GET /v1/conversations/:id/export: the conversation as Markdown. */
  export(id: string): Promise<string>;
  /** DELETE /v1/conversations/:id, with its messages. */
  delete(id: string): Promise<Deleted>;
  /** POST /v1/ask within the conversation: a follow-up is read in the light of the earlier turns. */
  ask(id: string, body: Omit<AskInput, 'conversationId'>, opts?: CallOptions): Promise<AskResult>;
}

/** The knowledge graph of the collections the caller may read. */
export interface GraphClient {
  /** POST /v1/graph/build: builds (or brings up to date) the graphs as a background job (see `waitForBuild`). */
  build(body?: GraphBuildRequest, opts?: CallOptions): Promise<GraphBuildJob>;
  /** Polls GET /v1/jobs/:id until the build is neither queued nor running; returns it finished or failed (check `status`). */
  waitForBuild(id: string, opts?: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal }): Promise<GraphBuildJob>;
  /** GET /v1/graph/entities: most mentioned first; `query` finds entities by name or alias. */
  entities(query?: GraphEntitiesQuery, opts?: CallOptions): Promise<GraphEntityView[]>;
  /** GET /v1/graph/entities/:id: one entity (by id or name), its relationships and the passages that state them. */
  entity(idOrName: string, query?: GraphEntityQuery, opts?: CallOptions): Promise<GraphEntityDetail>;
  /** GET /v1/graph/communities: groups of closely related entities, each with a summary read from its chunks. */
  communities(query?: GraphCommunitiesQuery, opts?: CallOptions): Promise<GraphCommunityView[]>;
}

/** A client of one Dossier server: one method (or two, JSON and streamed) per route of the API. */
export interface DossierClient {
  /** GET /health: the process is up (no key needed). */
  health(): Promise<Health>;
  /** GET /ready: the index answers a read (`ready: false` with the error when not). */
  ready(): Promise<Readiness>;
  /** GET /openapi.json: the OpenAPI 3.1 document of every route. */
  openapi(): Promise<Record<string, unknown>>;
  documents: DocumentsClient;
  /** POST /v1/search: hits from the collections the caller may read, best first. */
  search(body: SearchRequest, opts?: CallOptions): Promise<SearchResponse>;
  /** GET /v1/collections: readable collections, their document counts and the caller's role. */
  collections(): Promise<Collection[]>;
  /** POST /v1/ask: waits for the run and returns the `ask --json` object. */
  ask(body: AskInput, opts?: CallOptions): Promise<AskResult>;
  /** POST /v1/ask with `stream: true`: the run's events as they happen, resumed if the connection drops. Opened when iteration starts. */
  askStream(body: AskInput, opts?: StreamOptions): RunEventStream;
  /** GET /v1/runs/:id: status, and the result once finished. */
  run(runId: string): Promise<RunRecord>;
  /** GET /v1/runs/:id/events: the events after `after` (default all), resumed across drops, until `run-finish`. */
  runEvents(runId: string, opts?: StreamOptions & { after?: number }): RunEventStream;
  conversations: ConversationsClient;
  graph: GraphClient;
  /** GET /v1/me: the caller, and their collections and roles. */
  me(): Promise<Me>;
  users: {
    /** POST /v1/users (admin): the user and a first API key, shown once. */
    create(body: CreateUserRequest): Promise<RouteResponse<'POST /v1/users'>>;
  };
  keys: {
    /** POST /v1/keys: a new key for yourself, or for `user` (admin). */
    create(body?: CreateKeyRequest): Promise<RouteResponse<'POST /v1/keys'>>;
  };
  /** PUT /v1/collections/:collection/members/:user (owner or admin): gives `user` `role` on `collection`. */
  grant(collection: string, user: string, role: Role): Promise<RouteResponse<'PUT /v1/collections/{collection}/members/{user}'>>;
}

/** How to send one route: its path parameters, query, JSON body or form, as the route table types them. */
interface RequestOptions<K extends RouteKey> {
  params?: RouteParams<K>;
  query?: RouteQuery<K>;
  json?: RouteBody<K>;
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Statuses that are answers, not errors (`/ready` is 503 when not ready). */
  accept?: number[];
}

/** "GET /v1/documents/{id}" with `{id: 3}` → ["GET", "/v1/documents/3"]. */
function resolveRoute(route: RouteKey, params: unknown): [method: string, path: string] {
  const [method, template] = route.split(' ') as [string, string];
  const values = (params ?? {}) as Record<string, string | number>;
  return [method, template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])))];
}

export function createClient(options: ClientOptions): DossierClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method of another object.
  const doFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function request<K extends RouteKey>(route: K, opts: RequestOptions<K> = {}): Promise<Response> {
    const [method, path] = resolveRoute(route, opts.params);
    const params = Object.entries((opts.query ?? {}) as Record<string, string | number | undefined>).filter(
      (entry): entry is [string, string | number] => entry[1] !== undefined,
    );
    const url =
      base + path + (params.length ? `?${new URLSearchParams(params.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '');
    const headers: Record<string, string> = { ...options.headers, ...opts.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let body: FormData | string | undefined = opts.form;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    let response: Response;
    try {
      response = await doFetch(url, { method, headers, body, signal: opts.signal });
    } catch (error) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw new DossierClientError(0, 'network', `${method} ${path}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
    if (!response.ok && !opts.accept?.includes(response.status)) throw await errorOf(response, method, path);
    return response;
  }

  async function json<K extends RouteKey>(route: K, opts?: RequestOptions<K>): Promise<RouteResponse<K>> {
    const response = await request(route, opts);
    try {
      return (await response.json()) as RouteResponse<K>;
    } catch (error) {
      const [method, path] = resolveRoute(route, opts?.params);
      throw new DossierClientError(response.status, 'bad-response', `${method} ${path}: the response is not JSON`, { cause: error });
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
          if (!state.runId)
            throw new DossierClientError(
              0,
              'stream-interrupted',
              'the event stream dropped before the run was named, so it cannot be resumed',
            );
          try {
            response = await request('GET /v1/runs/{id}/events', {
              params: { id: state.runId },
              headers: { accept: 'text/event-stream', ...(state.lastEventId > 0 ? { 'last-event-id': String(state.lastEventId) } : {}) },
              signal,
            });
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
        if (failures > maxRetries)
          throw new DossierClientError(
            0,
            'stream-interrupted',
            `the event stream of run ${state.runId} dropped ${failures} times without progress${dropped ? `: ${(dropped as Error).message ?? String(dropped)}` : ''}`,
            { cause: dropped },
          );
        state.reconnects++;
        opts.onReconnect?.({ attempt: state.reconnects, lastEventId: state.lastEventId });
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

  function askStream(body: AskInput, opts: StreamOptions = {}): RunEventStream {
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
        const response = await request('POST /v1/ask', {
          json: { ...body, stream: true },
          headers: { accept: 'text/event-stream' },
          signal: opts.signal,
        });
        // A browser hides this header unless the server exposes it; run-start names the run too.
        inner = follow(response, response.headers.get('x-dossier-run-id') ?? undefined, 0, opts);
        yield* inner;
      },
    };
  }

  const ask = (body: AskInput, opts: CallOptions = {}) => json('POST /v1/ask', { json: { ...body, stream: false }, signal: opts.signal });
  const job = async (id: string, opts: CallOptions = {}) =>
    (await json('GET /v1/jobs/{jobId}', { params: { jobId: id }, signal: opts.signal })).job;

  /** Polls a job (an upload's or a graph build's) until it is finished or failed. */
  const waitForJob = async (id: string, opts: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal }) => {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const current = await job(id, opts);
      if (current.status === 'finished' || current.status === 'failed') return current;
      if (Date.now() > deadline)
        throw new DossierClientError(0, 'timeout', `job ${id} is still running after ${opts.timeoutMs ?? 120_000} ms`);
      await sleep(opts.intervalMs ?? 100, opts.signal);
    }
  };

  return {
    health: () => json('GET /health'),
    ready: () => json('GET /ready', { accept: [503] }),
    openapi: () => json('GET /openapi.json'),

    documents: {
      upload: async (files, opts = {}) => {
        const form = new FormData();
        for (const file of Array.isArray(files) ? files : [files]) {
          const [blob, name] = toBlob(file);
          form.append('file', blob, name);
        }
        if (opts.collection !== undefined) form.append('collection', opts.collection);
        if (opts.metadata !== undefined) form.append('metadata', JSON.stringify(opts.metadata));
        return (await json('POST /v1/documents', { form, signal: opts.signal })).job;
      },
      job: (id) => job(id),
      waitForJob: (id, opts = {}) => waitForJob(id, opts),
      jobEvents: async function* (id, opts = {}) {
        const response = await request('GET /v1/jobs/{jobId}/events', {
          params: { jobId: id },
          signal: opts.signal,
          headers: { accept: 'text/event-stream' },
        });
        for await (const message of readSse(response)) {
          const event = message.event === 'job-finish' ? 'job-finish' : 'progress';
          yield { event, job: JSON.parse(message.data) as IngestJob };
          if (event === 'job-finish') return;
        }
      },
      list: async (opts = {}) =>
        (
          await json('GET /v1/documents', {
            query: {
              collection: opts.collection,
              filter: opts.filter ? JSON.stringify(opts.filter) : undefined,
              limit: opts.limit,
              offset: opts.offset,
            },
          })
        ).documents,
      get: async (id) => (await json('GET /v1/documents/{id}', { params: { id } })).document,
      chunks: async (id) => (await json('GET /v1/documents/{id}/chunks', { params: { id } })).chunks,
      patchMetadata: async (id, metadata) => (await json('PATCH /v1/documents/{id}', { params: { id }, json: { metadata } })).document,
      delete: (id) => json('DELETE /v1/documents/{id}', { params: { id } }),
    },

    search: (body, opts = {}) => json('POST /v1/search', { json: body, signal: opts.signal }),
    collections: async () => (await json('GET /v1/collections')).collections,

    ask,
    askStream,
    run: (runId) => json('GET /v1/runs/{id}', { params: { id: runId } }),
    runEvents: (runId, opts = {}) => follow(undefined, runId, opts.after ?? 0, opts),

    conversations: {
      create: (opts = {}) => json('POST /v1/conversations', { json: opts }),
      list: async () => (await json('GET /v1/conversations')).conversations,
      get: (id) => json('GET /v1/conversations/{id}', { params: { id } }),
      messages: async (id) => (await json('GET /v1/conversations/{id}/messages', { params: { id } })).messages,
      export: async (id) => (await request('GET /v1/conversations/{id}/export', { params: { id } })).text(),
      delete: (id) => json('DELETE /v1/conversations/{id}', { params: { id } }),
      ask: (id, body, opts) => ask({ ...body, conversationId: id }, opts),
    },

    graph: {
      build: async (body = {}, opts = {}) => (await json('POST /v1/graph/build', { json: body, signal: opts.signal })).job,
      // The jobs route is shared with uploads; a graph build's job carries a graph build's progress and report.
      waitForBuild: async (id, opts = {}) => (await waitForJob(id, opts)) as unknown as GraphBuildJob,
      entities: async (query = {}, opts = {}) => (await json('GET /v1/graph/entities', { query, signal: opts.signal })).entities,
      entity: (idOrName, query = {}, opts = {}) =>
        json('GET /v1/graph/entities/{id}', { params: { id: idOrName }, query, signal: opts.signal }),
      communities: async (query = {}, opts = {}) => (await json('GET /v1/graph/communities', { query, signal: opts.signal })).communities,
    },

    me: () => json('GET /v1/me'),
    users: {
      create: (body) => json('POST /v1/users', { json: body }),
    },
    keys: {
      create: (body = {}) => json('POST /v1/keys', { json: body }),
    },
    grant: (collection, user, role) =>
      json('PUT /v1/collections/{collection}/members/{user}', { params: { collection, user }, json: { role } }),
  };
}

function toBlob(file: UploadFile): [Blob, string] {
  if (file instanceof Blob) {
    const name = (file as Blob & { name?: unknown }).name;
    return [file, typeof name === 'string' && name ? name : 'upload'];
  }
  const data = file.data;
  const blob =
    data instanceof Blob ? data : new Blob([data] as ConstructorParameters<typeof Blob>[0], file.type ? { type: file.type } : {});
  return [blob, file.name];
}

async function errorOf(response: Response, method: string, route: string): Promise<DossierClientError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body.error && typeof body.error.code === 'string')
      return new DossierClientError(
        response.status,
        body.error.code,
        typeof body.error.message === 'string' ? body.error.message : response.statusText,
      );
  } catch {
    // Not the API's error body (a proxy's page, say): fall through.
  }
  return new DossierClientError(
    response.status,
    `http-${response.status}`,
    `${method} ${route}: ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`,
  );
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
