/**
 * Typed access to the tables of the indexes environment (layout.ts): the txindex, the
 * basic block filters with their headers, and the meta entries recording which block each
 * index has reached.
 */
import { decodeCoinStatsRecord, encodeCoinStatsRecord, type CoinStatsRecord } from './coinstats-record.js';
import { decodeFilterHeaderRecord, encodeFilterHeaderRecord, type FilterHeaderRecord } from './blockfilter-record.js';
import { blockHashKey, txidKey, type IndexesTable } from './layout.js';
import type { TableReader, TableWriter } from './lmdb-env.js';
import type { MetaField } from './meta-codec.js';
import { readMeta, readStored } from './stored-value.js';
import { decodeTxIndexEntry, encodeTxIndexEntry, type TxIndexEntry } from './txindex-record.js';

export class IndexesReader {
  constructor(protected readonly tables: TableReader<IndexesTable>) {}

  meta<T>(field: MetaField<T>): T | undefined {
    return readMeta(this.tables, 'meta', field);
  }

  txIndexEntry(txid: Uint8Array): TxIndexEntry | undefined {
    return readStored(this.tables, 'txindex', txidKey(txid), decodeTxIndexEntry);
  }

  /** The encoded basic filter of a block, if indexed. */
  blockFilter(blockHash: Uint8Array): Uint8Array | undefined {
    return this.tables.get('filter.basic', blockHashKey(blockHash));
  }

  /** A block's coinstatsindex record, if indexed. */
  coinStats(blockHash: Uint8Array): CoinStatsRecord | undefined {
    return readStored(this.tables, 'coinstats', blockHashKey(blockHash), decodeCoinStatsRecord);
  }

  /** The basic filter's hash and header of a block, if indexed. */
  filterHeader(blockHash: Uint8Array): FilterHeaderRecord | undefined {
    return readStored(this.tables, 'filterheader.basic', blockHashKey(blockHash), decodeFilterHeaderRecord);
  }
}

export class IndexesWriter extends IndexesReader {
  constructor(protected override readonly tables: TableWriter<IndexesTable>) {
    super(tables);
  }

  putMeta<T>(field: MetaField<T>, value: T): void {
    this.tables.put('meta', field.key, field.codec.encode(value));
  }

  deleteMeta(field: MetaField<unknown>): boolean {
    return this.tables.del('meta', field.key);
  }

  putTxIndexEntry(txid: Uint8Array, entry: TxIndexEntry): void {
    this.tables.put('txindex', txidKey(txid), encodeTxIndexEntry(entry));
  }

  deleteTxIndexEntry(txid: Uint8Array): boolean {
    return this.tables.del('txindex', txidKey(txid));
  }

  putBlockFilter(blockHash: Uint8Array, encoded: Uint8Array, record: FilterHeaderRecord): void {
    const key = blockHashKey(blockHash);
    this.tables.put('filter.basic', key, encoded);
    this.tables.put('filterheader.basic', key, encodeFilterHeaderRecord(record));
  }

  putCoinStats(blockHash: Uint8Array, record: CoinStatsRecord): void {
    this.tables.put('coinstats', blockHashKey(blockHash), encodeCoinStatsRecord(record));
  }

  clear(table: IndexesTable): void {
    this.tables.clear(table);
  }

  afterCommit(fn: () => void): void {
    this.tables.afterCommit(fn);
  }
}
