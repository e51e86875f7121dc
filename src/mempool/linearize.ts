/**
 * Clusters, linearizations and chunks (the vocabulary of Core v31's cluster mempool):
 * transactions connected by spending are one cluster; a linearization orders a cluster
 * topologically; its chunks are the runs that get mined together, each with a feerate no
 * lower than the next. Here the linearization is greedy by ancestor-set feerate and the
 * chunks come from merging each run with its predecessor while that raises the feerate,
 * which is optimal for the small clusters (chains, parents with children) a regtest pool
 * holds. Pure: works on any graph of fee, weight and in-graph parents.
 */

export interface GraphTx {
  readonly id: string;
  readonly fee: bigint;
  /** Sigop-adjusted weight: what a chunk's feerate is measured against. */
  readonly weight: number;
  /** In-graph parents' ids. */
  readonly parents: readonly string[];
  /** Entry order, for deterministic ties. */
  readonly order: number;
}

export interface Chunk {
  readonly ids: string[];
  fee: bigint;
  weight: number;
}

/** a's feerate compared with b's: positive when a pays more per weight unit. */
export function compareFeerate(a: { fee: bigint; weight: number }, b: { fee: bigint; weight: number }): number {
  const lhs = a.fee * BigInt(b.weight);
  const rhs = b.fee * BigInt(a.weight);
  return lhs > rhs ? 1 : lhs < rhs ? -1 : 0;
}

