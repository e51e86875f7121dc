/**
 * Core's GuessVerificationProgress: the share of all transactions up to now that the chain
 * up to a block holds, the total extrapolated from the network's ChainTxData (or from the
 * block itself past that data) at its transaction rate.
 */
import type { ChainTxData } from './params.js';

export function guessVerificationProgress(data: ChainTxData, chainTxCount: number, blockTime: number, nowSeconds: number): number {
  if (chainTxCount === 0) return 0;
  const total = chainTxCount <= data.txCount ? data.txCount + (nowSeconds - data.time) * data.txRate : chainTxCount + (nowSeconds - blockTime) * data.txRate;
  return Math.min(chainTxCount / total, 1);
}
