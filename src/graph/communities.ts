import { createHash } from 'node:crypto';
import { UndirectedGraph } from 'graphology';
import louvainModule from 'graphology-communities-louvain';
import { segmentsOf } from './offline-extractor.ts';
import type { ResolvedEntity, ResolvedGraph } from './resolve.ts';
import type { GraphChunk } from './types.ts';

// A CommonJS module whose typings declare `export default`: under NodeNext the default import is the
// module itself, which is the function at run time.
const louvain = louvainModule as unknown as typeof louvainModule.default;

/** A sentence of a community's extractive summary: a verbatim span of a chunk's text. */
export interface CommunitySentence {
  chunkId: number;
  /** Character offsets in the chunk's text. */
  start: number;
  end: number;
  /** `text.slice(start, end)` of the chunk. */
  text: string;
}

/** A group of entities more related to each other than to the rest of the graph, with a summary cited by its chunks. */
export interface Community {
  /** `c<level>-` and a hash of the sorted member keys: a rebuild on the same data gives the same ids. */
  id: string;
  /** 0 is the coarsest partition of the whole graph; level n + 1 splits a large community of level n. */
  level: number;
  /** The community one level up that this one splits. */
  parentId?: string;
  /** The two or three most central members ("Orla Quennell, Quennell Glassworks and Harrowgate Bay"). */
  title: string;
  /** Extractive (the evidence sentences joined by a space) unless a model rewrote it. */
  summary: string;
  /** Member keys, the most central first (weighted degree inside the community). */
  entityKeys: string[];
  /** The members' names, in the order of `entityKeys`. */
  entityNames: string[];
  /** The chunks the evidence sentences come from, in the order the summary cites them. */
  chunkIds: number[];
  /** The sentences the extractive summary is made of (what a model summary is written from). */
  evidence: CommunitySentence[];
  size: number;
}

export interface CommunityOptions {
  /** Communities with fewer members are left out (default 3). */
  minSize?: number;
  /** Levels of the hierarchy (default 2: the partition and one split of its large communities). */
  maxLevels?: number;
  /** A community with more members than this is split one level down (default 12). */
  splitSize?: number;
  /** Louvain's resolution: above 1 finds more, smaller communities (default 1). */
  resolution?: number;
  /** Evidence sentences of a summary at most (default 4). */
  maxSentences?: number;
  /** Seeds Louvain's random walk (default 1), so a rebuild on the same data gives the same communities. */
  seed?: number;
  /** Weight of the edge between a chunk's entities and what the chunk is about (default 0.5; 0: relationships only). */
  chunkEdgeWeight?: number;
}

/**
 * Weight of the edge a chunk adds between each of its entities and what the chunk is about (its
 * document's title and its headings, else its most mentioned entity). The offline extractor relates
 * names only within a sentence, so a title, a heading, and a name alone in its sentence would
 * otherwise be unconnected to what the same passage says about them. A star rather than a clique of
 * all the chunk's names: as many edges as mentions, so detection stays fast, and a relationship
 * stated in a sentence still outweighs mere neighbourhood.
 */
const CHUNK_EDGE_WEIGHT = 0.5;
/** An evidence sentence is this long at most: a run-on paragraph without sentence ends is no summary. */
const MAX_SENTENCE_CHARS = 400;
const MIN_SENTENCE_CHARS = 12;

/**
 * Communities of a resolved graph: an undirected weighted graph of its entities (relationship weights
 * summed, plus a small edge for entities that share a chunk), partitioned by Louvain with a seeded
 * random walk; each community larger than `splitSize` is partitioned again inside, down to
 * `maxLevels`. Each community is titled by its most central members and summarised by the few
 * sentences of its members' chunks that name the most distinct members (never code lines), each
 * sentence a verbatim span whose chunk is listed in `chunkIds`. Ordered by level, then size
 * (largest first), then id.
 */
