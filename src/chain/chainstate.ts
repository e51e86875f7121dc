/**
 * The chainstate: follows the most-work valid chain. It accepts headers and blocks into
 * the block tree, connects and disconnects blocks against the UTXO set (reorganising to
 * any depth), runs script checks on the worker pool, and persists everything through the
 * ChainStore in atomic commits, so that the stored tip is always a fully applied block.
 *
 * All state-changing operations are serialized on one promise queue: validation awaits
 * the script-check pool, and nothing else may touch the chain meanwhile.
 */
import {
  blockProof,
  blockProofEquivalentTime,
  checkBlock,
  checkBlockHeader,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  guessVerificationProgress,
  VersionBitsCache,
  type ChainParams,
} from '../consensus/index.js';
import { bytesEqual, hashToHex, parseBlock, parseHeader, serializeBlock, type Block, type BlockHeader, type ParsedBlock } from '../primitives/index.js';
import { SCRIPT_ERROR_MESSAGES } from '../script/index.js';
import { decodeBlockUndo, encodeBlockUndo } from '../storage/index.js';
import { ActiveChain } from './active-chain.js';
import type { BlockDataPosition, BlockIndexEntry } from './block-index-entry.js';
import { BlockStatus, raiseValidity } from './block-status.js';
import { betterCandidate, BlockTree, tipStatus, type ChainTipStatus } from './block-tree.js';
import type { BlockUndo } from './block-undo.js';
import type { ChainSnapshot, ChainStore, MempoolCommit, StoredIndexEntry } from './chain-store.js';
import { CoinsCache, type CoinsSource } from './coins-view.js';
import { connectBlockTransactions, disconnectBlockTransactions, type ScriptJob } from './connect-block.js';
import { eventLoopTurn } from './event-loop-turns.js';
import { importBlocks } from './import.js';
import { ChainSystemError, reject, VALID, type Rejection, type Verdict } from './validation-result.js';

/**
 * Blocks prepared ahead of the one being finished during initial sync: enough that the
 * workers always have the next block's scripts queued while the coordinator applies the
 * rules of the one after.
 */
const PIPELINE_DEPTH = 1;

/** A block with every rule applied but its scripts, which are being checked (ConnectTip's first half). */
interface PreparedConnect {
  readonly entry: BlockIndexEntry;
  readonly block: ParsedBlock;
  readonly view: CoinsCache;
  readonly undo: BlockUndo;
  readonly jobs: readonly ScriptJob[] | null;
  readonly scripts: Promise<ScriptCheckVerdict> | null;
  readonly started: number;
}

/** Script checking as the chainstate needs it; the worker pool and the inline checker both fit. */
export interface ScriptChecker {
  /** `caching` says what the check adds to Core's caches; the default is block validation's (store nothing). */
  verify(jobs: readonly ScriptJob[], caching?: ScriptCaching): Promise<ScriptCheckVerdict>;
}

/**
 * What a check stores in Core's caches (lookups always happen): Core's cacheSigStore and
 * cacheFullScriptStore. Mempool acceptance stores signatures under the policy flags and the
 * whole transaction under the tip's consensus flags; TestBlockValidity stores both; block
 * validation stores neither.
 */
export interface ScriptCaching {
  readonly storeSignatures: boolean;
  readonly storeScriptExecution: boolean;
}

/** What a successful check cost, for -debug=bench. */
export interface ScriptCheckWork {
  readonly transactions: number;
  /** Transactions the script-execution cache skipped whole. */
  readonly scriptCacheHits: number;
  readonly signaturesVerified: number;
  readonly signatureCacheHits: number;
}

export type ScriptCheckVerdict =
  | { ok: true; work?: ScriptCheckWork }
  | { ok: false; consensus: true; txIndex: number; inputIndex: number; error: keyof typeof SCRIPT_ERROR_MESSAGES }
  | { ok: false; consensus: false; detail: string };

/** The chain's warnings (Core's kernel::Warning). */
export type ChainWarning = 'unknown-new-rules-activated' | 'large-work-invalid-chain';

/** Core's LARGE_WORK_INVALID_CHAIN text, shown by the RPCs and given to -alertnotify. */
export const LARGE_WORK_INVALID_CHAIN_WARNING =
  'Warning: Found invalid chain more than 6 blocks longer than our best chain. This could be due to database corruption or consensus incompatibility with peers.';

export interface ChainEvents {
  blockConnected?(block: ParsedBlock, entry: BlockIndexEntry): void;
  blockDisconnected?(block: ParsedBlock, entry: BlockIndexEntry): void;
  /**
   * The stored tip changed: emitted after the commit that made it durable, so anyone
   * reading the stored chain on this signal (front-ends, long polls) sees it.
   */
  tipChanged?(tip: BlockIndexEntry): void;
  /**
   * Core's UpdatedBlockTip: one activation step moved the tip (after the mempool took back a
   * reorg's transactions); `ibd` is whether the node is still in initial block download.
   */
  updatedBlockTip?(tip: BlockIndexEntry, ibd: boolean): void;
  /**
   * Core's KernelNotifications::blockTip (what -blocknotify hears): the tip after an
   * activation step moved it, and after invalidateblock took blocks off the active chain.
   */
  blockTip?(tip: BlockIndexEntry, ibd: boolean): void;
  /**
   * Core's warningSet / warningUnset for the chain's own warnings: the text while it holds,
   * undefined once it no longer does. Told on every check; the listener keeps the state.
   */
  warning?(kind: ChainWarning, message: string | undefined): void;
  /** Core's BlockChecked: a block finished full validation (connect) or failed early checks. */
  blockChecked?(hash: string, verdict: Verdict): void;
  /** The tip reached -stopatheight. */
  stopHeightReached?(height: number): void;
}

/**
 * What the chainstate tells the mempool, synchronously inside its own state changes, so
 * the mempool's table changes join the commit of the chain change that caused them
 * (Core's removeForBlock, DisconnectedBlockTransactions and MaybeUpdateMempoolForReorg).
 */
export interface ChainMempoolSync {
  /** ConnectTip: the block's transactions and whatever they conflict with leave the pool. */
  blockConnected(block: ParsedBlock, entry: BlockIndexEntry): void;
  /** DisconnectTip: the block's transactions are kept to be offered back to the pool. */
  blockDisconnected(block: ParsedBlock, entry: BlockIndexEntry): void;
  /**
   * After blocks were disconnected and the new best chain connected: re-add (unless
   * `addToMempool` is false) and re-check.
   */
  reorgFinished(addToMempool?: boolean): Promise<void>;
  /** The table changes to commit now (undefined when there are none). */
  takeChanges(): MempoolCommit | undefined;
}

export interface ChainstateOptions {
  params: ChainParams;
  store: ChainStore;
  scripts: ScriptChecker;
  /** Block hash below which scripts are assumed valid; null checks everything (-assumevalid=0). */
  assumeValid: Uint8Array | null;
  /** -dbcache in bytes: the coins cache is flushed when it grows past this. */
  coinsCacheBytes: number;
  /** The node's clock in seconds (mockable on regtest). */
  now: () => number;
  log: (message: string) => void;
  /** -debug=bench lines (Core's BCLog::BENCH); absent or returning false skips their formatting. */
  bench?: { enabled(): boolean; log(message: string): void };
  events?: ChainEvents;
  stopAtHeight?: number;
  /** -maxtipage: a tip older than this (seconds) keeps the node in initial block download (default the network's, 24 hours). */
  maxTipAge?: number;
  /** -prune: off, 'manual' (prune=1: only pruneblockchain), or an automatic target in bytes. */
  prune?: PruneMode;
}

export type PruneMode = 'off' | 'manual' | { targetBytes: number };

