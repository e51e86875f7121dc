/**
 * Typed access to the tables of the indexes environment (layout.ts): the txindex and the
 * meta entries recording which block each index has reached.
 */
import { txidKey, type IndexesTable } from './layout.js';
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

  clear(table: IndexesTable): void {
    this.tables.clear(table);
  }

  afterCommit(fn: () => void): void {
    this.tables.afterCommit(fn);
  }
}
