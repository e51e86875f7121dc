/**
 * The timestamp and bits a new block gets (Core's GetMinimumTime and UpdateTime):
 * at least median-time-past + 1, and at a retarget boundary no more than MAX_TIMEWARP
 * before its parent (BIP94's timewarp rule, applied on every network so that a later
 * activation cannot invalidate templates); otherwise the node's clock.
 */
import { getNextWorkRequired, type ChainParams, type IndexedHeader } from '../consensus/index.js';

/** Core's MAX_TIMEWARP: how far a retarget-boundary block may lag behind its parent. */
export const MAX_TIMEWARP = 600;

/** Core's GetMinimumTime: getblocktemplate's `mintime` for the child of `prev`. */
export function minimumBlockTime(prev: IndexedHeader, difficultyAdjustmentInterval: number): number {
  let minTime = prev.medianTimePast() + 1;
  if ((prev.height + 1) % difficultyAdjustmentInterval === 0) minTime = Math.max(minTime, prev.time - MAX_TIMEWARP);
  return minTime;
}

export interface BlockTiming {
  time: number;
  bits: number;
}

/**
 * Core's UpdateTime: the time moves forward to max(minimum time, now) but never back
 * (`currentTime` is what the block had; pass 0 for a new block), and on chains with
 * minimum-difficulty blocks the bits follow the time.
 */
export function updateBlockTime(prev: IndexedHeader, params: ChainParams, now: number, current: BlockTiming): BlockTiming {
  const newTime = Math.max(minimumBlockTime(prev, params.difficultyAdjustmentInterval), now);
  const time = current.time < newTime ? newTime : current.time;
  const bits = params.allowMinDifficultyBlocks ? getNextWorkRequired(prev, time, params) : current.bits;
  return { time, bits };
}
