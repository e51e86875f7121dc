/**
 * The keys of wallet records as Core writes them (walletdb.cpp DBKeys): the record type as a
 * serialized string (CompactSize length, then its bytes), followed by whatever identifies
 * the record (an address, a txid, a descriptor id ...), serialized the same way Core's
 * std::make_pair(type, id) is.
 */
import { ByteReader, ByteWriter } from '../primitives/index.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });

/** Core's DBKeys: the record types a descriptor wallet holds. */
export const RECORD = {
  ACTIVEEXTERNALSPK: 'activeexternalspk',
  ACTIVEINTERNALSPK: 'activeinternalspk',
  BESTBLOCK: 'bestblock',
  BESTBLOCK_NOMERKLE: 'bestblock_nomerkle',
  DESTDATA: 'destdata',
  FLAGS: 'flags',
  LOCKED_UTXO: 'lockedutxo',
  MASTER_KEY: 'mkey',
  MINVERSION: 'minversion',
  NAME: 'name',
  ORDERPOSNEXT: 'orderposnext',
  PURPOSE: 'purpose',
  SETTINGS: 'settings',
  TX: 'tx',
  VERSION: 'version',
  WALLETDESCRIPTOR: 'walletdescriptor',
  WALLETDESCRIPTORCACHE: 'walletdescriptorcache',
  WALLETDESCRIPTORLHCACHE: 'walletdescriptorlhcache',
  WALLETDESCRIPTORCKEY: 'walletdescriptorckey',
  WALLETDESCRIPTORKEY: 'walletdescriptorkey',
} as const;

/** A string as Core serializes std::string: CompactSize length, then its UTF-8 bytes. */
export function serializeString(text: string): Uint8Array {
  return new ByteWriter().varBytes(utf8.encode(text)).finish();
}

/** A record key: the type, then the identifying parts already serialized. */
export function recordKey(type: string, ...parts: Uint8Array[]): Uint8Array {
  const writer = new ByteWriter().varBytes(utf8.encode(type));
  for (const part of parts) writer.bytes(part);
  return writer.finish();
}

/** The type a record key starts with and the bytes after it, or null when it does not start with a string. */
export function splitRecordKey(key: Uint8Array): { type: string; rest: Uint8Array } | null {
  try {
    const reader = new ByteReader(key);
    const type = utf8Decoder.decode(reader.varBytes());
    return { type, rest: key.subarray(reader.offset) };
  } catch {
    return null;
  }
}

/** A serialized string read back (a record's id or value). */
export function readString(reader: ByteReader): string {
  return utf8Decoder.decode(reader.varBytes());
}
