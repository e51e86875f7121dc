/**
 * Base58 and Base58Check as Core's base58.cpp defines them. The digit conversion is
 * @scure/base's; the wrapper adds the parts of Core's DecodeBase58 that decide which
 * strings are accepted at all: surrounding whitespace is skipped, NUL characters are
 * refused, and results longer than the caller's limit are rejected.
 */
import { base58, createBase58check } from '@scure/base';
import { bytesEqual, sha256, sha256d } from '../primitives/index.js';

const CHECKSUM_SIZE = 4;
/** Encoding only: decoding needs Core's length limits applied before the checksum. */
const base58check = createBase58check(sha256);

export function encodeBase58(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

/** Core's IsSpace: the C locale's whitespace characters. */
function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/**
 * Core's DecodeBase58: null unless the whole string (after trimming C whitespace) is
 * base58. `maxLength` bounds, as in Core, the leading-zero count and the remaining
 * significant bytes separately, so a result may total up to twice the limit.
 */
export function decodeBase58(text: string, maxLength: number): Uint8Array | null {
  if (text.includes('\0')) return null;
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(text.slice(start, end));
  } catch {
    return null;
  }
  let zeroes = 0;
  while (zeroes < bytes.length && bytes[zeroes] === 0) zeroes++;
  if (zeroes > maxLength || bytes.length - zeroes > maxLength) return null;
  return bytes;
}

/** Payload followed by the first four bytes of its double SHA-256. */
export function encodeBase58Check(payload: Uint8Array): string {
  return base58check.encode(payload);
}

/**
 * Core's DecodeBase58Check: the payload when the string is base58 of at most
 * `maxPayloadLength` + 4 bytes (counted as decodeBase58 does) whose last four bytes
 * are the payload's checksum; otherwise null.
 */
export function decodeBase58Check(text: string, maxPayloadLength: number): Uint8Array | null {
  const bytes = decodeBase58(text, maxPayloadLength + CHECKSUM_SIZE);
  if (!bytes || bytes.length < CHECKSUM_SIZE) return null;
  const payload = bytes.subarray(0, bytes.length - CHECKSUM_SIZE);
  const checksum = sha256d(payload).subarray(0, CHECKSUM_SIZE);
  if (!bytesEqual(checksum, bytes.subarray(bytes.length - CHECKSUM_SIZE))) return null;
  return payload;
}
