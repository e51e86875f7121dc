/** Block-level consensus limits (Core's consensus.h). */
export const MAX_BLOCK_WEIGHT = 4_000_000;
export const MAX_BLOCK_SERIALIZED_SIZE = 4_000_000;
export const MAX_BLOCK_SIGOPS_COST = 80_000;
export const COINBASE_MATURITY = 100;
export const WITNESS_SCALE_FACTOR = 4;
/** Transactions smaller than this (without witness) are invalid, so they cannot pose as a merkle node. */
export const MIN_TRANSACTION_WEIGHT = 4 * 60;
