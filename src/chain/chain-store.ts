/**
 * What the chainstate needs from persistence, in its own terms. The LMDB implementation
 * (lmdb-chain-store.ts) maps it onto src/storage; keeping the interface here lets the
 * validation logic state its crash-safety contract in one place:
 *
 * - `commit` first makes every block written so far durable, then applies everything it
 *   is given in one atomic, durable transaction: a crash leaves either all of it or none
 *   of it, and no committed index entry ever points at block data a crash could lose.
 */
import type { Coin } from '../consensus/index.js';
import type { OutPoint } from '../primitives/index.js';
import type { MempoolEntryRecord, MempoolStatsRecord } from '../storage/index.js';
import type { BlockDataPosition } from './block-index-entry.js';
import type { BlockUndo } from './block-undo.js';
import type { CoinsDelta, CoinsSource } from './coins-view.js';

/** A block index entry as persisted. */
export interface StoredIndexEntry {
  header: Uint8Array;
  height: number;
  chainWork: bigint;
  status: number;
  txCount: number;
  chainTxCount: number;
  data: BlockDataPosition | undefined;
  sequenceId: number;
}

export interface ChainCommit {
  indexEntries: { hash: Uint8Array; entry: StoredIndexEntry }[];
  coins?: CoinsDelta;
  /** Undo data in Core's CBlockUndo serialization (storage's encodeBlockUndo). */
  undoPuts?: { hash: Uint8Array; undo: Uint8Array }[];
  undoDeletes?: Uint8Array[];
  /** Active-chain table changes: a hash to set at a height, or null to remove it. */
  activeChanges?: { height: number; hash: Uint8Array | null }[];
  /** The new flushed tip (the block the coins table now reflects). */
  tip?: Uint8Array;
  /** Records that block files have been pruned. */
  havePruned?: boolean;
  /** The most-work header known (getblockchaininfo's `headers`, read by front-ends). */
  bestHeader?: Uint8Array;
  /** Mempool table changes made by the same chain change (or alone, for a mempool-only commit). */
  mempool?: MempoolCommit;
}

/** The mempool table's part of a commit: entries added or replaced, entries removed, the new mempool_sequence. */
export interface MempoolCommit {
  readonly puts: readonly { txid: Uint8Array; record: MempoolEntryRecord }[];
  readonly deletes: readonly Uint8Array[];
  readonly sequence: number;
  /** The pool's memory usage and rolling minimum fee state after these changes. */
  readonly stats?: MempoolStatsRecord;
  /** Prioritisations set (a delta) or forgotten (null), by txid. */
  readonly deltas: readonly { txid: Uint8Array; delta: bigint | null }[];
  /** The `mempooladdr` mirror's rows written and removed (-addressindex). */
  readonly addresses?: {
    readonly puts: readonly { txid: Uint8Array; scriptHashes: readonly Uint8Array[] }[];
    readonly deletes: readonly { txid: Uint8Array; scriptHashes: readonly Uint8Array[] }[];
  };
}

/** The mempool tables as last committed: entries, the mempool_sequence, and every prioritisation. */
export interface SavedMempool {
  readonly entries: { txid: Uint8Array; record: MempoolEntryRecord }[];
  readonly sequence: number;
  readonly deltas: { txid: Uint8Array; delta: bigint }[];
}

/** A consistent read-only view of the stored chainstate (one storage snapshot). */
export interface ChainSnapshot {
  /** The flushed tip the coins describe. */
  tip(): Uint8Array | undefined;
  /** Every unspent coin in key order (txid, then output index). */
  coins(): Iterable<{ outpoint: OutPoint; coin: Coin }>;
  /** Estimated bytes the coins table occupies. */
  coinsDiskSize(): number;
}

export interface ChainStore extends CoinsSource {
  /** Runs `fn` over one consistent snapshot of the stored state. */
  snapshot<T>(fn: (view: ChainSnapshot) => T): T;
  fetchCoin(txid: Uint8Array, vout: number): Coin | undefined;
  loadIndex(): StoredIndexEntry[];
  readTip(): Uint8Array | undefined;
  readUndo(hash: Uint8Array): BlockUndo | undefined;
  commit(batch: ChainCommit): void;
  writeBlock(bytes: Uint8Array, height: number): BlockDataPosition;
  /** Begins writing stored blocks out to disk in the background (durability still comes from commit). */
  syncBlocksInBackground(): void;
  readBlock(position: BlockDataPosition): Uint8Array;
  /** Every block in our own block files, in file order, with its position (-reindex). */
  scanBlocks(): Iterable<{ bytes: Uint8Array; file: number; pos: number }>;
  /** Removes coins, undo data, the active table and the tip: -reindex-chainstate. */
  wipeChainstate(): void;
  /** Also removes the block index: -reindex (block files stay and are rescanned). */
  wipeIndex(): void;
  /** Per block file: number, bytes, and the height range of its blocks (for pruning). */
  blockFiles(): { file: number; size: number; heightFirst: number; heightLast: number }[];
  /** The file new blocks are appended to (never pruned). */
  readonly currentBlockFile: number;
  /** Deletes pruned block files; called only after the commit that dropped every reference to them. */
  deleteBlockFiles(files: readonly number[]): void;
  /** Whether block files were ever pruned (getblockchaininfo's pruneheight needs it; it survives restarts). */
  readHavePruned(): boolean;
  /** Whether a -reindex was started and has not finished (a restart must resume it). */
  readReindexing(): boolean;
  setReindexing(on: boolean): void;
  close(): Promise<void>;
}