export function detectCommunities(
  graph: ResolvedGraph,
  chunks: ReadonlyMap<number, GraphChunk>,
  options: CommunityOptions = {},
): Community[] {
  const minSize = Math.max(1, options.minSize ?? 3);
  const maxLevels = options.maxLevels ?? 2;
  if (maxLevels < 1) return [];
  const splitSize = options.splitSize ?? 12;
  const entities = [...graph.entities].sort((a, b) => compareStrings(a.key, b.key));
  const weighted = weightedGraph(graph, entities, options.chunkEdgeWeight ?? CHUNK_EDGE_WEIGHT);
  const scratch: Scratch = { inside: new Uint8Array(entities.length), degree: new Float64Array(entities.length) };
  const partition = (nodes: number[]): number[][] => {
    if (!nodes.length) return [];
    const assignment = louvain(louvainGraph(weighted, nodes, scratch), {
      getEdgeWeight: 'weight',
      resolution: options.resolution ?? 1,
      // A generator per partition, so how one community splits does not depend on the others.
      rng: seededRandom(options.seed ?? 1),
    });
    const groups = new Map<number, number[]>();
    for (const node of nodes) {
      const group = assignment[weighted.ids[node]];
      const members = groups.get(group);
      if (members) members.push(node);
      else groups.set(group, [node]);
    }
    return [...groups.values()];
  };
  const sentences = new SentenceIndex(chunks);
  const communities: Community[] = [];
  const visit = (members: number[], level: number, parentId: string | undefined) => {
    if (members.length < minSize) return;
    const community = describe(members, level, parentId, weighted, entities, sentences, options.maxSentences ?? 4, scratch);
    communities.push(community);
    if (level + 1 >= maxLevels || members.length <= splitSize) return;
    const parts = partition(members);
    if (parts.length < 2) return;
    for (const part of parts) visit(part, level + 1, community.id);
  };
  for (const members of partition(entities.map((_, i) => i))) visit(members, 0, undefined);
  return communities.sort((a, b) => a.level - b.level || b.size - a.size || compareStrings(a.id, b.id));
}

/** The entity graph: nodes in key order (so the same graph always builds the same way), weighted undirected edges. */
interface WeightedGraph {
  keys: string[];
  /**
   * Node ids as Louvain's graph names them: not bare numbers, which would make a hub's adjacency in
   * graphology a sparse array (six times slower to build).
   */
  ids: string[];
  /** Compressed rows: node i's neighbours are `neighbours[offsets[i] .. offsets[i + 1]]`, in node order, with their edge weights. */
  offsets: Int32Array;
  neighbours: Int32Array;
  weights: Float64Array;
}

