/**
 * The coin selection set-up a send (sendtoaddress, send, fundrawtransaction, ...) does before
 * selecting: CreateTransaction's recipient checks and the part of CreateTransactionInternal that
 * sizes the transaction without inputs, prices change, draws the change target and computes the
 * selection target.
 */
import { MAX_STANDARD_TX_WEIGHT, MIN_STANDARD_TX_NONWITNESS_SIZE } from '../../mempool/index.js';
import { WITNESS_SCALE_FACTOR } from '../../primitives/index.js';
import { changeCosts, DUMMY_NESTED_P2WPKH_INPUT_SIZE, generateChangeTarget, serializedOutputSize } from './change.js';
import type { CoinSelectionParams } from './coin-selection-params.js';
import { feeAtRate, type FeeRate } from './fee-rate.js';
import { COIN_SELECTION_ERROR } from './outcome.js';
import type { SelectionRng } from './rng.js';

/** -consolidatefeerate's default (DEFAULT_CONSOLIDATE_FEERATE): 10 sat/vB, the long-term rate. */
export const DEFAULT_CONSOLIDATE_FEERATE: FeeRate = 10_000n;
/** -discardfee's default (DEFAULT_DISCARD_FEE): 10 sat/vB. */
export const DEFAULT_DISCARD_FEE: FeeRate = 10_000n;

/** CreateTransaction's own refusals, before any selection. */
export const CREATE_TRANSACTION_ERROR = {
  NO_RECIPIENTS: 'Transaction must have at least one recipient',
  NEGATIVE_AMOUNT: 'Transaction amounts must not be negative',
} as const;

export interface SelectionRecipient {
  readonly amount: bigint;
  readonly scriptPubKey: Uint8Array;
  /** subtractfeefromamount for this output. */
  readonly subtractFeeFromAmount: boolean;
}

export interface TransactionSelectionRequest {
  readonly rng: SelectionRng;
  readonly recipients: readonly SelectionRecipient[];
  /** The target rate (GetMinimumFeeRate's answer). */
  readonly effectiveFeeRate: FeeRate;
  /** The wallet's -consolidatefeerate (default DEFAULT_CONSOLIDATE_FEERATE). */
  readonly longTermFeeRate?: FeeRate;
  /** GetDiscardRate(wallet) (default DEFAULT_DISCARD_FEE). */
  readonly discardFeeRate?: FeeRate;
  /** The change output's script; empty when no change address could be had (Core then errors only if change is needed). */
  readonly changeScriptPubKey: Uint8Array;
  /** vsize of spending the change output, or -1 when the wallet cannot tell (then a P2SH-P2WPKH spend is assumed). */
  readonly changeSpendSize: number;
  /** Coin control's max_tx_weight. */
  readonly maxTxWeight?: number;
  readonly avoidPartialSpends?: boolean;
  readonly includeUnsafeInputs?: boolean;
  /** Whether coin control pre-selected inputs (a 0 target is then fine). */
  readonly hasPreselectedInputs?: boolean;
}

export type PreparedSelection =
  | { readonly ok: true; readonly params: CoinSelectionParams; readonly selectionTarget: bigint; readonly recipientsSum: bigint }
  | { readonly ok: false; readonly error: string };

function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/**
 * CreateTransaction's recipient checks and CreateTransactionInternal's parameter set-up, in
 * Core's order (the change target draws from the RNG before any selection does). Dust checks of
 * the recipients are left to the caller, who knows the relay dust rate.
 */
export function prepareTransactionSelection(request: TransactionSelectionRequest): PreparedSelection {
  const { recipients } = request;
  if (recipients.length === 0) return { ok: false, error: CREATE_TRANSACTION_ERROR.NO_RECIPIENTS };
  if (recipients.some((r) => r.amount < 0n)) return { ok: false, error: CREATE_TRANSACTION_ERROR.NEGATIVE_AMOUNT };

  const maxTxWeight = request.maxTxWeight ?? MAX_STANDARD_TX_WEIGHT;
  const minimumTxWeight = MIN_STANDARD_TX_NONWITNESS_SIZE * WITNESS_SCALE_FACTOR;
  if (maxTxWeight < minimumTxWeight || maxTxWeight > MAX_STANDARD_TX_WEIGHT) {
    return {
      ok: false,
      error: COIN_SELECTION_ERROR.MAX_TX_WEIGHT_OUT_OF_RANGE.replace('%d', String(minimumTxWeight)).replace('%d', String(MAX_STANDARD_TX_WEIGHT)),
    };
  }

  // 4 version, 4 locktime, 1 input count, 1 witness overhead (marker, flag, stack size), output count.
  let txNoInputsSize = 10 + compactSizeLength(recipients.length);
  let recipientsSum = 0n;
  let subtractFeeOutputs = false;
  for (const recipient of recipients) {
    txNoInputsSize += serializedOutputSize(recipient.scriptPubKey);
    recipientsSum += recipient.amount;
    if (recipient.subtractFeeFromAmount) subtractFeeOutputs = true;
  }

  const effectiveFeeRate = request.effectiveFeeRate;
  const discardFeeRate = request.discardFeeRate ?? DEFAULT_DISCARD_FEE;
  const changeOutputSize = serializedOutputSize(request.changeScriptPubKey);
  const changeSpendSize = request.changeSpendSize === -1 ? DUMMY_NESTED_P2WPKH_INPUT_SIZE : request.changeSpendSize;
  const { changeFee, costOfChange, minViableChange } = changeCosts({
    effectiveFeeRate,
    discardFeeRate,
    changeOutputSize,
    changeSpendSize,
    changeScriptPubKey: request.changeScriptPubKey,
  });
  // The average payment, floored (Core: std::floor(recipients_sum / vecSend.size())).
  const minChangeTarget = generateChangeTarget(recipientsSum / BigInt(recipients.length), changeFee, request.rng);

  const params: CoinSelectionParams = {
    rng: request.rng,
    changeOutputSize,
    changeSpendSize,
    minChangeTarget,
    minViableChange,
    changeFee,
    costOfChange,
    effectiveFeeRate,
    longTermFeeRate: request.longTermFeeRate ?? DEFAULT_CONSOLIDATE_FEERATE,
    discardFeeRate,
    txNoInputsSize,
    subtractFeeOutputs,
    avoidPartialSpends: request.avoidPartialSpends ?? false,
    includeUnsafeInputs: request.includeUnsafeInputs ?? false,
    maxTxWeight,
  };

  // Fees of everything but the inputs and change; the recipients pay them under SFFO.
  const notInputFees = feeAtRate(effectiveFeeRate, subtractFeeOutputs ? 0 : txNoInputsSize);
  const selectionTarget = recipientsSum + notInputFees;
  // Only a 0 fee rate with 0-value outputs (OP_RETURN) gets here: a 0-input transaction is invalid.
  if (selectionTarget === 0n && !request.hasPreselectedInputs) return { ok: false, error: COIN_SELECTION_ERROR.NOTHING_TO_FUND };
  return { ok: true, params, selectionTarget, recipientsSum };
}
