/**
 * A read-only view of the chain as one LMDB snapshot holds it: block index entries with
 * their ancestry, the active chain, coins, undo data and block bytes. HTTP front-end
 * processes answer read-only RPC and REST calls from one of these per request, so a
 * reorg committed meanwhile can never tear a response: every lookup of a request sees
 * the same committed state.
 */
import type { AddressIndexView } from './address-index-view.js';
import type { CoinStatsIndexView } from './coinstats-view.js';
import type { ChainParams, Coin, IndexedHeader } from '../consensus/index.js';
import type { MempoolPolicyOptions } from '../mempool/index.js';
import { bytesEqual, hashToHex, parseBlock, parseHeader, type BlockHeader, type OutPoint, type ParsedBlock } from '../primitives/index.js';
import { CHAINSTATE_META, NO_DATA_FILE, type BlockFileStore, type BlockIndexRecord, type ChainstateReader, type TxIndexEntry } from '../storage/index.js';
import type { BlockDataPosition } from './block-index-entry.js';
import { BlockStatus, isValidUpTo } from './block-status.js';
import type { BlockUndo } from './block-undo.js';
import type { BlockFilterIndexView } from './blockfilter-view.js';

/** Why a block's data cannot be read: Core's getblock texts distinguish these. */
export class BlockDataUnavailable extends Error {
  override readonly name = 'BlockDataUnavailable';
  constructor(readonly why: 'pruned' | 'not-downloaded' | 'missing-on-disk') {
    super(why === 'pruned' ? 'Block not available (pruned data)' : why === 'not-downloaded' ? 'Block not available (not fully downloaded)' : 'Block not found on disk');
  }
}

/** What a block hash fixes for good: its header and its median time past. */
interface ImmutableFacts {
  readonly header: BlockHeader;
  mtp: number | undefined;
}

/** Per-process cache of immutable per-block facts, shared by every snapshot (bounded). */
const immutableByHash = new Map<string, ImmutableFacts>();
const IMMUTABLE_CACHE_LIMIT = 200_000;

/** A block index entry read from a snapshot, with lazy ancestry (implements the consensus IndexedHeader view). */
export class ViewEntry implements IndexedHeader {
  readonly header: BlockHeader;
  readonly hash: Uint8Array;
  readonly hashHex: string;
  readonly height: number;
  readonly chainWork: bigint;
  readonly status: number;
  readonly txCount: number;
  readonly chainTxCount: number;
  readonly data: BlockDataPosition | undefined;
  private cachedPrev: ViewEntry | null | undefined;
  private readonly known: ImmutableFacts;

  constructor(
    private readonly view: SnapshotChainView,
    hash: Uint8Array,
    record: BlockIndexRecord,
  ) {
    this.hash = hash;
    this.hashHex = hashToHex(hash);
    // Headers and median times never change for a hash: parse each once per process.
    let known = immutableByHash.get(this.hashHex);
    if (!known) {
      if (immutableByHash.size >= IMMUTABLE_CACHE_LIMIT) immutableByHash.clear();
      known = { header: parseHeader(record.header), mtp: undefined };
      immutableByHash.set(this.hashHex, known);
    }
    this.known = known;
    this.header = known.header;
    this.height = record.height;
    this.chainWork = record.chainWork;
    this.status = record.status;
    this.txCount = record.txCount;
    this.chainTxCount = record.chainTxCount;
    this.data = record.dataFile === NO_DATA_FILE ? undefined : { file: record.dataFile, pos: record.dataPos };
  }

  get version(): number {
    return this.header.version;
  }
  get time(): number {
    return this.header.time;
  }
  get bits(): number {
    return this.header.bits;
  }

  get prev(): ViewEntry | undefined {
    if (this.cachedPrev === undefined) this.cachedPrev = this.height === 0 ? null : (this.view.entry(this.header.prevHash) ?? null);
    return this.cachedPrev ?? undefined;
  }

  /** Active-chain ancestors come from the active table in one read; others walk back. */
  ancestor(height: number): ViewEntry | undefined {
    if (height > this.height || height < 0) return undefined;
    if (height === this.height) return this;
    if (this.view.isActive(this)) return this.view.activeEntry(height);
    let walk: ViewEntry | undefined = this;
    while (walk && walk.height > height) walk = walk.prev;
    return walk;
  }

