/**
 * The HTTP API of `dossier serve` (DESIGN §4) as one route table: for each route its path
 * parameters, query, body and response. `dossier/client` derives its request and response types
 * from it, and test/client.test.ts checks it against the server's zod schemas (every field, which
 * are optional, every value accepted) and that every route has a client method. Types only, and
 * only from dependency-free modules, so a browser project type-checks it without @types/node.
 */
import type { AgentEvent, Citation } from './events.ts';
import type {
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
} from './json-shapes.ts';
import type { Filter, StoredChunk, StoredDocument } from '../store/types.ts';

// Requests

/** `POST /v1/ask`. */
export interface AskRequest {
  question: string;
  mode?: 'rag' | 'research';
  /** "provider:model", or "offline". */
  model?: string;
  /** Ask within a conversation: a follow-up is read in the light of the earlier turns. */
  conversationId?: string;
  /** Branch: answer as a follow-up of this earlier message of the conversation (default its last). */
  parentId?: string;
  collections?: string[];
  /** `true`: the run's events as Server-Sent Events instead of the finished `AskResult`. */
  stream?: boolean;
  maxSteps?: number;
  /** Research mode: the model that judges the draft claim by claim ("provider:model"); default the run's model. */
  critiqueModel?: string;
}

/** `POST /v1/search`. */
export interface SearchRequest {
  query: string;
  mode?: SearchMode;
  k?: number;
  filter?: Filter;
  collections?: string[];
}

/** `GET /v1/documents`: the query string. */
export interface ListDocumentsQuery {
  collection?: string;
  /** A `Filter` as JSON. */
  filter?: string;
  limit?: number;
  offset?: number;
}

/** `POST /v1/documents`: the multipart form's fields. */
export interface UploadForm {
  /** One or more files (the field repeated). */
  file: Blob | Blob[];
  collection?: string;
  /** A JSON object, merged into every uploaded document's metadata. */
  metadata?: string;
}

/** `PATCH /v1/documents/:id`: merged into the metadata (a key set to null is removed). */
export interface PatchDocumentRequest {
  metadata: Record<string, unknown>;
}

/** `GET /v1/runs/:id/events`: the query string (a reconnect sends `Last-Event-ID` instead). */
export interface RunEventsQuery {
  /** Only the events after this number. */
  after?: number;
}

export interface CreateConversationRequest {
  title?: string;
}

export interface CreateUserRequest {
  name: string;
  admin?: boolean;
}

export interface CreateKeyRequest {
  /** Another user's name (admins only); default the caller. */
  user?: string;
}

export type Role = 'reader' | 'writer' | 'owner';

/** `POST /v1/graph/build`: every collection the caller may write when none is named. */
export interface GraphBuildRequest {
  collections?: string[];
  /** Extract every document again, not only new and changed ones. */
  rebuild?: boolean;
  /** "offline" (default) or "provider:model". */
  model?: string;
}

/** `GET /v1/graph/entities`: the query string. */
export interface GraphEntitiesQuery {
  /** Only entities whose name or an alias holds these words. */
  query?: string;
  collection?: string;
  limit?: number;
  offset?: number;
}

/** `GET /v1/graph/communities`: the query string. */
export interface GraphCommunitiesQuery {
  collection?: string;
  /** Only this level (0 is the coarsest). */
  level?: number;
  limit?: number;
}

/** `GET /v1/graph/entities/:id`: the query string. */
export interface GraphEntityQuery {
  collection?: string;
  /** At most this many relationships (default 50). */
  limit?: number;
}

export interface GrantRequest {
  role: Role;
}

// Responses

export interface Health {
  ok: true;
  version: string;
}

/** `GET /ready`: 200 when ready, 503 with the error when not. */
export interface Readiness {
  ready: boolean;
  documents?: number;
  error?: string;
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

/** A chunk an entity or its relationships come from. */
export interface GraphPassage {
  chunkId: number;
  documentId: number;
  collection: string;
  title: string;
  source: string;
  text: string;
  headingPath: string[];
}

/** `GET /v1/graph/entities/:id`. */
export interface GraphEntityDetail {
  entity: GraphEntityView;
  relationships: GraphRelationshipView[];
  /** The chunks of the relationships (then of the entity's own mentions), at most 20. */
  passages: GraphPassage[];
}

/** What `dossier graph build` (and `POST /v1/graph/build`) did (graph/knowledge-graph.ts). */
export interface GraphBuildReport {
  collections: string[];
  extractor: string;
  /** Documents extracted by this build. */
  documents: number;
  entities: number;
  relationships: number;
  communities: number;
  failures: { documentId: number; chunkIds: number[]; message: string }[];
  seconds: number;
}

/** A graph build as a job (polled with `GET /v1/jobs/:jobId`); `collection` names its collections, comma-separated. */
export interface GraphBuildJob {
  id: string;
  collection: string;
  status: 'queued' | 'running' | 'finished' | 'failed';
  /** Documents extracted so far of those to extract. */
  progress?: { done: number; total: number };
  report?: GraphBuildReport;
  error?: string;
}

export interface SearchResponse {
  hits: SearchHit[];
  ms: number;
}

export interface Collection {
  name: string;
  documents: number;
  role: Role;
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

export interface Deleted {
  deleted: true;
}

/** A Server-Sent Events response: each message's `event` is `Name` and its `data` is `Data` as JSON. */
export interface EventStream<Name extends string, Data> {
  event: Name;
  data: Data;
}

/**
 * Every route of the core API, keyed "METHOD /path" with the path as /openapi.json writes it.
 * `params` are the path's `{names}`; `body` is JSON, `form` multipart; `response` is the JSON
 * (or text) of a success; `events` is what a `text/event-stream` response carries.
 */
export interface HttpRoutes {
  'GET /health': { response: Health };
  'GET /ready': { response: Readiness };
  'GET /openapi.json': { response: Record<string, unknown> };

