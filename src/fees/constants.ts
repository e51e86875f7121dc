/**
 * Core v31's fee estimation constants (policy/fees/block_policy_estimator.h). Fee rates
 * are satoshis per 1,000 virtual bytes, held as doubles as Core holds them.
 */

/** Per-block decay of the short horizon's moving averages (half-life 18 blocks). */
export const SHORT_DECAY = 0.962;
export const SHORT_SCALE = 1;
export const SHORT_BLOCK_PERIODS = 12;
/** Medium horizon: half-life 144 blocks, confirmations counted in pairs of blocks. */
export const MED_DECAY = 0.9952;
export const MED_SCALE = 2;
export const MED_BLOCK_PERIODS = 24;
/** Long horizon: half-life 1008 blocks, confirmations counted per 24 blocks. */
export const LONG_DECAY = 0.99931;
export const LONG_SCALE = 24;
export const LONG_BLOCK_PERIODS = 42;

/** Success rate asked at half the target (estimateSmartFee). */
export const HALF_SUCCESS_PCT = 0.6;
/** Success rate asked at the target. */
export const SUCCESS_PCT = 0.85;
/** Success rate asked at twice the target (and estimaterawfee's default threshold). */
export const DOUBLE_SUCCESS_PCT = 0.95;

/** Transactions per block a bucket range needs (medium and long horizons). */
export const SUFFICIENT_FEETXS = 0.1;
/** Transactions per block a bucket range needs on the short horizon. */
export const SUFFICIENT_TXS_SHORT = 0.5;

export const MIN_BUCKET_FEERATE = 1000 / 10;
export const MAX_BUCKET_FEERATE = 1e7;
/** Spacing of bucket boundaries: each 5% above the last. */
export const FEE_SPACING = 1.05;
/** The last bucket's upper bound, for fee rates above MAX_BUCKET_FEERATE. */
export const INF_FEERATE = 1e99;

/** Blocks after which a loaded file's historical span no longer counts. */
export const OLDEST_ESTIMATE_HISTORY = 6 * 1008;

/** fee_estimates.dat: the version v31 writes and the highest it reads (older files are ignored). */
export const CURRENT_FEES_FILE_VERSION = 309900;
/** A file older than this is not loaded (unless -acceptstalefeeestimates). */
export const MAX_FILE_AGE_HOURS = 60;
/** Core's FEE_FLUSH_INTERVAL: the estimates are written every hour. */
export const FEE_FLUSH_INTERVAL_MS = 60 * 60 * 1000;

export type FeeEstimateHorizon = 'short' | 'medium' | 'long';
export const ALL_FEE_ESTIMATE_HORIZONS: readonly FeeEstimateHorizon[] = ['short', 'medium', 'long'];
