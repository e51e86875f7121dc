/**
 * mempool: unconfirmed transactions. So far its policy options (reported by
 * getmempoolinfo); acceptance, limits, replacement and persistence arrive with the
 * mempool issue.
 */
export * from './policy-options.js';
