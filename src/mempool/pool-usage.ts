/**
 * The pool's DynamicMemoryUsage kept as it changes (Core's cachedInnerUsage plus the
 * txgraph's and the indexes' shares), and the pool's clusters with their chunks, which
 * both the usage (a cluster's and its chunk-index nodes' memory) and size trimming (the
 * worst chunk) need. A change marks the clusters it touches; they are chunked again when
 * next read.
 */
import { poolGraph } from './block-selection.js';
import type { MempoolEntry } from './entry.js';
import { chunksOf, linearize, rankChunk, type Chunk, type RankedChunk } from './linearize.js';
import { chunkIndexUsage, clusterUsage, deltasUsage, entryUsage, RandomizedTxnsCapacity, randomizedTxnsUsage } from './memory-usage.js';
import { WorstChunkHeap } from './worst-chunk-heap.js';

export interface PoolCluster {
  readonly members: readonly MempoolEntry[];
  /** Chunks in linearization order (feerates never rising). */
  readonly chunks: readonly Chunk[];
  /** The last chunk, ranked for mining order among clusters. */
  readonly lastChunk: RankedChunk | undefined;
  readonly usage: number;
}

/** Everything connected to `entry` through in-pool parents and children. */
function connected(entry: MempoolEntry): MempoolEntry[] {
  const seen = new Set([entry]);
  const todo = [entry];
  while (todo.length > 0) {
    const e = todo.pop()!;
    for (const next of e.parents) if (!seen.has(next) && (seen.add(next), true)) todo.push(next);
    for (const next of e.children) if (!seen.has(next) && (seen.add(next), true)) todo.push(next);
  }
  return [...seen];
}

export class PoolUsage {
  private entriesUsage = 0;
  private clustersUsage = 0;
  private readonly randomized = new RandomizedTxnsCapacity();
  private readonly clusterOf = new Map<MempoolEntry, PoolCluster>();
  private readonly clusters = new Set<PoolCluster>();
  private readonly byWorstChunk = new WorstChunkHeap<PoolCluster>((c) => this.clusters.has(c));
  /** Entries whose cluster must be chunked again. */
  private readonly stale = new Set<MempoolEntry>();

  added(entry: MempoolEntry): void {
    this.entriesUsage += entryUsage(entry.tx);
    this.randomized.added();
    this.touched(entry);
  }

  removed(entry: MempoolEntry): void {
    this.entriesUsage -= entryUsage(entry.tx);
    this.randomized.removed();
    this.touched(entry);
    this.stale.delete(entry);
  }

  /** The entry's cluster changed (a new fee, a new link): chunk it again. */
  touched(entry: MempoolEntry): void {
    for (const e of [entry, ...entry.parents, ...entry.children]) {
      const cluster = this.clusterOf.get(e);
      if (cluster) this.drop(cluster);
      this.stale.add(e);
    }
  }

  private drop(cluster: PoolCluster): void {
    this.clusters.delete(cluster);
    this.clustersUsage -= cluster.usage;
    for (const m of cluster.members) {
      this.clusterOf.delete(m);
      this.stale.add(m);
    }
  }

  private refresh(isPooled: (entry: MempoolEntry) => boolean): void {
    if (this.stale.size === 0) return;
    const todo = [...this.stale].filter(isPooled);
    this.stale.clear();
    for (const entry of todo) {
      if (this.clusterOf.has(entry)) continue;
      const members = connected(entry);
      const graph = poolGraph(members);
      const chunks = chunksOf(graph, linearize(graph, [...graph.keys()]));
      const lastChunk = chunks.length > 0 ? rankChunk(chunks, chunks.length - 1) : undefined;
      const cluster: PoolCluster = { members, chunks, lastChunk, usage: clusterUsage(members.length) + chunkIndexUsage(chunks.length) };
      this.clusters.add(cluster);
      this.byWorstChunk.push(cluster);
      this.clustersUsage += cluster.usage;
      for (const m of members) this.clusterOf.set(m, cluster);
    }
  }

  /** Core's DynamicMemoryUsage for the pool as it is, with `prioritisations` mapDeltas entries. */
  usage(isPooled: (entry: MempoolEntry) => boolean, prioritisations: number): number {
    this.refresh(isPooled);
    return this.entriesUsage + this.clustersUsage + randomizedTxnsUsage(this.randomized.capacity) + deltasUsage(prioritisations);
  }

  /** The cluster whose last chunk comes last in mining order (it holds the pool's worst chunk). */
  worstCluster(isPooled: (entry: MempoolEntry) => boolean): PoolCluster | undefined {
    this.refresh(isPooled);
    return this.byWorstChunk.top(this.clusters.size);
  }

  /** Every cluster, chunked. */
  allClusters(isPooled: (entry: MempoolEntry) => boolean): ReadonlySet<PoolCluster> {
    this.refresh(isPooled);
    return this.clusters;
  }

}