/** Core's MIN_BLOCKS_TO_KEEP: pruning never touches the last 288 blocks (reorg safety). */
export const MIN_BLOCKS_TO_KEEP = 288;
/** Room Core leaves under the target for the next file allocation (BLOCKFILE_CHUNK_SIZE + UNDOFILE_CHUNK_SIZE). */
const PRUNE_BUFFER_BYTES = 0x1000000 + 0x100000;
/** Core's PRUNE_LOCK_BUFFER: blocks kept below the lowest block an index still needs. */
export const PRUNE_LOCK_BUFFER = 10;

export interface ProcessBlockResult {
  /** ProcessNewBlock's return: the block was stored (or already known) and did not fail early checks. */
  accepted: boolean;
  /** The block's data was new to us. */
  newBlock: boolean;
  /** Set when this block was fully checked (connected or rejected): what submitblock reports. */
  checked: Verdict | undefined;
}

export interface ChainTip {
  height: number;
  hash: string;
  branchlen: number;
  status: ChainTipStatus;
}

/** Flush the coins cache at least this often during initial sync (Core's DATABASE_FLUSH_INTERVAL is an hour; imports here are shorter). */
const PERIODIC_FLUSH_MS = 60_000;
/** Bound on the hashes kept from acceptance for the connect (two 32-byte hashes per transaction). */
const ACCEPTED_HASHES_MAX_BYTES = 64 * 1024 * 1024;
/** Bound on parsed peer blocks held for their connect. */
const HELD_BLOCKS_MAX_BYTES = 64 * 1024 * 1024;
/** Two weeks of work-equivalent time: assumevalid only applies this far below the best header (Core). */
const ASSUMEVALID_MIN_BURY_SECONDS = 60 * 60 * 24 * 7 * 2;

export class Chainstate {
  readonly params: ChainParams;
  readonly tree = new BlockTree();
  readonly chain = new ActiveChain();
  readonly coins: CoinsCache;
  readonly versionBits = new VersionBitsCache();
  private readonly store: ChainStore;
  private readonly options: ChainstateOptions;
  /**
   * Undo data of blocks connected since the last flush, already encoded: kept as objects,
   * the spent coins held on to the buffers of the blocks that created them (their scripts
   * are views into those), so an import kept every block it read alive until its flush.
   */
  private readonly pendingUndo = new Map<BlockIndexEntry, Uint8Array>();
  /**
   * The txids (and wtxids, where the witness commitment was checked) of blocks accepted and
   * not yet connected, 32 bytes each in block order. Connecting reads the block back and
   * would hash every transaction again: after an import that is most of a second. Oldest
   * first out past ACCEPTED_HASHES_MAX_BYTES (a stale block's never get used).
   */
  private readonly acceptedHashes = new Map<BlockIndexEntry, { txids: Uint8Array; wtxids: Uint8Array | null }>();
  private acceptedHashBytes = 0;
  /** Parsed blocks from peers awaiting their connect (see holdBlock). */
  private readonly heldBlocks = new Map<BlockIndexEntry, ParsedBlock>();
  private heldBlockBytes = 0;
  private readonly pendingActive = new Map<number, Uint8Array | null>();
  private readonly failedBlocks = new Set<BlockIndexEntry>();
  private queue: Promise<unknown> = Promise.resolve();
  private lastFlush = Date.now();
  private ibdLatchedOff = false;
  /** Still in load(): blocks connected now were connected before any service listened. */
  private loading = true;
  /**
   * What load() connected (genesis on a new data directory, the chain on a rebuilt
   * chainstate): Core's notification interfaces were registered before, so their
   * counters (ZMQ's message sequence numbers) already count these blocks.
   */
  connectedDuringLoad = { blocks: 0, transactions: 0 };
  /** The last tip reported through tipChanged (reports follow commits). */
  private notifiedTip: BlockIndexEntry | undefined;
  /** Set at shutdown: chain activation stops between blocks (Core's m_interrupt). */
  interrupted = false;
  /** Set while -loadblock/-reindex runs: initial-download behaviour (batched flushes). */
  importing = false;
  private lastPreciousChainWork = 0n;
  /** The mempool kept in step with the chain (the node's; none in tools and unit tests). */
  mempoolSync: ChainMempoolSync | undefined;
  private disconnectedSinceReorg = false;
  private reverseSequenceId = -1;
  /** Why the last connected block had its scripts checked (null: skipped); undefined before the first. */
  private scriptCheckReasonLogged: string | null | undefined;

  constructor(options: ChainstateOptions) {
    this.options = options;
    this.params = options.params;
    this.store = options.store;
    this.coins = new CoinsCache(options.store);
  }

  /** Runs `fn` after every earlier state change has finished. */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  get tip(): BlockIndexEntry | undefined {
    return this.chain.tip;
  }

  get scriptChecker(): ScriptChecker {
    return this.options.scripts;
  }

  get coinsCacheBytes(): number {
    return this.options.coinsCacheBytes;
  }

  /** The node's clock in seconds (mockable on regtest). */
  now(): number {
    return this.options.now();
  }

  // ---------------------------------------------------------------- loading

  /**
   * Loads the block index and tip from the store, adds genesis on a new datadir, and
   * reconnects anything beyond the flushed tip. `reindexChainstate` rebuilds the UTXO set
   * from the stored blocks; `reindex` also rebuilds the block index by rescanning the block
   * files (and a reindex interrupted by a crash resumes on the next start).
   */
  async load(options: { reindex?: boolean; reindexChainstate?: boolean } = {}): Promise<void> {
    const reindex = options.reindex === true || this.store.readReindexing();
    if (reindex) {
      this.store.setReindexing(true);
      this.store.wipeChainstate();
      this.store.wipeIndex();
    } else if (options.reindexChainstate) {
      this.store.wipeChainstate();
    }
    await this.exclusive(() => this.loadIndex());
    if (reindex) {
      this.options.log('Reindexing block files');
      const report = await importBlocks(this, this.store.scanBlocks(), true, this.options.log);
      this.options.log(`Reindexed ${report.loaded} blocks`);
    }
    await this.exclusive(async () => {
      if (!this.tree.getByHash(this.params.genesisHash)) this.addGenesis();
      const rebuilding = !this.chain.tip;
      this.importing = rebuilding && this.tree.size > 1;
      this.connectedDuringLoad = { blocks: 0, transactions: 0 };
      try {
        await this.activateBestChainLocked();
      } finally {
        this.importing = false;
        this.loading = false;
      }
      this.flush('always');
    });
    if (reindex) this.store.setReindexing(false);
  }

  private loadIndex(): void {
    const stored = this.store.loadIndex().sort((a, b) => a.height - b.height);
    for (const record of stored) this.restoreEntry(record);
    const tipHash = this.store.readTip();
    const tip = tipHash ? this.tree.getByHash(tipHash) : undefined;
    if (tipHash && !tip) throw new ChainSystemError(`stored tip ${hashToHex(tipHash)} is not in the block index`);
    this.chain.setTip(tip);
    // Core gives blocks loaded from disk on the best chain sequence id 0, others 1, so ties keep the old tip.
    for (const entry of this.tree.entries()) {
      if (entry.chainTxCount > 0) entry.sequenceId = tip && this.chain.contains(entry) ? 0 : 1;
    }
    this.rebuildCandidates();
  }

  private restoreEntry(record: StoredIndexEntry): void {
    const header = parseHeader(record.header);
    const prev = record.height === 0 ? undefined : this.tree.getByHash(header.prevHash);
    if (record.height > 0 && !prev) {
      this.options.log(`block index: dropping ${header.hashHex} at height ${record.height}, its parent is missing`);
      return;
    }
    const work = record.chainWork - (prev?.chainWork ?? 0n);
    const entry = this.tree.restore(header, prev, work, record.status);
    entry.txCount = record.txCount;
    entry.chainTxCount = record.chainTxCount;
    entry.data = record.data;
    entry.sequenceId = record.sequenceId;
    if (entry.failed && (entry.status & BlockStatus.FAILED_VALID) !== 0) this.failedBlocks.add(entry);
  }

