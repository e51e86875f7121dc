/**
 * chain: the block tree, the active chain, the UTXO view, connecting and disconnecting
 * blocks, reorganisations, invalidate/reconsider/precious, and persistence of all of it
 * through the ChainStore in atomic commits.
 */
export * from './block-status.js';
export * from './block-index-entry.js';
export * from './block-tree.js';
export * from './active-chain.js';
export * from './block-undo.js';
export * from './chain-store.js';
export * from './coins-view.js';
export * from './outpoint-key.js';
export * from './connect-block.js';
export * from './validation-result.js';
export * from './chainstate.js';
export * from './script-checker.js';
export * from './script-execution-cache.js';
export * from './standalone-verify.js';
export * from './lmdb-chain-store.js';
export * from './import.js';
export * from './utxo-stats.js';
export * from './utxo-snapshot-file.js';
export { storedIndexInfo, type IndexInfo } from './base-index.js';
export * from './txindex.js';
export * from './blockfilter.js';
export * from './blockfilter-index.js';
export * from './blockfilter-view.js';
export * from './verify-db.js';
export * from './snapshot-view.js';
export * from './snapshot-source.js';
export * from './snapshot-tips.js';
export * from './coinstats-index.js';
export * from './coinstats-view.js';
export * from './address-index.js';
export * from './address-index-view.js';
export * from './txospender-index.js';
