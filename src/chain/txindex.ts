/**
 * -txindex: txid → where the transaction's bytes are (blk file, block position, offset
 * and length within the block), in the indexes environment. BaseIndex catches it up,
 * follows connected blocks and rewinds it to the fork after a reorg; this file is only
 * its table writes (Core's TxIndex::CustomAppend). Entries of disconnected blocks stay, as
 * in Core (no CustomRemove): the block data is still on disk and the lookup names the
 * block; the new branch's blocks overwrite the entries of transactions they carry too.
 */
import type { ParsedBlock } from '../primitives/index.js';
import { INDEXES_META, type IndexesEnv, type IndexesWriter, type TxIndexEntry } from '../storage/index.js';
import { BaseIndex, openIndex } from './base-index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';

/** Core's index name (BaseIndex::GetName), as getindexinfo, logs and init errors show it. */
const TXINDEX_NAME = 'txindex';

export class TxIndex extends BaseIndex<undefined> {
  private constructor(env: IndexesEnv, chain: Chainstate, log: (m: string) => void, logError: (m: string) => void) {
    super(env, chain, { name: TXINDEX_NAME, bestBlockField: INDEXES_META.txindexBest, syncBatch: 200, log, logError });
    this.loadBest();
  }

  /**
   * Opens the index in `<netdir>/indexes`; `wipe` (-reindex, Core's f_wipe) starts it over;
   * failures while indexing go to `logError` (default `log`).
   */
  static open(netdir: string, chain: Chainstate, log: (m: string) => void, options: { wipe?: boolean; logError?: (m: string) => void } = {}): TxIndex {
    const clear = (w: IndexesWriter) => {
      w.clear('txindex');
      w.deleteMeta(INDEXES_META.txindexBest);
    };
    return openIndex(netdir, options.wipe, clear, (env) => new TxIndex(env, chain, log, options.logError ?? log));
  }

  /** The position of a confirmed transaction, if indexed. */
  lookup(txid: Uint8Array): TxIndexEntry | undefined {
    return this.env.withSnapshot((r) => r.txIndexEntry(txid));
  }

  /** The txindex carries nothing from block to block. */
  protected override tipStateAt(): undefined {
    return undefined;
  }

  protected override appendBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry): undefined {
    // Core leaves the genesis block out: its coinbase's outputs are not spendable (REST tx answers 404 for it).
    if (entry.height === 0) return undefined;
    block.transactions.forEach((tx, i) => w.putTxIndexEntry(tx.txid, transactionPosition(block, entry, i)));
    return undefined;
  }
}

/** Where the block's i-th transaction's bytes are in the block files (Core's CDiskTxPos). */
export function transactionPosition(block: ParsedBlock, entry: BlockIndexEntry, i: number): TxIndexEntry {
  const data = entry.data;
  if (!data) throw new Error(`block ${entry.hashHex} has no data`);
  const offset = block.txOffsets[i]!;
  const end = i + 1 < block.txOffsets.length ? block.txOffsets[i + 1]! : block.size;
  return { file: data.file, pos: data.pos, offset, length: end - offset };
}
