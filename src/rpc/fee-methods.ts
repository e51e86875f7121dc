/**
 * Core v31's rpc/fees.cpp: estimatesmartfee and the hidden estimaterawfee, answered by the
 * coordinator's fee estimator, with Core's argument checks, result shapes (field order,
 * error lists, rounding of the bucket figures) and help texts. Without an estimator
 * (-blocksonly) both fail as Core's EnsureAnyFeeEstimator does.
 */
import { ALL_FEE_ESTIMATE_HORIZONS, emptyEstimationResult, type BlockPolicyEstimator, type EstimatorBucket, type FeeCalculation } from '../fees/index.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import type { RpcArgs } from './args.js';
import { doubleJson } from './number-format.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { amountJson } from './values.js';

export interface FeeEstimationAccess {
  /** The estimator, undefined when fee estimation is disabled (-blocksonly). */
  estimator(): BlockPolicyEstimator | undefined;
  /** The floor of an answer: max of the mempool's minimum fee and -minrelaytxfee, sat/kvB. */
  minFeeRate(): bigint;
}

const CONF_TARGET_ARG = { name: 'conf_target', type: 'num' as const, description: 'Confirmation target in blocks (1 - 1008)' };

const FEE_MODES_DETAIL =
  'unset, economical, conservative \n' +
  'unset means no mode set (default mode will be used). \n' +
  'economical estimates use a shorter time horizon, making them more\n' +
  'responsive to short-term drops in the prevailing fee market. This mode\n' +
  'potentially returns a lower fee rate estimate.\n' +
  'conservative estimates use a longer time horizon, making them\n' +
  'less responsive to short-term drops in the prevailing fee market. This mode\n' +
  'potentially returns a higher fee rate estimate.\n';

function ensureEstimator(access: FeeEstimationAccess): BlockPolicyEstimator {
  const estimator = access.estimator();
  if (!estimator) throw new RpcError(RPC_INTERNAL_ERROR, 'Fee estimation disabled');
  return estimator;
}

