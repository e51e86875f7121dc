/**
 * Core's MiniMiner (node/mini_miner.cpp): what it costs to bring unconfirmed outputs' mempool
 * ancestry up to a target fee rate. The clusters of the transactions creating the outpoints
 * are copied out of the pool (without the transactions the outpoints' spenders would replace,
 * and their descendants), then a block is built from them by ancestor-set fee rate (the
 * lower of a transaction's own and its ancestor set's) until the best remaining set pays less
 * than the target. What made it in needs no bump; what did not must pay the difference. The
 * wallet's coin selection charges these bump fees to unconfirmed coins.
 */
import type { OutPoint } from '../primitives/index.js';
import { compareBytes, hashToHex } from '../primitives/index.js';
import { outpointId, type MempoolEntry } from './entry.js';
import { feeForSize } from './fee-rate.js';
import type { TxMempool } from './pool.js';

/** Core's GatherClusters limit: more transactions than this and nothing is calculated. */
const MAX_CLUSTER_TRANSACTIONS = 500;

interface MockEntry {
  readonly entry: MempoolEntry;
  ancestorSize: number;
  ancestorFee: bigint;
}

/** FeeFrac's order: by fee rate, and at equal rates the smaller size first (higher). */
function compareFeeFrac(feeA: bigint, sizeA: number, feeB: bigint, sizeB: number): number {
  const crossA = feeA * BigInt(sizeB);
  const crossB = feeB * BigInt(sizeA);
  if (crossA === crossB) return sizeB - sizeA;
  return crossA < crossB ? -1 : 1;
}

/** The lower of a mock entry's own and ancestor-set fee rates, as (fee, size). */
function minerScore(e: MockEntry): [bigint, number] {
  const own: [bigint, number] = [e.entry.modifiedFee, e.entry.vsize];
  const ancestors: [bigint, number] = [e.ancestorFee, e.ancestorSize];
  return compareFeeFrac(ancestors[0], ancestors[1], own[0], own[1]) < 0 ? ancestors : own;
}

/** The bump fee maps' key: the pool's outpoint key ("txid:vout"). */
const outpointKey = (o: OutPoint): string => outpointId(hashToHex(o.txid), o.vout);

export class MiniMiner {
  readonly #entries = new Map<string, MockEntry>();
  readonly #descendants = new Map<string, string[]>();
  /** Requested outpoints by the txid creating them (only pool transactions not replaced). */
  readonly #requested = new Map<string, OutPoint[]>();
  readonly #bumpFees = new Map<string, bigint>();
  readonly #inBlock = new Set<string>();
  #ready = true;