function weightedGraph(graph: ResolvedGraph, entities: readonly ResolvedEntity[], chunkEdgeWeight: number): WeightedGraph {
  const index = new Map(entities.map((entity, i) => [entity.key, i]));
  const n = entities.length;
  const weights = new Map<number, number>();
  const add = (a: number, b: number, weight: number) => {
    if (a === b || !(weight > 0)) return;
    const pair = a < b ? a * n + b : b * n + a;
    weights.set(pair, (weights.get(pair) ?? 0) + weight);
  };
  for (const relationship of graph.relationships) {
    const [a, b] = [index.get(relationship.source), index.get(relationship.target)];
    if (a !== undefined && b !== undefined) add(a, b, relationship.weight);
  }
  // Each chunk joins its entities to what it is about: its title and headings (else its most mentioned entity).
  const byChunk = new Map<number, { counts: Map<number, number>; anchors: Set<number> }>();
  entities.forEach((entity, i) => {
    for (const mention of entity.mentions) {
      let chunk = byChunk.get(mention.chunkId);
      if (!chunk) byChunk.set(mention.chunkId, (chunk = { counts: new Map(), anchors: new Set() }));
      chunk.counts.set(i, (chunk.counts.get(i) ?? 0) + 1);
      if (mention.field !== 'text') chunk.anchors.add(i);
    }
  });
  for (const { counts, anchors } of byChunk.values()) {
    if (counts.size < 2) continue;
    if (!anchors.size) anchors.add([...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0]);
    for (const anchor of anchors) for (const member of counts.keys()) add(anchor, member, chunkEdgeWeight);
  }
  const pairs = Float64Array.from(weights.keys()).sort();
  const offsets = new Int32Array(n + 1);
  for (const pair of pairs) {
    offsets[Math.floor(pair / n) + 1]++;
    offsets[(pair % n) + 1]++;
  }
  for (let i = 0; i < n; i++) offsets[i + 1] += offsets[i];
  const fill = offsets.slice(0, n);
  const neighbours = new Int32Array(offsets[n]);
  const edgeWeights = new Float64Array(offsets[n]);
  // Pairs in order, so each row's neighbours come out in node order.
  for (const pair of pairs) {
    // Rounded, so that summing the same weights in another order (another store's row order) builds the same graph.
    const [a, b, weight] = [Math.floor(pair / n), pair % n, Math.round(weights.get(pair)! * 1e9) / 1e9];
    neighbours[fill[a]] = b;
    edgeWeights[fill[a]++] = weight;
    neighbours[fill[b]] = a;
    edgeWeights[fill[b]++] = weight;
  }
  return {
    keys: entities.map((entity) => entity.key),
    ids: entities.map((_, i) => `n${i}`),
    offsets,
    neighbours,
    weights: edgeWeights,
  };
}

/** Arrays by node reused by every community: membership marks and weighted degrees. */
interface Scratch {
  inside: Uint8Array;
  degree: Float64Array;
}

/** The graph Louvain reads: the given nodes (in node order) and the edges among them, each once. */
function louvainGraph(graph: WeightedGraph, nodes: readonly number[], { inside }: Scratch): UndirectedGraph {
  const sorted = [...nodes].sort((a, b) => a - b);
  for (const node of sorted) inside[node] = 1;
  const louvainInput = new UndirectedGraph({ allowSelfLoops: false });
  for (const node of sorted) louvainInput.addNode(graph.ids[node]);
  // Edges keyed by a counter: graphology's own key generator costs a third of the build.
  let edges = 0;
  const edgeKey = () => `e${edges++}`;
  for (const node of sorted)
    for (let at = graph.offsets[node]; at < graph.offsets[node + 1]; at++) {
      const other = graph.neighbours[at];
      if (other > node && inside[other])
        louvainInput.addUndirectedEdgeWithKey(edgeKey(), graph.ids[node], graph.ids[other], { weight: graph.weights[at] });
    }
  for (const node of sorted) inside[node] = 0;
  return louvainInput;
}

function describe(
  members: readonly number[],
  level: number,
  parentId: string | undefined,
  graph: WeightedGraph,
  entities: readonly ResolvedEntity[],
  sentences: SentenceIndex,
  maxSentences: number,
  { inside, degree }: Scratch,
): Community {
  for (const node of members) inside[node] = 1;
  for (const node of members) {
    let sum = 0;
    for (let at = graph.offsets[node]; at < graph.offsets[node + 1]; at++) if (inside[graph.neighbours[at]]) sum += graph.weights[at];
    degree[node] = sum;
  }
  for (const node of members) inside[node] = 0;
  const ranked = [...members].sort((a, b) => degree[b] - degree[a] || entities[b].mentions.length - entities[a].mentions.length || a - b);
  const names = ranked.slice(0, 3).map((node) => entities[node].name);
  const evidence = sentences.select(
    ranked.map((node) => entities[node]),
    maxSentences,
  );
  // Nodes are in key order, so sorting by node sorts by key.
  const sortedKeys = [...members].sort((a, b) => a - b).map((node) => graph.keys[node]);
  return {
    id: `c${level}-${createHash('sha256').update(sortedKeys.join('\n')).digest('hex').slice(0, 16)}`,
    level,
    ...(parentId ? { parentId } : {}),
    title: names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? ''),
    summary: evidence.map((sentence) => sentence.text).join(' '),
    entityKeys: ranked.map((node) => graph.keys[node]),
    entityNames: ranked.map((node) => entities[node].name),
    chunkIds: [...new Set(evidence.map((sentence) => sentence.chunkId))],
    evidence,
    size: members.length,
  };
}