/** Core's ParseConfirmTarget. */
function confirmTarget(args: RpcArgs, maxTarget: number): number {
  const target = args.int('conf_target');
  if (target < 1 || target > maxTarget) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${maxTarget}`);
  return target;
}

/** C's round(): halves away from zero. */
function cRound(value: number): number {
  return value < 0 ? -Math.floor(-value + 0.5) : Math.floor(value + 0.5);
}

function bucketJson(bucket: EstimatorBucket): Record<string, unknown> {
  const hundredths = (v: number) => doubleJson(cRound(v * 100.0) / 100.0);
  return {
    startrange: doubleJson(cRound(bucket.start)),
    endrange: doubleJson(cRound(bucket.end)),
    withintarget: hundredths(bucket.withinTarget),
    totalconfirmed: hundredths(bucket.totalConfirmed),
    inmempool: hundredths(bucket.inMempool),
    leftmempool: hundredths(bucket.leftMempool),
  };
}

export function feeMethods(access: FeeEstimationAccess): RpcMethod[] {
  const estimatesmartfee = defineRpcMethod({
    name: 'estimatesmartfee',
    category: 'util',
    description:
      'Estimates the approximate fee per kilobyte needed for a transaction to begin\n' +
      'confirmation within conf_target blocks if possible and return the number of blocks\n' +
      'for which the estimate is valid. Uses virtual transaction size as defined\n' +
      'in BIP 141 (witness data is discounted).\n',
    args: [CONF_TARGET_ARG, { name: 'estimate_mode', type: 'str', default: 'economical', description: 'The fee estimate mode.\n' + FEE_MODES_DETAIL }],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'num', key: 'feerate', optional: true, description: 'estimate fee rate in BTC/kvB (only present if no errors were encountered)' },
          { type: 'arr', key: 'errors', optional: true, description: 'Errors encountered during processing (if there are any)', inner: [{ type: 'str', description: 'error' }] },
          {
            type: 'num',
            key: 'blocks',
            description:
              'block number where estimate was found\n' +
              'The request target will be clamped between 2 and the highest target\n' +
              'fee estimation is able to return based on how long it has been running.\n' +
              'An error is returned if not enough transactions and blocks\n' +
              'have been observed to make an estimate for any number of blocks.',
          },
        ],
      },
    ],
    examples: helpExampleCli('estimatesmartfee', '6') + helpExampleRpc('estimatesmartfee', '6'),
    handler: (args) => {
      const estimator = ensureEstimator(access);
      const target = confirmTarget(args, estimator.highestTargetTracked('long'));
      let conservative = false;
      const mode = args.optString('estimate_mode');
      if (mode !== undefined) {
        const known = ['unset', 'economical', 'conservative'].find((m) => m === mode.toLowerCase());
        if (!known) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
        conservative = known === 'conservative';
      }
      const calc: FeeCalculation = { est: emptyEstimationResult(), reason: 'None', desiredTarget: 0, returnedTarget: 0, bestHeight: 0 };
      const feeRate = estimator.estimateSmartFee(target, conservative, calc);
      const result: Record<string, unknown> = {};
      if (feeRate !== 0) {
        const floor = access.minFeeRate();
        result['feerate'] = amountJson(BigInt(feeRate) > floor ? BigInt(feeRate) : floor);
      } else {
        result['errors'] = ['Insufficient data or no feerate found'];
      }
      result['blocks'] = calc.returnedTarget;
      return result;
    },
  });

  const elided = [{ type: 'elision' as const, description: '' }];
  const estimaterawfee = defineRpcMethod({
    name: 'estimaterawfee',
    category: 'hidden',
    description:
      'WARNING: This interface is unstable and may disappear or change!\n' +
      '\nWARNING: This is an advanced API call that is tightly coupled to the specific\n' +
      'implementation of fee estimation. The parameters it can be called with\n' +
      'and the results it returns will change if the internal implementation changes.\n' +
      '\nEstimates the approximate fee per kilobyte needed for a transaction to begin\n' +
      'confirmation within conf_target blocks if possible. Uses virtual transaction size as\n' +
      'defined in BIP 141 (witness data is discounted).\n',
    args: [
      CONF_TARGET_ARG,
      {
        name: 'threshold',
        type: 'num',
        default: 0.95,
        description:
          'The proportion of transactions in a given feerate range that must have been\n' +
          'confirmed within conf_target in order to consider those feerates as high enough and proceed to check\n' +
          'lower buckets.',
      },
    ],
    results: [
      {
        type: 'obj',
        description: 'Results are returned for any horizon which tracks blocks up to the confirmation target',
        inner: [
          {
            type: 'obj',
            key: 'short',
            optional: true,
            description: 'estimate for short time horizon',
            inner: [
              { type: 'num', key: 'feerate', optional: true, description: 'estimate fee rate in BTC/kvB' },
              { type: 'num', key: 'decay', description: 'exponential decay (per block) for historical moving average of confirmation data' },
              { type: 'num', key: 'scale', description: 'The resolution of confirmation targets at this time horizon' },
              {
                type: 'obj',
                key: 'pass',
                optional: true,
                description: 'information about the lowest range of feerates to succeed in meeting the threshold',
                inner: [
                  { type: 'num', key: 'startrange', description: 'start of feerate range' },
                  { type: 'num', key: 'endrange', description: 'end of feerate range' },
                  { type: 'num', key: 'withintarget', description: 'number of txs over history horizon in the feerate range that were confirmed within target' },
                  { type: 'num', key: 'totalconfirmed', description: 'number of txs over history horizon in the feerate range that were confirmed at any point' },
                  { type: 'num', key: 'inmempool', description: 'current number of txs in mempool in the feerate range unconfirmed for at least target blocks' },
                  { type: 'num', key: 'leftmempool', description: 'number of txs over history horizon in the feerate range that left mempool unconfirmed after target' },
                ],
              },
              { type: 'obj', key: 'fail', optional: true, description: 'information about the highest range of feerates to fail to meet the threshold', inner: elided },
              { type: 'arr', key: 'errors', optional: true, description: 'Errors encountered during processing (if there are any)', inner: [{ type: 'str', key: 'error', description: '' }] },
            ],
          },
          { type: 'obj', key: 'medium', optional: true, description: 'estimate for medium time horizon', inner: elided },
          { type: 'obj', key: 'long', optional: true, description: 'estimate for long time horizon', inner: elided },
        ],
      },
    ],
    examples: helpExampleCli('estimaterawfee', '6 0.9'),
    handler: (args) => {
      const estimator = ensureEstimator(access);
      const target = confirmTarget(args, estimator.highestTargetTracked('long'));
      const threshold = args.optNumber('threshold') ?? 0.95;
      if (threshold < 0 || threshold > 1) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid threshold');
      const result: Record<string, unknown> = {};
      for (const horizon of ALL_FEE_ESTIMATE_HORIZONS) {
        if (target > estimator.highestTargetTracked(horizon)) continue;
        const buckets = emptyEstimationResult();
        const feeRate = estimator.estimateRawFee(target, threshold, horizon, buckets);
        const out: Record<string, unknown> = {};
        if (feeRate !== 0) {
          out['feerate'] = amountJson(BigInt(feeRate));
          out['decay'] = doubleJson(buckets.decay);
          out['scale'] = buckets.scale;
          out['pass'] = bucketJson(buckets.pass);
          // start -1: every bucket passed, there is no failing range.
          if (buckets.fail.start !== -1) out['fail'] = bucketJson(buckets.fail);
        } else {
          out['decay'] = doubleJson(buckets.decay);
          out['scale'] = buckets.scale;
          out['fail'] = bucketJson(buckets.fail);
          out['errors'] = ['Insufficient data or no feerate found which meets threshold'];
        }
        result[horizon] = out;
      }
      return result;
    },
  });

  return [estimatesmartfee, estimaterawfee];
}
