/** The knowledge graph: extraction (offline), entity resolution, Personalized PageRank search, and its store-backed service. */
export type * from './types.ts';
export { createOfflineGraphExtractor } from './offline-extractor.ts';
export { entityPassages, MAX_ENTITY_PASSAGES } from './passages.ts';
export { entityKey, resolveEntities, type ResolvedEntity, type ResolvedGraph, type ResolvedRelationship } from './resolve.ts';
export { EntityGraph, type GraphHit, type SeedEntity } from './entity-graph.ts';
export { personalizedPageRank, sparseGraph, type SparseGraph, type PprOptions } from './ppr.ts';
export {
  KnowledgeGraph,
  entityId,
  noGraph,
  type GraphBuildOptions,
  type GraphBuildReport,
  type GraphEntityView,
  type GraphRelationshipView,
} from './knowledge-graph.ts';
