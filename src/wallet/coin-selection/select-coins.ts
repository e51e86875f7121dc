/**
 * The entry point of coin selection for a transaction (Core's SelectCoins): the inputs coin
 * control pre-selected count first, and the wallet selects the rest automatically if allowed.
 */
import { WITNESS_SCALE_FACTOR } from '../../primitives/index.js';
import type { AvailableCoins } from './available-coins.js';
import { automaticCoinSelection, type WalletSelectionContext } from './automatic-selection.js';
import type { SelectableCoin } from './coin.js';
import type { CoinSelectionParams } from './coin-selection-params.js';
import { MAX_STANDARD_TX_WEIGHT } from './limits.js';
import { COIN_SELECTION_ERROR, selected, selectionFailed, type SelectionOutcome } from './outcome.js';
import { SELECTION_ALGORITHM, SelectionResult } from './selection-result.js';

export interface SelectCoinsRequest {
  /** The wallet's other spendable coins (the pre-selected ones excluded), built at the effective fee rate. */
  readonly availableCoins: AvailableCoins;
  /** Coin control's pre-selected inputs, built at the effective fee rate (with bump fees applied). */
  readonly presetInputs?: readonly SelectableCoin[];
  /** Recipients' amounts plus the fees of everything but inputs (see prepareTransactionSelection). */
  readonly target: bigint;
  /** Coin control's m_allow_other_inputs (default true): may the wallet add inputs of its own? */
  readonly allowOtherInputs?: boolean;
  readonly params: CoinSelectionParams;
  readonly context?: WalletSelectionContext;
}

/** What pre-selected inputs contribute toward the target: value when recipients pay the fee, else effective value. */
export function presetInputsTotal(presetInputs: readonly SelectableCoin[], subtractFeeOutputs: boolean): bigint {
  let total = 0n;
  for (const coin of presetInputs) total += subtractFeeOutputs ? coin.value : coin.effectiveValue;
  return total;
}

/**
 * SelectCoins. Pre-selected inputs are always spent, however wasteful. If they cover the
 * target they are the whole (manual) selection; if not and other inputs are not allowed, that
 * is an error; otherwise the rest is selected automatically, after an early "insufficient funds"
 * when even all available coins fall short, and the pre-selected inputs are merged in, the
 * whole checked against the maximum weight.
 */
export function selectCoins(request: SelectCoinsRequest): SelectionOutcome {
  const { availableCoins, params } = request;
  const presetInputs = request.presetInputs ?? [];
  const allowOtherInputs = request.allowOtherInputs ?? true;

  const presetTotal = presetInputsTotal(presetInputs, params.subtractFeeOutputs);
  const selectionTarget = request.target - presetTotal;

  if (!allowOtherInputs && selectionTarget > 0n) return selectionFailed(COIN_SELECTION_ERROR.PRESELECTED_INSUFFICIENT);

  if (selectionTarget <= 0n) {
    const result = new SelectionResult(request.target, SELECTION_ALGORITHM.MANUAL);
    result.addInputs(presetInputs, params.subtractFeeOutputs);
    result.recalculateWaste(params.minViableChange, params.costOfChange, params.changeFee);
    return selected(result);
  }

  // Effective values unless the recipients pay the fee.
  const availableTotal = params.subtractFeeOutputs ? availableCoins.totalAmount : (availableCoins.totalEffectiveAmount ?? 0n);
  if (selectionTarget > availableTotal) return selectionFailed(); // Insufficient funds.

  const outcome = automaticCoinSelection(availableCoins, selectionTarget, params, request.context);
  if (!outcome.ok) return outcome;

  if (presetInputs.length > 0) {
    const preselected = new SelectionResult(presetTotal, SELECTION_ALGORITHM.MANUAL);
    preselected.addInputs(presetInputs, params.subtractFeeOutputs);
    outcome.result.merge(preselected);
    outcome.result.recalculateWaste(params.minViableChange, params.costOfChange, params.changeFee);
    const maxInputsWeight = (params.maxTxWeight ?? MAX_STANDARD_TX_WEIGHT) - params.txNoInputsSize * WITNESS_SCALE_FACTOR;
    if (outcome.result.weight > maxInputsWeight) return selectionFailed(COIN_SELECTION_ERROR.PRESELECTED_PLUS_AUTOMATIC_TOO_HEAVY);
  }
  return outcome;
}
