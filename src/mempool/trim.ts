/**
 * Core v31's TrimToSize: while the pool's memory is over the limit, the worst chunk in
 * mining order leaves, and the
 * rolling minimum fee rises to that chunk's feerate (per virtual byte, rounded down) plus
 * -incrementalrelayfee.
 */
import type { MempoolEntry } from './entry.js';
import { compareFeerate, type Chunk } from './linearize.js';
import type { PoolCluster } from './pool-usage.js';
import type { TxMempool } from './pool.js';
import type { RollingMinFee } from './rolling-min-fee.js';

const WITNESS_SCALE_FACTOR = 4;

/** memcmp of two hashes in internal byte order (uint256's operator<). */
function compareHashes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

interface WorstCandidate {
  readonly cluster: PoolCluster;
  readonly chunk: Chunk;
  /** The weight of the run of equal-feerate chunks in its cluster that ends with it. */
  readonly equalFeeratePrefix: number;
}

function lastChunkOf(cluster: PoolCluster): WorstCandidate | undefined {
  const chunks = cluster.chunks;
  const chunk = chunks[chunks.length - 1];
  if (!chunk) return undefined;
  let equalFeeratePrefix = chunk.weight;
  for (let i = chunks.length - 2; i >= 0 && compareFeerate(chunks[i]!, chunk) === 0; i--) equalFeeratePrefix += chunks[i]!.weight;
  return { cluster, chunk, equalFeeratePrefix };
}

function entriesOf(candidate: WorstCandidate): MempoolEntry[] {
  const byId = new Map(candidate.cluster.members.map((m) => [m.txid, m]));
  return candidate.chunk.ids.map((id) => byId.get(id)!);
}

/** The chunk's highest txid: the fallback order between equal chunks of distinct clusters. */
function maxTxid(candidate: WorstCandidate): Uint8Array {
  return entriesOf(candidate)
    .map((e) => e.tx.txid)
    .reduce((a, b) => (compareHashes(a, b) >= 0 ? a : b));
}

/** Whether `a` comes later in mining order than `b` (chunks of distinct clusters). */
function isWorse(a: WorstCandidate, b: WorstCandidate): boolean {
  const cmp = compareFeerate(a.chunk, b.chunk);
  if (cmp !== 0) return cmp < 0;
  if (a.equalFeeratePrefix !== b.equalFeeratePrefix) return a.equalFeeratePrefix > b.equalFeeratePrefix;
  return compareHashes(maxTxid(a), maxTxid(b)) > 0;
}

/**
 * Core's GetWorstMainChunk: the last chunk in mining order. Mining order puts higher chunk
 * feerates first; among equal ones, bitcoind v31.0 puts the smaller run of equal-feerate
 * chunks of its cluster first, then the chunk whose highest txid is lower — so the worst
 * is the lowest feerate, then the largest such run, then the highest txid.
 */
export function worstChunk(clusters: Iterable<PoolCluster>): { chunk: Chunk; entries: MempoolEntry[] } | undefined {
  let worst: WorstCandidate | undefined;
  for (const cluster of clusters) {
    const candidate = lastChunkOf(cluster);
    if (candidate && (!worst || isWorse(candidate, worst))) worst = candidate;
  }
  return worst && { chunk: worst.chunk, entries: entriesOf(worst) };
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
    const worst = worstChunk(pool.clusters())!;
    const rate = chunkFeeRatePerKvB(worst.chunk) + incrementalRelayFee;
    rolling.trackRemoved(rate);
    if (rate > maxRemovedRate) maxRemovedRate = rate;
    for (const e of worst.entries) pool.remove(e);
    removed.push(...worst.entries);
  }
  return { removed, maxRemovedRate };
}
