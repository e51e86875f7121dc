/**
 * The ChainStore on LMDB and Core-format block files (src/storage). Blocks are appended
 * without an fsync; `commit` makes them durable (saveBlockFileInfo flushes the block
 * files) inside the same batch that commits the index entries pointing at them, so an
 * index entry never refers to data a crash could lose.
 */
import type { AddressIndexView } from './address-index-view.js';
import type { CoinStatsIndexView } from './coinstats-view.js';
import type { ChainParams, Coin } from '../consensus/index.js';
import { parseBlock } from '../primitives/index.js';
import {
  BlockFileStore,
  CHAINSTATE_META,
  NO_DATA_FILE,
  openChainstateEnv,
  scanBlocksDir,
  type BlockIndexRecord,
  type ChainstateEnv,
  type ChainstateReader,
  type ChainstateWriter,
} from '../storage/index.js';
import { join } from 'node:path';
import type { BlockDataPosition } from './block-index-entry.js';
import type { BlockUndo } from './block-undo.js';
import type { BlockFilterIndexView } from './blockfilter-view.js';
import type { ChainCommit, ChainSnapshot, ChainStore, SavedMempool, StoredIndexEntry } from './chain-store.js';
import { ChainSnapshotSource } from './snapshot-source.js';
import type { NodeView, TxIndexView, TxoSpenderView } from './snapshot-view.js';

export interface LmdbChainStoreOptions {
  /** Obfuscate new block files with a random xor.dat key (Core's -blocksxor, default on). */
  blocksXor?: boolean;
  /** Test hook: a smaller maximum blk file size. */
  maxBlockFileSize?: number;
  /** Where the blk and rev files are (-blocksdir); default `<netdir>/blocks`. */
  blocksDir?: string;
}

function parsesAsBlock(bytes: Uint8Array): boolean {
  try {
    parseBlock(bytes);
    return true;
  } catch {
    return false;
  }
}

function toRecord(entry: StoredIndexEntry): BlockIndexRecord {
  return {
    header: entry.header,
    height: entry.height,
    chainWork: entry.chainWork,
    status: entry.status,
    txCount: entry.txCount,
    chainTxCount: entry.chainTxCount,
    dataFile: entry.data ? entry.data.file : NO_DATA_FILE,
    dataPos: entry.data ? entry.data.pos : 0,
    sequenceId: entry.sequenceId,
  };
}

function fromRecord(record: BlockIndexRecord): StoredIndexEntry {
  return {
    header: record.header,
    height: record.height,
    chainWork: record.chainWork,
    status: record.status,
    txCount: record.txCount,
    chainTxCount: record.chainTxCount,
    data: record.dataFile === NO_DATA_FILE ? undefined : { file: record.dataFile, pos: record.dataPos },
    sequenceId: record.sequenceId,
  };
}

export class LmdbChainStore implements ChainStore {
  /**
   * The snapshot coin reads share until the next write. Connecting a block looks up every
   * new output (BIP30) and every spent coin the cache lacks: one snapshot per lookup cost
   * more than the lookup. The coins change only through this store's writes (this process
   * is the chainstate's only writer), and every write closes the snapshot first.
   */
  private coinSnapshot: { readonly reader: ChainstateReader; close(): void } | undefined;

  private constructor(
    readonly env: ChainstateEnv,
    readonly blocks: BlockFileStore,
  ) {}

  /** Opens (creating if needed) `<netdir>/chainstate` and the blocks directory (`<netdir>/blocks` by default). */
  static open(netdir: string, params: ChainParams, options: LmdbChainStoreOptions = {}): LmdbChainStore {
    const env = openChainstateEnv(netdir);
    // A directory from before the headers table (or from a build that did not keep it).
    if (!env.withSnapshot((r) => r.activeHeadersCurrent())) env.writeBatch((w) => w.rebuildActiveHeaders());
    const fileInfo = env.withSnapshot((r) => [...r.fileInfos()]);
    const blocks = BlockFileStore.open(options.blocksDir ?? join(netdir, 'blocks'), params.messageStart, {
      xor: options.blocksXor ?? true,
      fileInfo,
      ...(options.maxBlockFileSize ? { maxFileSize: options.maxBlockFileSize } : {}),
    });
    return new LmdbChainStore(env, blocks);
  }

