/**
 * Mempool policy options with Core v31's defaults (kernel/mempool_options.h,
 * policy/policy.h): what getmempoolinfo reports and what acceptance enforces.
 * Fee rates are in satoshis per 1,000 virtual bytes.
 */
import { DEFAULT_MEMPOOL_EXPIRY_HOURS } from './policy-limits.js';

export interface MempoolPolicyOptions {
  /** -maxmempool (MB) in bytes. */
  readonly maxMempoolBytes: number;
  /** -minrelaytxfee, sat/kvB. */
  readonly minRelayTxFee: bigint;
  /** -incrementalrelayfee, sat/kvB. */
  readonly incrementalRelayFee: bigint;
  /** -dustrelayfee, sat/kvB. */
  readonly dustRelayFee: bigint;
  readonly permitBareMultisig: boolean;
  /** -datacarriersize, or 0 with -datacarrier=0. */
  readonly maxDataCarrierBytes: number;
  readonly limitClusterCount: number;
  /** -limitclustersize (kvB) in virtual bytes. */
  readonly limitClusterSizeVbytes: number;
  /** -bytespersigop: sigop cost counts this many bytes each in the virtual size. */
  readonly bytesPerSigop: number;
  /** Not -acceptnonstdtxn: the IsStandard family of rules applies. */
  readonly requireStandard: boolean;
  /** -mempoolexpiry (hours) in seconds: older transactions leave the pool. */
  readonly expirySeconds: number;
}

export const DEFAULT_MEMPOOL_POLICY: MempoolPolicyOptions = {
  maxMempoolBytes: 300 * 1_000_000,
  minRelayTxFee: 100n,
  incrementalRelayFee: 100n,
  dustRelayFee: 3000n,
  permitBareMultisig: true,
  maxDataCarrierBytes: 100_000,
  limitClusterCount: 64,
  limitClusterSizeVbytes: 101 * 1000,
  bytesPerSigop: 20,
  requireStandard: true,
  expirySeconds: DEFAULT_MEMPOOL_EXPIRY_HOURS * 3600,
};
