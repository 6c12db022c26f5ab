/**
 * A weighted undirected graph in compressed sparse rows, for Personalized PageRank: from the seed
 * nodes, a walk follows an edge (by weight) with probability `damping` and jumps back to a seed
 * otherwise.
 */
export interface SparseGraph {
  nodes: number;
  /** `offsets[i]` .. `offsets[i + 1]` index node i's neighbours in `targets` and `weights`. */
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
  /** The sum of each node's edge weights. */
  strength: Float64Array;
}

/** Builds the rows from an edge list; each edge counts both ways, parallel edges add up. */
export function sparseGraph(nodes: number, edges: ReadonlyArray<readonly [number, number, number]>): SparseGraph {
  const degree = new Uint32Array(nodes + 1);
  for (const [a, b] of edges) {
    degree[a + 1]++;
    degree[b + 1]++;
  }
  const offsets = new Uint32Array(nodes + 1);
  for (let i = 0; i < nodes; i++) offsets[i + 1] = offsets[i] + degree[i + 1];
  const targets = new Uint32Array(offsets[nodes]);
  const weights = new Float64Array(offsets[nodes]);
  const fill = offsets.slice(0, nodes);
  for (const [a, b, w] of edges) {
    targets[fill[a]] = b;
    weights[fill[a]++] = w;
    targets[fill[b]] = a;
    weights[fill[b]++] = w;
  }
  const strength = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) for (let e = offsets[i]; e < offsets[i + 1]; e++) strength[i] += weights[e];
  return { nodes, offsets, targets, weights, strength };
}

export interface PprOptions {
  /** Probability of following an edge (HippoRAG uses 0.5). */
  damping?: number;
  /**
   * A node's residual mass is pushed on only while it exceeds this much per unit of its strength:
   * smaller is more exact and slower. The work is bounded by about 1 / (epsilon × (1 − damping))
   * edge visits whatever the size of the graph, which is what keeps a search fast at 100k chunks.
   */
  epsilon?: number;
}

/**
 * Personalized PageRank by forward push (Andersen, Chung and Lang): the seeds' mass spreads from
 * node to node, each push keeping (1 − damping) of a node's residual and passing the rest to its
 * neighbours by edge weight, until no residual is worth pushing. Only the seeds' neighbourhood is
 * touched, so the cost does not grow with the graph; a dead end keeps what reaches it. Returns the
 * nodes that got any mass.
 */
export function personalizedPageRank(
  graph: SparseGraph,
  seeds: ReadonlyMap<number, number>,
  options: PprOptions = {},
): Map<number, number> {
  const damping = options.damping ?? 0.5;
  const epsilon = options.epsilon ?? 1e-6;
  const { nodes, offsets, targets, weights, strength } = graph;
  const rank = new Map<number, number>();
  const residual = new Map<number, number>();
  let seedMass = 0;
  for (const [node, weight] of seeds) if (weight > 0 && node >= 0 && node < nodes) seedMass += weight;
  if (seedMass === 0) return rank;
  for (const [node, weight] of seeds)
    if (weight > 0 && node >= 0 && node < nodes) residual.set(node, (residual.get(node) ?? 0) + weight / seedMass);
  const queue = [...residual.keys()];
  const queued = new Set(queue);
  const worthPushing = (node: number, mass: number) => mass > epsilon * Math.max(strength[node], 1);
  while (queue.length > 0) {
    const node = queue.pop()!;
    queued.delete(node);
    const mass = residual.get(node) ?? 0;
    residual.delete(node);
    if (mass === 0) continue;
    if (strength[node] === 0) {
      rank.set(node, (rank.get(node) ?? 0) + mass);
      continue;
    }
    rank.set(node, (rank.get(node) ?? 0) + (1 - damping) * mass);
    const share = (damping * mass) / strength[node];
    for (let e = offsets[node]; e < offsets[node + 1]; e++) {
      const neighbour = targets[e];
      const now = (residual.get(neighbour) ?? 0) + share * weights[e];
      residual.set(neighbour, now);
      if (!queued.has(neighbour) && worthPushing(neighbour, now)) {
        queued.add(neighbour);
        queue.push(neighbour);
      }
    }
  }
  return rank;
}
