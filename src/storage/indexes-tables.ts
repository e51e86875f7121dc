/**
 * Typed access to the tables of the indexes environment (layout.ts): the txindex, the
 * basic block filters with their headers, the coin statistics, the address index, the
 * output spenders, and the meta entries recording which block each index has reached.
 */
import {
  addressHistoryKey,
  addressUtxoKey,
  decodeAddressHistory,
  decodeAddressUtxo,
  decodeSpender,
  encodeAddressHistory,
  encodeAddressUtxo,
  encodeSpender,
  prefixEnd,
  spenderKey,
  type AddressHistoryRecord,
  type AddressUtxoRecord,
  type SpenderRecord,
} from './address-index-record.js';
import { decodeCoinStatsRecord, encodeCoinStatsRecord, type CoinStatsRecord } from './coinstats-record.js';
import { decodeFilterHeaderRecord, encodeFilterHeaderRecord, type FilterHeaderRecord } from './blockfilter-record.js';
import { blockHashKey, txidKey, type IndexesTable } from './layout.js';
import type { TableReader, TableWriter } from './lmdb-env.js';
import type { MetaField } from './meta-codec.js';
import { readMeta, readStored } from './stored-value.js';
import { decodeTxIndexEntry, encodeTxIndexEntry, type TxIndexEntry } from './txindex-record.js';

function startsWith(key: Uint8Array, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

/** The greatest 40-byte key below `key` (a reverse scan's inclusive start that excludes `key`). */
function lowerKey(key: Uint8Array): Uint8Array {
  const out = key.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== 0) {
      out[i]!--;
      return out;
    }
    out[i] = 0xff;
  }
  return out;
}

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

  /**
   * A script's confirmed history in chain order (newest first with `newestFirst`),
   * starting after `after` (a height and position, exclusive) when given.
   */
  *addressHistory(scriptHash: Uint8Array, options: { newestFirst?: boolean; after?: { height: number; txPos: number } } = {}): Generator<AddressHistoryRecord> {
    const first = addressHistoryKey(scriptHash, 0, 0).subarray(0, 32);
    const end = prefixEnd(first);
    const after = options.after;
    const query = options.newestFirst
      ? { start: after ? lowerKey(addressHistoryKey(scriptHash, after.height, after.txPos)) : end, end: first, reverse: true }
      : { start: after ? prefixEnd(addressHistoryKey(scriptHash, after.height, after.txPos)) : first, end };
    for (const { key, value } of this.tables.range('addr.history', query)) {
      // A reverse scan starts at the first key ≤ start: `end` itself is no entry of this script.
      if (key.length !== 40 || !startsWith(key, first)) continue;
      yield decodeAddressHistory(key, value);
    }
  }

  /** A script's unspent confirmed outputs, in txid then vout order. */
  *addressUtxos(scriptHash: Uint8Array): Generator<AddressUtxoRecord> {
    const start = scriptHash.slice();
    for (const { key, value } of this.tables.range('addr.utxo', { start, end: prefixEnd(start) })) yield decodeAddressUtxo(key, value);
  }

  /** A script's unspent confirmed output, if it is one. */
  addressUtxo(scriptHash: Uint8Array, txid: Uint8Array, vout: number): AddressUtxoRecord | undefined {
    const key = addressUtxoKey(scriptHash, txid, vout);
    const value = this.tables.get('addr.utxo', key);
    return value && decodeAddressUtxo(key, value);
  }

  /** The confirmed input that spent an output, if the address index saw one. */
  spender(txid: Uint8Array, vout: number): SpenderRecord | undefined {
    const value = this.tables.get('addr.spender', spenderKey(txid, vout));
    return value && decodeSpender(value);
  }

  /** -txospenderindex: where the active chain's transaction spending an output is, if one does. */
  txoSpender(txid: Uint8Array, vout: number): TxIndexEntry | undefined {
    return readStored(this.tables, 'txospender', spenderKey(txid, vout), decodeTxIndexEntry);
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

  putAddressHistory(scriptHash: Uint8Array, record: AddressHistoryRecord): void {
    this.tables.put('addr.history', addressHistoryKey(scriptHash, record.height, record.txPos), encodeAddressHistory(record));
  }

  deleteAddressHistory(scriptHash: Uint8Array, height: number, txPos: number): boolean {
    return this.tables.del('addr.history', addressHistoryKey(scriptHash, height, txPos));
  }

  putAddressUtxo(scriptHash: Uint8Array, record: AddressUtxoRecord): void {
    this.tables.put('addr.utxo', addressUtxoKey(scriptHash, record.txid, record.vout), encodeAddressUtxo(record.height, record.value));
  }

  deleteAddressUtxo(scriptHash: Uint8Array, txid: Uint8Array, vout: number): boolean {
    return this.tables.del('addr.utxo', addressUtxoKey(scriptHash, txid, vout));
  }

  putSpender(txid: Uint8Array, vout: number, record: SpenderRecord): void {
    this.tables.put('addr.spender', spenderKey(txid, vout), encodeSpender(record));
  }

  deleteSpender(txid: Uint8Array, vout: number): boolean {
    return this.tables.del('addr.spender', spenderKey(txid, vout));
  }

  putTxoSpender(txid: Uint8Array, vout: number, spending: TxIndexEntry): void {
    this.tables.put('txospender', spenderKey(txid, vout), encodeTxIndexEntry(spending));
  }

  deleteTxoSpender(txid: Uint8Array, vout: number): boolean {
    return this.tables.del('txospender', spenderKey(txid, vout));
  }

  clear(table: IndexesTable): void {
    this.tables.clear(table);
  }

  afterCommit(fn: () => void): void {
    this.tables.afterCommit(fn);
  }
}
