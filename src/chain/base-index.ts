/**
 * Core's BaseIndex (src/index/base.cpp) for the optional indexes in the indexes environment
 * (-txindex, -blockfilterindex): the block the index has reached and its stored marker, the
 * background catch-up over the active chain (in batches, yielding to the event loop so RPC
 * keeps answering), following connected blocks once synced, rewinding to the fork when its
 * block leaves the active chain (Core's Rewind), the start-up prune check, and the
 * getindexinfo summary. An index supplies only its own part: what it keeps about the block
 * it has reached (Core's CustomInit) and its table writes for a block (CustomAppend).
 *
 * Crash safety: a block's entries and the marker naming it commit in one LMDB write, so a
 * crash costs only a re-index of the blocks after the marker. Core's indexes keep entries
 * on a rewind (the txindex has no CustomRemove, the filter and coinstats indexes key by
 * block hash), so for them a rewind only moves the marker; an index that describes the
 * active chain alone (the address index) removes the blocks it rewinds past in the same
 * write (removeBlock).
 */
import { bytesEqual, type ParsedBlock } from '../primitives/index.js';
import { openIndexesEnv, type IndexesEnv, type IndexesWriter, type MetaField } from '../storage/index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';

/**
 * Opens the indexes environment for one index. With `wipe` (-reindex, Core's f_wipe),
 * `clear` first empties the index's tables and best-block marker in one write, so the
 * index starts over from genesis. The environment is closed again if creation fails.
 */
export function openIndex<T>(netdir: string, wipe: boolean | undefined, clear: (w: IndexesWriter) => void, create: (env: IndexesEnv) => T): T {
  const env = openIndexesEnv(netdir);
  try {
    if (wipe) env.writeBatch(clear);
    return create(env);
  } catch (err) {
    void env.close();
    throw err;
  }
}

/** getindexinfo's entry for one index; Core reports height 0 before anything is indexed. */
export interface IndexInfo {
  synced: boolean;
  best_block_height: number;
}

/**
 * How a reader without the coordinator's memory (an HTTP front-end) judges an index, as
 * Core's m_synced flag reads: synced when the block stored in `bestField` is the active
 * tip, and also when that block has left the active chain (invalidateblock): Core's flag,
 * once set by the catch-up, stays set, and a catch-up only walks the active chain below
 * the tip. `locate` and `tipHash` read the caller's chain snapshot.
 */
export function storedIndexInfo(
  env: IndexesEnv,
  bestField: MetaField<Uint8Array>,
  locate: (hash: Uint8Array) => { readonly height: number; readonly active: boolean } | undefined,
  tipHash: () => Uint8Array,
): IndexInfo {
  const best = env.withSnapshot((r) => r.meta(bestField));
  if (!best) return { synced: false, best_block_height: 0 };
  const where = locate(best);
  return { synced: bytesEqual(best, tipHash()) || (where !== undefined && !where.active), best_block_height: where?.height ?? 0 };
}

export interface BaseIndexOptions {
  /** Core's GetName: the prefix of the index's log lines and init errors. */
  name: string;
  /** The meta field holding the hash of the block the index has reached. */
  bestBlockField: MetaField<Uint8Array>;
  /** Blocks written per write transaction while catching up. */
  syncBatch: number;
  /** Core's AllowPrune: the index keeps a prune lock at the block it has reached, so pruning leaves it the blocks it still reads. */
  allowPrune?: boolean;
  /**
   * During initial block download, how long connected blocks gather before the catch-up
   * loop indexes them in one batch; undefined indexes each block as it connects.
   */
  initialDownloadDelayMs?: number;
  log: (m: string) => void;
  logError: (m: string) => void;
}

/**
 * `TipState` is what an index carries from block to block (the filter header chain);
 * `undefined` for an index that needs nothing.
 */
export abstract class BaseIndex<TipState> {
  /** Core's m_best_block_index: the last block indexed, undefined before genesis. */
  private best: BlockIndexEntry | undefined;
  /** The index's own state at `best`, loaded by tipStateAt. */
  private bestState!: TipState;
  private syncing: Promise<void> | undefined;
  private stopped = false;
  /** Core's m_synced: the background catch-up has reached the tip and blocks are indexed as they connect. */
  synced = false;
  /** The stored marker names a block the block index does not know (loadBest). */
  private bestUnknown = false;

  protected constructor(
    protected readonly env: IndexesEnv,
    protected readonly chain: Chainstate,
    private readonly options: BaseIndexOptions,
  ) {}

  /** Core's Init: starts from the stored marker. Subclasses call it once their own fields are set. */
  protected loadBest(): void {
    const bestHash = this.env.withSnapshot((r) => r.meta(this.options.bestBlockField));
    const entry = bestHash ? this.chain.tree.getByHash(bestHash) : undefined;
    this.bestUnknown = bestHash !== undefined && entry === undefined;
    this.moveTo(entry);
  }