  private rebuildCandidates(): void {
    this.tree.candidates.clear();
    const tip = this.chain.tip;
    for (const entry of this.tree.entries()) {
      if (entry.hasData && entry.chainTxCount === 0 && entry.prev) this.tree.markUnlinked(entry);
      if (entry.isValid(BlockStatus.VALID_TRANSACTIONS) && entry.chainTxCount > 0 && (!tip || !betterCandidate(tip, entry))) {
        this.tree.candidates.add(entry);
      }
    }
  }

  private addGenesis(): void {
    const genesis = this.params.genesis;
    const bytes = serializeBlock(genesis);
    const entry = this.tree.addHeader(genesis.header, undefined);
    const position = this.store.writeBlock(bytes, 0);
    this.receivedTransactions(genesis, entry, position);
  }

  // ---------------------------------------------------------------- headers and blocks

  /** Core's AcceptBlockHeader: adds a header to the tree after the header rules. */
  private acceptHeader(header: BlockHeader): { entry: BlockIndexEntry } | Rejection {
    const known = this.tree.getByHash(header.hash);
    if (known) {
      if (known.failed) return reject('duplicate-invalid');
      return { entry: known };
    }
    // Genesis has no parent to check against: it is taken as the chain's definition.
    if (bytesEqual(header.hash, this.params.genesisHash)) return { entry: this.tree.addHeader(header, undefined) };
    const headerCheck = checkBlockHeader(header, this.params);
    if (!headerCheck.ok) return headerCheck;
    const prev = this.tree.getByHash(header.prevHash);
    if (!prev) return reject('prev-blk-not-found');
    if (prev.failed) return reject('bad-prevblk');
    const contextual = contextualCheckBlockHeader(header, prev, this.params, this.options.now());
    if (!contextual.ok) return contextual;
    if (!prev.isValid(BlockStatus.VALID_SCRIPTS)) {
      for (const failed of this.failedBlocks) {
        if (prev.ancestor(failed.height) === failed) {
          for (let walk: BlockIndexEntry | undefined = prev; walk && walk !== failed; walk = walk.prev) {
            walk.status |= BlockStatus.FAILED_CHILD;
            walk.dirty = true;
          }
          return reject('bad-prevblk');
        }
      }
    }
    return { entry: this.tree.addHeader(header, prev) };
  }

  /**
   * Core's ProcessNewBlockHeaders: a headers message from a peer, accepted in order until
   * the first that fails; one flush for the lot (a peer sends up to 2,000 at a time).
   */
  processHeaders(headers: readonly BlockHeader[]): Promise<{ entries: BlockIndexEntry[]; rejection?: Rejection; failedIndex?: number }> {
    return this.exclusive(() => {
      const entries: BlockIndexEntry[] = [];
      try {
        for (let i = 0; i < headers.length; i++) {
          const result = this.acceptHeader(headers[i]!);
          if ('ok' in result) return { entries, rejection: result, failedIndex: i };
          entries.push(result.entry);
        }
        return { entries };
      } finally {
        if (entries.length > 0) this.flush('periodic');
      }
    });
  }

  /** submitheader / headers from peers: returns the rejection or the accepted entry. */
  processHeader(header: BlockHeader): Promise<{ entry: BlockIndexEntry } | Rejection> {
    return this.exclusive(() => {
      const result = this.acceptHeader(header);
      // Front-ends read the stored index: make the new header visible to them.
      this.flush('periodic');
      return result;
    });
  }

  /**
   * Core's ProcessNewBlock with force_processing: context-free checks, store the block,
   * then activate the best chain. `bytes` are the block's serialization when the caller
   * already has them (saves re-serializing).
   */
  processBlock(block: Block, bytes?: Uint8Array, options: { forceProcessing?: boolean } = {}): Promise<ProcessBlockResult> {
    return this.exclusive(async () => {
      const hash = block.header.hashHex;
      let checked: Verdict | undefined;
      this.checkedListener = (h, verdict) => {
        if (h === hash) checked = verdict;
      };
      try {
        const accepted = this.acceptBlock(block, bytes, options.forceProcessing ?? true);
        if (!accepted.ok) {
          this.options.events?.blockChecked?.(hash, accepted.rejection);
          return { accepted: false, newBlock: false, checked: accepted.rejection };
        }
        await this.activateBestChainLocked();
        return { accepted: true, newBlock: accepted.newBlock, checked };
      } finally {
        this.checkedListener = undefined;
      }
    });
  }

  private checkedListener: ((hash: string, verdict: Verdict) => void) | undefined;

  private emitChecked(entry: BlockIndexEntry, verdict: Verdict): void {
    this.checkedListener?.(entry.hashHex, verdict);
    this.options.events?.blockChecked?.(entry.hashHex, verdict);
  }

  /**
   * Imports one block read from a block file (-loadblock, -reindex): Core's AcceptBlock
   * without activating. `stored` is its position when it already lives in our own block
   * files (reindex), so it is indexed in place rather than written again.
   */
  importBlock(block: Block, bytes: Uint8Array, stored?: BlockDataPosition): Promise<Verdict> {
    return this.exclusive(() => {
      const result = this.acceptBlock(block, bytes, true, stored);
      return result.ok ? VALID : result.rejection;
    });
  }

  /**
   * A block from a peer, stored without activating the chain (the caller activates once for
   * a batch, so initial sync connects blocks pipelined as an import does). A rejection is
   * reported through blockChecked as ProcessNewBlock's would be.
   */
  storeBlock(block: Block, bytes: Uint8Array | undefined, forceProcessing: boolean): Promise<{ accepted: boolean; newBlock: boolean }> {
    return this.exclusive(() => {
      const result = this.acceptBlock(block, bytes, forceProcessing);
      if (!result.ok) {
        this.options.events?.blockChecked?.(block.header.hashHex, result.rejection);
        return { accepted: false, newBlock: false };
      }
      return { accepted: true, newBlock: result.newBlock };
    });
  }

  /** See ChainStore.syncBlocksInBackground. */
  syncStoredBlocksInBackground(): void {
    this.store.syncBlocksInBackground();
  }

  /** Whether the block index knows this hash (with or without data). */
  knows(hash: Uint8Array): boolean {
    return this.tree.getByHash(hash) !== undefined;
  }

  /** Core's CheckBlock + AcceptBlock. */
  private acceptBlock(
    block: Block,
    bytes: Uint8Array | undefined,
    requested: boolean,
    stored?: BlockDataPosition,
  ): { ok: true; newBlock: boolean; entry: BlockIndexEntry } | { ok: false; rejection: Rejection } {
    const context = checkBlock(block, this.params);
    if (!context.ok) return { ok: false, rejection: context };
    const accepted = this.acceptHeader(block.header);
    if ('ok' in accepted) return { ok: false, rejection: accepted };
    const entry = accepted.entry;
    if (entry.hasData) return { ok: true, newBlock: false, entry };
    if (!requested) {
      const tip = this.chain.tip;
      if (entry.txCount !== 0) return { ok: true, newBlock: false, entry };
      if (tip && entry.chainWork < tip.chainWork) return { ok: true, newBlock: false, entry };
      if (entry.height > this.chain.height + MIN_BLOCKS_TO_KEEP) return { ok: true, newBlock: false, entry };
    }
    const contextual = contextualCheckBlock(block, entry.prev, this.params);
    if (!contextual.ok) {
      if (!contextual.mutated) {
        entry.status |= BlockStatus.FAILED_VALID;
        entry.dirty = true;
        this.failedBlocks.add(entry);
        this.tree.candidates.delete(entry);
      }
      return { ok: false, rejection: contextual };
    }
    const position = stored ?? this.store.writeBlock(bytes ?? serializeBlock(block), entry.height);
    this.receivedTransactions(block, entry, position);
    if (stored === undefined && isParsed(block)) this.holdBlock(entry, block);
    else this.rememberHashes(entry, block);
    return { ok: true, newBlock: true, entry };
  }

