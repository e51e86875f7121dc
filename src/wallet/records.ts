/**
 * The records of a descriptor wallet, read and written in Core's serialization
 * (walletdb.cpp, walletutil.h, crypter.h): each kind has a key codec (what identifies the
 * record after its type) and a value codec. Whatever is read here writes back byte for
 * byte, so a wallet moves between bitcoind and tsbtcd without its records changing.
 */
import { ByteReader, ByteWriter } from '../primitives/index.js';
import { readString, RECORD, recordKey, serializeString, splitRecordKey } from './record-keys.js';

/** Core's WalletDescriptor: the descriptor (public form, with checksum) and its range state. */
export interface WalletDescriptorRecord {
  readonly descriptor: string;
  /** Seconds since the epoch: where a rescan for it starts. */
  readonly creationTime: bigint;
  /** The next index getnewaddress hands out. */
  readonly nextIndex: number;
  readonly rangeStart: number;
  readonly rangeEnd: number;
}

/** Core's CMasterKey: the wallet's encryption key, encrypted by the passphrase's key. */
export interface MasterKeyRecord {
  readonly cryptedKey: Uint8Array;
  readonly salt: Uint8Array;
  /** 0: EVP_sha512 (BytesToKeySHA512AES); 1: scrypt (never written). */
  readonly derivationMethod: number;
  readonly deriveIterations: number;
  readonly otherDerivationParameters: Uint8Array;
}

/** Core's WalletDescriptorKey value: the private key (DER, CPrivKey) and Hash(pubkey ‖ privkey) guarding it. */
export interface DescriptorKeyRecord {
  readonly privateKey: Uint8Array;
  readonly checksum: Uint8Array;
}

/** Output types as Core's OutputType enum numbers them (activeexternalspk / activeinternalspk keys). */
export const OUTPUT_TYPE_NUMBER = { legacy: 0, 'p2sh-segwit': 1, bech32: 2, bech32m: 3 } as const;
export type WalletOutputType = keyof typeof OUTPUT_TYPE_NUMBER;

/** Core's ParseOutputType over the wallet's four types; undefined for any other text. */
export function walletOutputTypeOf(text: string): WalletOutputType | undefined {
  return Object.hasOwn(OUTPUT_TYPE_NUMBER, text) ? (text as WalletOutputType) : undefined;
}

export function outputTypeOfNumber(n: number): WalletOutputType | undefined {
  return (Object.keys(OUTPUT_TYPE_NUMBER) as WalletOutputType[]).find((t) => OUTPUT_TYPE_NUMBER[t] === n);
}

const finish = (write: (w: ByteWriter) => unknown): Uint8Array => {
  const w = new ByteWriter();
  write(w);
  return w.finish();
};

/** Reads the whole of `bytes` with `read`; anything left over is an error, as Core's deserialization of a record is. */
function readAll<T>(bytes: Uint8Array, read: (r: ByteReader) => T): T {
  const reader = new ByteReader(bytes);
  const value = read(reader);
  reader.assertEnd();
  return value;
}

export const walletDescriptorValue = {
  encode: (d: WalletDescriptorRecord): Uint8Array =>
    finish((w) => w.varBytes(new TextEncoder().encode(d.descriptor)).u64(d.creationTime).i32(d.nextIndex).i32(d.rangeStart).i32(d.rangeEnd)),
  decode: (bytes: Uint8Array): WalletDescriptorRecord =>
    readAll(bytes, (r) => ({ descriptor: readString(r), creationTime: r.u64(), nextIndex: r.i32(), rangeStart: r.i32(), rangeEnd: r.i32() })),
};

export const masterKeyValue = {
  encode: (m: MasterKeyRecord): Uint8Array =>
    finish((w) => w.varBytes(m.cryptedKey).varBytes(m.salt).u32(m.derivationMethod).u32(m.deriveIterations).varBytes(m.otherDerivationParameters)),
  decode: (bytes: Uint8Array): MasterKeyRecord =>
    readAll(bytes, (r) => ({ cryptedKey: r.varBytes(), salt: r.varBytes(), derivationMethod: r.u32(), deriveIterations: r.u32(), otherDerivationParameters: r.varBytes() })),
};

export const descriptorKeyValue = {
  encode: (k: DescriptorKeyRecord): Uint8Array => finish((w) => w.varBytes(k.privateKey).bytes(k.checksum)),
  decode: (bytes: Uint8Array): DescriptorKeyRecord => readAll(bytes, (r) => ({ privateKey: r.varBytes(), checksum: r.slice(32) })),
};

