import { DecodeError } from './errors.js';

/** Largest CompactSize a deserializer accepts (Core's MAX_SIZE, 32 MiB). */
export const MAX_COMPACT_SIZE = 0x02000000;

/**
 * Sequential little-endian reader over a byte array. Every read checks bounds and throws
 * DecodeError, so hostile input ends in a typed error rather than undefined reads.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  offset: number;
  private readonly view: DataView;

  constructor(bytes: Uint8Array, offset = 0) {
    this.bytes = bytes;
    this.offset = offset;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number): void {
    if (n < 0 || this.offset + n > this.bytes.length) {
      throw new DecodeError(`unexpected end of data: need ${n} bytes at offset ${this.offset}, have ${this.remaining}`);
    }
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return v;
  }

  /** Signed 64-bit little-endian, exact. */
  i64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }

  /**
   * A view into the underlying bytes (no copy). Built with the constructor rather than
   * subarray, which looks up a species constructor on every call: parsing a block makes
   * several views per transaction.
   */
  slice(n: number): Uint8Array {
    this.need(n);
    const out = new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + this.offset, n);
    this.offset += n;
    return out;
  }

  /** Bitcoin's CompactSize, rejecting non-canonical encodings and sizes above MAX_COMPACT_SIZE as Core does. */
  compactSize(rangeCheck = true): number {
    const first = this.u8();
    let value: number;
    if (first < 0xfd) {
      value = first;
    } else if (first === 0xfd) {
      value = this.u16();
      if (value < 0xfd) throw new DecodeError('non-canonical CompactSize');
    } else if (first === 0xfe) {
      value = this.u32();
      if (value < 0x10000) throw new DecodeError('non-canonical CompactSize');
    } else {
      const big = this.u64();
      if (big < 0x100000000n) throw new DecodeError('non-canonical CompactSize');
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError('CompactSize too large');
      value = Number(big);
    }
    if (rangeCheck && value > MAX_COMPACT_SIZE) throw new DecodeError('CompactSize exceeds maximum');
    return value;
  }

  /** CompactSize length followed by that many bytes. */
  varBytes(): Uint8Array {
    return this.slice(this.compactSize());
  }

  assertEnd(): void {
    if (this.remaining !== 0) throw new DecodeError(`${this.remaining} trailing bytes`);
  }
}
