/**
 * consensus: the rules that are not script — money bounds, block limits and the
 * context-free transaction checks. Network parameters, proof of work, subsidy,
 * deployments and contextual block checks join here with the chainstate.
 */
export * from './amounts.js';
export * from './limits.js';
export * from './tx-check.js';
export * from './indexed-header.js';
