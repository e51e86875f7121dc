/** The bounds coin selection works within (Core's coinselection.cpp and policy.h). */
export { MAX_STANDARD_TX_WEIGHT } from '../../mempool/index.js';
export { MAX_MONEY } from '../../consensus/index.js';

/**
 * TOTAL_TRIES (coinselection.cpp): how many nodes BnB and CoinGrinder may visit in their
 * depth-first searches before giving up, keeping the wallet responsive on large UTXO pools.
 */
export const TOTAL_TRIES = 100_000;