  /**
   * Keeps a block that arrived parsed (from a peer) for its connect, within a byte budget,
   * oldest out first: reading it back from disk would parse and hash it a second time.
   */
  private holdBlock(entry: BlockIndexEntry, block: ParsedBlock): void {
    this.heldBlocks.set(entry, block);
    this.heldBlockBytes += block.size;
    while (this.heldBlockBytes > HELD_BLOCKS_MAX_BYTES) {
      const [oldest, held] = this.heldBlocks.entries().next().value!;
      this.heldBlocks.delete(oldest);
      this.heldBlockBytes -= held.size;
    }
  }

  /** Core's ReceivedBlockTransactions. */
  private receivedTransactions(block: Block, entry: BlockIndexEntry, position: BlockDataPosition): void {
    entry.txCount = block.transactions.length;
    entry.data = position;
    entry.status |= BlockStatus.HAVE_DATA;
    if (entry.height >= this.params.segwitHeight) entry.status |= BlockStatus.OPT_WITNESS;
    entry.status = raiseValidity(entry.status, BlockStatus.VALID_TRANSACTIONS);
    entry.dirty = true;
    this.tree.linkReceivedBlock(entry, (e) => this.tryAddCandidate(e));
  }

  private tryAddCandidate(entry: BlockIndexEntry): void {
    const tip = this.chain.tip;
    if (!tip || !betterCandidate(tip, entry)) this.tree.candidates.add(entry);
  }

  private rememberHashes(entry: BlockIndexEntry, block: Block): void {
    const count = block.transactions.length;
    const txids = new Uint8Array(32 * count);
    let wtxids: Uint8Array | null = new Uint8Array(32 * count);
    for (let i = 0; i < count; i++) {
      const { txid, wtxid } = block.transactions[i]!.computedHashes();
      if (!txid) return;
      txids.set(txid, 32 * i);
      if (wtxids && wtxid) wtxids.set(wtxid, 32 * i);
      else wtxids = null;
    }
    this.acceptedHashes.set(entry, { txids, wtxids });
    this.acceptedHashBytes += txids.length + (wtxids?.length ?? 0);
    for (const [oldest, hashes] of this.acceptedHashes) {
      if (this.acceptedHashBytes <= ACCEPTED_HASHES_MAX_BYTES) break;
      this.forgetHashes(oldest, hashes);
    }
  }

  private forgetHashes(entry: BlockIndexEntry, hashes: { txids: Uint8Array; wtxids: Uint8Array | null }): void {
    this.acceptedHashes.delete(entry);
    this.acceptedHashBytes -= hashes.txids.length + (hashes.wtxids?.length ?? 0);
  }

  /** The block to connect, with the hashes its acceptance computed (see acceptedHashes). */
  private readBlockToConnect(entry: BlockIndexEntry): ParsedBlock {
    const held = this.heldBlocks.get(entry);
    if (held) {
      this.heldBlocks.delete(entry);
      this.heldBlockBytes -= held.size;
      const hashes = this.acceptedHashes.get(entry);
      if (hashes) this.forgetHashes(entry, hashes);
      return held;
    }
    const block = this.readBlock(entry);
    const hashes = this.acceptedHashes.get(entry);
    if (!hashes) return block;
    this.forgetHashes(entry, hashes);
    const txs = block.transactions;
    if (hashes.txids.length !== 32 * txs.length) return block;
    for (let i = 0; i < txs.length; i++) {
      txs[i]!.adoptHashes(hashes.txids.subarray(32 * i, 32 * i + 32), hashes.wtxids?.subarray(32 * i, 32 * i + 32));
    }
    return block;
  }

  readBlock(entry: BlockIndexEntry): ParsedBlock {
    if (!entry.data) throw new ChainSystemError(`block ${entry.hashHex} has no data on disk`);
    return parseBlock(this.store.readBlock(entry.data));
  }

  readBlockBytes(entry: BlockIndexEntry): Uint8Array {
    if (!entry.data) throw new ChainSystemError(`block ${entry.hashHex} has no data on disk`);
    return this.store.readBlock(entry.data);
  }

  /** Undo data of a connected (or once connected) block. */
  readUndo(entry: BlockIndexEntry): BlockUndo | undefined {
    const pending = this.pendingUndo.get(entry);
    return pending ? (decodeBlockUndo(pending) as BlockUndo) : this.store.readUndo(entry.hash);
  }

  // ---------------------------------------------------------------- best chain

  /** Core's FindMostWorkChain: the best candidate whose path to the active chain is fully usable. */
  private findMostWorkChain(): BlockIndexEntry | undefined {
    for (;;) {
      const best = this.tree.bestCandidate();
      if (!best) return undefined;
      let test: BlockIndexEntry | undefined = best;
      let invalidAncestor = false;
      while (test && !this.chain.contains(test)) {
        const failedChain = test.failed;
        const missingData = !test.hasData;
        if (failedChain || missingData) {
          if (failedChain && (!this.tree.bestInvalid || best.chainWork > this.tree.bestInvalid.chainWork)) this.tree.bestInvalid = best;
          for (let failed: BlockIndexEntry = best; failed !== test; failed = failed.prev!) {
            if (failedChain) {
              failed.status |= BlockStatus.FAILED_CHILD;
              failed.dirty = true;
            } else {
              this.tree.markUnlinked(failed);
            }
            this.tree.candidates.delete(failed);
          }
          this.tree.candidates.delete(test);
          invalidAncestor = true;
          break;
        }
        test = test.prev;
      }
      if (!invalidAncestor) return best;
    }
  }

  /** Core's PruneBlockIndexCandidates: drop candidates worse than the tip. */
  private pruneCandidates(): void {
    const tip = this.chain.tip;
    if (!tip) return;
    for (const c of this.tree.candidates) if (betterCandidate(tip, c)) this.tree.candidates.delete(c);
  }

  activateBestChain(): Promise<void> {
    return this.exclusive(() => this.activateBestChainLocked());
  }

  private async activateBestChainLocked(): Promise<void> {
    let mostWork: BlockIndexEntry | undefined;
    for (;;) {
      if (this.interrupted) break;
      mostWork ??= this.findMostWorkChain();
      if (!mostWork || mostWork === this.chain.tip) break;
      const tipBefore = this.chain.tip;
      const invalidFound = await this.activateBestChainStep(mostWork);
      if (invalidFound) mostWork = undefined;
      const tip = this.chain.tip;
      if (tip && tip !== tipBefore) {
        const ibd = this.isInitialBlockDownload();
        this.options.events?.updatedBlockTip?.(tip, ibd);
        this.options.events?.blockTip?.(tip, ibd);
      }
      if (tip && this.options.stopAtHeight && tip.height >= this.options.stopAtHeight) {
        this.flush('always');
        this.options.events?.stopHeightReached?.(tip.height);
        break;
      }
    }
    // Caught up with every header we know (the end of a sync, or of a burst of it): make the
    // tip durable and visible now rather than at the next periodic flush. An import reads
    // headers and blocks together, so it would be "caught up" after every block: it flushes
    // on its own schedule.
    const tip = this.chain.tip;
    this.flush(!this.importing && tip !== undefined && tip === this.tree.bestHeader && tip !== this.notifiedTip ? 'always' : 'periodic');
  }

