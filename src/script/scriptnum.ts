/**
 * CScriptNum: script integers are little-endian sign-magnitude byte strings. Operands
 * are at most 4 bytes (5 for locktime checks) but results may overflow to 5 bytes and
 * still be pushed, so values are JS numbers (exact far beyond ±2^39).
 */
import { OP } from './opcodes.js';
import { pushData } from './parse.js';

export class ScriptNumError extends Error {
  override readonly name = 'ScriptNumError';
}

export const DEFAULT_MAX_NUM_SIZE = 4;

/** Decodes a stack element; throws ScriptNumError on oversize or (with requireMinimal) non-minimal input. */
export function decodeScriptNum(bytes: Uint8Array, requireMinimal: boolean, maxSize = DEFAULT_MAX_NUM_SIZE): number {
  const length = bytes.length;
  if (length > maxSize) throw new ScriptNumError('script number overflow');
  if (length === 0) return 0;
  if (requireMinimal && (bytes[length - 1]! & 0x7f) === 0) {
    // The last byte may be 0x00/0x80 only to carry a sign bit the previous byte needs.
    if (length <= 1 || (bytes[length - 2]! & 0x80) === 0) throw new ScriptNumError('non-minimally encoded script number');
  }
  let result = 0;
  for (let i = 0; i < length; i++) result += bytes[i]! * 2 ** (8 * i);
  const top = bytes[length - 1]!;
  if (top & 0x80) return -(result - 0x80 * 2 ** (8 * (length - 1)));
  return result;
}

export function encodeScriptNum(value: number): Uint8Array {
  if (value === 0) return new Uint8Array(0);
  const negative = value < 0;
  let abs = Math.abs(value);
  const out: number[] = [];
  while (abs > 0) {
    out.push(abs % 256);
    abs = Math.floor(abs / 256);
  }
  if (out[out.length - 1]! & 0x80) out.push(negative ? 0x80 : 0);
  else if (negative) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

/** Stack element truthiness: any non-zero byte, except a lone sign bit (negative zero) at the end. */
export function castToBool(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0) {
      if (i === bytes.length - 1 && bytes[i] === 0x80) return false;
      return true;
    }
  }
  return false;
}

/** CScript << int64: OP_0, OP_1NEGATE, OP_1..OP_16 or a minimal script-number push. */
export function pushInt(value: number): Uint8Array {
  if (value === 0) return Uint8Array.of(OP.OP_0);
  if (value === -1 || (value >= 1 && value <= 16)) return Uint8Array.of(OP.OP_1 + value - 1);
  return pushData(encodeScriptNum(value));
}
