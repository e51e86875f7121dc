/**
 * rpc/format: pure builders of Core's RPC result objects (no I/O, no chain access), so
 * that HTTP front-ends reading LMDB snapshots and the coordinator print the same bytes.
 * Scripts (scriptPubKey, scriptSig, decodescript), transactions (TxToUniv,
 * getrawtransaction's wrapping, decoderawtransaction), headers and blocks (getblockheader,
 * getblock 1–3 with v31's coinbase_tx), and getblockstats.
 */
export * from './result.js';
export * from './script.js';
export * from './transaction.js';
export * from './transaction-text.js';
export * from './block.js';
export * from './block-stats.js';
