/**
 * Growable little-endian writer. Serialization is hot (txids, sighashes), so it writes
 * into one buffer that doubles on demand rather than concatenating parts.
 */
export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(initialCapacity = 256) {
    this.buffer = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buffer.buffer);
  }

  private reserve(n: number): void {
    const needed = this.length + n;
    if (needed <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.reserve(1);
    this.buffer[this.length++] = v;
    return this;
  }

  u16(v: number): this {
    this.reserve(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }

  u32(v: number): this {
    this.reserve(4);
    this.view.setUint32(this.length, v >>> 0, true);
    this.length += 4;
    return this;
  }

  i32(v: number): this {
    this.reserve(4);
    this.view.setInt32(this.length, v | 0, true);
    this.length += 4;
    return this;
  }

  i64(v: bigint): this {
    this.reserve(8);
    this.view.setBigInt64(this.length, BigInt.asIntN(64, v), true);
    this.length += 8;
    return this;
  }

  u64(v: bigint): this {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt.asUintN(64, v), true);
    this.length += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    this.buffer.set(b, this.length);
    this.length += b.length;
    return this;
  }

  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u16(n);
    if (n <= 0xffffffff) return this.u8(0xfe).u32(n);
    return this.u8(0xff).u64(BigInt(n));
  }

  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }

  /** Empties the writer and keeps its buffer, for a scratch writer reused on a hot path. */
  reset(): this {
    this.length = 0;
    return this;
  }

  /** The written bytes (a view; copy if the writer is reused). */
  finish(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

export function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}
