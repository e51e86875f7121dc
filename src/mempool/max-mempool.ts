/**
 * Core's check of -maxmempool at start-up (CTxMemPool's Flatten): the pool must hold 40
 * clusters of the largest size -limitclustersize allows. 0 is accepted (every newcomer is
 * then trimmed at once), as bitcoind v31.0 accepts it.
 */
import type { MempoolPolicyOptions } from './policy-options.js';

const CLUSTERS_THE_POOL_MUST_HOLD = 40;

/** A C++ stream's default rendering of a double, as Core's message prints the size (6 significant digits, %g style: 4e+06). */
function streamDouble(x: number): string {
  const exponent = x === 0 ? 0 : Math.floor(Math.log10(Math.abs(x)));
  const trim = (s: string) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);
  if (exponent >= -5 && exponent < 6) return trim(x.toPrecision(6));
  const [mantissa, exp] = x.toExponential(5).split('e') as [string, string];
  return `${trim(mantissa)}e${exp.startsWith('-') ? '-' : '+'}${exp.replace(/^[+-]/, '').padStart(2, '0')}`;
}

/** The init error for this -maxmempool, or undefined when it is allowed. */
export function maxMempoolSizeError(policy: MempoolPolicyOptions): string | undefined {
  const clusterLimitBytes = policy.limitClusterSizeVbytes * CLUSTERS_THE_POOL_MUST_HOLD;
  const max = policy.maxMempoolBytes;
  if (max < 0 || (max > 0 && max < clusterLimitBytes)) return `-maxmempool must be at least ${streamDouble(Math.ceil(clusterLimitBytes / 1_000_000))} MB`;
  return undefined;
}
