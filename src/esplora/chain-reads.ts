/**
 * What the Esplora API reads for one request, from one chain snapshot (and the address
 * index's snapshot): transactions from the mempool table or the txindex, their
 * confirmation in the active chain only (Esplora's "best chain"), the outputs they spend,
 * and who spent an output. Parsed transactions are kept for the request, as a page of
 * history often spends outputs of its own transactions.
 */
import type { SnapshotChainView, ViewEntry } from '../chain/index.js';
import { hashToHex, parseTransaction, type OutPoint, type Transaction, type TxOut } from '../primitives/index.js';
import { scriptHashOf, type MempoolEntryRecord } from '../storage/index.js';

/** A transaction found for a request, with where it is. */
export interface FoundTx {
  readonly tx: Transaction;
  /** The raw bytes (with witness). */
  readonly bytes: Uint8Array;
  /** The active-chain block that confirms it; undefined while pooled. */
  readonly block?: ViewEntry;
  /** The pool's record of it, when pooled. */
  readonly pooled?: MempoolEntryRecord;
}

/** The input that spent an output, and the block confirming it (undefined: a pooled spend). */
export interface Spend {
  readonly txid: Uint8Array;
  readonly vin: number;
  readonly block?: ViewEntry;
}

export class ChainReads {
  private readonly txs = new Map<string, FoundTx | null>();
  /** Active blocks by height: a script's outputs and history rows often share blocks. */
  private readonly blocks = new Map<number, ViewEntry | undefined>();

  constructor(readonly snapshot: SnapshotChainView) {}

  /** Pooled first, then confirmed in the active chain (a txindex entry of a stale block is no confirmation). */
  findTx(txid: Uint8Array): FoundTx | undefined {
    const key = hashToHex(txid);
    const known = this.txs.get(key);
    if (known !== undefined) return known ?? undefined;
    const found = this.lookUp(txid);
    this.txs.set(key, found ?? null);
    return found;
  }

  private lookUp(txid: Uint8Array): FoundTx | undefined {
    const snapshot = this.snapshot;
    const pooled = snapshot.reader.mempoolEntry(txid);
    if (pooled) return { tx: parseTransaction(pooled.tx), bytes: pooled.tx, pooled };
    const position = snapshot.txindex?.lookup(txid);
    if (!position) return undefined;
    const block = snapshot.entry(snapshot.readBlockHeaderAt(position).hash);
    if (!block || !snapshot.isActive(block)) return undefined;
    const bytes = snapshot.readTxBytes(position);
    return { tx: parseTransaction(bytes), bytes, block };
  }

  /** Remembers transactions read some other way (a block's), so prevout lookups reuse them. */
  remember(found: FoundTx): void {
    this.txs.set(found.tx.txidHex, found);
  }

  /** The output an input spends: of a pooled or indexed transaction, else from the UTXO set. */
  prevout(outpoint: OutPoint): TxOut | undefined {
    const found = this.findTx(outpoint.txid);
    if (found) return found.tx.outputs[outpoint.vout];
    // Without -txindex a confirmed parent is still in the UTXO set while a pooled child spends it.
    return this.snapshot.coin(outpoint)?.output;
  }

  /** The outputs a transaction's inputs spend, in input order (none for a coinbase). */
  prevouts(tx: Transaction): (TxOut | undefined)[] {
    if (tx.isCoinbase()) return tx.inputs.map(() => undefined);
    return tx.inputs.map((input) => this.prevout(input.prevout));
  }

  /** The block at an active-chain height. */
  activeBlock(height: number): ViewEntry | undefined {
    if (this.blocks.has(height)) return this.blocks.get(height);
    const entry = this.snapshot.activeEntry(height);
    this.blocks.set(height, entry);
    return entry;
  }

  /** Txids of pooled transactions funding or spending a script, oldest entry first. */
  mempoolTxidsFor(scriptHash: Uint8Array): Uint8Array[] {
    const reader = this.snapshot.reader;
    const found: { txid: Uint8Array; sequence: number; time: number }[] = [];
    for (const txid of reader.mempoolAddressTxids(scriptHash)) {
      const entry = reader.mempoolEntry(txid);
      if (entry) found.push({ txid, sequence: entry.sequence, time: entry.time });
    }
    return found.sort((a, b) => a.time - b.time || a.sequence - b.sequence).map((f) => f.txid);
  }

  /** The pooled input spending an output whose script is `scriptPubKey`, if any. */
  mempoolSpend(outpoint: OutPoint, scriptPubKey: Uint8Array): Spend | undefined {
    const txidHex = hashToHex(outpoint.txid);
    for (const txid of this.snapshot.reader.mempoolAddressTxids(scriptHashOf(scriptPubKey))) {
      const found = this.findTx(txid);
      if (!found?.pooled) continue;
      const vin = found.tx.inputs.findIndex((input) => input.prevout.vout === outpoint.vout && hashToHex(input.prevout.txid) === txidHex);
      if (vin >= 0) return { txid, vin };
    }
    return undefined;
  }

  /** The confirmed spend (address index) or else the pooled one, of an output. */
  spendOf(outpoint: OutPoint, scriptPubKey: Uint8Array): Spend | undefined {
    const confirmed = this.snapshot.addressIndex?.read((r) => r.spender(outpoint.txid, outpoint.vout));
    if (confirmed) {
      const block = this.activeBlock(confirmed.height);
      if (block) return { txid: confirmed.txid, vin: confirmed.vin, block };
    }
    return this.mempoolSpend(outpoint, scriptPubKey);
  }
}
