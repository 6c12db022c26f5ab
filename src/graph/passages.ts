import type { GraphPassage } from '../protocol/http.ts';
import type { GraphEntityView, GraphRelationshipView } from '../protocol/json-shapes.ts';
import type { Store } from '../store/types.ts';

/** Passages an entity view carries at most (`GET /v1/graph/entities/:id`, the `graph_entity` tool). */
export const MAX_ENTITY_PASSAGES = 20;

/**
 * The chunks an entity's view comes from, as passages: those that state its relationships first (in
 * the relationships' order), then those of its own mentions, each once, at most `max`. Read in the
 * entity's collection, which the caller's scope has already let through.
 */
export async function entityPassages(
  store: Pick<Store, 'getChunks'>,
  view: { entity: GraphEntityView; relationships: readonly GraphRelationshipView[] },
  max = MAX_ENTITY_PASSAGES,
): Promise<GraphPassage[]> {
  const ids = [...new Set([...view.relationships.flatMap((r) => r.chunkIds), ...view.entity.chunkIds])].slice(0, max);
  const chunks = new Map((await store.getChunks({ collections: [view.entity.collection] }, ids)).map((chunk) => [chunk.id, chunk]));
  return ids.flatMap((chunkId) => {
    const chunk = chunks.get(chunkId);
    if (!chunk) return [];
    const { documentId, collection, title, source, text, headingPath } = chunk;
    return [{ chunkId, documentId, collection, title, source, text, headingPath }];
  });
}
