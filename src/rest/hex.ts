/**
 * Lowercase hex of REST bodies (blocks, headers) straight into bytes: in front-ends by the
 * HTTP addon's SIMD encoder, elsewhere two input bytes per step through a table of their
 * four digits (256 KiB, made on first use). Buffer's toString('hex') makes a V8 string
 * that the reply then has to turn back into bytes, and costs about three times as much per
 * byte as the table.
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

/** A native encoder (the front-ends' HTTP addon), used instead of the table once given. */
let nativeEncoder: ((bytes: Uint8Array, out: Uint8Array) => void) | undefined;

/** Front-ends give the encoder their HTTP addon carries (SIMD: a block in microseconds, not 120). */
export function useNativeHexEncoder(encoder: (bytes: Uint8Array, out: Uint8Array) => void): void {
  nativeEncoder = encoder;
}

/** Writes `bytes` as lowercase hex into `out` from its start (out holds at least twice as many bytes). */
export function hexEncodeInto(bytes: Uint8Array, out: Uint8Array): void {
  if (nativeEncoder) {
    nativeEncoder(bytes, out);
    return;
  }
  const n = bytes.length;
  const table = quadTable();
  const pairs = n >> 1;
  if ((out.byteOffset & 3) === 0) {
    const words = new Uint32Array(out.buffer, out.byteOffset, pairs);
    for (let i = 0, j = 0; j < pairs; i += 2, j++) words[j] = table[bytes[i]! | (bytes[i + 1]! << 8)]!;
  } else {
    // A view that does not start on a word boundary: the same digits, a byte at a time.
    for (let i = 0; i < 2 * pairs; i++) {
      out[2 * i] = DIGITS.charCodeAt(bytes[i]! >> 4);
      out[2 * i + 1] = DIGITS.charCodeAt(bytes[i]! & 15);
    }
  }
  if (n & 1) {
    const last = bytes[n - 1]!;
    out[2 * n - 2] = DIGITS.charCodeAt(last >> 4);
    out[2 * n - 1] = DIGITS.charCodeAt(last & 15);
  }
}
