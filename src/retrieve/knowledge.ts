import type { GraphCommunityView, GraphEntityView, GraphRelationshipView } from '../protocol/json-shapes.ts';
import type { GraphInfo, Scope, ScoredChunkId, Store } from '../store/types.ts';
import type { Tokenizer } from '../text/tokenize.ts';
import type { GraphSearcher, Retriever } from './search.ts';

/**
 * What the agent and its tools may read: the store, the retriever and the tokenizer, nothing of the
 * service around them. Every read through it takes the run's scope. A `Dossier` is one.
 */
export interface Knowledge {
  readonly store: Store;
  readonly retriever: Retriever;
  readonly tokenizer: Tokenizer;
  /** The knowledge graph (a Dossier has one; graph/ implements it), for the search_graph tool. */
  readonly knowledgeGraph?: GraphReader;
}

/** The knowledge graph as the agent's tools read it. */
export interface GraphReader extends GraphSearcher {
  /** The collections in scope that have a graph. */
  graphs(scope: Scope): Promise<GraphInfo[]>;
  /** Chunks by Personalized PageRank, with the entities the query was seeded from; undefined when no collection in scope has a graph. */
  searchWithSeeds(query: string, scope: Scope, k: number): Promise<{ hits: ScoredChunkId[]; seeds: GraphEntityView[] } | undefined>;
  /** One entity by id or name with its strongest relationships; a not-found DossierError when there is none. */
  entity(
    scope: Scope,
    idOrName: string,
    options?: { limit?: number },
  ): Promise<{ entity: GraphEntityView; relationships: GraphRelationshipView[] }>;
  /** The communities in scope, coarsest level first, larger first. */
  communities(scope: Scope): Promise<GraphCommunityView[]>;
}
