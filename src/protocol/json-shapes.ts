/**
 * The JSON shapes of the API (DESIGN §4) that both the engine and `dossier/client` use: declared
 * once, here, in a module that depends on nothing but the event types, so the client's
 * declarations pull in no engine types (and through them `ai`, zod or Node's) and a browser
 * project type-checks them without @types/node. The engine modules re-export them
 * (agent/ask.ts, dossier.ts, retrieve/search.ts, ingest/pipeline.ts, research/state.ts).
 */
import type { Citation, ClaimCheck, Finding, FinishReason, PlanItem, RunWarning, Usage } from './events.ts';

/** `graph` is Personalized PageRank over the knowledge graph; `hybrid` fuses it in when a graph exists. */
export type SearchMode = 'fulltext' | 'vector' | 'graph' | 'hybrid';

/** One search hit, best first (retrieve/search.ts). */
export interface SearchHit {
  chunkId: number;
  documentId: number;
  title: string;
  source: string;
  text: string;
  score: number;
  headingPath: string[];
  page?: number;
  charStart: number;
  charEnd: number;
  collection: string;
  /** Position of the chunk in its document. */
  ordinal: number;
  tokenCount: number;
  /** The reranker's score, when a reranker (`--reranker`) ordered the hits; `score` stays the fused one. */
  rerankScore?: number;
}

/** A document as `GET /v1/documents` lists it (dossier.ts). */
export interface DocumentSummary {
  id: number;
  collection: string;
  title: string;
  source: string;
  mediaType: string;
  chunks: number;
  updatedAt: string;
  metadata: Record<string, unknown>;
}

/** How far an ingestion job is (ingest/pipeline.ts). */
export interface IngestProgress {
  /** Files finished (written, skipped or failed) of `total`. */
  done: number;
  total: number;
  bytesDone: number;
  bytesTotal: number;
  path: string;
}

/** What an ingestion job did (ingest/pipeline.ts). */
export interface IngestReport {
  ingested: number;
  updated: number;
  skipped: number;
  skippedFiles: { path: string; reason: string }[];
  failed: { path: string; error: string }[];
  removed: number;
  documents: number;
  chunks: number;
  seconds: number;
  descriptions?: { written: number; fallbacks: number; reason?: string };
  /** When the collection has a knowledge graph: documents extracted into it now, and those left for `dossier graph build`. */
  graph?: { extracted: number; pending: number };
}

/** One nested agent of a research run (research/state.ts). */
export interface SubagentRecord {
  id: string;
  subQuestion?: string;
  question: string;
  finishReason: FinishReason;
  answer: string;
  citations: string[];
  error?: { code: string; message: string };
  steps: number;
  toolCalls: number;
  usage: Usage;
  ms: number;
}

/** The `ask --json` object (agent/ask.ts, DESIGN §4). */
export interface AskResult {
  answer: string;
  citations: Citation[];
  unresolvedCitations: string[];
  finishReason: FinishReason;
  partial: boolean;
  steps: number;
  toolCalls: number;
  usage: Usage;
  /** The model that answered, "provider:model" or "offline". */
  model: string;
  /** Set when the run failed (finish reason `error` or `aborted`). */
  error?: { code: string; message: string };
  runId: string;
  ms: number;
  brief?: string;
  plan?: PlanItem[];
  subagents?: SubagentRecord[];
  /** Research: the critique of the answer delivered; `findings` are reported here, never written into the answer. */
  critique?: { checks: ClaimCheck[]; openQuestions: string[]; rounds: number; findings: Finding[]; model?: string };
  /** With finish reason `no-evidence`: the passages closest to answering (the model named them), listed beside "not found", never sources. */
  closestPassages?: Citation[];
  /** What a reader of the answer should know besides it (open sub-questions, ids that resolve to nothing), each with who raised it; present when any. */
  warnings?: RunWarning[];
}

/** A run as `GET /v1/runs/:id` shows it: its status and, once finished, its result. */
export interface RunRecord {
  id: string;
  conversationId?: string;
  question: string;
  mode: string;
  status: 'running' | 'finished' | 'failed';
  finishReason?: string;
  createdAt: string;
  finishedAt?: string;
  result?: AskResult;
}

/** An entity as the surfaces show it (graph/knowledge-graph.ts; `graph entities`, `GET /v1/graph/entities`). */
export interface GraphEntityView {
  /** Stable across rebuilds of the same documents: made from the collection and the entity's key. */
  id: string;
  collection: string;
  name: string;
  type: string;
  /** The sentence of its first mention in a chunk's text ('' when it is only ever a title or heading). */
  description: string;
  /** Every other name it was found as. */
  aliases: string[];
  /** The chunks that mention it, in id order: its provenance. */
  chunkIds: number[];
  mentions: number;
}

/** A relationship as the surfaces show it (`graph show`), with the chunks that state it. */
export interface GraphRelationshipView {
  subject: string;
  subjectId: string;
  predicate: string;
  object: string;
  objectId: string;
  weight: number;
  chunkIds: number[];
}

/** A community of the knowledge graph (`graph communities`, `GET /v1/graph/communities`). */
export interface GraphCommunityView {
  id: string;
  collection: string;
  /** 0 is the coarsest partition; level n + 1 splits a large community of level n. */
  level: number;
  parentId?: string;
  /** Its two or three most central entities. */
  title: string;
  /** Sentences of its chunks (extractive), or a model's summary of them. */
  summary: string;
  /** Its entities, the most central first. */
  entityIds: string[];
  /** The chunks the summary is read from: cite them like any other evidence. */
  chunkIds: number[];
  size: number;
  /** `extractive`, or the model that wrote the summary. */
  summarizedBy: string;
  /** Detected on an older version of the graph (documents changed since): rebuild with `dossier graph build`. */
  stale: boolean;
}
