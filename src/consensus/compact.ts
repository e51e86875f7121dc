/**
 * The compact ("nBits") encoding of 256-bit targets (Core's arith_uint256::SetCompact and
 * GetCompact): a one-byte size and a 23-bit mantissa with a sign bit. Arithmetic that Core
 * does in arith_uint256 wraps modulo 2^256 here too, so overflowing inputs behave alike.
 */

/** 2^256 - 1: arith_uint256's range. */
export const UINT256_MASK = (1n << 256n) - 1n;

export interface DecodedCompact {
  /** The target, truncated to 256 bits as arith_uint256 would hold it. */
  readonly target: bigint;
  /** The sign bit was set on a non-zero mantissa (an invalid target). */
  readonly negative: boolean;
  /** The value does not fit in 256 bits (an invalid target). */
  readonly overflow: boolean;
}

/** Core's SetCompact with its negative and overflow flags. */
export function decodeCompact(bits: number): DecodedCompact {
  const compact = bits >>> 0;
  const size = compact >>> 24;
  let word = compact & 0x007fffff;
  let target: bigint;
  if (size <= 3) {
    // Core shifts the mantissa itself here, so the flags below see the shifted value.
    word >>>= 8 * (3 - size);
    target = BigInt(word);
  } else {
    target = (BigInt(word) << BigInt(8 * (size - 3))) & UINT256_MASK;
  }
  const negative = word !== 0 && (compact & 0x00800000) !== 0;
  const overflow = word !== 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
  return { target, negative, overflow };
}

/** The target of `bits` ignoring the flags, as Core's plain SetCompact(bits). */
export function compactToTarget(bits: number): bigint {
  return decodeCompact(bits).target;
}

/** Number of significant bits (arith_uint256::bits). */
export function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/**
 * Core's GetCompact: the shortest size/mantissa pair, moving one byte into the size when
 * the mantissa would otherwise have its sign bit set. `target` must be in [0, 2^256).
 */
export function targetToCompact(target: bigint, negative = false): number {
  if (target < 0n || target > UINT256_MASK) throw new RangeError('target outside the 256-bit range');
  let size = Math.floor((bitLength(target) + 7) / 8);
  let compact: number;
  if (size <= 3) {
    compact = Number(target) * 2 ** (8 * (3 - size));
  } else {
    compact = Number((target >> BigInt(8 * (size - 3))) & 0xffffffffn);
  }
  if (compact & 0x00800000) {
    compact >>>= 8;
    size++;
  }
  compact = (compact | (size << 24)) >>> 0;
  if (negative && (compact & 0x007fffff) !== 0) compact = (compact | 0x00800000) >>> 0;
  return compact;
}

/** 64 lowercase hex digits of a 256-bit value: how RPC prints targets and chain work. */
export function uint256Hex(value: bigint): string {
  return (value & UINT256_MASK).toString(16).padStart(64, '0');
}