  medianTimePast(): number {
    if (this.known.mtp === undefined) {
      const times: number[] = [];
      let walk: ViewEntry | undefined = this;
      for (let i = 0; i < 11 && walk; i++, walk = walk.prev) times.push(walk.time);
      times.sort((a, b) => a - b);
      this.known.mtp = times[Math.floor(times.length / 2)]!;
    }
    return this.known.mtp;
  }

  get hasData(): boolean {
    return (this.status & BlockStatus.HAVE_DATA) !== 0;
  }

  get hasUndo(): boolean {
    return (this.status & BlockStatus.HAVE_UNDO) !== 0;
  }

  get failed(): boolean {
    return (this.status & BlockStatus.FAILED_MASK) !== 0;
  }

  isValid(level: number): boolean {
    return isValidUpTo(this.status, level);
  }
}

/** Node facts the stored chain does not hold: the coordinator's IBD state and clock. */
export interface NodeView {
  /** Core's IsInitialBlockDownload(), as the coordinator evaluates it. */
  readonly ibd: boolean;
  /** Node time in seconds (mock time honoured). */
  now(): number;
  /** -deprecatedrpc values. */
  readonly deprecatedRpc: readonly string[];
  /** The node's warnings (Core's GetWarnings). */
  readonly warnings: readonly string[];
  /** -prune: 0 off, 1 manual, else the automatic target in bytes. */
  readonly pruneTarget: number;
  readonly mempoolPolicy: MempoolPolicyOptions;
  /** The -dbcache split getchainstates reports (coins database, coins cache). */
  readonly coinsCacheBytes: { readonly db: number; readonly tip: number };
}

/** -txindex as readers see it. */
export interface TxIndexView {
  lookup(txid: Uint8Array): TxIndexEntry | undefined;
  info(): { synced: boolean; best_block_height: number };
}

/** -txospenderindex as readers see it. */
export interface TxoSpenderView {
  /** Where the active chain's transaction spending the output is, if one does. */
  spender(txid: Uint8Array, vout: number): TxIndexEntry | undefined;
  info(): { synced: boolean; best_block_height: number };
}

export class SnapshotChainView {
  /** Entries read so far, by hex hash (made on first use: most calls read none). */
  private entriesRead: Map<string, ViewEntry | null> | undefined;
  private tipEntry: ViewEntry | null | undefined;

  constructor(
    readonly params: ChainParams,
    readonly reader: ChainstateReader,
    private readonly blocks: BlockFileStore,
    /** Estimated bytes of the coins table (LMDB page statistics). */
    readonly coinsDiskSize: () => number,
    readonly node: NodeView,
    /** Present when -txindex is on and its environment exists. */
    readonly txindex: TxIndexView | undefined,
    /** Present when -blockfilterindex is on and its environment exists. */
    readonly blockfilter?: BlockFilterIndexView,
    /** Present when -coinstatsindex is on and its environment exists. */
    readonly coinstats?: CoinStatsIndexView,
    /** Present when -addressindex is on and its environment exists. */
    readonly addressIndex?: AddressIndexView,
    /** Present when -txospenderindex is on and its environment exists. */
    readonly txoSpender?: TxoSpenderView,
  ) {}

  /** The header of the block stored at a data position (txindex entries name positions, not blocks). */
  readBlockHeaderAt(position: BlockDataPosition): BlockHeader {
    return parseHeader(this.blocks.readHeaderBytes(position));
  }

  /** A transaction's bytes from the block files, by its txindex position. */
  readTxBytes(position: TxIndexEntry): Uint8Array {
    return this.blocks.readRange(position, position.offset, position.length);
  }

  private get entries(): Map<string, ViewEntry | null> {
    return (this.entriesRead ??= new Map());
  }

  entry(hash: Uint8Array): ViewEntry | undefined {
    const key = hashToHex(hash);
    let e = this.entries.get(key);
    if (e === undefined) {
      const record = this.reader.blockIndex(hash);
      e = record ? new ViewEntry(this, hash, record) : null;
      this.entries.set(key, e);
    }
    return e ?? undefined;
  }

