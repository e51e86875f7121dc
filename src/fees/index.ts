/**
 * fees: Core v31's block policy fee estimator (policy/fees/block_policy_estimator): the
 * fee-rate buckets, the three decaying horizons, the estimator fed by pool and block
 * events with its smart and raw estimates, and the fee_estimates.dat format. Pure: the
 * node wires the events and reads and writes the file.
 */
export * from './constants.js';
export * from './buckets.js';
export * from './tx-confirm-stats.js';
export * from './block-policy-estimator.js';
export * from './estimates-file.js';
