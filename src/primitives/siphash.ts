/**
 * SipHash-2-4 with a 128-bit key and 64-bit output (Core's CSipHasher), as BIP158 uses it
 * to hash filter elements. The 64-bit lanes are kept as pairs of 32-bit halves so that
 * hashing thousands of scripts per block needs no BigInt arithmetic; `sipHash24` returns
 * a bigint for callers that want the plain value.
 */

/** The key as four 32-bit words: k0 low, k0 high, k1 low, k1 high. */
export type SipKey = Uint32Array;

/** A key from its two 64-bit halves (k0, k1). */
export function sipKey(k0: bigint, k1: bigint): SipKey {
  return Uint32Array.of(Number(k0 & 0xffffffffn), Number((k0 >> 32n) & 0xffffffffn), Number(k1 & 0xffffffffn), Number((k1 >> 32n) & 0xffffffffn));
}

/** A key from 16 bytes read as two little-endian u64s (BIP158: the first 16 bytes of the block hash). */
export function sipKeyFromBytes(bytes: Uint8Array): SipKey {
  if (bytes.length < 16) throw new RangeError(`a SipHash key needs 16 bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return Uint32Array.of(view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true), view.getUint32(12, true));
}

// State: v0..v3 as [high, low] pairs at indices 0..7.
const v = new Uint32Array(8);
const V0 = 0;
const V1 = 2;
const V2 = 4;
const V3 = 6;

function add(a: number, b: number): void {
  const lo = v[a + 1]! + v[b + 1]!;
  v[a] = v[a]! + v[b]! + (lo > 0xffffffff ? 1 : 0);
  v[a + 1] = lo;
}

function xor(a: number, b: number): void {
  v[a] ^= v[b]!;
  v[a + 1] ^= v[b + 1]!;
}

/** Rotates lane `a` left by n bits, 0 < n <= 32. */
function rotl(a: number, n: number): void {
  const h = v[a]!;
  const l = v[a + 1]!;
  if (n === 32) {
    v[a] = l;
    v[a + 1] = h;
    return;
  }
  v[a] = (h << n) | (l >>> (32 - n));
  v[a + 1] = (l << n) | (h >>> (32 - n));
}

function sipRound(): void {
  add(V0, V1);
  rotl(V1, 13);
  xor(V1, V0);
  rotl(V0, 32);
  add(V2, V3);
  rotl(V3, 16);
  xor(V3, V2);
  add(V0, V3);
  rotl(V3, 21);
  xor(V3, V0);
  add(V2, V1);
  rotl(V1, 17);
  xor(V1, V2);
  rotl(V2, 32);
}

/** Absorbs the 64-bit word (hi, lo): v3 ^= m, two rounds, v0 ^= m. */
function compress(hi: number, lo: number): void {
  v[V3] ^= hi;
  v[V3 + 1] ^= lo;
  sipRound();
  sipRound();
  v[V0] ^= hi;
  v[V0 + 1] ^= lo;
}

/**
 * SipHash-2-4 of `data`, written into `out` as [high, low] 32-bit halves. The fast path
 * for callers hashing many elements with one key.
 */
export function sipHash24Into(key: SipKey, data: Uint8Array, out: Uint32Array): void {
  // "somepseudorandomlygeneratedbytes"
  v[V0] = key[1]! ^ 0x736f6d65;
  v[V0 + 1] = key[0]! ^ 0x70736575;
  v[V1] = key[3]! ^ 0x646f7261;
  v[V1 + 1] = key[2]! ^ 0x6e646f6d;
  v[V2] = key[1]! ^ 0x6c796765;
  v[V2 + 1] = key[0]! ^ 0x6e657261;
  v[V3] = key[3]! ^ 0x74656462;
  v[V3 + 1] = key[2]! ^ 0x79746573;
  const length = data.length;
  const whole = length - (length % 8);
  for (let i = 0; i < whole; i += 8) {
    const lo = (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) >>> 0;
    const hi = (data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24)) >>> 0;
    compress(hi, lo);
  }
  // The last word: the remaining bytes, and the length's low byte in the top byte.
  let lo = 0;
  let hi = (length & 0xff) << 24;
  for (let i = whole; i < length; i++) {
    const shift = (i - whole) * 8;
    if (shift < 32) lo |= data[i]! << shift;
    else hi |= data[i]! << (shift - 32);
  }
  compress(hi >>> 0, lo >>> 0);
  v[V2 + 1] ^= 0xff;
  sipRound();
  sipRound();
  sipRound();
  sipRound();
  out[0] = v[V0]! ^ v[V1]! ^ v[V2]! ^ v[V3]!;
  out[1] = v[V0 + 1]! ^ v[V1 + 1]! ^ v[V2 + 1]! ^ v[V3 + 1]!;
}

/** SipHash-2-4 of `data` under the key (k0, k1), as Core's CSipHasher(k0, k1).Write(data).Finalize(). */
export function sipHash24(key: SipKey, data: Uint8Array): bigint {
  const out = new Uint32Array(2);
  sipHash24Into(key, data, out);
  return (BigInt(out[0]!) << 32n) | BigInt(out[1]!);
}
