/**
 * Typed access to the chainstate tables of layout.ts: the reader a snapshot hands out and
 * the writer a write batch hands out. Keys are built and values decoded here, so callers
 * deal in hashes, heights, outpoints and records, never in key bytes.
 */
import type { Coin } from '../consensus/index.js';
import type { OutPoint } from '../primitives/index.js';
import { activeHeadersCurrent, applyActiveChanges, readActiveHeaders, rebuildActiveHeaders } from './active-headers.js';
import { decodeBlockFileInfo, encodeBlockFileInfo, type BlockFileInfo, type FileInfoSource } from './block-file-info.js';
import { decodeCoin, encodeCoin } from './coin-codec.js';
import { mempoolAddressKey, prefixEnd } from './address-index-record.js';
import { blockIndexRecordHeader, blockIndexRecordTxCount, decodeBlockIndexRecord, encodeBlockIndexRecord, type BlockIndexRecord } from './index-record.js';
import {
  blockHashKey,
  CHAINSTATE_META,
  checkCoinKey,
  coinKey,
  coinLookupKey,
  decodeCoinKey,
  decodeFileKey,
  decodeHeightKey,
  fileKey,
  HASH_SIZE,
  heightKey,
  txidKey,
  type ChainstateTable,
} from './layout.js';
import type { TableReader, TableWriter } from './lmdb-env.js';
import { decodeFeeDelta, decodeMempoolEntry, encodeFeeDelta, encodeMempoolEntry, type MempoolEntryRecord } from './mempool-record.js';
import type { MetaField } from './meta-codec.js';
import { decodeStored, readMeta, readStored } from './stored-value.js';
import { decodeBlockUndo, encodeBlockUndo, type BlockUndo } from './undo-codec.js';

/** The value of a `mempooladdr` entry: the key is the whole fact. */
const MEMPOOL_ADDRESS_MARK = new Uint8Array(1);

export interface HeightRange {
  /** Lowest height (default 0). */
  readonly from?: number;
  /** Highest height, inclusive (default: the tip). */
  readonly to?: number;
  /** Highest first. */
  readonly reverse?: boolean;
}

function checkHashValue(table: string, key: Uint8Array, value: Uint8Array): Uint8Array {
  return decodeStored(table, key, value, (bytes) => {
    if (bytes.length !== HASH_SIZE) throw new RangeError(`expected a ${HASH_SIZE}-byte hash, got ${bytes.length} bytes`);
    return bytes;
  });
}

/** Past the last possible txid‖vout key of `txid`: the exclusive end of its outputs. */
function afterTxid(txid: Uint8Array): Uint8Array {
  const end = new Uint8Array(HASH_SIZE + 5);
  end.set(txid, 0);
  end.fill(0xff, HASH_SIZE);
  return end;
}

export class ChainstateReader {
  constructor(protected readonly tables: TableReader<ChainstateTable>) {}

  meta<T>(field: MetaField<T>): T | undefined {
    return readMeta(this.tables, 'meta', field);
  }

  blockIndex(hash: Uint8Array): BlockIndexRecord | undefined {
    return readStored(this.tables, 'index', blockHashKey(hash), decodeBlockIndexRecord);
  }

  /** The 80 header bytes of a block's index record, without decoding the rest (header walks). */
  blockHeaderBytes(hash: Uint8Array): Uint8Array | undefined {
    return readStored(this.tables, 'index', blockHashKey(hash), blockIndexRecordHeader);
  }

  /** A block's nTx from its index record (undefined when unknown), read in place. */
  blockTxCount(hash: Uint8Array): number | undefined {
    const key = blockHashKey(hash);
    return this.tables.withValue('index', key, (value) => decodeStored('index', key, value, blockIndexRecordTxCount));
  }

  /** Every block index record, in hash order: what the chain loads at start-up. */
  *blockIndexEntries(): Generator<{ hash: Uint8Array; record: BlockIndexRecord }> {
    for (const { key, value } of this.tables.range('index')) {
      yield { hash: key, record: decodeStored('index', key, value, decodeBlockIndexRecord) };
    }
  }

  /** Hash of the active chain's block at `height`. */
  activeHash(height: number): Uint8Array | undefined {
    const key = heightKey(height);
    const value = this.tables.get('active', key);
    return value === undefined ? undefined : checkHashValue('active', key, value);
  }

  /**
   * The active chain's headers of heights from..from+count-1 (within 0..tip), concatenated:
   * a few reads however many. Written into `into` (count × 80 bytes) when given.
   */
  activeHeaders(from: number, count: number, into?: Uint8Array): Uint8Array {
    return readActiveHeaders(this.tables, from, count, into);
  }

  /** Whether the headers table matches the active table (else rebuildActiveHeaders). */
  activeHeadersCurrent(): boolean {
    return activeHeadersCurrent(this.tables);
  }

  /** Height of the last entry of the active table, -1 when it is empty. */
  activeTipHeight(): number {
    for (const { key } of this.tables.range('active', { reverse: true, limit: 1 })) return decodeHeightKey(key);
    return -1;
  }