  'POST /v1/documents': { form: UploadForm; response: { job: IngestJob } };
  'GET /v1/documents': { query: ListDocumentsQuery; response: { documents: DocumentSummary[] } };
  'GET /v1/documents/{id}': { params: { id: number }; response: { document: StoredDocument } };
  'GET /v1/documents/{id}/chunks': { params: { id: number }; response: { chunks: StoredChunk[] } };
  'PATCH /v1/documents/{id}': { params: { id: number }; body: PatchDocumentRequest; response: { document: StoredDocument } };
  'DELETE /v1/documents/{id}': { params: { id: number }; response: Deleted };
  'GET /v1/jobs/{jobId}': { params: { jobId: string }; response: { job: IngestJob } };
  /** `progress` while the job runs, then one `job-finish` with the finished (or failed) job. */
  'GET /v1/jobs/{jobId}/events': { params: { jobId: string }; events: EventStream<'progress' | 'job-finish', IngestJob> };

  'POST /v1/search': { body: SearchRequest; response: SearchResponse };
  'GET /v1/collections': { response: { collections: Collection[] } };

  /** JSON, or with `stream: true` the run's events (the SSE `id` numbers them from 1). */
  'POST /v1/ask': { body: AskRequest; response: AskResult; events: EventStream<AgentEvent['type'], AgentEvent> };
  'GET /v1/runs/{id}': { params: { id: string }; response: RunRecord };
  'GET /v1/runs/{id}/events': { params: { id: string }; query: RunEventsQuery; events: EventStream<AgentEvent['type'], AgentEvent> };

  'POST /v1/conversations': { body: CreateConversationRequest; response: Conversation };
  'GET /v1/conversations': { response: { conversations: Conversation[] } };
  'GET /v1/conversations/{id}': { params: { id: string }; response: Conversation & { messages: Message[] } };
  'GET /v1/conversations/{id}/messages': { params: { id: string }; response: { messages: Message[] } };
  /** Markdown. */
  'GET /v1/conversations/{id}/export': { params: { id: string }; response: string };
  'DELETE /v1/conversations/{id}': { params: { id: string }; response: Deleted };

  'POST /v1/graph/build': { body: GraphBuildRequest; response: { job: GraphBuildJob } };
  'GET /v1/graph/entities': { query: GraphEntitiesQuery; response: { entities: GraphEntityView[] } };
  'GET /v1/graph/entities/{id}': { params: { id: string }; query: GraphEntityQuery; response: GraphEntityDetail };
  'GET /v1/graph/communities': { query: GraphCommunitiesQuery; response: { communities: GraphCommunityView[] } };

  'GET /v1/me': { response: Me };
  'POST /v1/users': { body: CreateUserRequest; response: { userId: string; apiKey: string } };
  'POST /v1/keys': { body: CreateKeyRequest; response: { apiKey: string } };
  'PUT /v1/collections/{collection}/members/{user}': {
    params: { collection: string; user: string };
    body: GrantRequest;
    response: { collection: string; user: string; role: Role };
  };
}

export type RouteKey = keyof HttpRoutes;
type Part<K extends RouteKey, F extends string> = HttpRoutes[K] extends { [P in F]: infer T } ? T : never;
/** The path parameters of a route (never when it has none). */
export type RouteParams<K extends RouteKey> = Part<K, 'params'>;
export type RouteQuery<K extends RouteKey> = Part<K, 'query'>;
/** The JSON body of a route (never when it takes none). */
export type RouteBody<K extends RouteKey> = Part<K, 'body'>;
export type RouteForm<K extends RouteKey> = Part<K, 'form'>;
export type RouteResponse<K extends RouteKey> = Part<K, 'response'>;
export type RouteEvents<K extends RouteKey> = Part<K, 'events'>;