  /** The periodic flush of initial sync, for a node whose sync went quiet (Core's scheduler does the same). */
  flushIfDue(): Promise<void> {
    return this.exclusive(() => this.flush('periodic'));
  }

  /** Core's ActivateBestChainStep, then MaybeUpdateMempoolForReorg when it disconnected blocks. */
  private async activateBestChainStep(mostWork: BlockIndexEntry): Promise<boolean> {
    const invalidFound = await this.connectTowards(mostWork);
    await this.mempoolAfterReorg();
    this.checkForkWarningConditions();
    return invalidFound;
  }

  /**
   * Core's CheckForkWarningConditions: past initial block download, an invalid chain with
   * more than six blocks' work beyond the tip is warned of, and the warning is withdrawn
   * once that no longer holds.
   */
  private checkForkWarningConditions(): void {
    const tip = this.chain.tip;
    if (!tip || this.isInitialBlockDownload()) return;
    const best = this.tree.bestInvalid;
    const ahead = best !== undefined && best.chainWork > tip.chainWork + blockProof(tip.header.bits) * 6n;
    if (ahead) this.options.log(LARGE_WORK_INVALID_CHAIN_WARNING);
    this.options.events?.warning?.('large-work-invalid-chain', ahead ? LARGE_WORK_INVALID_CHAIN_WARNING : undefined);
  }

  /** Offers the disconnected blocks' transactions back to the mempool once the new chain is connected. */
  private async mempoolAfterReorg(): Promise<void> {
    if (!this.disconnectedSinceReorg) return;
    this.disconnectedSinceReorg = false;
    await this.mempoolSync?.reorgFinished();
  }

  /** Disconnect to the fork, then connect towards `mostWork`. Returns whether an invalid block was found. */
  private async connectTowards(mostWork: BlockIndexEntry): Promise<boolean> {
    const oldTip = this.chain.tip;
    const fork = this.chain.findFork(mostWork);
    while (this.chain.tip && this.chain.tip !== fork) this.disconnectTip();
    let height = fork ? fork.height : -1;
    while (height !== mostWork.height) {
      // A shutdown stops connecting mid-step: the step made no progress, and trying again would
      // spin here for ever while the shutdown waits for this step to end.
      if (this.interrupted) return false;
      const target = Math.min(height + 32, mostWork.height);
      const toConnect: BlockIndexEntry[] = [];
      for (let walk = mostWork.ancestor(target); walk && walk.height !== height; walk = walk.prev) toConnect.push(walk);
      height = target;
      toConnect.reverse();
      const verdict = this.isInitialBlockDownload() ? await this.connectPipelined(toConnect) : await this.connectEach(toConnect);
      if (verdict === 'invalid') {
        this.invalidChainFound(toConnect[toConnect.length - 1]!);
        return true;
      }
      if (verdict === 'mutated') return true;
      if (!oldTip || this.chain.tip!.chainWork > oldTip.chainWork) {
        // Progress made: give the caller a chance to re-evaluate (Core releases cs_main here).
        return false;
      }
      // connectEach stops at the first block that adds work, which may be short of `target`:
      // the next step starts from the tip, not from the step's end.
      height = this.chain.tip!.height;
    }
    return false;
  }

  /** Connects `entries` one at a time, stopping after the first that makes progress (Core's step). */
  private async connectEach(entries: readonly BlockIndexEntry[]): Promise<'progress' | 'invalid' | 'mutated'> {
    const oldWork = this.chain.tip?.chainWork ?? -1n;
    for (const entry of entries) {
      const verdict = await this.connectTip(entry);
      if (!verdict.ok) return verdict.mutated ? 'mutated' : 'invalid';
      this.pruneCandidates();
      if (this.chain.tip!.chainWork > oldWork) return 'progress';
    }
    return 'progress';
  }

  /**
   * During initial sync, connects all of `entries` (one step of at most 32 blocks) with the
   * next block's rules applied while the worker threads still check the scripts of the one
   * before, on a view layered over that block's view. A block only becomes the tip, in
   * order, once its own scripts passed; when one fails, the block prepared after it is
   * dropped unconnected. So the coordinator's work (reading, UTXO rules, undo, commits)
   * overlaps the signature checks instead of alternating with them.
   */
  private async connectPipelined(entries: readonly BlockIndexEntry[]): Promise<'progress' | 'invalid' | 'mutated'> {
    /** Prepared blocks in chain order, each view layered over the one before it. */
    const pending: PreparedConnect[] = [];
    /** Finishes the oldest prepared block; the next one then reads through the coins it merged into. */
    const finishOldest = async (): Promise<'invalid' | 'mutated' | null> => {
      const verdict = await this.finishConnect(pending.shift()!);
      if (!verdict.ok) return verdict.mutated ? 'mutated' : 'invalid';
      pending[0]?.view.rebase(this.coins);
      return null;
    };
    try {
      return await this.connectPrepared(entries, pending, finishOldest);
    } finally {
      // Once per step, not per block: the walk covers every candidate (after an import, all
      // of them), and nothing reads the candidates until the step is over.
      this.pruneCandidates();
    }
  }

  private async connectPrepared(
    entries: readonly BlockIndexEntry[],
    pending: PreparedConnect[],
    finishOldest: () => Promise<'invalid' | 'mutated' | null>,
  ): Promise<'progress' | 'invalid' | 'mutated'> {
    for (const entry of entries) {
      await eventLoopTurn();
      if (this.interrupted) break;
      const last = pending[pending.length - 1];
      const prepared = this.prepareConnect(entry, last ? last.view : this.coins);
      if ('rejection' in prepared) {
        // Blocks before it connect first (or fail first); then this one is invalid.
        while (pending.length > 0) {
          const failed = await finishOldest();
          if (failed) return failed;
        }
        const rejection = this.connectFailed(entry, prepared.rejection);
        return rejection.mutated ? 'mutated' : 'invalid';
      }
      pending.push(prepared);
      if (pending.length > PIPELINE_DEPTH) {
        const failed = await finishOldest();
        if (failed) return failed;
      }
    }
    while (pending.length > 0) {
      const failed = await finishOldest();
      if (failed) return failed;
    }
    return 'progress';
  }

  private invalidChainFound(entry: BlockIndexEntry): void {
    if (!this.tree.bestInvalid || entry.chainWork > this.tree.bestInvalid.chainWork) this.tree.bestInvalid = entry;
    this.options.log(`InvalidChainFound: invalid block=${entry.hashHex} height=${entry.height}`);
    this.checkForkWarningConditions();
  }

  /** Core's InvalidBlockFound: a block failed validation for a consensus reason. */
  private invalidBlockFound(entry: BlockIndexEntry, verdict: Rejection): void {
    if (verdict.mutated) return;
    entry.status |= BlockStatus.FAILED_VALID;
    entry.dirty = true;
    this.failedBlocks.add(entry);
    this.tree.candidates.delete(entry);
    this.invalidChainFound(entry);
  }

  /**
   * Why scripts must be checked for `entry`, or null when assumevalid lets them be skipped
   * (Core's assumevalid rule in ConnectBlock, with its reasons word for word).
   */
  private scriptCheckReason(entry: BlockIndexEntry): string | null {
    const assumeValid = this.options.assumeValid;
    if (!assumeValid) return 'assumevalid=0 (always verify)';
    const assumed = this.tree.getByHash(assumeValid);
    if (!assumed) return 'assumevalid hash not in headers';
    if (assumed.ancestor(entry.height) !== entry) return entry.height > assumed.height ? 'block height above assumevalid height' : 'block not in assumevalid chain';
    const bestHeader = this.tree.bestHeader;
    if (!bestHeader || bestHeader.ancestor(entry.height) !== entry) return 'block not in best header chain';
    if (bestHeader.chainWork < this.params.minimumChainWork) return 'best header chainwork below minimumchainwork';
    const buried = blockProofEquivalentTime(bestHeader.chainWork, entry.chainWork, bestHeader.bits, this.params);
    if (buried <= BigInt(ASSUMEVALID_MIN_BURY_SECONDS)) return 'block too recent relative to best header';
    return null;
  }

