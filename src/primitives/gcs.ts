/**
 * Golomb-coded sets (BIP158, Core's GCSFilter): each element is SipHash-2-4'd under the
 * filter's key and mapped into [0, N·M) by the high 64 bits of hash·N·M; the sorted
 * values' differences are Golomb-Rice coded with parameter P, bits written most
 * significant first. The encoding is CompactSize(N) followed by that bit stream, padded
 * with zero bits to a whole byte.
 */
import { DecodeError } from './errors.js';
import { ByteReader } from './reader.js';
import { sipHash24Into, type SipKey } from './siphash.js';
import { ByteWriter } from './writer.js';

export interface GcsParams {
  /** Golomb-Rice parameter: bits of each remainder. */
  readonly P: number;
  /** Inverse false-positive rate. */
  readonly M: number;
}

/**
 * floor(x · f / 2^64) for the 64-bit x = (hi, lo) and f < 2^53: Core's MapIntoRange, exact
 * through 16-bit limbs (the result is below f, so a double holds it).
 */
function mapIntoRange(hi: number, lo: number, f: number): number {
  const a0 = lo & 0xffff;
  const a1 = lo >>> 16;
  const a2 = hi & 0xffff;
  const a3 = hi >>> 16;
  const b0 = f % 0x10000;
  const b1 = Math.floor(f / 0x10000) % 0x10000;
  const b2 = Math.floor(f / 0x100000000) % 0x10000;
  const b3 = Math.floor(f / 0x1000000000000);
  const c = [
    a0 * b0,
    a0 * b1 + a1 * b0,
    a0 * b2 + a1 * b1 + a2 * b0,
    a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0,
    a1 * b3 + a2 * b2 + a3 * b1,
    a2 * b3 + a3 * b2,
    a3 * b3,
    0,
  ];
  for (let k = 0; k < 7; k++) {
    const carry = Math.floor(c[k]! / 0x10000);
    c[k] = c[k]! - carry * 0x10000;
    c[k + 1] = c[k + 1]! + carry;
  }
  return c[4]! + c[5]! * 0x10000 + c[6]! * 0x100000000 + c[7]! * 0x1000000000000;
}

/** The elements' values in [0, N·M), sorted (Core's BuildHashedSet); N is `count`. */
export function gcsHashedSet(key: SipKey, elements: readonly Uint8Array[], count: number, params: GcsParams): Float64Array {
  const f = count * params.M;
  const out = new Float64Array(elements.length);
  const hash = new Uint32Array(2);
  elements.forEach((element, i) => {
    sipHash24Into(key, element, hash);
    out[i] = mapIntoRange(hash[0]!, hash[1]!, f);
  });
  return out.sort();
}

/** Most-significant-bit-first bit stream (Core's BitStreamWriter). */
class BitWriter {
  private byte = 0;
  private used = 0;
  constructor(private readonly out: ByteWriter) {}

  bit(b: number): void {
    this.byte = (this.byte << 1) | b;
    if (++this.used === 8) {
      this.out.u8(this.byte);
      this.byte = 0;
      this.used = 0;
    }
  }

  /** The low `n` bits of `value` (n <= 31), most significant first. */
  bits(value: number, n: number): void {
    for (let i = n - 1; i >= 0; i--) this.bit((value >>> i) & 1);
  }

  /** Pads the last byte with zero bits. */
  flush(): void {
    if (this.used > 0) this.out.u8(this.byte << (8 - this.used));
    this.byte = 0;
    this.used = 0;
  }
}

/** Most-significant-bit-first reader (Core's BitStreamReader); running out of bytes is a DecodeError. */
class BitReader {
  private byte = 0;
  private left = 0;
  constructor(private readonly reader: ByteReader) {}

  bit(): number {
    if (this.left === 0) {
      this.byte = this.reader.u8();
      this.left = 8;
    }
    this.left--;
    return (this.byte >>> this.left) & 1;
  }

  bits(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++) value = value * 2 + this.bit();
    return value;
  }
}

/**
 * Encodes a set of distinct elements (Core's GCSFilter(k0, k1, P, M, elements)): the
 * caller deduplicates, as Core's ElementSet does.
 */
export function encodeGcs(key: SipKey, elements: readonly Uint8Array[], params: GcsParams): Uint8Array {
  const n = elements.length;
  if (n > 0xffffffff) throw new RangeError('N must be < 2^32');
  const out = new ByteWriter(9 + Math.ceil((n * (params.P + 2)) / 8));
  out.compactSize(n);
  if (n === 0) return out.finish().slice();
  const bits = new BitWriter(out);
  const divisor = 2 ** params.P;
  let last = 0;
  for (const value of gcsHashedSet(key, elements, n, params)) {
    const delta = value - last;
    last = value;
    // Quotient in unary (q ones, then a zero), then the remainder in P bits.
    for (let q = Math.floor(delta / divisor); q > 0; q--) bits.bit(1);
    bits.bit(0);
    bits.bits(delta % divisor, params.P);
  }
  bits.flush();
  return out.finish().slice();
}

/**
 * The values of an encoded filter, in order (Core's decoding constructor): N from the
 * CompactSize, then exactly N Golomb-Rice codes, and no whole byte after them.
 */
export function decodeGcs(encoded: Uint8Array, params: GcsParams): Float64Array {
  const reader = new ByteReader(encoded);
  const n = reader.compactSize();
  // Each code takes at least P + 1 bits: a count the bytes cannot hold is malformed.
  if (n * (params.P + 1) > reader.remaining * 8) throw new DecodeError('encoded filter is shorter than its element count');
  const bits = new BitReader(reader);
  const divisor = 2 ** params.P;
  const values = new Float64Array(n);
  let value = 0;
  for (let i = 0; i < n; i++) {
    let q = 0;
    while (bits.bit() === 1) q++;
    value += q * divisor + bits.bits(params.P);
    values[i] = value;
  }
  if (reader.remaining > 0) throw new DecodeError('encoded filter contains excess data');
  return values;
}

/** Whether any of `elements` may be in the encoded filter (Core's MatchAny; false positives at rate 1/M). */
export function gcsMatchAny(key: SipKey, encoded: Uint8Array, elements: readonly Uint8Array[], params: GcsParams): boolean {
  const values = decodeGcs(encoded, params);
  if (values.length === 0 || elements.length === 0) return false;
  const queries = gcsHashedSet(key, elements, values.length, params);
  let j = 0;
  for (const value of values) {
    while (j < queries.length && queries[j]! < value) j++;
    if (j === queries.length) return false;
    if (queries[j] === value) return true;
  }
  return false;
}
