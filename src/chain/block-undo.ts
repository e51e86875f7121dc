/**
 * Undo data of a block: for each non-coinbase transaction, the coins its inputs spent,
 * in input order. Disconnecting a block restores them; getblockstats, REST spenttxouts
 * and getblock verbosity 3 read them too.
 */
import type { Coin } from '../consensus/index.js';

export type BlockUndo = Coin[][];
