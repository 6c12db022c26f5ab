/** The knowledge graph: extraction (offline or by model), entity resolution, communities, Personalized PageRank search, and its store-backed service. */
export type * from './types.ts';
export { createOfflineGraphExtractor } from './offline-extractor.ts';
export { createModelGraphExtractor, type ModelGraphExtractorOptions } from './model-extractor.ts';
export { entityPassages, MAX_ENTITY_PASSAGES } from './passages.ts';
export { entityKey, resolveEntities, type ResolvedEntity, type ResolvedGraph, type ResolvedRelationship } from './resolve.ts';
export { EntityGraph, type GraphHit, type SeedEntity } from './entity-graph.ts';
export { personalizedPageRank, sparseGraph, type SparseGraph, type PprOptions } from './ppr.ts';
export { detectCommunities, type Community, type CommunityOptions, type CommunitySentence } from './communities.ts';
export {
  summarizeCommunitiesWithModel,
  COMMUNITY_SUMMARY_SYSTEM_PROMPT,
  type CommunitySummaries,
  type CommunitySummaryFailure,
  type CommunitySummaryOptions,
  type SummarizableCommunity,
} from './community-summary.ts';
export {
  KnowledgeGraph,
  entityId,
  noGraph,
  type GraphBuildOptions,
} from './knowledge-graph.ts';
export type { GraphBuildReport } from '../protocol/http.ts';
export type { GraphEntityView, GraphRelationshipView } from '../protocol/json-shapes.ts';
