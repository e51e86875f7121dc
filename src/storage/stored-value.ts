/**
 * Turning a codec failure on stored bytes into a CorruptionError that names the table
 * and key: at that point "does not decode" means the database is damaged, and the
 * operator needs to know where.
 */
import { DecodeError, toHex } from '../primitives/index.js';
import { CorruptionError } from './errors.js';
import type { MetaField } from './meta-codec.js';
import type { TableReader } from './lmdb-env.js';

export function decodeStored<V>(table: string, key: Uint8Array, bytes: Uint8Array, decode: (bytes: Uint8Array) => V): V {
  try {
    return decode(bytes);
  } catch (err) {
    if (err instanceof DecodeError || err instanceof RangeError) {
      throw new CorruptionError(`${table} entry ${toHex(key)} does not decode: ${err.message}`, { cause: err });
    }
    throw err;
  }
}

export function readStored<T extends string, V>(
  tables: TableReader<T>,
  table: T,
  key: Uint8Array,
  decode: (bytes: Uint8Array) => V,
): V | undefined {
  const bytes = tables.get(table, key);
  return bytes === undefined ? undefined : decodeStored(table, key, bytes, decode);
}

export function readMeta<T extends string, V>(tables: TableReader<T>, metaTable: T, field: MetaField<V>): V | undefined {
  return readStored(tables, metaTable, field.key, (bytes) => field.codec.decode(bytes));
}
