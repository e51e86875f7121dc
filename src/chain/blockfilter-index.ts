/**
 * -blockfilterindex: the BIP158 basic filter of every active-chain block, its filter hash
 * and its filter header, in the indexes environment (Core's "basic block filter index").
 * Like the txindex it catches up in the background in batches, yielding to the event loop
 * so RPC keeps answering, then follows connected blocks (during initial block download in
 * batches shortly after they connect); it records the block it has reached, so a crash
 * costs only the blocks after it. A block connected on another branch
 * rewinds it to the fork (Core's Rewind) before that block is indexed, so the header chain
 * always follows the active chain. Entries of disconnected blocks stay, keyed by hash, as
 * Core keeps them in its hash index. -reindex wipes the index (Core's f_wipe).
 */
import type { ParsedBlock } from '../primitives/index.js';
import { INDEXES_META, openIndexesEnv, type IndexesEnv, type IndexesWriter } from '../storage/index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { BlockUndo } from './block-undo.js';
import { basicBlockFilter, blockFilterHash, blockFilterHeader, spentScripts, ZERO_FILTER_HEADER } from './blockfilter.js';
import { blockFilterIndexView, type BlockFilterIndexView } from './blockfilter-view.js';
import type { Chainstate } from './chainstate.js';
import type { IndexInfo } from './txindex.js';

/** Core's index name (BaseIndex::GetName), as getindexinfo and init errors show it. */
export const BASIC_FILTER_INDEX_NAME = 'basic block filter index';

/** Blocks written per write transaction while catching up. */
const SYNC_BATCH = 100;
/** During initial block download, how long connected blocks gather before the catch-up loop indexes them in one batch. */
const IBD_BATCH_DELAY_MS = 250;

/** The index's starting state could not be read (Core's CustomInit failures). */
export class BlockFilterIndexError extends Error {
  override readonly name = 'BlockFilterIndexError';
}

export class BlockFilterIndex {
  private best: BlockIndexEntry | undefined;
  /** The filter header of `best` (zero when nothing is indexed). */
  private bestHeader: Uint8Array = ZERO_FILTER_HEADER;
  private syncing: Promise<void> | undefined;
  private stopped = false;
  /** Core's m_synced: the background catch-up has reached the tip and blocks are indexed as they connect. */
  synced = false;

  private constructor(
    private readonly env: IndexesEnv,
    private readonly chain: Chainstate,
    private readonly log: (m: string) => void,
    private readonly logError: (m: string) => void,
  ) {
    this.view = blockFilterIndexView(env, () => this.info());
    const bestHash = env.withSnapshot((r) => r.meta(INDEXES_META.blockFilterBest));
    this.moveTo(bestHash ? chain.tree.getByHash(bestHash) : undefined);
  }

  /** Opens the index in `<netdir>/indexes`; `wipe` (-reindex) starts it over. */
  static open(netdir: string, chain: Chainstate, log: (m: string) => void, options: { wipe?: boolean; logError?: (m: string) => void } = {}): BlockFilterIndex {
    const env = openIndexesEnv(netdir);
    try {
      if (options.wipe) {
        env.writeBatch((w) => {
          w.clear('filter.basic');
          w.clear('filterheader.basic');
          w.deleteMeta(INDEXES_META.blockFilterBest);
        });
      }
      return new BlockFilterIndex(env, chain, log, options.logError ?? log);
    } catch (err) {
      void env.close();
      throw err;
    }
  }

  /** Sets the indexed block and loads its header (Core's ReadFilterHeader of the best block). */
  private moveTo(entry: BlockIndexEntry | undefined): void {
    if (!entry) {
      this.best = undefined;
      this.bestHeader = ZERO_FILTER_HEADER;
      return;
    }
    const record = this.env.withSnapshot((r) => r.filterHeader(entry.hash));
    if (!record) throw new BlockFilterIndexError('Cannot read last block filter header; index may be corrupted');
    this.best = entry;
    this.bestHeader = record.header;
  }

  /** Lookups for the coordinator's snapshots (getblockfilter, REST), with this index's own sync state. */
  readonly view: BlockFilterIndexView;

  /** getindexinfo's entry; Core reports height 0 before anything is indexed. */
  info(): IndexInfo {
    return { synced: this.synced, best_block_height: this.best?.height ?? 0 };
  }

