/**
 * Lowercase hex of REST bodies (blocks, headers) straight into bytes, two input bytes per
 * step through a table of their four digits (256 KiB, made on first use). Buffer's
 * toString('hex') makes a V8 string that the reply then has to turn back into bytes, and
 * costs about three times as much per byte as the table.
 */

const DIGITS = '0123456789abcdef';

/** Slot b0 | b1 << 8 holds the digits of b0 then b1, laid out bytewise (so either endianness reads them in order). */
let quads: Uint32Array | undefined;

function quadTable(): Uint32Array {
  if (quads) return quads;
  quads = new Uint32Array(65536);
  const bytes = new Uint8Array(quads.buffer);
  for (let i = 0; i < 65536; i++) {
    bytes[4 * i] = DIGITS.charCodeAt((i >> 4) & 15);
    bytes[4 * i + 1] = DIGITS.charCodeAt(i & 15);
    bytes[4 * i + 2] = DIGITS.charCodeAt(i >> 12);
    bytes[4 * i + 3] = DIGITS.charCodeAt((i >> 8) & 15);
  }
  return quads;
}

/** `bytes` as lowercase hex, then LF when `newline`: a new buffer of its own (offset 0, never pooled). */
export function hexBytes(bytes: Uint8Array, newline: boolean): Buffer {
  const n = bytes.length;
  const out = Buffer.allocUnsafeSlow(n * 2 + (newline ? 1 : 0));
  const table = quadTable();
  const pairs = n >> 1;
  const words = new Uint32Array(out.buffer, 0, pairs);
  for (let i = 0, j = 0; j < pairs; i += 2, j++) words[j] = table[bytes[i]! | (bytes[i + 1]! << 8)]!;
  if (n & 1) {
    const last = bytes[n - 1]!;
    out[2 * n - 2] = DIGITS.charCodeAt(last >> 4);
    out[2 * n - 1] = DIGITS.charCodeAt(last & 15);
  }
  if (newline) out[2 * n] = 0x0a;
  return out;
}
