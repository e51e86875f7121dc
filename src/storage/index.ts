/**
 * storage: the node's persistence mechanics, no consensus logic. LMDB environments with
 * a documented layout (layout.ts), snapshot readers for front-ends and one-transaction
 * durable write batches for the coordinator (env.ts, lmdb-env.ts), Core-format flat block
 * files with XOR obfuscation and a recovery scanner (block-files.ts, block-file-scan.ts),
 * and Core's exact encodings for coins and undo data (coin-codec.ts, undo-codec.ts).
 */
export * from './errors.js';
export * from './layout.js';
export * from './meta-codec.js';
export * from './varint.js';
export * from './compressor.js';
export * from './coin-codec.js';
export * from './undo-codec.js';
export * from './index-record.js';
export * from './block-file-info.js';
export * from './txindex-record.js';
export * from './blockfilter-record.js';
export * from './coinstats-record.js';
export * from './address-index-record.js';
export * from './mempool-record.js';
export * from './mempool-stats-meta.js';
export { LmdbEnv, type Entry, type LmdbEnvOptions, type RangeQuery, type TableReader, type TableWriter } from './lmdb-env.js';
export * from './chainstate-tables.js';
export * from './indexes-tables.js';
export * from './env.js';
export * from './xor-key.js';
export * from './block-file-names.js';
export { MAX_RECORD_SIZE, STORAGE_HEADER_BYTES, type FlatFilePos } from './block-read.js';
export * from './block-files.js';
export * from './block-file-scan.js';
export { fsyncDirectory, writeFileAtomic } from './fs-durable.js';
