/**
 * -addressindex (beyond Core; what electrs and Esplora keep beside bitcoind): for every
 * script, its confirmed history (the transactions that fund or spend it, with how much),
 * its unspent outputs, and for every spent output the input that spent it. BaseIndex
 * builds it in the background and follows the chain; unlike Core's indexes it describes
 * the active chain only, so rewinding past a block takes the block's entries out again
 * and restores the outputs it spent from its undo data (removeBlock), in the same write
 * that moves the marker. Outputs whose script can never be spent (OP_RETURN and
 * oversized scripts) are not indexed, as they never enter the UTXO set; electrs leaves
 * them out by default too.
 */
import type { Coin } from '../consensus/index.js';
import { hashToHex, type ParsedBlock, type Transaction } from '../primitives/index.js';
import { isUnspendable } from '../script/index.js';
import { INDEXES_META, scriptHashOf, type BlockUndo, type IndexesEnv, type IndexesWriter } from '../storage/index.js';
import { addressIndexView, type AddressIndexView } from './address-index-view.js';
import { BaseIndex, openIndex } from './base-index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';

/** The index's name in logs, init errors and getindexinfo. */
export const ADDRESS_INDEX_NAME = 'addressindex';

/** One transaction's effect on one script. */
interface ScriptActivity {
  scriptHash: Uint8Array;
  fundedCount: number;
  spentCount: number;
  fundedSum: bigint;
  spentSum: bigint;
}

/** What a transaction does to each script it touches, keyed by script hash hex. */
class TxActivity {
  readonly byScript = new Map<string, ScriptActivity>();

  private of(scriptHash: Uint8Array): ScriptActivity {
    const id = hashToHex(scriptHash);
    let activity = this.byScript.get(id);
    if (!activity) {
      activity = { scriptHash, fundedCount: 0, spentCount: 0, fundedSum: 0n, spentSum: 0n };
      this.byScript.set(id, activity);
    }
    return activity;
  }

  funded(scriptHash: Uint8Array, value: bigint): void {
    const activity = this.of(scriptHash);
    activity.fundedCount++;
    activity.fundedSum += value;
  }

  spent(scriptHash: Uint8Array, value: bigint): void {
    const activity = this.of(scriptHash);
    activity.spentCount++;
    activity.spentSum += value;
  }
}

function spentCoinsOf(undo: BlockUndo | undefined, txPos: number, tx: Transaction, entry: BlockIndexEntry): readonly Coin[] {
  if (txPos === 0) return [];
  const coins = undo?.[txPos - 1];
  if (!coins || coins.length !== tx.inputs.length) throw new Error(`undo data of block ${entry.hashHex} lacks transaction ${tx.txidHex}`);
  return coins;
}

export class AddressIndex extends BaseIndex<undefined> {
  readonly view: AddressIndexView;

  private constructor(env: IndexesEnv, chain: Chainstate, log: (m: string) => void, logError: (m: string) => void) {
    super(env, chain, { name: ADDRESS_INDEX_NAME, bestBlockField: INDEXES_META.addressIndexBest, syncBatch: 100, initialDownloadDelayMs: 2000, log, logError });
    this.view = addressIndexView(env, (r) => r.meta(INDEXES_META.addressIndexBest), () => this.info());
    this.loadBest();
  }

  /** Opens the index in `<netdir>/indexes`; `wipe` (-reindex) starts it over. */
  static open(netdir: string, chain: Chainstate, log: (m: string) => void, options: { wipe?: boolean; logError?: (m: string) => void } = {}): AddressIndex {
    const clear = (w: IndexesWriter) => {
      w.clear('addr.history');
      w.clear('addr.utxo');
      w.clear('addr.spender');
      w.deleteMeta(INDEXES_META.addressIndexBest);
    };
    return openIndex(netdir, options.wipe, clear, (env) => new AddressIndex(env, chain, log, options.logError ?? log));
  }

  protected override tipStateAt(): undefined {
    return undefined;
  }

  private undoOf(entry: BlockIndexEntry): BlockUndo | undefined {
    if (entry.height === 0) return undefined;
    const undo = this.chain.readUndo(entry);
    if (!undo) throw new Error(`no undo data for block ${entry.hashHex}`);
    return undo;
  }

  protected override appendBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry): undefined {
    const undo = this.undoOf(entry);
    const height = entry.height;
    block.transactions.forEach((tx, txPos) => {
      const activity = new TxActivity();
      tx.outputs.forEach((output, vout) => {
        if (isUnspendable(output.scriptPubKey)) return;
        const scriptHash = scriptHashOf(output.scriptPubKey);
        w.putAddressUtxo(scriptHash, { txid: tx.txid, vout, height, value: output.value });
        activity.funded(scriptHash, output.value);
      });
      spentCoinsOf(undo, txPos, tx, entry).forEach((coin, vin) => {
        const prevout = tx.inputs[vin]!.prevout;
        const scriptHash = scriptHashOf(coin.output.scriptPubKey);
        w.deleteAddressUtxo(scriptHash, prevout.txid, prevout.vout);
        w.putSpender(prevout.txid, prevout.vout, { txid: tx.txid, vin, height });
        activity.spent(scriptHash, coin.output.value);
      });
      for (const a of activity.byScript.values()) {
        w.putAddressHistory(a.scriptHash, { height, txPos, txid: tx.txid, fundedCount: a.fundedCount, spentCount: a.spentCount, fundedSum: a.fundedSum, spentSum: a.spentSum });
      }
    });
    return undefined;
  }

  protected override removeBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry): void {
    const undo = this.undoOf(entry);
    const height = entry.height;
    // Newest transaction first: an output created and spent in the block ends up absent.
    for (let txPos = block.transactions.length - 1; txPos >= 0; txPos--) {
      const tx = block.transactions[txPos]!;
      const touched = new Map<string, Uint8Array>();
      tx.outputs.forEach((output, vout) => {
        if (isUnspendable(output.scriptPubKey)) return;
        const scriptHash = scriptHashOf(output.scriptPubKey);
        w.deleteAddressUtxo(scriptHash, tx.txid, vout);
        touched.set(hashToHex(scriptHash), scriptHash);
      });
      spentCoinsOf(undo, txPos, tx, entry).forEach((coin, vin) => {
        const prevout = tx.inputs[vin]!.prevout;
        const scriptHash = scriptHashOf(coin.output.scriptPubKey);
        w.putAddressUtxo(scriptHash, { txid: prevout.txid, vout: prevout.vout, height: coin.height, value: coin.output.value });
        w.deleteSpender(prevout.txid, prevout.vout);
        touched.set(hashToHex(scriptHash), scriptHash);
      });
      for (const scriptHash of touched.values()) w.deleteAddressHistory(scriptHash, height, txPos);
    }
  }
}
