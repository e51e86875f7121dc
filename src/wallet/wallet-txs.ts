/**
 * A wallet's transactions as Core's CWallet keeps them in memory: mapWallet (by txid),
 * wtxOrdered (by order position), mapTxSpends (which wallet transactions spend an outpoint)
 * and the state of each (confirmed, in the mempool, inactive or abandoned, conflicted by a
 * block). Depth, spentness, trust and conflicts are Core's definitions over these maps
 * (GetTxDepthInMainChain, IsSpent, CachedTxIsTrusted, GetTxConflicts, RecursiveUpdateTxState).
 * Pure: the wallet decides what to write.
 */
import { hashToHex, type Transaction } from '../primitives/index.js';
import type { WalletTxState } from './wallet-tx-record.js';

/** Core's COINBASE_MATURITY. */
export const COINBASE_MATURITY = 100;

export interface WalletTx {
  readonly tx: Transaction;
  readonly txid: string;
  state: WalletTxState;
  /** nTimeReceived: when this node first saw it. */
  timeReceived: number;
  /** nTimeSmart: the time listtransactions shows (0: unset). */
  timeSmart: number;
  readonly orderPos: number;
  /** mapValue without the serialization's own keys (comment, to, replaces_txid, replaced_by_txid…). */
  readonly mapValue: Map<string, string>;
  readonly orderForm: readonly (readonly [string, string])[];
  readonly timeReceivedIsTxTime: number;
  readonly fromMe: boolean;
  /** Core's mempool_conflicts: pool transactions spending one of its inputs (not persisted). */
  readonly mempoolConflicts: Set<string>;
}

const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

export class WalletTxStore {
  readonly #txs = new Map<string, WalletTx>();
  /** Order position → txid (Core's wtxOrdered). */
  readonly #ordered = new Map<number, string>();
  /** outpoint → txids of wallet transactions spending it (Core's mapTxSpends). */
  readonly #spends = new Map<string, Set<string>>();
  /** The height of the block the wallet last processed (Core's m_last_block_processed_height). */
  tipHeight = -1;

  get size(): number {
    return this.#txs.size;
  }

  get(txid: string): WalletTx | undefined {
    return this.#txs.get(txid);
  }

  has(txid: string): boolean {
    return this.#txs.has(txid);
  }

  all(): IterableIterator<WalletTx> {
    return this.#txs.values();
  }

