/**
 * Base64 as Core's util/strencodings.cpp reads and writes it: EncodeBase64 pads with '=';
 * DecodeBase64 wants a length that is a multiple of 4, at most two trailing '=', no other
 * characters outside the alphabet, and zero bits in the unused tail of the last character.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE_TABLE = new Map([...ALPHABET].map((c, i) => [c, i]));

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Core's DecodeBase64: the bytes, or null where Core returns nullopt. */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  let body = text;
  if (body.endsWith('=')) body = body.slice(0, -1);
  if (body.endsWith('=')) body = body.slice(0, -1);
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const c of body) {
    const v = DECODE_TABLE.get(c);
    if (v === undefined) return null;
    acc = ((acc << 6) | v) & 0x1fff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 6 || ((acc << (8 - bits)) & 0xff) !== 0) return null;
  return Uint8Array.from(out);
}