interface Scored {
  sentence: CommunitySentence;
  /** Ranks in the community of the members it names, ascending. */
  ranks: number[];
  /** How many of them no sentence chosen before names. */
  fresh: number;
  /** Its members' centrality: the sum of 1 / (their rank + 1). */
  centrality: number;
}

/** The better sentence first; ties go to the earlier chunk and offset. */
function compareScored(a: Scored, b: Scored): number {
  return (
    b.fresh - a.fresh ||
    b.ranks.length - a.ranks.length ||
    b.centrality - a.centrality ||
    a.sentence.chunkId - b.sentence.chunkId ||
    a.sentence.start - b.sentence.start
  );
}

/** The prose sentences of the chunks, segmented once, and which of them a mention falls in. */
class SentenceIndex {
  private readonly segmented = new Map<number, CommunitySentence[]>();

  constructor(private readonly chunks: ReadonlyMap<number, GraphChunk>) {}

  /**
   * Up to `max` sentences, each naming a member no sentence before it named, the one naming the most
   * new members first (then the most members, then the more central ones, then chunk and offset).
   */
  select(members: readonly ResolvedEntity[], max: number): CommunitySentence[] {
    // Members are visited in rank order, so a sentence's ranks arrive sorted and a repeat is the last one.
    const found = new Map<CommunitySentence, number[]>();
    members.forEach((entity, rank) => {
      for (const mention of entity.mentions) {
        if (mention.field !== 'text') continue;
        const sentence = this.sentenceAt(mention.chunkId, mention.start);
        if (!sentence) continue;
        const ranks = found.get(sentence);
        if (!ranks) found.set(sentence, [rank]);
        else if (ranks[ranks.length - 1] !== rank) ranks.push(rank);
      }
    });
    const candidates: Scored[] = [];
    for (const [sentence, ranks] of found) {
      let centrality = 0;
      for (const rank of ranks) centrality += 1 / (rank + 1);
      candidates.push({ sentence, ranks, fresh: 0, centrality });
    }
    const chosen: CommunitySentence[] = [];
    const covered = new Uint8Array(members.length);
    while (chosen.length < max) {
      let best: Scored | undefined;
      for (const candidate of candidates) {
        candidate.fresh = 0;
        for (const rank of candidate.ranks) if (!covered[rank]) candidate.fresh++;
        // A chosen sentence has no member left uncovered, so it is never chosen twice.
        if (candidate.fresh && (!best || compareScored(candidate, best) < 0)) best = candidate;
      }
      if (!best) break;
      chosen.push(best.sentence);
      for (const rank of best.ranks) covered[rank] = 1;
    }
    return chosen;
  }

  private sentenceAt(chunkId: number, offset: number): CommunitySentence | undefined {
    let sentences = this.segmented.get(chunkId);
    if (!sentences) {
      const chunk = this.chunks.get(chunkId);
      sentences = chunk ? proseSentences(chunk) : [];
      this.segmented.set(chunkId, sentences);
    }
    // Binary search: the last sentence starting at or before the offset.
    let [low, high] = [0, sentences.length - 1];
    let hit: CommunitySentence | undefined;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (sentences[mid].start <= offset) {
        hit = sentences[mid];
        low = mid + 1;
      } else high = mid - 1;
    }
    return hit && offset < hit.end ? hit : undefined;
  }
}

/**
 * A chunk's sentences of prose that read as sentences: the offline extractor's segments, cut again
 * where a line starts a list item, a quote or an admonition ("!!! note"), with the marker left out of
 * the span; never code (fenced, or shaped like code), headings, table rows, fragments or run-ons.
 */
