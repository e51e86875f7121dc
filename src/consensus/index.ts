/**
 * consensus: the rules that are not script, pure and synchronous. Money bounds and block
 * limits; network parameters and genesis blocks; proof of work (compact targets,
 * retargeting, chain work, difficulty); the subsidy; buried and BIP9 deployments with
 * getdeploymentinfo's data; lock times and BIP68 sequence locks; per-block script flags;
 * context-free and contextual transaction and block checks with Core's reject reasons;
 * BIP30 and signet block solutions. Written against IndexedHeader, never the block index.
 */
export * from './amounts.js';
export * from './limits.js';
export * from './tx-check.js';
export * from './indexed-header.js';
export * from './validation-result.js';
export * from './genesis.js';
export * from './params.js';
export * from './params-args.js';
export * from './compact.js';
export * from './pow.js';
export * from './subsidy.js';
export * from './versionbits.js';
export * from './deployments.js';
export * from './deployment-info.js';
export * from './locktime.js';
export * from './tx-inputs.js';
export * from './script-flags.js';
export * from './bip30.js';
export * from './signet.js';
export * from './block-checks.js';
export * from './contextual-checks.js';
export * from './verification-progress.js';