  /**
   * Whether scripts must be checked for `entry`. Each change of the reason is logged as Core
   * v31 logs it, so debug.log says which blocks had their scripts checked (benchmarks read it).
   */
  private shouldCheckScripts(entry: BlockIndexEntry): boolean {
    // Genesis connects no transactions: Core returns before deciding, so nothing is logged for it.
    if (entry.height === 0) return true;
    const reason = this.scriptCheckReason(entry);
    if (reason !== this.scriptCheckReasonLogged) {
      this.scriptCheckReasonLogged = reason;
      this.options.log(
        reason === null
          ? `Disabling script verification at block #${entry.height} (${entry.hashHex}).`
          : `Enabling script verification at block #${entry.height} (${entry.hashHex}): ${reason}.`,
      );
    }
    return reason !== null;
  }

  /** Core's ConnectTip. */
  private async connectTip(entry: BlockIndexEntry): Promise<Verdict> {
    const prepared = this.prepareConnect(entry, this.coins);
    return 'rejection' in prepared ? this.connectFailed(entry, prepared.rejection) : this.finishConnect(prepared);
  }

  /**
   * The first half of ConnectTip: every rule but the scripts, applied to a view over `base`,
   * with the script checks dispatched to the worker pool and not awaited. `base` is the
   * chainstate's coins, or the view of the block before, still being checked (pipelining).
   */
  private prepareConnect(entry: BlockIndexEntry, base: CoinsSource): PreparedConnect | { rejection: Rejection } {
    const block = this.readBlockToConnect(entry);
    const view = new CoinsCache(base);
    const outcome = connectBlockTransactions(block, entry, view, this.params, this.shouldCheckScripts(entry));
    if (!outcome.ok) return { rejection: reject(outcome.reason, outcome.debug) };
    const jobs = outcome.scriptJobs;
    // Before the call: the script-execution cache answers synchronously inside it.
    const started = performance.now();
    const scripts = jobs && jobs.length > 0 ? this.options.scripts.verify(jobs) : null;
    // A prepared block may be dropped (its predecessor failed) with its checks still running.
    scripts?.catch(() => {});
    return { entry, block, view, undo: outcome.undo, jobs, scripts, started };
  }

  private connectFailed(entry: BlockIndexEntry, rejection: Rejection): Rejection {
    this.emitChecked(entry, rejection);
    this.invalidBlockFound(entry, rejection);
    return rejection;
  }

  /** The second half of ConnectTip: the script verdict, then the block becomes the tip. */
  private async finishConnect(prepared: PreparedConnect): Promise<Verdict> {
    const { entry, block, view, jobs } = prepared;
    if (prepared.scripts && jobs) {
      const scripts = await prepared.scripts;
      if (scripts.ok) this.benchVerify(block, performance.now() - prepared.started, scripts.work);
      if (!scripts.ok) {
        if (!scripts.consensus) throw new ChainSystemError(`script checks for block ${entry.hashHex} did not complete: ${scripts.detail}`);
        const job = jobs[scripts.txIndex]!;
        const input = job.tx.inputs[scripts.inputIndex]!;
        return this.connectFailed(
          entry,
          reject(
            `block-script-verify-flag-failed (${SCRIPT_ERROR_MESSAGES[scripts.error]})`,
            `input ${scripts.inputIndex} of ${job.tx.txidHex} (wtxid ${job.tx.wtxidHex}), spending ${hashToHex(input.prevout.txid)}:${input.prevout.vout}`,
          ),
        );
      }
    }
    view.mergeInto(this.coins);
    entry.status = raiseValidity(entry.status, BlockStatus.VALID_SCRIPTS) | BlockStatus.HAVE_UNDO;
    entry.dirty = true;
    this.pendingUndo.set(entry, encodeBlockUndo(prepared.undo));
    this.chain.setTip(entry);
    this.logUpdateTip(entry);
    this.pendingActive.set(entry.height, entry.hash);
    this.emitChecked(entry, VALID);
    this.mempoolSync?.blockConnected(block, entry);
    this.flush('if-needed');
    if (this.loading) {
      this.connectedDuringLoad.blocks++;
      this.connectedDuringLoad.transactions += block.transactions.length;
    }
    this.options.events?.blockConnected?.(block, entry);
    return VALID;
  }

