/**
 * Core's reading of the mempool's fee-rate options (ApplyArgsManOptions in
 * node/mempool_args.cpp): -incrementalrelayfee, -minrelaytxfee and -dustrelayfee must
 * be amounts, else start-up fails with Core's AmountErrMsg; with -incrementalrelayfee
 * alone above the default -minrelaytxfee, the minimum relay fee rises to match it.
 */
import type { Args } from './args.js';
import { parseMoney } from './money.js';

const FEE_RATE_OPTIONS = ['incrementalrelayfee', 'minrelaytxfee', 'dustrelayfee'] as const;

/** The init error for the first option that is not an amount, in Core's order. */
export function mempoolFeeArgsError(args: Args): string | undefined {
  for (const name of FEE_RATE_OPTIONS) {
    const text = args.getArg(name);
    if (text !== undefined && parseMoney(text) === undefined) return `Invalid amount for -${name}=<amount>: '${text}'`;
  }
  return undefined;
}

/** -minrelaytxfee as Core applies it: the option, else at least -incrementalrelayfee. */
export function minRelayTxFeeOf(args: Args, minRelayDefault: bigint, incrementalRelayFee: bigint): bigint {
  const text = args.getArg('minrelaytxfee');
  if (text !== undefined) return parseMoney(text) ?? minRelayDefault;
  return incrementalRelayFee > minRelayDefault ? incrementalRelayFee : minRelayDefault;
}