  *activeChain(range: HeightRange = {}): Generator<{ height: number; hash: Uint8Array }> {
    const lowest = range.from ?? 0;
    const highest = range.to;
    const entries = range.reverse
      ? this.tables.range('active', highest === undefined ? { reverse: true } : { reverse: true, start: heightKey(highest) })
      : this.tables.range('active', { start: heightKey(lowest) });
    for (const { key, value } of entries) {
      const height = decodeHeightKey(key);
      if (range.reverse ? height < lowest : highest !== undefined && height > highest) break;
      yield { height, hash: checkHashValue('active', key, value) };
    }
  }

  coin(txid: Uint8Array, vout: number): Coin | undefined {
    return this.coinAt(coinLookupKey(txid, vout));
  }

  /** The coin under a coins-table key (layout.ts coinKey), for caches that keep keys. */
  coinAt(key: Uint8Array): Coin | undefined {
    return readStored(this.tables, 'coins', checkCoinKey(key), decodeCoin);
  }

  /** The unspent outputs of one transaction, by output index. */
  *coinsOf(txid: Uint8Array): Generator<{ outpoint: OutPoint; coin: Coin }> {
    for (const { key, value } of this.tables.range('coins', { start: txidKey(txid), end: afterTxid(txid) })) {
      yield { outpoint: decodeCoinKey(key), coin: decodeStored('coins', key, value, decodeCoin) };
    }
  }

  /** Every coin in outpoint order (gettxoutsetinfo, scantxoutset). */
  *allCoins(): Generator<{ outpoint: OutPoint; coin: Coin }> {
    for (const { key, value } of this.tables.range('coins')) {
      yield { outpoint: decodeCoinKey(key), coin: decodeStored('coins', key, value, decodeCoin) };
    }
  }

  /** Whether any output of `txid` is unspent (BIP30's question), with one seek. */
  hasAnyCoin(txid: Uint8Array): boolean {
    for (const _ of this.tables.range('coins', { start: txidKey(txid), end: afterTxid(txid), limit: 1 })) return true;
    return false;
  }

  undo(hash: Uint8Array): BlockUndo | undefined {
    return readStored(this.tables, 'undo', blockHashKey(hash), decodeBlockUndo);
  }

  mempoolEntry(txid: Uint8Array): MempoolEntryRecord | undefined {
    return readStored(this.tables, 'mempool', txidKey(txid), decodeMempoolEntry);
  }

  *mempoolEntries(): Generator<{ txid: Uint8Array; entry: MempoolEntryRecord }> {
    for (const { key, value } of this.tables.range('mempool')) {
      yield { txid: key, entry: decodeStored('mempool', key, value, decodeMempoolEntry) };
    }
  }

  /** Every prioritisation (Core's mapDeltas): txid → fee delta in satoshis. */
  *mempoolDeltas(): Generator<{ txid: Uint8Array; delta: bigint }> {
    for (const { key, value } of this.tables.range('mempooldelta')) {
      yield { txid: key, delta: decodeStored('mempooldelta', key, value, decodeFeeDelta) };
    }
  }

  /** Txids of pooled transactions that fund or spend a script (-addressindex), in txid order. */
  *mempoolAddressTxids(scriptHash: Uint8Array): Generator<Uint8Array> {
    const start = scriptHash.slice();
    for (const { key } of this.tables.range('mempooladdr', { start, end: prefixEnd(start) })) yield key.slice(HASH_SIZE);
  }

  fileInfo(file: number): BlockFileInfo | undefined {
    return readStored(this.tables, 'fileinfo', fileKey(file), decodeBlockFileInfo);
  }

  /** Every saved block file info, by file number: what BlockFileStore.open takes. */
  *fileInfos(): Generator<[number, BlockFileInfo]> {
    for (const { key, value } of this.tables.range('fileinfo')) {
      yield [decodeFileKey(key), decodeStored('fileinfo', key, value, decodeBlockFileInfo)];
    }
  }

  /**
   * Bytes of block files as of this snapshot (getblockchaininfo's size_on_disk): the
   * running total the writer keeps, so a call costs one read rather than one per file
   * (a mainnet node has thousands); summed when a directory predates the total.
   */
  blockFilesSize(): number {
    const kept = this.meta(CHAINSTATE_META.blockFilesSize);
    return kept !== undefined ? Number(kept) : this.sumFileInfoSizes();
  }

  private sumFileInfoSizes(): number {
    let total = 0;
    for (const [, info] of this.fileInfos()) total += info.size;
    return total;
  }
}

export class ChainstateWriter extends ChainstateReader {
  constructor(protected override readonly tables: TableWriter<ChainstateTable>) {
    super(tables);
  }

  putMeta<T>(field: MetaField<T>, value: T): void {
    this.tables.put('meta', field.key, field.codec.encode(value));
  }

  deleteMeta(field: MetaField<unknown>): boolean {
    return this.tables.del('meta', field.key);
  }

