/**
 * The resource bounds Core computes for every miniscript node (internal::Ops and
 * internal::SatInfo): opcode counts and stack-size bounds for satisfying and
 * dissatisfying it, combined from the children as the script's execution paths combine.
 */

/** Core's MaxInt: the maximum over a set of paths; null for the empty set. */
export type MaxInt = number | null;

export function maxIntAdd(a: MaxInt, b: MaxInt): MaxInt {
  return a === null || b === null ? null : a + b;
}

export function maxIntOr(a: MaxInt, b: MaxInt): MaxInt {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

export interface Ops {
  /** Non-push opcodes. */
  readonly count: number;
  /** Keys in possibly executed CHECKMULTISIGs to satisfy. */
  readonly sat: MaxInt;
  /** Keys in possibly executed CHECKMULTISIGs to dissatisfy. */
  readonly dsat: MaxInt;
}

/**
 * Core's SatInfo: a set of execution traces, as [netdiff, exec] (how much larger the stack
 * is at the start, and at most during execution, than at the end), or null for none.
 */
export type SatInfo = readonly [number, number] | null;

export function satOr(a: SatInfo, b: SatInfo): SatInfo {
  if (a === null) return b;
  if (b === null) return a;
  return [Math.max(a[0], b[0]), Math.max(a[1], b[1])];
}

/** Concatenation of the traces of `a` then `b`. */
export function satAdd(...parts: SatInfo[]): SatInfo {
  let acc: SatInfo = [0, 0];
  for (const b of parts) {
    if (acc === null || b === null) return null;
    acc = [acc[0] + b[0], Math.max(b[1], b[0] + acc[1])];
  }
  return acc;
}

/** The traces of single opcodes (Core's SatInfo::Push, ::If, ...). */
export const SAT = {
  empty: [0, 0],
  push: [-1, 0],
  hash: [0, 0],
  nop: [0, 0],
  if: [1, 1],
  binaryOp: [1, 1],
  dup: [-1, 0],
  ifdup: (nonzero: boolean): SatInfo => [nonzero ? -1 : 0, 0],
  equalVerify: [2, 2],
  equal: [1, 1],
  size: [-1, 0],
  checksig: [1, 1],
  zeroNotEqual: [0, 0],
  verify: [1, 1],
} as const;

export interface StackSize {
  readonly sat: SatInfo;
  readonly dsat: SatInfo;
}
