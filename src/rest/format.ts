/**
 * What every REST endpoint shares, as Core's rest.cpp (v31) has it: the format suffix
 * (ParseDataFormat), hash and integer parameters (uint256::FromHex, ToIntegral), the
 * error reply (RESTERR: text/plain, message + CRLF), the warm-up answer, and the success
 * replies (bin raw, hex + LF, compact JSON + LF).
 */
import { takeReplyBuffer, type Reply } from '../http/index.js';
import { hexToHash } from '../primitives/index.js';
import { writeJson } from '../rpc/index.js';
import { hexEncodeInto } from './hex.js';

export type RestFormat = 'bin' | 'hex' | 'json' | 'undef';

/** `param` is the remainder without query string and without a recognised suffix. */
export interface ParsedFormat {
  readonly format: RestFormat;
  readonly param: string;
}

/**
 * Core's ParseDataFormat: cut from the last '?', then look at the text after the last
 * '.': "bin", "hex", "json" (case-sensitive) select a format and are removed; an empty
 * suffix (a trailing '.') is removed too but leaves the format undefined; any other
 * suffix stays in the parameter (so "<hash>.xml" fails as a hash later).
 */
export function parseDataFormat(remainder: string): ParsedFormat {
  const question = remainder.lastIndexOf('?');
  const param = question < 0 ? remainder : remainder.slice(0, question);
  const dot = param.lastIndexOf('.');
  if (dot < 0) return { format: 'undef', param };
  const suffix = param.slice(dot + 1);
  if (suffix === 'bin' || suffix === 'hex' || suffix === 'json') return { format: suffix, param: param.slice(0, dot) };
  if (suffix === '') return { format: 'undef', param: param.slice(0, dot) };
  return { format: 'undef', param };
}

/** Core's SplitString on one separator: "" gives [""], "a/" gives ["a", ""]. */
export function splitPath(text: string, separator = '/'): string[] {
  return text.split(separator);
}

const HASH_RE = /^[0-9a-fA-F]{64}$/;

/** uint256::FromHex / Txid::FromHex: exactly 64 hex digits (either case), display order → internal bytes. */
export function parseRestHash(text: string): Uint8Array | undefined {
  return HASH_RE.test(text) ? hexToHash(text.toLowerCase()) : undefined;
}

const DIGITS_RE = /^[0-9]+$/;
const SIGNED_DIGITS_RE = /^-?[0-9]+$/;

/** ToIntegral<uint*_t>: decimal digits only (no sign, no space), leading zeros allowed, within `max`. */
export function parseUnsigned(text: string, max: bigint): bigint | undefined {
  if (!DIGITS_RE.test(text)) return undefined;
  const value = BigInt(text);
  return value <= max ? value : undefined;
}

export const UINT32_MAX = 0xffffffffn;
export const SIZE_MAX = 0xffffffffffffffffn;

/** ToIntegral<int32_t>: optional '-', then decimal digits, within int32 ("-0" is 0). */
export function parseInt32(text: string): number | undefined {
  if (!SIGNED_DIGITS_RE.test(text)) return undefined;
  const value = BigInt(text);
  return value >= -0x80000000n && value <= 0x7fffffffn ? Number(value) : undefined;
}

const SAFE_CHARS_URI = new Set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!*\'();:@&=+$,/?#[]-_.~%');

/** SanitizeString(text, SAFE_CHARS_URI): characters outside the set are dropped. */
export function sanitizeUri(text: string): string {
  let out = '';
  for (const c of text) if (SAFE_CHARS_URI.has(c)) out += c;
  return out;
}

/** RESTERR: Content-Type text/plain, the message and CRLF. */
export function restError(status: number, message: string): Reply {
  return { status, contentType: 'text/plain', body: `${message}\r\n` };
}

/** Core's CheckWarmup answer. */
export function warmupError(status: string): Reply {
  return restError(503, `Service temporarily unavailable: ${status}`);
}

/** Formats offered by endpoints with all three (AvailableDataFormatsString). */
export const ALL_FORMATS = 'output format not found (available: .bin, .hex, .json)';
/** chaininfo, mempool, deploymentinfo. */
export const JSON_ONLY = 'output format not found (available: json)';

export function formatNotFound(message: string = ALL_FORMATS): Reply {
  return restError(404, message);
}

export function binReply(body: Uint8Array): Reply {
  return { status: 200, contentType: 'application/octet-stream', body };
}

/** Hex of `bytes` (lowercase) and LF, in a reused reply buffer. */
export function hexReply(bytes: Uint8Array): Reply {
  const out = takeReplyBuffer(bytes.length * 2 + 1);
  hexEncodeInto(bytes, out.bytes);
  out.bytes[bytes.length * 2] = 0x0a;
  return { status: 200, contentType: 'text/plain', body: out.bytes, release: out.release };
}

/** text/plain as given (the caller adds the LF). */
export function textReply(text: string): Reply {
  return { status: 200, contentType: 'text/plain', body: text };
}

/** JSON text already written (as UniValue::write() writes it) and LF. */
export function jsonTextReply(text: string): Reply {
  return { status: 200, contentType: 'application/json', body: `${text}\n` };
}

/** UniValue::write() of the value and LF. */
export function jsonValueReply(value: unknown): Reply {
  return jsonTextReply(writeJson(value));
}