/** The connected components of the graph (parents and children both connect). */
export function clustersOf(graph: ReadonlyMap<string, GraphTx>): string[][] {
  const neighbours = new Map<string, string[]>();
  for (const tx of graph.values()) neighbours.set(tx.id, []);
  for (const tx of graph.values()) {
    for (const parent of tx.parents) {
      if (!graph.has(parent)) continue;
      neighbours.get(tx.id)!.push(parent);
      neighbours.get(parent)!.push(tx.id);
    }
  }
  const seen = new Set<string>();
  const clusters: string[][] = [];
  for (const start of graph.keys()) {
    if (seen.has(start)) continue;
    const cluster: string[] = [];
    const todo = [start];
    seen.add(start);
    while (todo.length > 0) {
      const id = todo.pop()!;
      cluster.push(id);
      for (const next of neighbours.get(id)!) {
        if (!seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    clusters.push(cluster);
  }
  return clusters;
}

/** Ancestors of `id` (itself included) among `remaining`. */
function ancestorsWithin(graph: ReadonlyMap<string, GraphTx>, id: string, remaining: ReadonlySet<string>): Set<string> {
  const found = new Set([id]);
  const todo = [id];
  while (todo.length > 0) {
    for (const parent of graph.get(todo.pop()!)!.parents) {
      if (remaining.has(parent) && !found.has(parent)) {
        found.add(parent);
        todo.push(parent);
      }
    }
  }
  return found;
}

/**
 * The members of an ancestor set parents first, each time the highest-feerate member whose
 * in-set parents are placed (ties: the earlier entry) — the order bitcoind v31.0 gives the
 * transactions inside a chunk (two parents of a child: the better-paying one first).
 */
function topologicalByFeerate(graph: ReadonlyMap<string, GraphTx>, set: ReadonlySet<string>): string[] {
  const placed = new Set<string>();
  const out: string[] = [];
  while (out.length < set.size) {
    let next: GraphTx | undefined;
    for (const id of set) {
      if (placed.has(id)) continue;
      const tx = graph.get(id)!;
      if (tx.parents.some((p) => set.has(p) && !placed.has(p))) continue;
      if (!next) next = tx;
      else {
        const cmp = compareFeerate(tx, next);
        if (cmp > 0 || (cmp === 0 && tx.order < next.order)) next = tx;
      }
    }
    placed.add(next!.id);
    out.push(next!.id);
  }
  return out;
}

/**
 * A topological order of `ids` that repeatedly takes the remaining ancestor set with the
 * highest feerate (ties: the smaller set, then the earlier entry), parents first.
 */
export function linearize(graph: ReadonlyMap<string, GraphTx>, ids: readonly string[]): string[] {
  const remaining = new Set(ids);
  const order: string[] = [];
  while (remaining.size > 0) {
    let best: { set: Set<string>; fee: bigint; weight: number; order: number } | undefined;
    for (const id of remaining) {
      const set = ancestorsWithin(graph, id, remaining);
      let fee = 0n;
      let weight = 0;
      for (const member of set) {
        fee += graph.get(member)!.fee;
        weight += graph.get(member)!.weight;
      }
      const candidate = { set, fee, weight, order: graph.get(id)!.order };
      if (!best) {
        best = candidate;
        continue;
      }
      const cmp = compareFeerate(candidate, best);
      if (cmp > 0 || (cmp === 0 && (set.size < best.set.size || (set.size === best.set.size && candidate.order < best.order)))) best = candidate;
    }
    for (const id of topologicalByFeerate(graph, best!.set)) {
      order.push(id);
      remaining.delete(id);
    }
  }
  return order;
}

/** The chunks of a linearization: each run merged into its predecessor while it pays a higher feerate. */
export function chunksOf(graph: ReadonlyMap<string, GraphTx>, order: readonly string[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const id of order) {
    const tx = graph.get(id)!;
    let chunk: Chunk = { ids: [id], fee: tx.fee, weight: tx.weight };
    while (chunks.length > 0 && compareFeerate(chunk, chunks[chunks.length - 1]!) > 0) {
      const prev = chunks.pop()!;
      chunk = { ids: [...prev.ids, ...chunk.ids], fee: prev.fee + chunk.fee, weight: prev.weight + chunk.weight };
    }
    chunks.push(chunk);
  }
  return chunks;
}

/** Every cluster of the graph linearized and chunked. */
export function chunkGraph(graph: ReadonlyMap<string, GraphTx>): Chunk[][] {
  return clustersOf(graph).map((cluster) => chunksOf(graph, linearize(graph, cluster)));
}

/** A chunk with what orders it among equal-feerate chunks of other clusters. */
export interface RankedChunk {
  readonly chunk: Chunk;
  /** The weight of the run of equal-feerate chunks of its cluster that ends with it. */
  readonly equalFeeratePrefix: number;
  /** Its highest txid in internal byte order, as hex (compared as uint256's memcmp); made when a tie needs it. */
  maxTxidKey(): string;
}

/** A display-order txid as hex of its internal bytes. */
function internalOrderKey(txidHex: string): string {
  let out = '';
  for (let i = txidHex.length - 2; i >= 0; i -= 2) out += txidHex.slice(i, i + 2);
  return out;
}

/** The `index`th chunk of a cluster's chunks, ranked. */
export function rankChunk(chunks: readonly Chunk[], index: number): RankedChunk {
  const chunk = chunks[index]!;
  let equalFeeratePrefix = chunk.weight;
  for (let i = index - 1; i >= 0 && compareFeerate(chunks[i]!, chunk) === 0; i--) equalFeeratePrefix += chunks[i]!.weight;
  let key: string | undefined;
  const maxTxidKey = (): string => (key ??= chunk.ids.map(internalOrderKey).reduce((a, b) => (a >= b ? a : b)));
  return { chunk, equalFeeratePrefix, maxTxidKey };
}

/**
 * Core v31's mining order between chunks of distinct clusters (its txgraph's chunk index,
 * as bitcoind v31.0 orders it): the higher feerate first; among equal feerates, the
 * smaller run of equal-feerate chunks in its cluster, then the lower highest txid.
 * Negative when `a` comes first.
 */
export function compareMiningOrder(a: RankedChunk, b: RankedChunk): number {
  const feerate = compareFeerate(b.chunk, a.chunk);
  if (feerate !== 0) return feerate;
  if (a.equalFeeratePrefix !== b.equalFeeratePrefix) return a.equalFeeratePrefix - b.equalFeeratePrefix;
  const ka = a.maxTxidKey();
  const kb = b.maxTxidKey();
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Chunks across clusters in mining order: a cluster's chunks always in their own order (a
 * later chunk never pays more than an earlier one), the clusters' next chunks merged by
 * compareMiningOrder.
 */
export function miningOrder(clusters: readonly Chunk[][]): Chunk[] {
  const ranked = clusters.map((chunks) => chunks.map((_, i) => rankChunk(chunks, i)));
  const next = clusters.map(() => 0);
  const out: Chunk[] = [];
  for (;;) {
    let best = -1;
    for (let c = 0; c < ranked.length; c++) {
      const candidate = ranked[c]![next[c]!];
      if (!candidate) continue;
      if (best < 0 || compareMiningOrder(candidate, ranked[best]![next[best]!]!) < 0) best = c;
    }
    if (best < 0) return out;
    out.push(ranked[best]![next[best]!]!.chunk);
    next[best]!++;
  }
}
