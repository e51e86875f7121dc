/**
 * BIP64 getutxos as Core v31 implements it: outpoints from the URI
 * (`[/checkmempool]/<txid>-<n>/...`) or from a binary/hex body, and the reply
 * (chainHeight, chaintipHash, bitmap, utxos) in binary or JSON.
 *
 * Core's body reading differs from BIP64: it writes the body into a stream as a
 * length-prefixed string and then reads `bool checkmempool` and `vector<COutPoint>` from
 * that stream, so the flag comes from the length prefix (always true for a non-empty body)
 * and the outpoint count from the body's first byte. Reproduced here byte for byte; see
 * decodeUtxoBody.
 */
import { ByteReader, ByteWriter, DecodeError, hexToHash, type OutPoint } from '../primitives/index.js';
import { parseUnsigned, UINT32_MAX } from './format.js';

/** Core's MAX_GETUTXOS_OUTPOINTS. */
export const MAX_GETUTXOS_OUTPOINTS = 15;

/** Height Core reports for an output of a mempool transaction (MEMPOOL_HEIGHT). */
export const MEMPOOL_HEIGHT = 0x7fffffff;

export class UtxoRequestError extends Error {
  override readonly name = 'UtxoRequestError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface UriOutpoints {
  readonly checkMempool: boolean;
  readonly outpoints: OutPoint[];
}

/**
 * The URI parts after the endpoint: `param` is the remainder after "/rest/getutxos" with
 * the suffix removed. Its first character is skipped (normally '/'), the rest split on
 * '/'. An empty list means no URI input. Throws "Parse error" for a malformed outpoint.
 */
export function uriParts(param: string): string[] {
  return param.length > 1 ? param.slice(1).split('/') : [];
}

/** `<txid>-<n>`: split on '-' into exactly two pieces, a 64-digit hash and ToIntegral<uint32_t> digits. */
const OUTPOINT_RE = /^([0-9a-fA-F]{64})-([0-9]+)$/;

export function parseUriOutpoints(parts: readonly string[]): UriOutpoints {
  const checkMempool = parts[0] === 'checkmempool';
  const outpoints: OutPoint[] = [];
  for (let i = checkMempool ? 1 : 0; i < parts.length; i++) {
    const m = OUTPOINT_RE.exec(parts[i]!);
    // Nine digits cannot exceed the u32 range (leading zeros allowed); longer ones are checked exactly.
    const n = m === null ? undefined : m[2]!.length <= 9 ? Number(m[2]) : parseUnsigned(m[2]!, UINT32_MAX);
    if (m === null || n === undefined) throw new UtxoRequestError(400, 'Parse error');
    // fromHex reads either case: the 64 digits were checked above.
    outpoints.push({ txid: hexToHash(m[1]!), vout: Number(n) });
  }
  return { checkMempool, outpoints };
}

/** Core's ParseHex: pairs of hex digits, whitespace allowed between pairs; anything else gives no bytes at all. */
export function parseHexLenient(text: string): Uint8Array {
  const out: number[] = [];
  const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
  const digit = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const hi = digit(c);
    if (i + 1 >= text.length) return new Uint8Array(0);
    const lo = digit(text.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return new Uint8Array(0);
    out.push((hi << 4) | lo);
    i += 2;
  }
  return Uint8Array.from(out);
}

/**
 * Core's reading of a binary body: `DataStream oss; oss << body; oss >> checkmempool >>
 * outpoints;` i.e. CompactSize(len) ‖ body read as a bool, a CompactSize count and count
 * × (txid ‖ u32 n). Trailing bytes are ignored; running short or a bad CompactSize is a
 * "Parse error".
 */
export function decodeUtxoBody(body: Uint8Array): UriOutpoints {
  const stream = new ByteWriter(body.length + 9).compactSize(body.length).bytes(body).finish();
  const reader = new ByteReader(stream);
  try {
    const checkMempool = reader.u8() !== 0;
    const count = reader.compactSize();
    // Core reads until the stream runs out; fail at once rather than loop over a huge count.
    if (count * 36 > reader.remaining) throw new DecodeError('outpoints past the end of the body');
    const outpoints: OutPoint[] = [];
    for (let i = 0; i < count; i++) {
      const txid = Uint8Array.from(reader.slice(32));
      outpoints.push({ txid, vout: reader.u32() });
    }
    return { checkMempool, outpoints };
  } catch (err) {
    if (err instanceof DecodeError || err instanceof RangeError) throw new UtxoRequestError(400, 'Parse error');
    throw err;
  }
}

export interface UtxoHit {
  readonly height: number;
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
}

export interface UtxoResult {
  readonly chainHeight: number;
  /** Internal byte order. */
  readonly chaintipHash: Uint8Array;
  /** One per requested outpoint, in request order. */
  readonly hits: readonly boolean[];
  /** The outputs found, in request order. */
  readonly utxos: readonly UtxoHit[];
}

/** The bitmap: outpoint i is bit (i mod 8), least significant first, of byte i div 8. */
export function utxoBitmap(hits: readonly boolean[]): Uint8Array {
  const bitmap = new Uint8Array(Math.ceil(hits.length / 8));
  hits.forEach((hit, i) => {
    if (hit) bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return bitmap;
}

/** The binary reply: int32 height ‖ tip hash ‖ bitmap vector ‖ vector of CCoin (u32 0 ‖ u32 height ‖ CTxOut). */
export function encodeUtxoResult(result: UtxoResult): Uint8Array {
  const w = new ByteWriter(64 + result.utxos.length * 64);
  w.i32(result.chainHeight).bytes(result.chaintipHash).varBytes(utxoBitmap(result.hits));
  w.compactSize(result.utxos.length);
  for (const u of result.utxos) w.u32(0).u32(u.height).i64(u.value).varBytes(u.scriptPubKey);
  return w.finish();
}
