/**
 * Codecs for the small values kept under fixed names in the meta tables: counters,
 * flags, hashes and short strings. Each is exact (fixed width or length-delimited by the
 * LMDB value itself) and rejects any other length, so a value written under one meaning
 * is never silently read under another.
 */
import { DecodeError } from '../primitives/index.js';

export interface MetaCodec<T> {
  /** What the value is, for error messages. */
  readonly kind: string;
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

function expectLength(bytes: Uint8Array, length: number, kind: string): void {
  if (bytes.length !== length) throw new DecodeError(`${kind} meta value must be ${length} bytes, got ${bytes.length}`);
}

/** Unsigned 32-bit, little-endian. */
export const u32Meta: MetaCodec<number> = {
  kind: 'u32',
  encode(value) {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`not a u32: ${value}`);
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, value, true);
    return out;
  },
  decode(bytes) {
    expectLength(bytes, 4, 'u32');
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  },
};

/** Unsigned 64-bit, little-endian, exact as a bigint (byte counts such as a prune target). */
export const u64Meta: MetaCodec<bigint> = {
  kind: 'u64',
  encode(value) {
    if (value < 0n || value > 0xffffffffffffffffn) throw new RangeError(`not a u64: ${value}`);
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, value, true);
    return out;
  },
  decode(bytes) {
    expectLength(bytes, 8, 'u64');
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  },
};

/** One byte, 0 or 1; anything else is corruption rather than "truthy". */
export const flagMeta: MetaCodec<boolean> = {
  kind: 'flag',
  encode(value) {
    return Uint8Array.of(value ? 1 : 0);
  },
  decode(bytes) {
    expectLength(bytes, 1, 'flag');
    if (bytes[0]! > 1) throw new DecodeError(`flag meta value must be 0 or 1, got ${bytes[0]}`);
    return bytes[0] === 1;
  },
};

/** A 32-byte hash in internal byte order. */
export const hashMeta: MetaCodec<Uint8Array> = {
  kind: 'hash',
  encode(value) {
    expectLength(value, 32, 'hash');
    return value.slice();
  },
  decode(bytes) {
    expectLength(bytes, 32, 'hash');
    return bytes.slice();
  },
};

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/** UTF-8 text (network names and the like); invalid UTF-8 is corruption. */
export const textMeta: MetaCodec<string> = {
  kind: 'text',
  encode(value) {
    return utf8Encoder.encode(value);
  },
  decode(bytes) {
    try {
      return utf8Decoder.decode(bytes);
    } catch (err) {
      throw new DecodeError('text meta value is not valid UTF-8', { cause: err });
    }
  },
};

/** A named entry of a meta table: its key and how its value is encoded. */
export interface MetaField<T> {
  readonly name: string;
  readonly key: Uint8Array;
  readonly codec: MetaCodec<T>;
}

export function metaField<T>(name: string, codec: MetaCodec<T>): MetaField<T> {
  return { name, key: utf8Encoder.encode(name), codec };
}
