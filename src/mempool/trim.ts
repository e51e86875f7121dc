/**
 * Core v31's TrimToSize: while the pool's memory is over the limit, the worst chunk in
 * mining order leaves, and the rolling minimum fee rises to that chunk's feerate (per
 * virtual byte, rounded down) plus -incrementalrelayfee.
 */
import type { MempoolEntry } from './entry.js';
import { compareMiningOrder, type Chunk } from './linearize.js';
import type { PoolCluster } from './pool-usage.js';
import type { TxMempool } from './pool.js';
import type { RollingMinFee } from './rolling-min-fee.js';

const WITNESS_SCALE_FACTOR = 4;

/** The last chunk in mining order (Core's GetWorstMainChunk): each cluster's last chunk, the latest by compareMiningOrder. */
export function worstChunk(clusters: Iterable<PoolCluster>): { chunk: Chunk; entries: MempoolEntry[] } | undefined {
  let worst: PoolCluster | undefined;
  for (const cluster of clusters) {
    if (cluster.lastChunk && (!worst || compareMiningOrder(cluster.lastChunk, worst.lastChunk!) > 0)) worst = cluster;
  }
  return worst && lastChunkEntries(worst);
}

/** A cluster's last chunk with its entries. */
function lastChunkEntries(cluster: PoolCluster): { chunk: Chunk; entries: MempoolEntry[] } {
  const chunk = cluster.lastChunk!.chunk;
  const byId = new Map(cluster.members.map((m) => [m.txid, m]));
  return { chunk, entries: chunk.ids.map((id) => byId.get(id)!) };
}

/** CFeeRate(fee, ToFeePerVSize(weight)).GetFeePerK(): sat/kvB rounded down (toward -infinity). */
export function chunkFeeRatePerKvB(chunk: Chunk): bigint {
  const vsize = BigInt(Math.ceil(chunk.weight / WITNESS_SCALE_FACTOR));
  const scaled = chunk.fee * 1000n;
  const q = scaled / vsize;
  return scaled < 0n && q * vsize !== scaled ? q - 1n : q;
}

export interface TrimResult {
  /** The evicted entries, chunk by chunk. */
  readonly removed: MempoolEntry[];
  /** The highest rate a removal set (the bump it made), 0 when nothing left. */
  readonly maxRemovedRate: bigint;
}

export function trimToSize(pool: TxMempool, limitBytes: number, incrementalRelayFee: bigint, rolling: RollingMinFee): TrimResult {
  const removed: MempoolEntry[] = [];
  let maxRemovedRate = 0n;
  while (pool.size > 0 && pool.dynamicMemoryUsage() > limitBytes) {
    const worst = lastChunkEntries(pool.worstCluster()!);
    const rate = chunkFeeRatePerKvB(worst.chunk) + incrementalRelayFee;
    rolling.trackRemoved(rate);
    if (rate > maxRemovedRate) maxRemovedRate = rate;
    for (const e of worst.entries) pool.remove(e);
    removed.push(...worst.entries);
  }
  return { removed, maxRemovedRate };
}