  snapshot<T>(fn: (view: ChainSnapshot) => T): T {
    return this.env.withSnapshot((r) =>
      fn({
        tip: () => r.meta(CHAINSTATE_META.tip),
        coins: () => r.allCoins(),
        coinsDiskSize: () => this.env.lmdb.tableSizeOnDisk('coins'),
      }),
    );
  }

  /** Snapshots of this store's committed state, for read-only RPCs served by the coordinator. */
  snapshotSource(
    params: ChainParams,
    node: () => NodeView,
    txindex: () => TxIndexView | undefined,
    blockfilter?: () => BlockFilterIndexView | undefined,
    coinstats?: () => CoinStatsIndexView | undefined,
    addressIndex?: () => AddressIndexView | undefined,
    txoSpender?: () => TxoSpenderView | undefined,
  ): ChainSnapshotSource {
    return new ChainSnapshotSource({
      params,
      env: this.env,
      blocks: this.blocks,
      node,
      txindex,
      ...(blockfilter ? { blockfilter } : {}),
      ...(coinstats ? { coinstats } : {}),
      ...(addressIndex ? { addressIndex } : {}),
      ...(txoSpender ? { txoSpender } : {}),
      owned: false,
    });
  }

  fetchCoin(txid: Uint8Array, vout: number): Coin | undefined {
    this.coinSnapshot ??= this.env.openSnapshot();
    return this.coinSnapshot.reader.coin(txid, vout);
  }

  /** Every write goes through here: the shared coin snapshot must not outlive the state it shows. */
  private write(fn: (w: ChainstateWriter) => void): void {
    this.coinSnapshot?.close();
    this.coinSnapshot = undefined;
    this.env.writeBatch(fn);
  }

  loadIndex(): StoredIndexEntry[] {
    return this.env.withSnapshot((r) => [...r.blockIndexEntries()].map(({ record }) => fromRecord(record)));
  }

  readTip(): Uint8Array | undefined {
    return this.env.withSnapshot((r) => r.meta(CHAINSTATE_META.tip));
  }

  readUndo(hash: Uint8Array): BlockUndo | undefined {
    return this.env.withSnapshot((r) => r.undo(hash)) as BlockUndo | undefined;
  }

  writeBlock(bytes: Uint8Array, height: number): BlockDataPosition {
    return this.blocks.appendBlock(bytes, height, { sync: false });
  }

  syncBlocksInBackground(): void {
    this.blocks.syncInBackground();
  }

  readBlock(position: BlockDataPosition): Uint8Array {
    return this.blocks.readBlock(position);
  }

  commit(batch: ChainCommit): void {
    this.write((w) => {
      // Flushes block files first: entries below may point into them.
      w.saveBlockFileInfo(this.blocks);
      for (const { hash, entry } of batch.indexEntries) w.putBlockIndex(hash, toRecord(entry));
      if (batch.coins) {
        for (const key of batch.coins.deletes) w.deleteCoinAt(key);
        for (const { key, coin } of batch.coins.puts) w.putCoinAt(key, coin);
      }
      for (const { hash, undo } of batch.undoPuts ?? []) w.putUndoBytes(hash, undo);
      for (const hash of batch.undoDeletes ?? []) w.deleteUndo(hash);
      if (batch.activeChanges) w.applyActiveChanges(batch.activeChanges);
      if (batch.tip) w.putMeta(CHAINSTATE_META.tip, batch.tip);
      if (batch.havePruned) w.putMeta(CHAINSTATE_META.havePruned, true);
      if (batch.bestHeader) w.putMeta(CHAINSTATE_META.bestHeader, batch.bestHeader);
      if (batch.mempool) {
        for (const txid of batch.mempool.deletes) w.deleteMempoolEntry(txid);
        for (const { txid, record } of batch.mempool.puts) w.putMempoolEntry(txid, record);
        for (const { txid, scriptHashes } of batch.mempool.addresses?.deletes ?? []) for (const hash of scriptHashes) w.deleteMempoolAddress(hash, txid);
        for (const { txid, scriptHashes } of batch.mempool.addresses?.puts ?? []) for (const hash of scriptHashes) w.putMempoolAddress(hash, txid);
        for (const { txid, delta } of batch.mempool.deltas) {
          if (delta === null) w.deleteMempoolDelta(txid);
          else w.putMempoolDelta(txid, delta);
        }
        w.putMeta(CHAINSTATE_META.mempoolSequence, BigInt(batch.mempool.sequence));
        bumpMempoolVersion(w);
        if (batch.mempool.stats) w.putMeta(CHAINSTATE_META.mempoolStats, batch.mempool.stats);
      }
    });
  }