  constructor(pool: TxMempool, outpoints: readonly OutPoint[]) {
    const toBeReplaced = new Set<string>();
    for (const outpoint of outpoints) {
      const txid = hashToHex(outpoint.txid);
      if (!pool.get(txid)) {
        // Confirmed, or not in the pool: nothing to know, no bump.
        this.#bumpFees.set(outpointKey(outpoint), 0n);
        continue;
      }
      const list = this.#requested.get(txid) ?? [];
      list.push(outpoint);
      this.#requested.set(txid, list);
      // Spent in the pool already: the caller means to replace that spender and its descendants.
      const spender = pool.spenderOf(outpoint);
      if (spender) for (const d of pool.descendants(spender)) toBeReplaced.add(d.txid);
    }
    if (this.#requested.size === 0) return;
    const cluster = new Set<MempoolEntry>();
    for (const txid of this.#requested.keys()) for (const e of pool.cluster(pool.get(txid)!)) cluster.add(e);
    if (cluster.size > MAX_CLUSTER_TRANSACTIONS) {
      this.#ready = false;
      return;
    }
    for (const e of cluster) {
      if (toBeReplaced.has(e.txid)) {
        // An output of a transaction to be replaced will not exist: no bump for it.
        const requested = this.#requested.get(e.txid);
        if (requested) {
          for (const o of requested) this.#bumpFees.set(outpointKey(o), 0n);
          this.#requested.delete(e.txid);
        }
        continue;
      }
      const ancestors = pool.ancestors(e);
      this.#entries.set(e.txid, {
        entry: e,
        ancestorSize: ancestors.reduce((s, a) => s + a.vsize, 0),
        ancestorFee: ancestors.reduce((s, a) => s + a.modifiedFee, 0n),
      });
    }
    for (const e of cluster) {
      if (toBeReplaced.has(e.txid)) continue;
      this.#descendants.set(
        e.txid,
        pool.descendants(e).filter((d) => !toBeReplaced.has(d.txid)).map((d) => d.txid),
      );
    }
  }

  /** The remaining entries `txids` descend from, themselves included. */
  #ancestorsOf(txids: readonly string[]): Set<string> {
    const ancestors = new Set<string>();
    const todo = [...txids];
    while (todo.length > 0) {
      const txid = todo.pop()!;
      if (ancestors.has(txid)) continue;
      ancestors.add(txid);
      for (const input of this.#entries.get(txid)!.entry.tx.inputs) {
        const parent = hashToHex(input.prevout.txid);
        if (this.#entries.has(parent) && !ancestors.has(parent)) todo.push(parent);
      }
    }
    return ancestors;
  }

  /** BuildMockTemplate: ancestor sets "mined" best first while they pay the target. */
  #buildMockTemplate(targetRate: bigint): void {
    while (this.#entries.size > 0) {
      let best: [string, MockEntry] | undefined;
      for (const candidate of this.#entries) {
        if (!best) {
          best = candidate;
          continue;
        }
        const [fa, sa] = minerScore(candidate[1]);
        const [fb, sb] = minerScore(best[1]);
        const order = compareFeeFrac(fa, sa, fb, sb);
        // Ties go to the lower txid, compared as Core compares uint256 (its stored byte order).
        if (order > 0 || (order === 0 && compareBytes(candidate[1].entry.tx.txid, best[1].entry.tx.txid) < 0)) best = candidate;
      }
      const [, top] = best!;
      if (top.ancestorFee < feeForSize(targetRate, top.ancestorSize)) break;
      const ancestors = this.#ancestorsOf([best![0]]);
      for (const txid of ancestors) {
        const mined = this.#entries.get(txid)!;
        this.#inBlock.add(txid);
        for (const d of this.#descendants.get(txid) ?? []) {
          const descendant = this.#entries.get(d);
          if (!descendant) continue;
          descendant.ancestorSize -= mined.entry.vsize;
          descendant.ancestorFee -= mined.entry.modifiedFee;
        }
      }
      for (const txid of ancestors) {
        this.#entries.delete(txid);
        this.#descendants.delete(txid);
      }
    }
    this.#ready = false;
  }

  /**
   * CalculateBumpFees: each outpoint's bump fee (by "txid:vout"), the larger of what its
   * transaction needs alone and with its remaining ancestors; empty when it cannot be
   * calculated (a cluster too large).
   */
  calculateBumpFees(targetRate: bigint): Map<string, bigint> {
    if (!this.#ready) return new Map();
    this.#buildMockTemplate(targetRate);
    for (const txid of this.#inBlock) {
      const requested = this.#requested.get(txid);
      if (!requested) continue;
      for (const o of requested) this.#bumpFees.set(outpointKey(o), 0n);
      this.#requested.delete(txid);
    }
    for (const [txid, requested] of this.#requested) {
      const e = this.#entries.get(txid);
      if (!e) continue;
      const withAncestors = feeForSize(targetRate, e.ancestorSize) - e.ancestorFee;
      const individual = feeForSize(targetRate, e.entry.vsize) - e.entry.modifiedFee;
      const bump = withAncestors > individual ? withAncestors : individual;
      for (const o of requested) this.#bumpFees.set(outpointKey(o), bump);
    }
    return this.#bumpFees;
  }

  /** CalculateTotalBumpFees: what bumping the outpoints' remaining ancestry together costs (shared ancestors once); null when it cannot be calculated. */
  calculateTotalBumpFees(targetRate: bigint): bigint | null {
    if (!this.#ready) return null;
    this.#buildMockTemplate(targetRate);
    // Every remaining ancestor of the requested transactions, each once.
    const ancestors = this.#ancestorsOf([...this.#requested.keys()].filter((txid) => !this.#inBlock.has(txid) && this.#entries.has(txid)));
    let size = 0;
    let fee = 0n;
    for (const txid of ancestors) {
      const e = this.#entries.get(txid)!;
      size += e.entry.vsize;
      fee += e.entry.modifiedFee;
    }
    return feeForSize(targetRate, size) - fee;
  }
}
