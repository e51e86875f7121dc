/**
 * Parsing and formatting of the values RPC methods share, as Core's rpc/util does:
 * hashes (ParseHashV), hex blobs, and amounts (ValueFromAmount: always 8 decimals).
 */
import { fromHex, hexToHash, isHex } from '../primitives/index.js';
import { RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import { RawJsonNumber } from './json.js';

/** Core's ParseHashV: a 64-digit hex hash in display order, to internal byte order. */
export function parseHash(value: string, name: string): Uint8Array {
  if (value.length !== 64) throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${value.length}, for '${value}')`);
  if (!isHex(value)) throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${value}')`);
  return hexToHash(value);
}

/** Core's ParseHexV. */
export function parseHexArg(value: string, name: string): Uint8Array {
  if (!isHex(value)) throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${value}')`);
  return fromHex(value);
}

/** Core's ValueFromAmount: satoshis as a JSON number with exactly 8 decimals. */
export function amountJson(sats: bigint): RawJsonNumber {
  return new RawJsonNumber(amountText(sats));
}

/** The JSON text of amountJson, for renderers that write JSON text directly. */
export function amountText(sats: bigint): string {
  const negative = sats < 0n;
  const abs = negative ? -sats : sats;
  // Exact in doubles below 2^53 (every valid amount); bigint division only beyond.
  if (abs <= 9_007_199_254_740_991n) {
    const n = Number(abs);
    const fraction = String(n % 100_000_000).padStart(8, '0');
    return `${negative ? '-' : ''}${Math.floor(n / 100_000_000)}.${fraction}`;
  }
  const fraction = (abs % 100_000_000n).toString().padStart(8, '0');
  return `${negative ? '-' : ''}${abs / 100_000_000n}.${fraction}`;
}
