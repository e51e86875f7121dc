/**
 * Core's GuessVerificationProgress (v31): the share of all transactions up to now that the
 * chain up to a block holds, the total extrapolated from the network's ChainTxData (or from
 * the block itself past that data) at its transaction rate. A block within two hours of
 * now is placed by height below the best header instead of by its own timestamp, so the
 * answer reaches exactly 1 at the tip of a synced chain.
 */
import type { ChainTxData } from './params.js';

export interface ProgressBlock {
  readonly chainTxCount: number;
  readonly time: number;
  readonly height: number;
}

const TWO_HOURS = 2 * 60 * 60;

export function guessVerificationProgress(data: ChainTxData, block: ProgressBlock, bestHeaderHeight: number, targetSpacing: number, nowSeconds: number): number {
  if (block.chainTxCount === 0) return 0;
  const recent = Math.abs(nowSeconds - block.time) <= TWO_HOURS && bestHeaderHeight >= block.height;
  const blockTime = recent ? nowSeconds - (bestHeaderHeight - block.height) * targetSpacing : block.time;
  const total =
    block.chainTxCount <= data.txCount ? data.txCount + (nowSeconds - data.time) * data.txRate : block.chainTxCount + (nowSeconds - blockTime) * data.txRate;
  return Math.min(block.chainTxCount / total, 1);
}