  putBlockIndex(hash: Uint8Array, record: BlockIndexRecord): void {
    this.tables.put('index', blockHashKey(hash), encodeBlockIndexRecord(record));
  }

  deleteBlockIndex(hash: Uint8Array): boolean {
    return this.tables.del('index', blockHashKey(hash));
  }

  putActive(height: number, hash: Uint8Array): void {
    this.tables.put('active', heightKey(height), blockHashKey(hash));
  }

  deleteActive(height: number): boolean {
    return this.tables.del('active', heightKey(height));
  }

  /**
   * The chain's changes per height (a block, or null for a height that left it) to the
   * active table and, with headers from the index (written first), the headers table.
   */
  applyActiveChanges(changes: Iterable<{ readonly height: number; readonly hash: Uint8Array | null }>): void {
    applyActiveChanges(this.tables, changes);
  }

  rebuildActiveHeaders(): void {
    rebuildActiveHeaders(this.tables);
  }

  putCoin(txid: Uint8Array, vout: number, coin: Coin): void {
    this.putCoinAt(coinKey(txid, vout), coin);
  }

  deleteCoin(txid: Uint8Array, vout: number): boolean {
    return this.deleteCoinAt(coinKey(txid, vout));
  }

  putCoinAt(key: Uint8Array, coin: Coin): void {
    this.tables.put('coins', checkCoinKey(key), encodeCoin(coin));
  }

  deleteCoinAt(key: Uint8Array): boolean {
    return this.tables.del('coins', checkCoinKey(key));
  }

  putUndo(hash: Uint8Array, undo: BlockUndo): void {
    this.putUndoBytes(hash, encodeBlockUndo(undo));
  }

  /** Undo data already in encodeBlockUndo's form. */
  putUndoBytes(hash: Uint8Array, encoded: Uint8Array): void {
    this.tables.put('undo', blockHashKey(hash), encoded);
  }

  deleteUndo(hash: Uint8Array): boolean {
    return this.tables.del('undo', blockHashKey(hash));
  }

  putMempoolEntry(txid: Uint8Array, entry: MempoolEntryRecord): void {
    this.tables.put('mempool', txidKey(txid), encodeMempoolEntry(entry));
  }

  deleteMempoolEntry(txid: Uint8Array): boolean {
    return this.tables.del('mempool', txidKey(txid));
  }

  putMempoolAddress(scriptHash: Uint8Array, txid: Uint8Array): void {
    this.tables.put('mempooladdr', mempoolAddressKey(scriptHash, txid), MEMPOOL_ADDRESS_MARK);
  }

  deleteMempoolAddress(scriptHash: Uint8Array, txid: Uint8Array): boolean {
    return this.tables.del('mempooladdr', mempoolAddressKey(scriptHash, txid));
  }

  putMempoolDelta(txid: Uint8Array, delta: bigint): void {
    this.tables.put('mempooldelta', txidKey(txid), encodeFeeDelta(delta));
  }

  deleteMempoolDelta(txid: Uint8Array): boolean {
    return this.tables.del('mempooldelta', txidKey(txid));
  }

  putFileInfo(file: number, info: BlockFileInfo): void {
    this.moveBlockFilesSize(info.size - (this.fileInfo(file)?.size ?? 0));
    this.tables.put('fileinfo', fileKey(file), encodeBlockFileInfo(info));
  }

  deleteFileInfo(file: number): boolean {
    this.moveBlockFilesSize(-(this.fileInfo(file)?.size ?? 0));
    return this.tables.del('fileinfo', fileKey(file));
  }

  /** Keeps the `blockFilesSize` total with the table it sums; call before the table changes. */
  private moveBlockFilesSize(delta: number): void {
    if (delta === 0 && this.meta(CHAINSTATE_META.blockFilesSize) !== undefined) return;
    this.putMeta(CHAINSTATE_META.blockFilesSize, BigInt(this.blockFilesSize() + delta));
  }

  /**
   * Syncs the block files, writes their changed info into this batch and, once it
   * commits, tells the store it is saved. Call it in the batch that commits the index entries pointing at
   * newly appended blocks, so the counts and the index move together.
   */
  saveBlockFileInfo(source: FileInfoSource): void {
    // Blocks appended without their own fsync become durable here, before this batch
    // (which carries the index entries pointing at them) can commit.
    source.flush();
    const dirty = source.dirtyFileInfo();
    for (const { file, info } of dirty) {
      if (info) this.putFileInfo(file, info);
      else this.deleteFileInfo(file);
    }
    if (dirty.length > 0) this.tables.afterCommit(() => source.markFileInfoSaved(dirty));
  }

  /** Empties one table (-reindex, -reindex-chainstate, mempool reload). */
  clear(table: ChainstateTable): void {
    this.tables.clear(table);
  }

  /** Runs `fn` after this batch has committed durably (never if it aborts). */
  afterCommit(fn: () => void): void {
    this.tables.afterCommit(fn);
  }
}
