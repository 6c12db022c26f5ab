/**
 * `dossier/testing`: the shared contract suites and the protocol test server, so an outside
 * implementation (a store, an embedder, a parser, a tool) can prove itself with the same tests as the
 * built-in ones. The suites register `node:test` tests: call them at the top level of a test file.
 */

// Contract suites, one per extension point.
export { storeContract } from './store/contract.ts';
export { embedderContract } from './embed/contract.ts';
export { parserContract, assertParsedDocument, assertDossierError, garbageBytes, type ContractSample } from './ingest/parsers/contract.ts';
export { toolContract, assertFenced } from './testing/tool-contract.ts';
export { graphExtractorContract, CONTRACT_CHUNKS as GRAPH_CONTRACT_CHUNKS } from './graph/contract.ts';

// The protocol test server: scripted OpenAI (chat completions, embeddings), Anthropic (Messages) and
// Cohere (rerank) endpoints over real sockets.
export {
  ProtocolServer,
  Route,
  type CommonTurn,
  type RecordedRequest,
  type Reply,
  type JsonReply,
  type SseReply,
  type SseEvent,
  type Scripted,
  type RouteDefinition,
} from './testing/protocol-server/server.ts';
export type { ChatTurn, ScriptedFinish, ScriptedToolCall } from './testing/protocol-server/chat.ts';
export {
  startOpenAIServer,
  addChatCompletionsRoute,
  batchSizes,
  rateLimited,
  serverError,
  openaiError,
  deterministicEmbedding,
  float32ToBase64,
  base64ToFloat32,
  type OpenAIServer,
  type OpenAIServerOptions,
  type EmbeddingsTurn,
} from './testing/protocol-server/openai.ts';
export {
  startAnthropicServer,
  addMessagesRoute,
  anthropicError,
  type AnthropicServer,
  type AnthropicServerOptions,
} from './testing/protocol-server/anthropic.ts';
export {
  startCohereServer,
  addRerankRoute,
  rerankDocuments,
  cohereError,
  type CohereServer,
  type CohereServerOptions,
  type RerankTurn,
} from './testing/protocol-server/cohere.ts';