  /**
   * Core's start-up check (StartIndexBackgroundSync) for an index that is not at the tip:
   * every block from its fork with the active chain (genesis when it is empty) up to the
   * tip must still have its data, or it cannot catch up on a pruned node. Returns Core's
   * init error text, or undefined when the index can start.
   */
  pruneViolation(): string | undefined {
    const active = this.chain.chain;
    const tip = active.tip;
    if (!tip || this.best === tip) return undefined;
    const from = this.best ? (active.contains(this.best) ? this.best : active.findFork(this.best)) : undefined;
    const lowest = from?.height ?? 0;
    for (let walk: BlockIndexEntry | undefined = tip; walk && walk.height >= lowest; walk = walk.prev) {
      if (!walk.hasData) return `${BASIC_FILTER_INDEX_NAME} best block of the index goes beyond pruned data. Please disable the index or reindex (which will download the whole blockchain again)`;
    }
    return undefined;
  }

  /** Starts catching up in the background; resolves when caught up, stopped or failed (failures are logged). */
  start(): Promise<void> {
    this.syncing ??= this.runCatchUp();
    return this.syncing;
  }

  private runCatchUp(): Promise<void> {
    return this.catchUp().catch((err: Error) => {
      this.synced = false;
      this.logError(`${BASIC_FILTER_INDEX_NAME}: ${err.message}`);
    });
  }

  /** The next active-chain block after the indexed one, rewinding to the fork after a reorg. */
  private nextToIndex(): BlockIndexEntry | undefined {
    const active = this.chain.chain;
    if (this.best && !active.contains(this.best)) this.rewind(active.findFork(this.best));
    return this.best ? active.next(this.best) : active.at(0);
  }

  /** Core's Rewind: the index continues from `fork`, an ancestor of what it has indexed. */
  private rewind(fork: BlockIndexEntry | undefined): void {
    this.log(`${BASIC_FILTER_INDEX_NAME}: rewinding from ${this.best?.hashHex ?? 'nothing'} to ${fork?.hashHex ?? 'before genesis'}`);
    this.moveTo(fork);
    this.env.writeBatch((w) => (fork ? w.putMeta(INDEXES_META.blockFilterBest, fork.hash) : w.deleteMeta(INDEXES_META.blockFilterBest)));
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const batch: BlockIndexEntry[] = [];
      for (let next = this.nextToIndex(); next && batch.length < SYNC_BATCH; next = this.chain.chain.next(next)) batch.push(next);
      if (batch.length === 0) {
        this.synced = true;
        this.log(`${BASIC_FILTER_INDEX_NAME} is enabled at height ${this.best?.height ?? 0}`);
        return;
      }
      let header = this.bestHeader;
      this.env.writeBatch((w) => {
        for (const entry of batch) header = this.writeBlock(w, this.chain.readBlock(entry), entry, header);
        w.putMeta(INDEXES_META.blockFilterBest, batch[batch.length - 1]!.hash);
      });
      this.best = batch[batch.length - 1];
      this.bestHeader = header;
      // Let RPC and validation run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Writes one block's filter and header chained on `prevHeader`; returns the new header. */
  private writeBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry, prevHeader: Uint8Array): Uint8Array {
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
    if (!undo) throw new BlockFilterIndexError(`${BASIC_FILTER_INDEX_NAME}: no undo data for block ${entry.hashHex}`);
    return undo;
  }

  /**
   * Chainstate event: index the block now if it extends what is indexed, after rewinding
   * when it extends an ancestor (a reorg); a gap is left to the catch-up loop.
   */
  blockConnected(block: ParsedBlock, entry: BlockIndexEntry): void {
    if (!this.synced || this.stopped) return;
    if (this.chain.isInitialBlockDownload()) {
      // One durable write per block would dominate initial sync (the chainstate flushes in
      // batches then): the catch-up loop indexes what gathered shortly after, in batches.
      this.synced = false;
      this.syncing = new Promise((resolve) => setTimeout(resolve, IBD_BATCH_DELAY_MS)).then(() => this.runCatchUp());
      return;
    }
    try {
      const prev = entry.prev;
      if (prev !== this.best) {
        if (prev && this.best && this.best.ancestor(prev.height) === prev) {
          this.rewind(prev);
        } else {
          this.synced = false;
          this.syncing = this.runCatchUp();
          return;
        }
      }
      let header = this.bestHeader;
      this.env.writeBatch((w) => {
        header = this.writeBlock(w, block, entry, header);
        w.putMeta(INDEXES_META.blockFilterBest, entry.hash);
      });
      this.best = entry;
      this.bestHeader = header;
    } catch (err) {
      // A failing index must not fail validation: it stops following and says why.
      this.synced = false;
      this.logError(`${BASIC_FILTER_INDEX_NAME}: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.syncing?.catch(() => undefined);
    await this.env.close();
  }
}
