/**
 * -txospenderindex (Core v31's TxoSpenderIndex): for every output the active chain spends,
 * where the spending transaction is in the block files, so gettxspendingprevout can name a
 * confirmed spender and its block. BaseIndex catches it up and follows the chain; a rewind
 * removes the spends of the blocks it leaves (Core's CustomRemove), so a spend in a stale
 * block is not reported. It reads blocks, so it keeps no prune lock and -prune refuses it.
 */
import type { ParsedBlock } from '../primitives/index.js';
import { INDEXES_META, type IndexesEnv, type IndexesWriter, type TxIndexEntry } from '../storage/index.js';
import { BaseIndex, openIndex } from './base-index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';
import { transactionPosition } from './txindex.js';

/** Core's index name, as getindexinfo, logs and init errors show it. */
export const TXOSPENDER_INDEX_NAME = 'txospenderindex';

export class TxoSpenderIndex extends BaseIndex<undefined> {
  private constructor(env: IndexesEnv, chain: Chainstate, log: (m: string) => void, logError: (m: string) => void) {
    super(env, chain, { name: TXOSPENDER_INDEX_NAME, bestBlockField: INDEXES_META.txoSpenderBest, syncBatch: 200, log, logError });
    this.loadBest();
  }

  /** Opens the index in `<netdir>/indexes`; `wipe` (-reindex) starts it over. */
  static open(netdir: string, chain: Chainstate, log: (m: string) => void, options: { wipe?: boolean; logError?: (m: string) => void } = {}): TxoSpenderIndex {
    const clear = (w: IndexesWriter) => {
      w.clear('txospender');
      w.deleteMeta(INDEXES_META.txoSpenderBest);
    };
    return openIndex(netdir, options.wipe, clear, (env) => new TxoSpenderIndex(env, chain, log, options.logError ?? log));
  }

  /** Where the transaction spending the output is, if the indexed chain spends it. */
  spender(txid: Uint8Array, vout: number): TxIndexEntry | undefined {
    return this.env.withSnapshot((r) => r.txoSpender(txid, vout));
  }

  protected override tipStateAt(): undefined {
    return undefined;
  }

  protected override appendBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry): undefined {
    block.transactions.forEach((tx, i) => {
      if (i === 0) return;
      const position = transactionPosition(block, entry, i);
      for (const input of tx.inputs) w.putTxoSpender(input.prevout.txid, input.prevout.vout, position);
    });
    return undefined;
  }

  protected override removeBlock(w: IndexesWriter, block: ParsedBlock): void {
    for (const tx of block.transactions.slice(1)) for (const input of tx.inputs) w.deleteTxoSpender(input.prevout.txid, input.prevout.vout);
  }
}
