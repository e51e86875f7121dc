/**
 * What a change output costs and how much change to aim for (Core's GenerateChangeTarget and
 * the change parameters CreateTransactionInternal derives for coin selection).
 */
import { dustThreshold } from '../../mempool/index.js';
import { feeAtRate, type FeeRate } from './fee-rate.js';
import type { SelectionRng } from './rng.js';

/** Lower bound of the random change target. */
export const CHANGE_LOWER = 50_000n;
/** Upper bound of the random change target. */
export const CHANGE_UPPER = 1_000_000n;

/**
 * DUMMY_NESTED_P2WPKH_INPUT_SIZE: the change-spend size assumed when the wallet cannot tell how
 * to sign its change script, a P2SH-P2WPKH input as lower bound so BnB can still do its thing.
 */
export const DUMMY_NESTED_P2WPKH_INPUT_SIZE = 91;

/**
 * GenerateChangeTarget: a random change target so the wallet's change amounts do not give it
 * away. It covers the change output's fee plus CHANGE_LOWER, plus a random amount up to
 * min(2 × payment, CHANGE_UPPER) - CHANGE_LOWER; change similar to the payment hides which
 * output is which, and aiming above it breaks the "unnecessary input" heuristic. Payments of
 * at most CHANGE_LOWER / 2 get just CHANGE_LOWER (no randomness drawn).
 */
export function generateChangeTarget(paymentValue: bigint, changeFee: bigint, rng: SelectionRng): bigint {
  if (paymentValue <= CHANGE_LOWER / 2n) return changeFee + CHANGE_LOWER;
  const doubled = paymentValue * 2n;
  const upperBound = doubled < CHANGE_UPPER ? doubled : CHANGE_UPPER;
  return changeFee + BigInt(rng.randrange(Number(upperBound - CHANGE_LOWER))) + CHANGE_LOWER;
}

export interface ChangeCostInputs {
  /** The transaction's target rate. */
  readonly effectiveFeeRate: FeeRate;
  /** -discardfee: change worth less than spending it at this rate is dropped to fees. */
  readonly discardFeeRate: FeeRate;
  /** Serialized size of the change output (8 + script length prefix + script). */
  readonly changeOutputSize: number;
  /** vsize of later spending the change output. */
  readonly changeSpendSize: number;
  /** The change output's script, for its dust threshold. */
  readonly changeScriptPubKey: Uint8Array;
}

export interface ChangeCosts {
  /** m_change_fee: creating the change output now, at the effective rate. */
  readonly changeFee: bigint;
  /** m_cost_of_change: creating it now plus spending it later at the discard rate. */
  readonly costOfChange: bigint;
  /**
   * min_viable_change: the smallest change worth making, at least the dust threshold at the
   * discard rate and at least 1 sat more than spending it at that rate would cost.
   */
  readonly minViableChange: bigint;
}

/** CreateTransactionInternal's change fee, cost of change and minimum viable change. */
export function changeCosts(inputs: ChangeCostInputs): ChangeCosts {
  const changeFee = feeAtRate(inputs.effectiveFeeRate, inputs.changeOutputSize);
  const changeSpendFee = feeAtRate(inputs.discardFeeRate, inputs.changeSpendSize);
  const costOfChange = changeSpendFee + changeFee;
  const dust = dustThresholdOf(inputs.changeScriptPubKey, inputs.discardFeeRate);
  const minViableChange = changeSpendFee + 1n > dust ? changeSpendFee + 1n : dust;
  return { changeFee, costOfChange, minViableChange };
}

/** Serialized size of an output paying `scriptPubKey`: 8-byte value, CompactSize length, script. */
export function serializedOutputSize(scriptPubKey: Uint8Array): number {
  const n = scriptPubKey.length;
  return 8 + (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5) + n;
}

/**
 * GetDustThreshold (policy.cpp) for an output paying `scriptPubKey`: what spending it would cost
 * at `feeRate`, the spend sized as a P2WPKH input for witness programs and a P2PKH input
 * otherwise; 0 for an unspendable script.
 */
export function dustThresholdOf(scriptPubKey: Uint8Array, feeRate: FeeRate): bigint {
  return dustThreshold({ value: 0n, scriptPubKey }, feeRate);
}
