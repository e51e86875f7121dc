/**
 * Which pool transactions a new block carries (Core v31's BlockAssembler over the
 * cluster mempool): chunks in decreasing feerate order, each taken whole if it fits the
 * remaining weight and sigop budget, a chunk that does not fit skipping the rest of its
 * cluster; selection stops at chunks below -blockmintxfee.
 */
import { MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT } from '../consensus/index.js';
import type { Transaction } from '../primitives/index.js';
import type { MempoolEntry } from './entry.js';
import { chunkGraph, clustersOf, miningOrder, type GraphTx } from './linearize.js';
import type { TxMempool } from './pool.js';

/** Core's DEFAULT_BLOCK_RESERVED_WEIGHT and the sigops it keeps for the coinbase. */
const RESERVED_WEIGHT = 8000;
const COINBASE_SIGOPS_RESERVE = 400;

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
    graph.set(e.txid, { id: e.txid, fee: e.modifiedFee, weight: e.adjustedWeight, parents: [...e.parents].map((p) => p.txid), order: e.sequence });
  }
  return graph;
}

export function selectForBlock(pool: TxMempool, blockMinTxFee: bigint): BlockSelection {
  const graph = poolGraph(pool.entries());
  const clusterIds = clustersOf(graph);
  const clusterOf = new Map<string, number>();
  clusterIds.forEach((ids, i) => ids.forEach((id) => clusterOf.set(id, i)));
  const skipped = new Set<number>();
  let weight = RESERVED_WEIGHT;
  let sigops = COINBASE_SIGOPS_RESERVE;
  const transactions: SelectedTransaction[] = [];
  for (const chunk of miningOrder(chunkGraph(graph))) {
    // Below -blockmintxfee (sat/kvB of virtual size = weight / 4): nothing after it pays more.
    if (chunk.fee * 4000n < blockMinTxFee * BigInt(chunk.weight)) break;
    const cluster = clusterOf.get(chunk.ids[0]!)!;
    if (skipped.has(cluster)) continue;
    const members = chunk.ids.map((id) => pool.get(id)!);
    const chunkWeight = members.reduce((sum, e) => sum + e.tx.weight, 0);
    const chunkSigops = members.reduce((sum, e) => sum + e.sigOpCost, 0);
    if (weight + chunkWeight >= MAX_BLOCK_WEIGHT || sigops + chunkSigops >= MAX_BLOCK_SIGOPS_COST) {
      skipped.add(cluster);
      continue;
    }
    weight += chunkWeight;
    sigops += chunkSigops;
    for (const e of members) transactions.push({ tx: e.tx, fee: e.fee, sigopsCost: e.sigOpCost });
  }
  return { transactions, weight };
}