function proseSentences(chunk: GraphChunk): CommunitySentence[] {
  const sentences: CommunitySentence[] = [];
  for (const segment of segmentsOf(chunk.text)) {
    if (segment.code) continue;
    let from = 0;
    for (const cut of [...segment.text.matchAll(ITEM_START), { index: segment.text.length }]) {
      const piece = segment.text.slice(from, cut.index);
      const at = segment.start + from;
      from = cut.index;
      const lead = LEAD.exec(piece)![0].length;
      // Lines of code after a sentence (outside a fence) end it.
      const lines = piece.slice(lead).split('\n');
      const code = lines.findIndex(isCodeLine);
      const text = (code < 0 ? lines : lines.slice(0, code)).join('\n').trimEnd();
      if (code > 0 && !SENTENCE_END.test(text)) continue;
      // A span starting in lower case is a sentence cut in two (an abbreviation's full stop), not one to
      // quote; one ending in a colon introduces what it does not include (an example, a list).
      if (/^\p{Ll}|:$/u.test(text) || text.length < MIN_SENTENCE_CHARS || text.length > MAX_SENTENCE_CHARS || looksLikeCode(text)) continue;
      sentences.push({ chunkId: chunk.id, start: at + lead, end: at + lead + text.length, text });
    }
  }
  return sentences;
}

const SENTENCE_END = /[.!?…]["'”’)\]]*$/u;
/** A line break that starts a list item, a quote or an admonition. */
const ITEM_START = /\n(?=[ \t]*(?:[-*+•]\s|\d{1,2}[.)]\s|>|!!!))/g;
/** What comes before a piece's sentence: spaces, a list or quote marker, an admonition's first line. */
const LEAD = /^\s*(?:!!![^\n]*\n\s*|(?:[-*+•]|\d{1,2}[.)]|>)\s+)?/;

const CODE_START = /^\s*(?:#|\||>>>|\$ |<\w|[{}\]]|\[(?![^\]\n]*\]\()|"""|'''|[\w.[\]'"]+\s*=[^=]|[\w.]+\(.*\)[\s;]*$)/;
const CODE_SHAPE = /^(?:import|from|def|class|function|const|let|var|return|if|for|while)\b.*[=({:;]\s*$|[;{}]\s*$|=>|===|!==|\)\s*\{|::/;
/** Prose has two lower-case words in a row somewhere; a line of symbols and names does not. */
const PROSE = /\p{Ll}{3,}\s+\p{Ll}{2,}/u;
/** ASCII characters that are neither letters, digits, spaces nor sentence punctuation: the marks of code. */
const SYMBOL = new Uint8Array(128);
// Not the backtick nor the underscore: inline code in a sentence is still prose.
for (const c of '#$%&*+/<=>@[\\]^{|}~') SYMBOL[c.charCodeAt(0)] = 1;

/** A line of code, a shell command, a heading, a table row or markup outside a fence. */
function isCodeLine(line: string): boolean {
  return CODE_START.test(line) || CODE_SHAPE.test(line);
}

/** Code, a shell command, a heading, a table row or markup outside a fence: any line shaped so, no prose, or many symbols. */
export function looksLikeCode(text: string): boolean {
  if (text.split('\n').some(isCodeLine) || !PROSE.test(text)) return true;
  // A link's address is not code: its slashes do not count.
  const words = text.replace(/\]\([^)\s]*\)/g, ']').replace(/https?:\/\/\S+/g, '');
  let symbols = 0;
  for (let i = 0; i < words.length; i++) {
    const c = words.charCodeAt(i);
    if (c < 128 && SYMBOL[c]) symbols++;
  }
  return symbols / Math.max(1, words.length) > 0.08;
}

/** Mulberry32: a small seeded generator, so Louvain's random walk is the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Code-unit order, the same in every locale. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
