import { entityKey, type ResolvedGraph } from './resolve.ts';
import { personalizedPageRank, sparseGraph, type PprOptions, type SparseGraph } from './ppr.ts';

export interface GraphHit {
  chunkId: number;
  score: number;
}

export interface SeedEntity {
  key: string;
  name: string;
  weight: number;
}

/**
 * The entity–chunk graph HippoRAG searches: a node per entity and per chunk; an entity is joined to
 * every chunk that mentions it and to the entities it is related to (by the relationship's weight).
 * A search seeds the entities the query names, each weighted by how specific it is (1 / the chunks
 * that mention it), runs Personalized PageRank, and ranks the chunks by the mass they gather: a
 * chunk one hop away through a bridge entity ranks even when it shares no word with the query.
 */
export class EntityGraph {
  private readonly graph: SparseGraph;
  private readonly entityIndex = new Map<string, number>();
  private readonly chunkOfNode: number[] = [];
  /** Entity keys by their first word, to find the names a query contains without scanning them all. */
  private readonly keysByFirstWord = new Map<string, string[]>();
  private readonly chunkCount: number[];

  constructor(readonly resolved: ResolvedGraph) {
    resolved.entities.forEach((entity, i) => {
      this.entityIndex.set(entity.key, i);
      const first = entity.key.split(' ')[0];
      this.keysByFirstWord.set(first, [...(this.keysByFirstWord.get(first) ?? []), entity.key]);
    });
    const chunkNode = new Map<number, number>();
    const nodeOf = (chunkId: number) => {
      let node = chunkNode.get(chunkId);
      if (node === undefined) {
        node = resolved.entities.length + this.chunkOfNode.length;
        chunkNode.set(chunkId, node);
        this.chunkOfNode.push(chunkId);
      }
      return node;
    };
    const edges: Array<[number, number, number]> = [];
    this.chunkCount = resolved.entities.map((entity, i) => {
      const chunks = new Map<number, number>();
      for (const mention of entity.mentions) chunks.set(mention.chunkId, (chunks.get(mention.chunkId) ?? 0) + 1);
      for (const [chunkId, count] of chunks) edges.push([i, nodeOf(chunkId), Math.min(count, 3)]);
      return chunks.size;
    });
    for (const relationship of resolved.relationships) {
      const [a, b] = [this.entityIndex.get(relationship.source), this.entityIndex.get(relationship.target)];
      if (a !== undefined && b !== undefined) edges.push([a, b, relationship.weight]);
    }
    this.graph = sparseGraph(resolved.entities.length + this.chunkOfNode.length, edges);
  }

  /** The graph's entities a text names (whole words of its key), longest first where names overlap. */
  seedsIn(text: string): SeedEntity[] {
    const words = entityKey(text).split(' ');
    const found: SeedEntity[] = [];
    const covered = new Set<number>();
    const candidates: Array<{ key: string; at: number; length: number }> = [];
    words.forEach((word, at) => {
      for (const key of this.keysByFirstWord.get(word) ?? []) {
        const length = key.split(' ').length;
        if (words.slice(at, at + length).join(' ') === key) candidates.push({ key, at, length });
      }
    });
    for (const candidate of candidates.sort((a, b) => b.length - a.length || a.at - b.at)) {
      const span = Array.from({ length: candidate.length }, (_, i) => candidate.at + i);
      if (span.some((i) => covered.has(i)) || found.some((seed) => seed.key === candidate.key)) continue;
      for (const i of span) covered.add(i);
      const index = this.entityIndex.get(candidate.key)!;
      const entity = this.resolved.entities[index];
      found.push({ key: entity.key, name: entity.name, weight: 1 / Math.max(1, this.chunkCount[index]) });
    }
    return found;
  }

  /** Chunks ranked by Personalized PageRank from the query's entities; none when it names none. */
  search(query: string, k: number, options: PprOptions = {}): { hits: GraphHit[]; seeds: SeedEntity[] } {
    const seeds = this.seedsIn(query);
    if (seeds.length === 0) return { hits: [], seeds };
    const rank = personalizedPageRank(this.graph, new Map(seeds.map((seed) => [this.entityIndex.get(seed.key)!, seed.weight])), options);
    const first = this.resolved.entities.length;
    const hits: GraphHit[] = [];
    for (const [node, score] of rank) if (node >= first && score > 0) hits.push({ chunkId: this.chunkOfNode[node - first], score });
    hits.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
    return { hits: hits.slice(0, k), seeds };
  }
}
