/**
 * Personalized PageRank by power iteration over a weighted undirected graph in compressed sparse
 * rows: from the seed nodes, a walk follows an edge (by weight) with probability `damping` and
 * jumps back to a seed otherwise. The mass of a node without edges goes back to the seeds.
 */
export interface SparseGraph {
  nodes: number;
  /** `offsets[i]` .. `offsets[i + 1]` index node i's neighbours in `targets` and `weights`. */
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
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
  return { nodes, offsets, targets, weights };
}

export interface PprOptions {
  /** Probability of following an edge (HippoRAG uses 0.5). */
  damping?: number;
  maxIterations?: number;
  /** Stop when the L1 change of an iteration falls below this. */
  tolerance?: number;
}

export function personalizedPageRank(graph: SparseGraph, seeds: ReadonlyMap<number, number>, options: PprOptions = {}): Float64Array {
  const damping = options.damping ?? 0.5;
  const { nodes, offsets, targets, weights } = graph;
  const reset = new Float64Array(nodes);
  let seedMass = 0;
  for (const [node, weight] of seeds) if (weight > 0 && node >= 0 && node < nodes) seedMass += weight;
  if (seedMass === 0) return reset;
  for (const [node, weight] of seeds) if (weight > 0 && node >= 0 && node < nodes) reset[node] += weight / seedMass;
  const strength = new Float64Array(nodes);
  for (let i = 0; i < nodes; i++) for (let e = offsets[i]; e < offsets[i + 1]; e++) strength[i] += weights[e];
  let rank = Float64Array.from(reset);
  let next = new Float64Array(nodes);
  for (let iteration = 0; iteration < (options.maxIterations ?? 50); iteration++) {
    next.fill(0);
    let dangling = 0;
    for (let i = 0; i < nodes; i++) {
      const mass = rank[i];
      if (mass === 0) continue;
      if (strength[i] === 0) {
        dangling += mass;
        continue;
      }
      const share = (damping * mass) / strength[i];
      for (let e = offsets[i]; e < offsets[i + 1]; e++) next[targets[e]] += share * weights[e];
    }
    // The jump back (and what a dead end held) returns to the seeds.
    const back = 1 - damping + damping * dangling;
    let change = 0;
    for (let i = 0; i < nodes; i++) {
      next[i] += back * reset[i];
      change += Math.abs(next[i] - rank[i]);
    }
    [rank, next] = [next, rank];
    if (change < (options.tolerance ?? 1e-7)) break;
  }
  return rank;
}
