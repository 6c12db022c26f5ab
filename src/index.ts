// The library: the service layer, the agent, the extension-point interfaces and the errors.
export {
  createDossier,
  Dossier,
  assertCollectionName,
  type DossierOptions,
  type DocumentSummary,
  type ScopeOptions,
  type DossierIngestOptions,
} from './dossier.ts';
export { DossierError, type ErrorCode } from './errors/index.ts';

export type { AskOptions, AskResult, AskMode, ReplayResult } from './ask/ask.ts';
export { runAgent, type AgentOptions, type AgentResult, type AgentModel } from './agent/run-agent.ts';
export { runResearch, type ResearchOptions, type ResearchResult } from './research/run-research.ts';
export type { AgentEvent, Citation, EventListener, FinishReason, Usage } from './protocol/events.ts';
export { EvidenceLedger, type LedgerEntry, type LedgerOptions } from './evidence/ledger.ts';
export { ToolRegistry, ragTools, loadUserTools } from './agent/tools/registry.ts';
export type { AgentTool, ToolContext, ToolResult } from './agent/tools/tool.ts';
export { createOfflineModel } from './offline-model/index.ts';

export {
  resolveModel,
  resolveEmbedder,
  parseSpec,
  PROVIDER_NAMES,
  type ResolvedModel,
  type ResolveOptions,
  type LanguageModelObject,
  type Provider,
} from './providers/index.ts';

export type { Embedder, EmbedderRecipe, FrequencySource } from './embed/embedder.ts';
export { HashedEmbedder, type HashedEmbedderOptions } from './embed/hashed/hashed-embedder.ts';
export type { Block, ParsedDocument, Parser } from './ingest/types.ts';
export type { IngestReport, IngestOptions, DocumentRecord } from './ingest/pipeline.ts';
export type { SearchHit, SearchMode, SearchRequest } from './retrieve/search.ts';
export type { Filter, IndexIdentity, IndexInfo, Scope, Store, StoreStats, StoredChunk, StoredDocument } from './store/types.ts';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite-store.ts';
export {
  runBeirEval,
  runDocsEval,
  runHotpotEval,
  runRegressionEval,
  type BeirResult,
  type HotpotResult,
  type RegressionReport,
  type EvalProgress,
} from './eval/index.ts';
