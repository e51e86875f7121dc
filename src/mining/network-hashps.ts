/**
 * Core's GetNetworkHashPS: the work done over a window of blocks divided by the spread
 * of their timestamps. The window ends at a given block and spans `lookup` blocks, or
 * (lookup -1) the blocks since the last difficulty change; it never reaches past
 * genesis, and a zero time spread (or the genesis block itself) gives 0.
 */
import { UINT256_MASK } from '../consensus/index.js';

/** The block-index facts the estimate reads. */
export interface WorkedBlock {
  readonly height: number;
  readonly time: number;
  readonly chainWork: bigint;
  readonly prev: WorkedBlock | undefined;
}

/**
 * arith_uint256::getdouble: the 32-bit words summed from the lowest up in doubles. Its
 * rounding differs from Number(bigint) for large values, and the estimate must agree
 * with Core's to the last digit.
 */
export function uint256ToDouble(value: bigint): number {
  let rest = value & UINT256_MASK;
  let result = 0;
  let factor = 1;
  for (let i = 0; i < 8; i++) {
    result += factor * Number(rest & 0xffffffffn);
    factor *= 4294967296;
    rest >>= 32n;
  }
  return result;
}

/** Hashes per second at `end` over `lookup` blocks (a positive count, or -1: since the last retarget). */
export function networkHashPerSecond(end: WorkedBlock, lookup: number, difficultyAdjustmentInterval: number): number {
  if (end.height === 0) return 0;
  let count = lookup === -1 ? (end.height % difficultyAdjustmentInterval) + 1 : lookup;
  if (count > end.height) count = end.height;
  let start = end;
  let minTime = end.time;
  let maxTime = end.time;
  for (let i = 0; i < count; i++) {
    start = start.prev!;
    minTime = Math.min(minTime, start.time);
    maxTime = Math.max(maxTime, start.time);
  }
  // Equal times would divide by zero; Core answers 0.
  if (minTime === maxTime) return 0;
  return uint256ToDouble(end.chainWork - start.chainWork) / (maxTime - minTime);
}
