/**
 * mining: block templates, the coinbase and witness commitment, proof-of-work grinding
 * for regtest, and the generate/submit flows the mining RPCs use.
 */
export * from './coinbase.js';
export * from './witness-commitment.js';
export * from './assembler.js';
export * from './solve.js';
export * from './generate.js';
export * from './block-time.js';
export * from './assembly-stats.js';
export * from './network-hashps.js';
export * from './gbt-rules.js';
