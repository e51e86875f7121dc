/**
 * Bech32 (BIP173) and Bech32m (BIP350) strings as Core's bech32.cpp accepts them, with
 * the checksum arithmetic from @scure/base. Which witness version goes with which
 * checksum is address policy and lives in address.ts.
 */
import { bech32, bech32m } from '@scure/base';

export type Bech32Encoding = 'bech32' | 'bech32m';

/** BIP173's length limit, which Core applies to every address string. */
export const BECH32_MAX_LENGTH = 90;

export interface Bech32Decoded {
  encoding: Bech32Encoding;
  /** The human-readable part, lower-cased. */
  hrp: string;
  /** The data part as 5-bit values, checksum removed. */
  words: number[];
}

/**
 * Core's bech32 CheckCharacters: printable ASCII only, and never both cases. scure
 * checks case too, but lets a lower-case prefix carry characters Core refuses.
 */
export function hasValidBech32Characters(text: string): boolean {
  let lower = false;
  let upper = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) lower = true;
    else if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (c < 33 || c > 126) return false;
  }
  return !(lower && upper);
}

/** Core's bech32::Decode: the checksum variant that verifies, or null when neither does. */
export function decodeBech32(text: string): Bech32Decoded | null {
  if (!hasValidBech32Characters(text)) return null;
  const asBech32 = bech32.decodeUnsafe(text, BECH32_MAX_LENGTH);
  if (asBech32) return { encoding: 'bech32', hrp: asBech32.prefix, words: asBech32.words };
  const asBech32m = bech32m.decodeUnsafe(text, BECH32_MAX_LENGTH);
  if (asBech32m) return { encoding: 'bech32m', hrp: asBech32m.prefix, words: asBech32m.words };
  return null;
}

/** Core's bech32::Encode: lower-case output and, as in Core, no length limit of its own. */
export function encodeBech32(encoding: Bech32Encoding, hrp: string, words: readonly number[]): string {
  const coder = encoding === 'bech32' ? bech32 : bech32m;
  return coder.encode(hrp, [...words], false);
}

/** 8-bit bytes to 5-bit words, zero-padding the last word (Core's ConvertBits<8, 5, true>). */
export function bytesToWords(bytes: Uint8Array): number[] {
  return bech32.toWords(bytes);
}

/**
 * 5-bit words to bytes without padding (Core's ConvertBits<5, 8, false>): null when more
 * than four bits are left over or the leftover bits are not zero.
 */
export function wordsToBytes(words: readonly number[]): Uint8Array | null {
  return bech32.fromWordsUnsafe([...words]) ?? null;
}