  scanBlocks(): Iterable<{ bytes: Uint8Array; file: number; pos: number }> {
    return scanBlocksDir(this.blocks.blocksDir, this.blocks.magic, this.blocks.xorKey, { accept: parsesAsBlock });
  }

  wipeChainstate(): void {
    this.write((w) => {
      w.clear('coins');
      w.clear('undo');
      w.clear('active');
      w.clear('headers');
      w.deleteMeta(CHAINSTATE_META.tip);
    });
  }

  wipeIndex(): void {
    // Block file statistics stay: reindex reads the same files in place.
    this.write((w) => w.clear('index'));
  }

  blockFiles(): { file: number; size: number; heightFirst: number; heightLast: number }[] {
    return this.blocks.fileInfos().map(([file, info]) => ({ file, size: info.size, heightFirst: info.heightFirst, heightLast: info.heightLast }));
  }

  get currentBlockFile(): number {
    return this.blocks.currentFile;
  }

  deleteBlockFiles(files: readonly number[]): void {
    this.blocks.deleteFiles(files);
    // The deleted files' statistics go with them.
    this.write((w) => w.saveBlockFileInfo(this.blocks));
  }

  /** Empties the `mempooladdr` mirror: at start-up, before the reloaded pool journals its rows again (or without -addressindex, for good). */
  clearMempoolAddresses(): void {
    this.write((w) => w.clear('mempooladdr'));
  }

  /** The mirrored mempool as last committed (start-up reload), with its mempool_sequence and prioritisations. */
  readMempool(): SavedMempool {
    return this.env.withSnapshot((r) => ({
      // Records decode to views into LMDB memory: copy the transaction bytes out of the snapshot.
      entries: [...r.mempoolEntries()].map(({ txid, entry }) => ({ txid: txid.slice(), record: { ...entry, tx: entry.tx.slice() } })),
      sequence: Number(r.meta(CHAINSTATE_META.mempoolSequence) ?? 1n),
      deltas: [...r.mempoolDeltas()].map(({ txid, delta }) => ({ txid: txid.slice(), delta })),
    }));
  }

  /**
   * Empties the mempool and prioritisation tables and forgets the recorded mempool.dat
   * (-persistmempool=0: nothing carries over, and whatever mempool.dat is there is foreign).
   */
  forgetMempool(): void {
    this.write((w) => {
      w.clear('mempool');
      w.clear('mempooldelta');
      bumpMempoolVersion(w);
      w.deleteMeta(CHAINSTATE_META.mempoolDumpHash);
    });
  }

  /** SHA-256 of the mempool.dat this node last wrote, if any. */
  readMempoolDumpHash(): Uint8Array | undefined {
    return this.env.withSnapshot((r) => r.meta(CHAINSTATE_META.mempoolDumpHash));
  }

  writeMempoolDumpHash(hash: Uint8Array): void {
    this.write((w) => w.putMeta(CHAINSTATE_META.mempoolDumpHash, hash));
  }

  readHavePruned(): boolean {
    return this.env.withSnapshot((r) => r.meta(CHAINSTATE_META.havePruned)) ?? false;
  }

  readReindexing(): boolean {
    return this.env.withSnapshot((r) => r.meta(CHAINSTATE_META.reindexing)) ?? false;
  }

  setReindexing(on: boolean): void {
    this.write((w) => {
      if (on) w.putMeta(CHAINSTATE_META.reindexing, true);
      else w.deleteMeta(CHAINSTATE_META.reindexing);
    });
  }

  async close(): Promise<void> {
    this.coinSnapshot?.close();
    this.coinSnapshot = undefined;
    this.blocks.close();
    await this.env.close();
  }
}

/**
 * Every batch that changes the mempool tables moves the version: the sequence alone misses
 * prioritisations, and results rendered once per pool (getrawmempool verbose) are keyed on it.
 */
function bumpMempoolVersion(w: ChainstateWriter): void {
  w.putMeta(CHAINSTATE_META.mempoolVersion, (w.meta(CHAINSTATE_META.mempoolVersion) ?? 0n) + 1n);
}
