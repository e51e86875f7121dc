/**
 * mempool: unconfirmed transactions (Core's CTxMemPool and MemPoolAccept). Policy
 * options and standardness rules, acceptance (PreChecks, replacement, cluster limits,
 * script checks), the pool with its journal into the LMDB mempool table, chunking and
 * block selection, and the node mempool kept in step with the chainstate (block
 * connect/disconnect, reorg re-adds, start-up reload).
 */
export * from './policy-options.js';
export * from './policy-limits.js';
export * from './fee-rate.js';
export * from './standard-tx.js';
export * from './standard-inputs.js';
export * from './entry.js';
export * from './pool.js';
export * from './pool-addresses.js';
export * from './pool-coins.js';
export * from './linearize.js';
export * from './prechecks.js';
export * from './replacement.js';
export * from './script-checks.js';
export * from './reorg-filter.js';
export * from './block-selection.js';
export * from './package-form.js';
export * from './package-accept.js';
export * from './truc-policy.js';
export * from './ephemeral-policy.js';
export * from './replacement-log.js';
export * from './pool-events.js';
export * from './memory-usage.js';
export * from './pool-usage.js';
export * from './rolling-min-fee.js';
export * from './trim.js';
export * from './max-mempool.js';
export * from './mempool-file.js';
export * from './mempool-load.js';
export * from './node-mempool.js';
export { MiniMiner } from './mini-miner.js';