/** walletdescriptorckey's value: the secret encrypted with the master key. */
export const cryptedKeyValue = {
  encode: (secret: Uint8Array): Uint8Array => finish((w) => w.varBytes(secret)),
  decode: (bytes: Uint8Array): Uint8Array => readAll(bytes, (r) => r.varBytes()),
};

/** A BIP32 extended public key in its 74-byte encoding, kept by the descriptor caches (as a vector). */
export const xpubValue = {
  encode: (encoded: Uint8Array): Uint8Array => finish((w) => w.varBytes(encoded)),
  decode: (bytes: Uint8Array): Uint8Array =>
    readAll(bytes, (r) => {
      const xpub = r.varBytes();
      if (xpub.length !== 74) throw new RangeError(`a cached xpub is 74 bytes, not ${xpub.length}`);
      return xpub;
    }),
};

export const stringValue = {
  encode: serializeString,
  decode: (bytes: Uint8Array): string => readAll(bytes, readString),
};

export const uint256Value = {
  encode: (hash: Uint8Array): Uint8Array => Uint8Array.from(hash),
  decode: (bytes: Uint8Array): Uint8Array => readAll(bytes, (r) => r.slice(32)),
};

export const int32Value = {
  encode: (n: number): Uint8Array => finish((w) => w.i32(n)),
  decode: (bytes: Uint8Array): number => readAll(bytes, (r) => r.i32()),
};

export const uint64Value = {
  encode: (n: bigint): Uint8Array => finish((w) => w.u64(n)),
  decode: (bytes: Uint8Array): bigint => readAll(bytes, (r) => r.u64()),
};

export const int64Value = {
  encode: (n: bigint): Uint8Array => finish((w) => w.i64(n)),
  decode: (bytes: Uint8Array): bigint => readAll(bytes, (r) => r.i64()),
};

/** The version CBlockLocator writes (DUMMY_VERSION, once the protocol version) and ignores on reading. */
const LOCATOR_DUMMY_VERSION = 70016;

/** Core's CBlockLocator: a vestigial version int, then the hashes. */
export const locatorValue = {
  encode: (hashes: readonly Uint8Array[]): Uint8Array =>
    finish((w) => {
      w.i32(LOCATOR_DUMMY_VERSION).compactSize(hashes.length);
      for (const h of hashes) w.bytes(h);
    }),
  decode: (bytes: Uint8Array): Uint8Array[] =>
    readAll(bytes, (r) => {
      r.i32();
      const n = r.compactSize();
      return Array.from({ length: n }, () => r.slice(32));
    }),
};

/** lockedutxo's value: the character '1'. */
export const LOCKED_UTXO_VALUE = Uint8Array.of(0x31);

// ------------------------------------------------------------------------- keys

export const recordKeys = {
  version: (): Uint8Array => recordKey(RECORD.VERSION),
  minVersion: (): Uint8Array => recordKey(RECORD.MINVERSION),
  flags: (): Uint8Array => recordKey(RECORD.FLAGS),
  bestBlock: (): Uint8Array => recordKey(RECORD.BESTBLOCK),
  bestBlockNoMerkle: (): Uint8Array => recordKey(RECORD.BESTBLOCK_NOMERKLE),
  orderPosNext: (): Uint8Array => recordKey(RECORD.ORDERPOSNEXT),
  name: (address: string): Uint8Array => recordKey(RECORD.NAME, serializeString(address)),
  purpose: (address: string): Uint8Array => recordKey(RECORD.PURPOSE, serializeString(address)),
  /** An address book entry's extra data: "used" (avoid_reuse's previously spent mark, value "p") or "rr<id>" (receive requests). */
  destData: (address: string, key: string): Uint8Array => recordKey(RECORD.DESTDATA, serializeString(address), serializeString(key)),
  masterKey: (id: number): Uint8Array => recordKey(RECORD.MASTER_KEY, finish((w) => w.u32(id))),
  tx: (txid: Uint8Array): Uint8Array => recordKey(RECORD.TX, txid),
  lockedUtxo: (txid: Uint8Array, vout: number): Uint8Array => recordKey(RECORD.LOCKED_UTXO, txid, finish((w) => w.u32(vout))),
  activeSpk: (internal: boolean, type: WalletOutputType): Uint8Array =>
    recordKey(internal ? RECORD.ACTIVEINTERNALSPK : RECORD.ACTIVEEXTERNALSPK, Uint8Array.of(OUTPUT_TYPE_NUMBER[type])),
  walletDescriptor: (id: Uint8Array): Uint8Array => recordKey(RECORD.WALLETDESCRIPTOR, id),
  descriptorKey: (id: Uint8Array, pubkey: Uint8Array): Uint8Array => recordKey(RECORD.WALLETDESCRIPTORKEY, id, finish((w) => w.varBytes(pubkey))),
  descriptorCryptedKey: (id: Uint8Array, pubkey: Uint8Array): Uint8Array => recordKey(RECORD.WALLETDESCRIPTORCKEY, id, finish((w) => w.varBytes(pubkey))),
  /** A cached parent xpub (derivationIndex undefined) or a derived one. */
  descriptorCache: (id: Uint8Array, keyIndex: number, derivationIndex?: number): Uint8Array =>
    recordKey(RECORD.WALLETDESCRIPTORCACHE, id, finish((w) => (derivationIndex === undefined ? w.u32(keyIndex) : w.u32(keyIndex).u32(derivationIndex)))),
  descriptorLastHardenedCache: (id: Uint8Array, keyIndex: number): Uint8Array => recordKey(RECORD.WALLETDESCRIPTORLHCACHE, id, finish((w) => w.u32(keyIndex))),
};

