/**
 * Which pool transactions a new block carries (Core v31's BlockAssembler::addChunks over
 * the cluster mempool): chunks in Core's mining order, each taken whole if its
 * sigop-adjusted weight and its sigops fit what is left, a chunk that does not fit
 * skipping the rest of its cluster; selection stops at the first chunk below
 * -blockmintxfee.
 */
import { MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT } from '../consensus/index.js';
import type { Transaction } from '../primitives/index.js';
import type { MempoolEntry } from './entry.js';
import { chunkGraph, clustersOf, miningOrder, type GraphTx } from './linearize.js';
import type { TxMempool } from './pool.js';

/** Core's DEFAULT_BLOCK_RESERVED_WEIGHT and the sigops it keeps for the coinbase. */
const RESERVED_WEIGHT = 8000;
const COINBASE_SIGOPS_RESERVE = 400;
/** Core's addChunks: near a full block, give up after this many chunks in a row did not fit. */
const MAX_CONSECUTIVE_FAILURES = 1000;
const BLOCK_FULL_ENOUGH_WEIGHT_DELTA = 4000;

export interface SelectedTransaction {
  readonly tx: Transaction;
  /** Base fee (the template's fee); selection weighs the modified fee. */
  readonly fee: bigint;
  readonly sigopsCost: number;
}

export interface BlockSelection {
  readonly transactions: SelectedTransaction[];
  /** Block weight counted while selecting, the reserved weight included (getmininginfo's currentblockweight). */
  readonly weight: number;
}

/** The pool as a graph for linearization. */
export function poolGraph(entries: Iterable<MempoolEntry>): Map<string, GraphTx> {
  const graph = new Map<string, GraphTx>();
  for (const e of entries) {
    graph.set(e.txid, { id: e.txid, fee: e.modifiedFee, weight: e.adjustedWeight, parents: [...e.parents].map((p) => p.txid) });
  }
  return graph;
}

/** -blockmaxweight and -blockreservedweight after Core's ClampOptions. */
export interface BlockWeightLimits {
  readonly maxWeight: number;
  readonly reservedWeight: number;
}

export const DEFAULT_BLOCK_WEIGHT_LIMITS: BlockWeightLimits = { maxWeight: MAX_BLOCK_WEIGHT, reservedWeight: RESERVED_WEIGHT };

export function selectForBlock(pool: TxMempool, blockMinTxFee: bigint, limits: BlockWeightLimits = DEFAULT_BLOCK_WEIGHT_LIMITS): BlockSelection {
  const graph = poolGraph(pool.entries());
  const clusterIds = clustersOf(graph);
  const clusterOf = new Map<string, number>();
  clusterIds.forEach((ids, i) => ids.forEach((id) => clusterOf.set(id, i)));
  const skipped = new Set<number>();
  let weight = limits.reservedWeight;
  let sigops = COINBASE_SIGOPS_RESERVE;
  let consecutiveFailures = 0;
  const transactions: SelectedTransaction[] = [];
  for (const chunk of miningOrder(chunkGraph(graph))) {
    const cluster = clusterOf.get(chunk.ids[0]!)!;
    if (skipped.has(cluster)) continue;
    // Core's ToFeePerVSize: the chunk's (sigop-adjusted) weight in virtual bytes, rounded up.
    if (chunk.fee * 1000n < blockMinTxFee * BigInt(Math.ceil(chunk.weight / 4))) break;
    const members = chunk.ids.map((id) => pool.get(id)!);
    const chunkSigops = members.reduce((sum, e) => sum + e.sigOpCost, 0);
    if (weight + chunk.weight >= limits.maxWeight || sigops + chunkSigops >= MAX_BLOCK_SIGOPS_COST) {
      skipped.add(cluster);
      if (++consecutiveFailures > MAX_CONSECUTIVE_FAILURES && weight + BLOCK_FULL_ENOUGH_WEIGHT_DELTA > limits.maxWeight) break;
      continue;
    }
    consecutiveFailures = 0;
    for (const e of members) {
      weight += e.tx.weight;
      sigops += e.sigOpCost;
      transactions.push({ tx: e.tx, fee: e.fee, sigopsCost: e.sigOpCost });
    }
  }
  return { transactions, weight };
}
