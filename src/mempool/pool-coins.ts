/**
 * Core's CCoinsViewMemPool as acceptance sees it: an output of a pool transaction is a
 * coin at MEMPOOL_HEIGHT (it will be mined in the next block at the earliest); any other
 * comes from the chain's UTXO set. Spends by other pool transactions are not subtracted:
 * those are conflicts, which replacement rules decide on.
 */
import type { Coin } from '../consensus/index.js';
import { hashToHex, type OutPoint } from '../primitives/index.js';
import type { TxMempool } from './pool.js';

/** Core's MEMPOOL_HEIGHT: the height outputs of unconfirmed transactions report. */
export const MEMPOOL_HEIGHT = 0x7fffffff;

export function poolCoin(pool: TxMempool, outpoint: OutPoint): Coin | undefined {
  const parent = pool.get(hashToHex(outpoint.txid));
  if (!parent) return undefined;
  const output = parent.tx.outputs[outpoint.vout];
  return output ? { output, height: MEMPOOL_HEIGHT, coinbase: false } : undefined;
}