/** What a record's key says after its type, for the kinds a descriptor wallet holds. */
export type ParsedRecordKey =
  | { readonly type: 'version' | 'minversion' | 'flags' | 'bestblock' | 'bestblock_nomerkle' | 'orderposnext' }
  | { readonly type: 'name' | 'purpose'; readonly address: string }
  | { readonly type: 'destdata'; readonly address: string; readonly key: string }
  | { readonly type: 'mkey'; readonly id: number }
  | { readonly type: 'tx'; readonly txid: Uint8Array }
  | { readonly type: 'lockedutxo'; readonly txid: Uint8Array; readonly vout: number }
  | { readonly type: 'activeexternalspk' | 'activeinternalspk'; readonly outputType: WalletOutputType }
  | { readonly type: 'walletdescriptor'; readonly id: Uint8Array }
  | { readonly type: 'walletdescriptorkey' | 'walletdescriptorckey'; readonly id: Uint8Array; readonly pubkey: Uint8Array }
  | { readonly type: 'walletdescriptorcache'; readonly id: Uint8Array; readonly keyIndex: number; readonly derivationIndex?: number }
  | { readonly type: 'walletdescriptorlhcache'; readonly id: Uint8Array; readonly keyIndex: number }
  | { readonly type: 'other'; readonly name: string; readonly rest: Uint8Array };

/** Reads a record key; kinds this wallet does not know come back as 'other' with their bytes. */
export function parseRecordKey(key: Uint8Array): ParsedRecordKey | null {
  const split = splitRecordKey(key);
  if (!split) return null;
  const { type, rest } = split;
  try {
    switch (type) {
      case RECORD.VERSION:
      case RECORD.MINVERSION:
      case RECORD.FLAGS:
      case RECORD.BESTBLOCK:
      case RECORD.BESTBLOCK_NOMERKLE:
      case RECORD.ORDERPOSNEXT:
        return readAll(rest, () => ({ type }));
      case RECORD.NAME:
      case RECORD.PURPOSE:
        return { type, address: readAll(rest, readString) };
      case RECORD.DESTDATA:
        return readAll(rest, (r) => ({ type, address: readString(r), key: readString(r) }));
      case RECORD.MASTER_KEY:
        return { type, id: readAll(rest, (r) => r.u32()) };
      case RECORD.TX:
        return { type, txid: readAll(rest, (r) => r.slice(32)) };
      case RECORD.LOCKED_UTXO:
        return readAll(rest, (r) => ({ type, txid: r.slice(32), vout: r.u32() }));
      case RECORD.ACTIVEEXTERNALSPK:
      case RECORD.ACTIVEINTERNALSPK: {
        const outputType = outputTypeOfNumber(readAll(rest, (r) => r.u8()));
        return outputType === undefined ? null : { type, outputType };
      }
      case RECORD.WALLETDESCRIPTOR:
        return { type, id: readAll(rest, (r) => r.slice(32)) };
      case RECORD.WALLETDESCRIPTORKEY:
      case RECORD.WALLETDESCRIPTORCKEY:
        return readAll(rest, (r) => ({ type, id: r.slice(32), pubkey: r.varBytes() }));
      case RECORD.WALLETDESCRIPTORCACHE:
        return readAll(rest, (r) => {
          const id = r.slice(32);
          const keyIndex = r.u32();
          return r.remaining > 0 ? { type, id, keyIndex, derivationIndex: r.u32() } : { type, id, keyIndex };
        });
      case RECORD.WALLETDESCRIPTORLHCACHE:
        return readAll(rest, (r) => ({ type, id: r.slice(32), keyIndex: r.u32() }));
      default:
        return { type: 'other', name: type, rest };
    }
  } catch {
    return null;
  }
}
