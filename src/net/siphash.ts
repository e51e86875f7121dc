/**
 * SipHash-2-4 (Aumasson and Bernstein), the keyed hash BIP152 short transaction IDs use.
 * BigInt arithmetic: one hash per transaction of a compact block, where clarity matters
 * more than the microseconds.
 */
const MASK = (1n << 64n) - 1n;

function rotl(x: bigint, b: bigint): bigint {
  return ((x << b) | (x >> (64n - b))) & MASK;
}

/** SipHash-2-4 of `data` under the 128-bit key (k0, k1), as an unsigned 64-bit integer. */
export function siphash24(k0: bigint, k1: bigint, data: Uint8Array): bigint {
  let v0 = 0x736f6d6570736575n ^ k0;
  let v1 = 0x646f72616e646f6dn ^ k1;
  let v2 = 0x6c7967656e657261n ^ k0;
  let v3 = 0x7465646279746573n ^ k1;
  const round = (): void => {
    v0 = (v0 + v1) & MASK;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const whole = data.length - (data.length % 8);
  for (let i = 0; i < whole; i += 8) {
    const m = view.getBigUint64(i, true);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  let last = BigInt(data.length & 0xff) << 56n;
  for (let i = whole; i < data.length; i++) last |= BigInt(data[i]!) << BigInt(8 * (i - whole));
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xffn;
  round();
  round();
  round();
  round();
  return (v0 ^ v1 ^ v2 ^ v3) & MASK;
}