  /** The flushed tip: the block the coins table describes. */
  tip(): ViewEntry {
    if (this.tipEntry === undefined) {
      const hash = this.reader.meta(CHAINSTATE_META.tip);
      this.tipEntry = hash ? (this.entry(hash) ?? null) : null;
    }
    if (!this.tipEntry) throw new Error('the chainstate has no tip yet');
    return this.tipEntry;
  }

  get height(): number {
    return this.tip().height;
  }

  activeEntry(height: number): ViewEntry | undefined {
    if (height < 0 || height > this.height) return undefined;
    const hash = this.reader.activeHash(height);
    return hash ? this.entry(hash) : undefined;
  }

  isActive(e: ViewEntry): boolean {
    if (e.height > this.height) return false;
    const hash = this.reader.activeHash(e.height);
    return hash !== undefined && bytesEqual(hash, e.hash);
  }

  /** The active-chain hash at `height`; the active table holds exactly heights 0..tip. */
  activeHashAt(height: number): Uint8Array | undefined {
    return height < 0 ? undefined : this.reader.activeHash(height);
  }

  /** The active block after `e`, when `e` is active and not the tip. */
  next(e: ViewEntry): ViewEntry | undefined {
    return this.isActive(e) ? this.activeEntry(e.height + 1) : undefined;
  }

  /** The most-work header known at the last flush. */
  bestHeader(): ViewEntry {
    const hash = this.reader.meta(CHAINSTATE_META.bestHeader);
    return (hash ? this.entry(hash) : undefined) ?? this.tip();
  }

  /** Every entry of the block index (getchaintips). */
  *allEntries(): Generator<ViewEntry> {
    for (const { hash, record } of this.reader.blockIndexEntries()) {
      const key = hashToHex(hash);
      let e = this.entries.get(key);
      if (!e) {
        e = new ViewEntry(this, hash, record);
        this.entries.set(key, e);
      }
      yield e;
    }
  }

  private checkData(e: ViewEntry): BlockDataPosition {
    if (!e.hasData || !e.data) {
      // Core: data once stored (nTx set) but gone now is pruned; never stored is not downloaded.
      throw new BlockDataUnavailable(e.txCount > 0 && this.havePruned() ? 'pruned' : 'not-downloaded');
    }
    return e.data;
  }

  readBlockBytes(e: ViewEntry): Uint8Array {
    const position = this.checkData(e);
    try {
      return this.blocks.readBlock(position);
    } catch {
      throw new BlockDataUnavailable('missing-on-disk');
    }
  }

  readBlock(e: ViewEntry): ParsedBlock {
    return parseBlock(this.readBlockBytes(e));
  }

  /** A byte range of the block (REST blockpart); only that range is read from disk. */
  readBlockRange(e: ViewEntry, offset: number, length: number): Uint8Array {
    const position = this.checkData(e);
    return this.blocks.readRange(position, offset, length);
  }

  readBlockSize(e: ViewEntry): number {
    return this.blocks.readBlockSize(this.checkData(e));
  }

  readUndo(e: ViewEntry): BlockUndo | undefined {
    if (!e.hasUndo) return undefined;
    return this.reader.undo(e.hash) as BlockUndo | undefined;
  }

  coin(outpoint: OutPoint): Coin | undefined {
    return this.reader.coin(outpoint.txid, outpoint.vout);
  }

  havePruned(): boolean {
    return this.reader.meta(CHAINSTATE_META.havePruned) ?? false;
  }

  /** Core's GetPruneHeight: the highest active block whose data was pruned, if any. */
  pruneHeight(): number | undefined {
    if (!this.havePruned()) return undefined;
    const tip = this.tip();
    if (!tip.hasData) return tip.height;
    // Binary search the active chain for the first block with data: pruning removes a prefix.
    let lo = 0;
    let hi = tip.height;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.activeEntry(mid)!.hasData) hi = mid;
      else lo = mid + 1;
    }
    return lo > 0 ? lo - 1 : undefined;
  }

  /** Bytes of block files as of this snapshot. */
  sizeOnDisk(): number {
    return this.reader.blockFilesSize();
  }
}