  /**
   * Core's UpdateTip line: every new tip, connected or disconnected to. Past initial block
   * download, version bits no known deployment uses that have locked in are named on it,
   * and those active become the node's warning (Core never withdraws it).
   */
  private logUpdateTip(tip: BlockIndexEntry): void {
    const lockedIn: string[] = [];
    if (!this.isInitialBlockDownload()) {
      for (const { bit, active } of this.versionBits.unknownActivations(tip, this.params)) {
        const warning = `Unknown new rules activated (versionbit ${bit})`;
        if (active) this.options.events?.warning?.('unknown-new-rules-activated', warning);
        else lockedIn.push(warning);
      }
    }
    const progress = guessVerificationProgress(this.params.chainTxData, tip, this.tree.bestHeader?.height ?? tip.height, this.params.targetSpacing, this.now());
    const date = new Date(tip.time * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const log2Work = Math.log2(Number(tip.chainWork));
    const cacheMiB = this.coins.memoryUsage / (1 << 20);
    this.options.log(
      `UpdateTip: new best=${tip.hashHex} height=${tip.height} version=0x${(tip.version >>> 0).toString(16).padStart(8, '0')} log2_work=${log2Work.toFixed(6)} tx=${tip.chainTxCount} date='${date}' progress=${progress.toFixed(6)} cache=${cacheMiB.toFixed(1)}MiB(${this.coins.size}txo)${lockedIn.length > 0 ? ` warning='${lockedIn.join(', ')}'` : ''}`,
    );
  }

  /** Core's "- Verify N txins" bench line, then what the script and signature caches saved. */
  private benchVerify(block: Block, milliseconds: number, work: ScriptCheckWork | undefined): void {
    const bench = this.options.bench;
    if (!bench?.enabled()) return;
    let inputs = 0;
    for (const tx of block.transactions) if (!tx.isCoinbase()) inputs += tx.inputs.length;
    bench.log(`    - Verify ${inputs} txins: ${milliseconds.toFixed(2)}ms (${(inputs ? milliseconds / inputs : 0).toFixed(3)}ms/txin)`);
    if (work) {
      bench.log(
        `    - Script checks: ${work.scriptCacheHits} of ${work.transactions} transactions from the script execution cache, ` +
          `${work.signaturesVerified} signatures verified, ${work.signatureCacheHits} from the signature cache`,
      );
    }
  }

  /** Core's DisconnectTip. */
  private disconnectTip(): void {
    const entry = this.chain.tip;
    if (!entry || !entry.prev) throw new ChainSystemError('cannot disconnect the genesis block');
    const block = this.readBlock(entry);
    const undo = this.readUndo(entry);
    if (!undo) throw new ChainSystemError(`no undo data for block ${entry.hashHex}`);
    const view = new CoinsCache(this.coins);
    const outcome = disconnectBlockTransactions(block, entry, undo, view);
    if (outcome === 'failed') throw new ChainSystemError(`undo data of block ${entry.hashHex} does not match the block`);
    view.mergeInto(this.coins);
    this.chain.setTip(entry.prev);
    this.logUpdateTip(entry.prev);
    this.pendingActive.set(entry.height, null);
    this.mempoolSync?.blockDisconnected(block, entry);
    this.disconnectedSinceReorg = true;
    this.flush('if-needed');
    this.options.events?.blockDisconnected?.(block, entry);
  }

  // ---------------------------------------------------------------- persistence

  isInitialBlockDownload(): boolean {
    if (this.ibdLatchedOff) return false;
    if (this.importing) return true;
    const tip = this.chain.tip;
    if (!tip) return true;
    if (tip.chainWork < this.params.minimumChainWork) return true;
    if (tip.time < this.options.now() - (this.options.maxTipAge ?? this.params.maxTipAge)) return true;
    this.ibdLatchedOff = true;
    return false;
  }

  /**
   * Writes dirty index entries, the coins delta, undo data, active-chain changes and the
   * tip in one atomic commit. Outside initial sync every block is flushed as it connects,
   * so a crash loses nothing; during sync the coins cache is flushed when it outgrows
   * -dbcache or periodically.
   */
  flush(mode: 'always' | 'if-needed' | 'periodic'): void {
    const cacheFull = this.coins.memoryUsage > this.options.coinsCacheBytes;
    const due = Date.now() - this.lastFlush > PERIODIC_FLUSH_MS;
    const pruneFiles = [...this.filesToAutoPrune(), ...this.manualPruneFiles];
    this.manualPruneFiles = [];
    const needed = mode === 'always' || cacheFull || !this.isInitialBlockDownload() || (mode === 'periodic' && due) || pruneFiles.length > 0;
    if (!needed) return;
    const undoDeletes = this.markPruned(pruneFiles);
    const indexEntries = [];
    for (const entry of this.tree.entries()) {
      if (!entry.dirty) continue;
      indexEntries.push({ hash: entry.hash, entry: toStored(entry) });
    }
    const undoPuts = [...this.pendingUndo].map(([entry, undo]) => ({ hash: entry.hash, undo }));
    const activeChanges = [...this.pendingActive].map(([height, hash]) => ({ height, hash }));
    const tip = this.chain.tip;
    const mempool = this.mempoolSync?.takeChanges();
    this.store.commit({
      indexEntries,
      ...(mempool ? { mempool } : {}),
      coins: this.coins.takeDelta(cacheFull),
      undoPuts,
      undoDeletes,
      activeChanges,
      ...(tip ? { tip: tip.hash } : {}),
      ...(pruneFiles.length > 0 ? { havePruned: true } : {}),
      ...(this.tree.bestHeader ? { bestHeader: this.tree.bestHeader.hash } : {}),
    });
    for (const entry of this.tree.entries()) entry.dirty = false;
    this.pendingUndo.clear();
    this.pendingActive.clear();
    this.lastFlush = Date.now();
    if (tip && tip !== this.notifiedTip) {
      this.notifiedTip = tip;
      this.options.events?.tipChanged?.(tip);
    }
    // Only now that no committed entry refers to them can the files go.
    if (pruneFiles.length > 0) {
      this.store.deleteBlockFiles(pruneFiles);
      this.havePruned = true;
      this.options.log(`Prune: deleted blk files ${pruneFiles.join(', ')}`);
    }
  }

  // ---------------------------------------------------------------- pruning

  private havePruned: boolean | undefined;
  /** Files pruneblockchain chose, pruned by the next flush. */
  private manualPruneFiles: number[] = [];
  /** Core's m_prune_locks: per index that allows pruning, the height of the block it has reached. */
  private readonly pruneLocks = new Map<string, number>();

  /** Core's UpdatePruneLock: an index's blocks from `heightFirst` up stay (with PRUNE_LOCK_BUFFER below). */
  updatePruneLock(name: string, heightFirst: number): void {
    this.pruneLocks.set(name, heightFirst);
  }

  /** The highest block pruning may take, `lastPrune` limited by the indexes' locks (Core's FlushStateToDisk). */
  private pruneLockLimit(lastPrune: number): number {
    let limit = lastPrune;
    for (const heightFirst of this.pruneLocks.values()) limit = Math.max(1, Math.min(limit, heightFirst - PRUNE_LOCK_BUFFER - 1));
    return limit;
  }

  get pruneMode(): PruneMode {
    return this.options.prune ?? 'off';
  }

  /** Core's FindFilesToPrune: oldest files first while usage is over the target, never the last 288 blocks. */
  private filesToAutoPrune(): number[] {
    const mode = this.pruneMode;
    if (mode === 'off' || mode === 'manual') return [];
    const height = this.chain.height;
    if (height <= this.params.pruneAfterHeight) return [];
    const lastPrunable = Math.min(height - MIN_BLOCKS_TO_KEEP, this.pruneLockLimit(height));
    const files = this.store.blockFiles();
    let usage = files.reduce((sum, f) => sum + f.size, 0);
    if (usage + PRUNE_BUFFER_BYTES < mode.targetBytes) return [];
    const chosen: number[] = [];
    for (const f of files) {
      if (usage + PRUNE_BUFFER_BYTES < mode.targetBytes) break;
      if (f.size === 0 || f.file === this.store.currentBlockFile || f.heightLast > lastPrunable) continue;
      chosen.push(f.file);
      usage -= f.size;
    }
    return chosen;
  }

  /** Core's PruneOneBlockFile for each file: its blocks lose their data and undo. Returns the undo keys to delete. */
  private markPruned(files: readonly number[]): Uint8Array[] {
    if (files.length === 0) return [];
    const set = new Set(files);
    const undoDeletes: Uint8Array[] = [];
    for (const entry of this.tree.entries()) {
      if (!entry.data || !set.has(entry.data.file)) continue;
      entry.status &= ~(BlockStatus.HAVE_DATA | BlockStatus.HAVE_UNDO);
      entry.data = undefined;
      entry.dirty = true;
      this.pendingUndo.delete(entry);
      undoDeletes.push(entry.hash);
    }
    return undoDeletes;
  }

  /**
   * pruneblockchain: prunes every block file whose blocks are all at or below `height`
   * (clamped to keep the last 288 blocks). Returns Core's GetPruneHeight afterwards.
   */
  pruneBlockchain(height: number): Promise<number | undefined> {
    return this.exclusive(() => {
      const files = this.store
        .blockFiles()
        .filter((f) => f.size > 0 && f.file !== this.store.currentBlockFile && f.heightLast <= this.pruneLockLimit(height))
        .map((f) => f.file);
      this.manualPruneFiles = files;
      this.flush('always');
      return this.pruneHeight();
    });
  }

  /** Core's GetPruneHeight: the highest active-chain block whose data was pruned, if any. */
  pruneHeight(): number | undefined {
    this.havePruned ??= this.store.readHavePruned();
    if (!this.havePruned) return undefined;
    const tip = this.chain.tip;
    if (!tip) return undefined;
    if (!tip.hasData) return tip.height;
    let first = tip;
    while (first.prev && first.prev.hasData) first = first.prev;
    return first.height > 0 ? first.height - 1 : undefined;
  }

  // ---------------------------------------------------------------- chain management RPCs

  /** Core's InvalidateBlock, marking every descendant FAILED_CHILD as well. */
  invalidateBlock(entry: BlockIndexEntry): Promise<void> {
    return this.exclusive(async () => {
      let toMarkFailed = entry;
      let disconnected = 0;
      while (this.chain.contains(entry)) {
        const walkTip = this.chain.tip!;
        this.disconnectTip();
        // Core updates the mempool after each block it invalidates (entries re-added now get
        // this height), and stops re-adding after ten: a deep invalidation would be futile.
        this.disconnectedSinceReorg = false;
        await this.mempoolSync?.reorgFinished(++disconnected <= 10);
        walkTip.status |= BlockStatus.FAILED_VALID;
        walkTip.dirty = true;
        this.tree.candidates.delete(walkTip);
        if (walkTip.prev) this.tree.candidates.add(walkTip.prev);
        if (walkTip === toMarkFailed.prev && (toMarkFailed.status & BlockStatus.FAILED_VALID) !== 0) {
          toMarkFailed.status = (toMarkFailed.status & ~BlockStatus.FAILED_VALID) | BlockStatus.FAILED_CHILD;
          toMarkFailed.dirty = true;
        }
        toMarkFailed = walkTip;
      }
      toMarkFailed.status |= BlockStatus.FAILED_VALID;
      toMarkFailed.dirty = true;
      this.tree.candidates.delete(toMarkFailed);
      this.failedBlocks.add(toMarkFailed);
      for (const descendant of this.tree.descendants(toMarkFailed)) {
        if ((descendant.status & BlockStatus.FAILED_MASK) === 0) {
          descendant.status |= BlockStatus.FAILED_CHILD;
          descendant.dirty = true;
        }
        this.tree.candidates.delete(descendant);
      }
      const tip = this.chain.tip;
      for (const candidate of this.tree.entries()) {
        if (candidate.isValid(BlockStatus.VALID_TRANSACTIONS) && candidate.chainTxCount > 0 && (!tip || !betterCandidate(tip, candidate))) {
          this.tree.candidates.add(candidate);
        }
      }
      this.invalidChainFound(toMarkFailed);
      // Core tells the new tip to blockTip's listeners when the active chain lost blocks.
      if (disconnected > 0 && this.chain.tip) this.options.events?.blockTip?.(this.chain.tip, this.isInitialBlockDownload());
      await this.activateBestChainLocked();
      this.flush('always');
    });
  }

  /** Core's ResetBlockFailureFlags followed by ActivateBestChain. */
  reconsiderBlock(entry: BlockIndexEntry): Promise<void> {
    return this.exclusive(async () => {
      const tip = this.chain.tip;
      for (const other of this.tree.entries()) {
        if (!other.isValid(BlockStatus.VALID_TREE) && other.ancestor(entry.height) === entry) {
          other.status &= ~BlockStatus.FAILED_MASK;
          other.dirty = true;
          if (other.isValid(BlockStatus.VALID_TRANSACTIONS) && other.chainTxCount > 0 && tip && betterCandidate(other, tip)) {
            this.tree.candidates.add(other);
          }
          if (other === this.tree.bestInvalid) this.tree.bestInvalid = undefined;
          this.failedBlocks.delete(other);
        }
      }
      for (let walk: BlockIndexEntry | undefined = entry; walk; walk = walk.prev) {
        if (walk.failed) {
          walk.status &= ~BlockStatus.FAILED_MASK;
          walk.dirty = true;
          this.failedBlocks.delete(walk);
        }
      }
      await this.activateBestChainLocked();
      this.flush('always');
    });
  }

  /** Core's PreciousBlock: treat `entry` as if it had been received before its equal-work rivals. */
  preciousBlock(entry: BlockIndexEntry): Promise<void> {
    return this.exclusive(async () => {
      const tip = this.chain.tip;
      if (!tip || entry.chainWork < tip.chainWork) return;
      if (tip.chainWork > this.lastPreciousChainWork) this.reverseSequenceId = -1;
      this.lastPreciousChainWork = tip.chainWork;
      this.tree.candidates.delete(entry);
      entry.sequenceId = this.reverseSequenceId;
      if (this.reverseSequenceId > -0x80000000) this.reverseSequenceId--;
      if (entry.isValid(BlockStatus.VALID_TRANSACTIONS) && entry.chainTxCount > 0) {
        this.tree.candidates.add(entry);
        this.pruneCandidates();
      }
      await this.activateBestChainLocked();
    });
  }

  chainTips(): ChainTip[] {
    const active = this.chain.tip;
    return this.tree
      .tips(active)
      .sort((a, b) => b.height - a.height)
      .map((entry) => {
        const isActive = entry === active;
        const fork = this.chain.findFork(entry);
        return {
          height: entry.height,
          hash: entry.hashHex,
          branchlen: isActive ? 0 : entry.height - (fork ? fork.height : -1),
          status: tipStatus(entry, isActive),
        };
      });
  }

  /** Finds an index entry by display-hex hash. */
  lookup(hashHex: string): BlockIndexEntry | undefined {
    return this.tree.get(hashHex);
  }

  /** Whether `block` would connect on top of `prev` without error (Core's TestBlockValidity, no PoW check). */
  testBlockValidity(block: Block, checkMerkleRoot: boolean): Promise<Verdict> {
    return this.exclusive(async () => {
      const tip = this.chain.tip;
      if (!tip || !bytesEqual(block.header.prevHash, tip.hash)) return reject('inconclusive-not-best-prevblk');
      const header = contextualCheckBlockHeader(block.header, tip, this.params, this.options.now());
      if (!header.ok) return header;
      const context = checkBlock(block, this.params, { checkPow: false, checkMerkleRoot });
      if (!context.ok) return context;
      const contextual = contextualCheckBlock(block, tip, this.params);
      if (!contextual.ok) return contextual;
      const probe = this.tree.probeEntry(block.header, tip);
      const view = new CoinsCache(this.coins);
      const outcome = connectBlockTransactions(block, probe, view, this.params, true);
      if (!outcome.ok) return reject(outcome.reason, outcome.debug);
      if (outcome.scriptJobs && outcome.scriptJobs.length > 0) {
        // Core's fJustCheck caches what it checked, so the block, once mined, connects without checking again.
        const scripts = await this.options.scripts.verify(outcome.scriptJobs, { storeSignatures: true, storeScriptExecution: true });
        if (!scripts.ok) {
          if (!scripts.consensus) throw new ChainSystemError(`script checks did not complete: ${scripts.detail}`);
          return reject(`block-script-verify-flag-failed (${SCRIPT_ERROR_MESSAGES[scripts.error]})`);
        }
      }
      return VALID;
    });
  }

  /** A consistent view of the stored (flushed) chainstate: coins, tip. */
  snapshot<T>(fn: (view: ChainSnapshot) => T): T {
    return this.store.snapshot(fn);
  }

  /**
   * Commits the mempool's pending table changes (a transaction accepted or evicted with no
   * block involved): alone when the chain has nothing unflushed, else with a full flush so
   * the table never describes a pool on a chain the store does not hold. Call it inside
   * `exclusive`.
   */
  commitMempoolChanges(): void {
    if (this.pendingUndo.size > 0 || this.pendingActive.size > 0) {
      this.flush('always');
      return;
    }
    const mempool = this.mempoolSync?.takeChanges();
    if (mempool) this.store.commit({ indexEntries: [], mempool });
  }

  /** Writes everything pending now (after an import, before a clean stop). */
  flushNow(): Promise<void> {
    return this.exclusive(() => this.flush('always'));
  }

  /** Closes: flushes everything; the store itself is closed by its owner. */
  async shutdown(): Promise<void> {
    await this.exclusive(() => this.flush('always'));
  }
}

function toStored(entry: BlockIndexEntry): StoredIndexEntry {
  return {
    header: entry.header.toBytes(),
    height: entry.height,
    chainWork: entry.chainWork,
    status: entry.status,
    txCount: entry.txCount,
    chainTxCount: entry.chainTxCount,
    data: entry.data,
    sequenceId: entry.sequenceId,
  };
}

function isParsed(block: Block): block is ParsedBlock {
  return 'txOffsets' in block && 'size' in block;
}
