/**
 * SHA-256 in plain JavaScript for the two fixed shapes validation hashes by the hundred
 * thousand: the second round of every SHA-256d (a 32-byte digest, one block) and merkle
 * nodes (two 32-byte hashes, whose padding block is constant and precomputed here).
 * node's crypto.hash costs about a microsecond per call before hashing a byte and returns
 * a Buffer with a backing store of its own, whose allocation and collection cost as much
 * again; here the state lives in two preallocated word arrays and the result is a 32-byte
 * array on V8's heap. Measured in one process on this machine: a merkle node 1.7x faster
 * than two crypto.hash calls, a 128-byte SHA-256d 1.3x faster with OpenSSL doing only the
 * first round. Everything longer stays with OpenSSL (hashes.ts), whose SHA extensions
 * win once there are more than a few blocks, and the plain JS of a whole message did not.
 */

const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const IV = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** The message schedule and the chaining state, reused by every call (hashing is synchronous). */
const W = new Int32Array(64);
const H = new Int32Array(8);
/** Extends W[0..15] to the 64-word schedule. */
function expand(w: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15]!;
    const b = w[i - 2]!;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
}

/** The 64 rounds over a schedule that already includes the round constants, added into H. */
function rounds(wk: Int32Array): void {
  let a = H[0]!, b = H[1]!, c = H[2]!, d = H[3]!, e = H[4]!, f = H[5]!, g = H[6]!, h = H[7]!;
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + wk[i]!) | 0;
    const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0]! + a) | 0;
  H[1] = (H[1]! + b) | 0;
  H[2] = (H[2]! + c) | 0;
  H[3] = (H[3]! + d) | 0;
  H[4] = (H[4]! + e) | 0;
  H[5] = (H[5]! + f) | 0;
  H[6] = (H[6]! + g) | 0;
  H[7] = (H[7]! + h) | 0;
}

/** Compresses the message block in W[0..15] into H. */
function compress(): void {
  expand(W);
  for (let i = 0; i < 64; i++) W[i] = (W[i]! + K[i]!) | 0;
  rounds(W);
}

/** The schedule (with constants) of the padding block that follows a 64-byte message. */
const PAD_AFTER_64 = (() => {
  const w = new Int32Array(64);
  w[0] = 0x80000000 | 0;
  w[15] = 512;
  expand(w);
  for (let i = 0; i < 64; i++) w[i] = (w[i]! + K[i]!) | 0;
  return w;
})();

/** H = SHA-256 of the 32-byte digest currently in H (the second round of SHA-256d). */
function rehashState(): void {
  for (let i = 0; i < 8; i++) W[i] = H[i]!;
  W[8] = 0x80000000 | 0;
  for (let i = 9; i < 15; i++) W[i] = 0;
  W[15] = 256;
  H.set(IV);
  compress();
}

function digestOfState(): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const v = H[i]!;
    out[4 * i] = v >>> 24;
    out[4 * i + 1] = v >>> 16;
    out[4 * i + 2] = v >>> 8;
    out[4 * i + 3] = v;
  }
  return out;
}

/** SHA-256 of a 32-byte digest: the second round of SHA-256d after OpenSSL did the first. */
export function sha256OfDigest(digest: Uint8Array): Uint8Array {
  H.set(IV);
  for (let i = 0; i < 8; i++) {
    const q = 4 * i;
    W[i] = (digest[q]! << 24) | (digest[q + 1]! << 16) | (digest[q + 2]! << 8) | digest[q + 3]!;
  }
  W[8] = 0x80000000 | 0;
  for (let i = 9; i < 15; i++) W[i] = 0;
  W[15] = 256;
  compress();
  return digestOfState();
}

/** SHA-256d(left ‖ right) of two 32-byte hashes: a merkle tree node, without building the 64 bytes. */
export function sha256dPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  H.set(IV);
  for (let i = 0; i < 8; i++) {
    const q = 4 * i;
    W[i] = (left[q]! << 24) | (left[q + 1]! << 16) | (left[q + 2]! << 8) | left[q + 3]!;
    W[i + 8] = (right[q]! << 24) | (right[q + 1]! << 16) | (right[q + 2]! << 8) | right[q + 3]!;
  }
  compress();
  rounds(PAD_AFTER_64);
  rehashState();
  return digestOfState();
}
