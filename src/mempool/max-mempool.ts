/**
 * Core's check of -maxmempool at start-up (CTxMemPool's Flatten): the pool must hold 40
 * clusters of the largest size -limitclustersize allows. 0 is accepted (every newcomer is
 * then trimmed at once), as bitcoind v31.0 accepts it.
 */
import type { MempoolPolicyOptions } from './policy-options.js';

const CLUSTERS_THE_POOL_MUST_HOLD = 40;

/** The init error for this -maxmempool, or undefined when it is allowed. */
export function maxMempoolSizeError(policy: MempoolPolicyOptions): string | undefined {
  const clusterLimitBytes = policy.limitClusterSizeVbytes * CLUSTERS_THE_POOL_MUST_HOLD;
  const max = policy.maxMempoolBytes;
  if (max < 0 || (max > 0 && max < clusterLimitBytes)) return `-maxmempool must be at least ${Math.ceil(clusterLimitBytes / 1_000_000)} MB`;
  return undefined;
}
