/**
 * Clusters, linearizations and chunks (the vocabulary of Core v31's cluster mempool):
 * transactions connected by spending are one cluster; a linearization orders a cluster
 * topologically; its chunks are the runs that get mined together, each with a feerate no
 * lower than the next. Linearizations are Core's (optimal, minimal chunks, ties by txid:
 * spanning-forest.ts), chunks merge a run into its predecessor only while it pays strictly
 * more (Core's ChunkLinearization), and chunks across clusters go in Core's mining order.
 * Pure: works on any graph of txid, fee, weight and in-graph parents.
 */
import { compareFeerate } from './fee-fraction.js';
import { optimalLinearization } from './spanning-forest.js';

export { compareFeerate } from './fee-fraction.js';

export interface GraphTx {
  /** The txid in display hex: ties go by it as Core's mempool orders txids. */
  readonly id: string;
  readonly fee: bigint;
  /** Sigop-adjusted weight: what a chunk's feerate is measured against. */
  readonly weight: number;
  /** In-graph parents' ids. */
  readonly parents: readonly string[];
}

export interface Chunk {
  readonly ids: string[];
  fee: bigint;
  weight: number;
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

/** Txids as Core's uint256 compares them (memcmp of the internal bytes): Core's mempool fallback order. */
export function compareTxids(a: string, b: string): number {
  const ka = internalOrderKey(a);
  const kb = internalOrderKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** A cluster's linearization (Core's, see spanning-forest.ts): optimal, with minimal chunks, ties by txid. */
export function linearize(graph: ReadonlyMap<string, GraphTx>, ids: readonly string[]): string[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  const txs = ids.map((id) => graph.get(id)!);
  const order = optimalLinearization({
    fees: txs.map((tx) => tx.fee),
    weights: txs.map((tx) => tx.weight),
    parents: txs.map((tx) => tx.parents.flatMap((p) => (position.has(p) ? [position.get(p)!] : []))),
    fallback: (a, b) => compareTxids(ids[a]!, ids[b]!),
  });
  return order.map((i) => ids[i]!);
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
 * compareMiningOrder through a binary heap of clusters keyed by their next chunk (a scan
 * of every cluster per chunk took half a second for 5,000 lone transactions). Chunks of
 * distinct clusters never compare equal (their highest txids differ), so the merge is
 * the same whatever the heap's shape.
 */
export function miningOrder(clusters: readonly Chunk[][]): Chunk[] {
  const ranked = clusters.map((chunks) => chunks.map((_, i) => rankChunk(chunks, i)));
  const next = clusters.map(() => 0);
  const head = (c: number): RankedChunk => ranked[c]![next[c]!]!;
  const before = (a: number, b: number): boolean => compareMiningOrder(head(a), head(b)) < 0;
  const heap: number[] = [];
  for (let c = 0; c < ranked.length; c++) if (ranked[c]!.length > 0) heap.push(c);
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) return;
      const child = left + 1 < heap.length && before(heap[left + 1]!, heap[left]!) ? left + 1 : left;
      if (!before(heap[child]!, heap[i]!)) return;
      [heap[i], heap[child]] = [heap[child]!, heap[i]!];
      i = child;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  const out: Chunk[] = [];
  while (heap.length > 0) {
    const best = heap[0]!;
    out.push(head(best).chunk);
    next[best]!++;
    if (next[best]! >= ranked[best]!.length) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    siftDown(0);
  }
  return out;
}
