/**
 * The mempool and mining policy options as Core v31 reads them (node/mempool_args.cpp,
 * init.cpp): amounts through ParseMoney (mempool-fee-args.ts has the fee rates' errors
 * and -incrementalrelayfee raising an unset -minrelaytxfee), the unsigned options
 * (-datacarriersize, -bytespersigop, -limitclustercount) taken modulo 2^32 as Core's
 * unsigned fields hold them, -limitclustercount at most 64, -blockmintxfee an amount,
 * -acceptnonstdtxn on test chains only. -limitancestorcount and the other pre-cluster
 * limits are still accepted and have no effect.
 */
import type { ChainName } from '../consensus/index.js';
import { DEFAULT_MEMPOOL_POLICY, type MempoolPolicyOptions } from '../mempool/index.js';
import { DEFAULT_BLOCK_MIN_TX_FEE } from '../rpc/index.js';
import type { Args } from './args.js';
import { minRelayTxFeeOf } from './mempool-fee-args.js';
import { parseMoney } from './money.js';

/** Core's MAX_CLUSTER_COUNT_LIMIT. */
const MAX_CLUSTER_COUNT_LIMIT = 64;

/** An int64 option stored in one of Core's 32-bit unsigned fields. */
function asUint32(value: number): number {
  return Number(BigInt.asUintN(32, BigInt(value)));
}

/** An amount option, `fallback` when not given or not an amount (start-up refuses the latter). */
function amountOption(args: Args, name: string, fallback: bigint): bigint {
  const text = args.getArg(name);
  return (text === undefined ? undefined : parseMoney(text)) ?? fallback;
}

/** -blockmintxfee in sat/kvB. */
export function blockMinTxFeeOption(args: Args): bigint {
  return amountOption(args, 'blockmintxfee', DEFAULT_BLOCK_MIN_TX_FEE);
}

/** The init error for a policy option Core refuses (other than the fee rates and -maxmempool), or undefined. */
export function policyOptionsError(args: Args, chain: ChainName): string | undefined {
  const blockMinTxFee = args.getArg('blockmintxfee');
  if (blockMinTxFee !== undefined && parseMoney(blockMinTxFee) === undefined) return `Invalid amount for -blockmintxfee=<amount>: '${blockMinTxFee}'`;
  if (args.getBoolArg('acceptnonstdtxn', false) && chain === 'main') return `acceptnonstdtxn is not currently supported for ${chain} chain`;
  if (mempoolPolicyOptions(args).limitClusterCount > MAX_CLUSTER_COUNT_LIMIT) return `limitclustercount must be less than or equal to ${MAX_CLUSTER_COUNT_LIMIT}`;
  return undefined;
}

export function mempoolPolicyOptions(args: Args): MempoolPolicyOptions {
  const d = DEFAULT_MEMPOOL_POLICY;
  const incrementalRelayFee = amountOption(args, 'incrementalrelayfee', d.incrementalRelayFee);
  return {
    maxMempoolBytes: args.getIntArg('maxmempool', d.maxMempoolBytes / 1_000_000) * 1_000_000,
    minRelayTxFee: minRelayTxFeeOf(args, d.minRelayTxFee, incrementalRelayFee),
    incrementalRelayFee,
    dustRelayFee: amountOption(args, 'dustrelayfee', d.dustRelayFee),
    permitBareMultisig: args.getBoolArg('permitbaremultisig', d.permitBareMultisig),
    maxDataCarrierBytes: args.getBoolArg('datacarrier', true) ? asUint32(args.getIntArg('datacarriersize', d.maxDataCarrierBytes)) : 0,
    limitClusterCount: asUint32(args.getIntArg('limitclustercount', d.limitClusterCount)),
    limitClusterSizeVbytes: args.getIntArg('limitclustersize', d.limitClusterSizeVbytes / 1000) * 1000,
    bytesPerSigop: asUint32(args.getIntArg('bytespersigop', d.bytesPerSigop)),
    requireStandard: !args.getBoolArg('acceptnonstdtxn', !d.requireStandard),
    expirySeconds: args.getIntArg('mempoolexpiry', d.expirySeconds / 3600) * 3600,
  };
}