  /**
   * Core's Init error for a stored best block the block index does not know (an index
   * directory from another node, or a chainstate rebuilt without it): the index must not
   * start from genesis over its old entries. Undefined when the index can start.
   */
  initError(): string | undefined {
    return this.bestUnknown ? `${this.options.name}: best block of the index not found. Please rebuild the index.` : undefined;
  }

  /** Core's CustomInit: the index's state at `entry` (undefined: nothing indexed yet); throws if it cannot be read. */
  protected abstract tipStateAt(entry: BlockIndexEntry | undefined): TipState;

  /** Core's CustomAppend: writes one block's entries into `w`, on the state of its parent; returns the block's state. */
  protected abstract appendBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry, parentState: TipState): TipState;

  private moveTo(entry: BlockIndexEntry | undefined): void {
    const state = this.tipStateAt(entry);
    this.best = entry;
    this.bestState = state;
    this.updatePruneLock();
  }

  /** Core's SetBestBlockIndex: the prune lock follows the indexed block (before any: from genesis). */
  private updatePruneLock(): void {
    if (this.options.allowPrune) this.chain.updatePruneLock(this.options.name, this.best?.height ?? 0);
  }

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
      if (!walk.hasData) return `${this.options.name} best block of the index goes beyond pruned data. Please disable the index or reindex (which will download the whole blockchain again)`;
    }
    return undefined;
  }

  /** Starts catching up in the background; resolves when caught up, stopped or failed (failures are logged). */
  start(): Promise<void> {
    this.syncing ??= this.runCatchUp();
    return this.syncing;
  }

  private runCatchUp(): Promise<void> {
    return this.catchUp().catch((err: Error) => this.fail(err));
  }

  /** A failing index must not fail validation: it stops following and says why. */
  private fail(err: Error): void {
    this.synced = false;
    this.options.logError(`${this.options.name}: ${err.message}`);
  }

  /** The next active-chain block after the indexed one, rewinding to the fork after a reorg. */
  private nextToIndex(): BlockIndexEntry | undefined {
    const active = this.chain.chain;
    if (this.best && !active.contains(this.best)) this.rewind(active.findFork(this.best));
    return this.best ? active.next(this.best) : active.at(0);
  }

  /**
   * Core's CustomRemove: takes one block's entries out as the index rewinds past it (newest
   * block first, in the write that moves the marker). Indexes that keep entries of
   * disconnected blocks (all of Core's) leave it undefined.
   */
  protected removeBlock?(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry): void;

  /** Core's Rewind: the index continues from `fork`, an ancestor of what it has indexed; the marker moves back with it. */
  private rewind(fork: BlockIndexEntry | undefined): void {
    this.options.log(`${this.options.name}: rewinding from ${this.best?.hashHex ?? 'nothing'} to ${fork?.hashHex ?? 'before genesis'}`);
    const leaving: BlockIndexEntry[] = [];
    if (this.removeBlock) for (let walk = this.best; walk && walk !== fork; walk = walk.prev) leaving.push(walk);
    const field = this.options.bestBlockField;
    this.env.writeBatch((w) => {
      for (const entry of leaving) this.removeBlock!(w, this.chain.readBlock(entry), entry);
      if (fork) w.putMeta(field, fork.hash);
      else w.deleteMeta(field);
    });
    this.moveTo(fork);
  }

  /** Indexes consecutive blocks after `best` and moves the marker to the last, in one write. */
  private append(entries: readonly BlockIndexEntry[], blockOf: (entry: BlockIndexEntry) => ParsedBlock): void {
    let state = this.bestState;
    this.env.writeBatch((w) => {
      for (const entry of entries) state = this.appendBlock(w, blockOf(entry), entry, state);
      w.putMeta(this.options.bestBlockField, entries[entries.length - 1]!.hash);
    });
    this.best = entries[entries.length - 1];
    this.bestState = state;
    this.updatePruneLock();
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const batch: BlockIndexEntry[] = [];
      for (let next = this.nextToIndex(); next && batch.length < this.options.syncBatch; next = this.chain.chain.next(next)) batch.push(next);
      if (batch.length === 0) {
        this.synced = true;
        this.options.log(this.best ? `${this.options.name} is enabled at height ${this.best.height}` : `${this.options.name} is enabled`);
        return;
      }
      this.append(batch, (entry) => this.chain.readBlock(entry));
      // Let RPC and validation run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Chainstate event: index the block now if it extends what is indexed, after rewinding
   * when it extends an ancestor (a reorg); a gap is left to the catch-up loop.
   */
  blockConnected(block: ParsedBlock, entry: BlockIndexEntry): void {
    if (!this.synced || this.stopped) return;
    const delayMs = this.options.initialDownloadDelayMs;
    if (delayMs !== undefined && this.chain.isInitialBlockDownload()) {
      // One durable write per block would dominate initial sync (the chainstate flushes in
      // batches then): the catch-up loop indexes what gathered shortly after, in batches.
      this.synced = false;
      this.syncing = new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => this.runCatchUp());
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
      this.append([entry], () => block);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.syncing?.catch(() => undefined);
    await this.env.close();
  }
}
