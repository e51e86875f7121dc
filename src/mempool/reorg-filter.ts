/**
 * The filter of Core's MaybeUpdateMempoolForReorg (removeForReorg): after the tip moved
 * back, an entry stays only if the next block could still include it — final, its BIP68
 * locks met, every input still there, and coinbase outputs it spends mature.
 */
import { calculateSequenceLocks, COINBASE_MATURITY, evaluateSequenceLocks, isFinalTx, LOCKTIME_VERIFY_SEQUENCE } from '../consensus/index.js';
import type { MempoolEntry } from './entry.js';
import { MEMPOOL_HEIGHT, poolCoin } from './pool-coins.js';
import type { TxMempool } from './pool.js';
import type { ChainContext } from './prechecks.js';

export function minableAfterReorg(pool: TxMempool, entry: MempoolEntry, chain: ChainContext): boolean {
  const tip = chain.tip;
  const nextHeight = tip.height + 1;
  const tx = entry.tx;
  if (!isFinalTx(tx, nextHeight, tip.medianTimePast())) return false;
  const prevHeights: number[] = [];
  for (const input of tx.inputs) {
    const coin = poolCoin(pool, input.prevout) ?? chain.coin(input.prevout);
    if (!coin) return false;
    if (coin.coinbase && nextHeight - coin.height < COINBASE_MATURITY) return false;
    prevHeights.push(coin.height === MEMPOOL_HEIGHT ? nextHeight : coin.height);
  }
  return evaluateSequenceLocks(tip, calculateSequenceLocks(tx, LOCKTIME_VERIFY_SEQUENCE, prevHeights, tip));
}
