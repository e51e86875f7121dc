/**
 * -blockfilterindex: the BIP158 basic filter of every active-chain block, its filter hash
 * and its filter header, in the indexes environment (Core's "basic block filter index").
 * BaseIndex catches it up, follows connected blocks (during initial block download in
 * batches shortly after they connect) and rewinds it to the fork after a reorg, so the
 * header chain always follows the active chain; this file is the filter and header writes
 * (Core's CustomAppend) and the header chain's starting point (CustomInit). Entries of
 * disconnected blocks stay, keyed by hash, as Core keeps them in its hash index. -reindex
 * wipes the index (Core's f_wipe).
 */
import type { ParsedBlock } from '../primitives/index.js';
import { INDEXES_META, type IndexesEnv, type IndexesWriter } from '../storage/index.js';
import { BaseIndex, openIndex } from './base-index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { BlockUndo } from './block-undo.js';
import { basicBlockFilter, blockFilterHash, blockFilterHeader, spentScripts, ZERO_FILTER_HEADER } from './blockfilter.js';
import { blockFilterIndexView, type BlockFilterIndexView } from './blockfilter-view.js';
import type { Chainstate } from './chainstate.js';

/** Core's index name (BaseIndex::GetName), as getindexinfo and init errors show it. */
export const BASIC_FILTER_INDEX_NAME = 'basic block filter index';

/** The index's starting state could not be read (Core's CustomInit failures). */
export class BlockFilterIndexError extends Error {
  override readonly name = 'BlockFilterIndexError';
}

/** The state carried from block to block is the filter header of the block reached (zero before genesis). */
export class BlockFilterIndex extends BaseIndex<Uint8Array> {
  /** Lookups for the coordinator's snapshots (getblockfilter, REST), with this index's own sync state. */
  readonly view: BlockFilterIndexView;

  private constructor(env: IndexesEnv, chain: Chainstate, log: (m: string) => void, logError: (m: string) => void) {
    super(env, chain, { name: BASIC_FILTER_INDEX_NAME, bestBlockField: INDEXES_META.blockFilterBest, syncBatch: 100, allowPrune: true, initialDownloadDelayMs: 250, log, logError });
    this.view = blockFilterIndexView(env, () => this.info());
    this.loadBest();
  }

  /** Opens the index in `<netdir>/indexes`; `wipe` (-reindex) starts it over. */
  static open(netdir: string, chain: Chainstate, log: (m: string) => void, options: { wipe?: boolean; logError?: (m: string) => void } = {}): BlockFilterIndex {
    const clear = (w: IndexesWriter) => {
      w.clear('filter.basic');
      w.clear('filterheader.basic');
      w.deleteMeta(INDEXES_META.blockFilterBest);
    };
    return openIndex(netdir, options.wipe, clear, (env) => new BlockFilterIndex(env, chain, log, options.logError ?? log));
  }

  /** Core's ReadFilterHeader of the best block: the header chain continues from it. */
  protected override tipStateAt(entry: BlockIndexEntry | undefined): Uint8Array {
    if (!entry) return ZERO_FILTER_HEADER;
    const record = this.env.withSnapshot((r) => r.filterHeader(entry.hash));
    if (!record) throw new BlockFilterIndexError('Cannot read last block filter header; index may be corrupted');
    return record.header;
  }

  /** Writes one block's filter and header chained on `prevHeader`; returns the new header. */
  protected override appendBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry, prevHeader: Uint8Array): Uint8Array {
    const filter = basicBlockFilter(block, spentScripts(this.undoOf(entry)));
    const filterHash = blockFilterHash(filter);
    const header = blockFilterHeader(filterHash, prevHeader);
    w.putBlockFilter(entry.hash, filter, { filterHash, header });
    return header;
  }

  /** Undo data of a connected block; genesis has none (Core builds its filter with an empty CBlockUndo). */
  private undoOf(entry: BlockIndexEntry): BlockUndo {
    if (entry.height === 0) return [];
    const undo = this.chain.readUndo(entry);
    // BaseIndex prefixes the index name when it logs the failure.
    if (!undo) throw new BlockFilterIndexError(`no undo data for block ${entry.hashHex}`);
    return undo;
  }
}