  /** Oldest first, by order position (Core's wtxOrdered). */
  ordered(): WalletTx[] {
    return [...this.#ordered.entries()].sort((a, b) => a[0] - b[0]).map(([, txid]) => this.#txs.get(txid)!);
  }

  /** Core's AddToSpends over a new transaction's inputs. */
  add(wtx: WalletTx): void {
    this.#txs.set(wtx.txid, wtx);
    if (wtx.orderPos >= 0) this.#ordered.set(wtx.orderPos, wtx.txid);
    if (wtx.tx.isCoinbase()) return;
    for (const input of wtx.tx.inputs) {
      const key = outpointKey(hashToHex(input.prevout.txid), input.prevout.vout);
      let spenders = this.#spends.get(key);
      if (!spenders) this.#spends.set(key, (spenders = new Set()));
      spenders.add(wtx.txid);
    }
  }

  /** Core's RemoveTxs for one transaction: gone from every map. */
  remove(txid: string): void {
    const wtx = this.#txs.get(txid);
    if (!wtx) return;
    this.#txs.delete(txid);
    if (wtx.orderPos >= 0) this.#ordered.delete(wtx.orderPos);
    if (wtx.tx.isCoinbase()) return;
    for (const input of wtx.tx.inputs) {
      const key = outpointKey(hashToHex(input.prevout.txid), input.prevout.vout);
      const spenders = this.#spends.get(key);
      spenders?.delete(txid);
      if (spenders?.size === 0) this.#spends.delete(key);
    }
  }

  spenders(txid: string, vout: number): ReadonlySet<string> {
    return this.#spends.get(outpointKey(txid, vout)) ?? new Set();
  }

  /** Core's GetTxDepthInMainChain. */
  depth(wtx: WalletTx): number {
    switch (wtx.state.kind) {
      case 'confirmed':
        return this.tipHeight - wtx.state.blockHeight + 1;
      case 'conflicted':
        return -(this.tipHeight - wtx.state.conflictingBlockHeight + 1);
      default:
        return 0;
    }
  }

  isAbandoned(wtx: WalletTx): boolean {
    return wtx.state.kind === 'inactive' && wtx.state.abandoned;
  }

  /** Core's GetBlocksToMaturity. */
  blocksToMaturity(wtx: WalletTx): number {
    if (!wtx.tx.isCoinbase()) return 0;
    return Math.max(0, COINBASE_MATURITY + 1 - this.depth(wtx));
  }

  /** Core's IsTxImmatureCoinBase. */
  isImmatureCoinbase(wtx: WalletTx): boolean {
    return this.blocksToMaturity(wtx) > 0;
  }

  /** Core's IsSpent: a spender that is neither abandoned nor conflicted (by a block or in the pool). */
  isSpent(txid: string, vout: number): boolean {
    for (const spender of this.spenders(txid, vout)) {
      const wtx = this.#txs.get(spender);
      if (!wtx || this.isAbandoned(wtx) || wtx.state.kind === 'conflicted' || wtx.mempoolConflicts.size > 0) continue;
      return true;
    }
    return false;
  }

  /** Core's GetTxConflicts: other wallet transactions spending one of its inputs. */
  conflicts(wtx: WalletTx): string[] {
    const out = new Set<string>();
    if (wtx.tx.isCoinbase()) return [];
    for (const input of wtx.tx.inputs) {
      for (const spender of this.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) if (spender !== wtx.txid) out.add(spender);
    }
    return [...out].sort();
  }

  /**
   * Core's CachedTxIsTrusted: confirmed; or, unconfirmed, from us, in the mempool and
   * spending only our own outputs of trusted transactions.
   */
  isTrusted(wtx: WalletTx, isMine: (script: Uint8Array) => boolean, isFromMe: (wtx: WalletTx) => boolean, spendZeroConfChange = true, trustedParents = new Set<string>()): boolean {
    if (wtx.state.kind === 'confirmed') return true;
    if (wtx.state.kind === 'conflicted') return false;
    if (!spendZeroConfChange || !isFromMe(wtx)) return false;
    if (wtx.state.kind !== 'mempool') return false;
    for (const input of wtx.tx.inputs) {
      const parent = this.#txs.get(hashToHex(input.prevout.txid));
      if (!parent) return false;
      const out = parent.tx.outputs[input.prevout.vout];
      if (!out || !isMine(out.scriptPubKey)) return false;
      if (trustedParents.has(parent.txid)) continue;
      if (!this.isTrusted(parent, isMine, isFromMe, spendZeroConfChange, trustedParents)) return false;
      trustedParents.add(parent.txid);
    }
    return true;
  }

  /**
   * Core's RecursiveUpdateTxState: `update` applied to the transaction and to every wallet
   * transaction spending its outputs, transitively; returns those it changed.
   */
  recursiveUpdate(txid: string, update: (wtx: WalletTx) => boolean): WalletTx[] {
    const changed: WalletTx[] = [];
    const todo = [txid];
    const done = new Set<string>();
    while (todo.length > 0) {
      const now = todo.shift()!;
      done.add(now);
      const wtx = this.#txs.get(now);
      if (!wtx) continue;
      if (!update(wtx)) continue;
      changed.push(wtx);
      for (let vout = 0; vout < wtx.tx.outputs.length; vout++) {
        for (const spender of this.spenders(now, vout)) if (!done.has(spender)) todo.push(spender);
      }
    }
    return changed;
  }
}
