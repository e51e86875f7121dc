/**
 * Byte-array helpers shared by every layer. Everything is a plain Uint8Array so that
 * buffers can cross worker boundaries and LMDB without conversion.
 */

/**
 * Node's native hex encoder writes one flat string; a JS loop of `+=` builds a rope of
 * two-character pieces that V8 flattens again when the string is written out (3x slower
 * for a hash, far worse for a block). The Buffer is a view: nothing is copied.
 */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function hexNibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/** True when `text` is an even-length string of hex digits (either case). */
export function isHex(text: string): boolean {
  if (text.length % 2 !== 0) return false;
  for (let i = 0; i < text.length; i++) if (hexNibble(text.charCodeAt(i)) < 0) return false;
  return true;
}

export function fromHex(text: string): Uint8Array {
  if (text.length % 2 !== 0) throw new RangeError('hex string has odd length');
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = hexNibble(text.charCodeAt(2 * i));
    const lo = hexNibble(text.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) throw new RangeError('invalid hex digit');
    out[i] = (hi << 4) | lo;
  }
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return joinBytes(parts);
}

/** concatBytes for a list too long to spread into arguments. */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lexicographic comparison, as memcmp followed by length. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function reverseBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes[bytes.length - 1 - i]!;
  return out;
}

/** Scratch space for hashToHex: reversing into it allocates nothing per hash. */
const reversedScratch = Buffer.alloc(32);

/** A 32-byte hash in internal order to the byte-reversed hex Bitcoin displays. */
export function hashToHex(hash: Uint8Array): string {
  if (hash.length > reversedScratch.length) return toHex(reverseBytes(hash));
  const last = hash.length - 1;
  for (let i = 0; i <= last; i++) reversedScratch[i] = hash[last - i]!;
  return reversedScratch.toString('hex', 0, hash.length);
}

/** Byte-reversed display hex (txids, block hashes) to internal order. */
export function hexToHash(text: string): Uint8Array {
  return reverseBytes(fromHex(text));
}

export const EMPTY_BYTES = new Uint8Array(0);
