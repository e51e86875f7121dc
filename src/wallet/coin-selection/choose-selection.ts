/**
 * Running the solvers on one set of groups and keeping the least wasteful answer (Core's
 * ChooseSelectionResult), and doing that per output type before mixing types (AttemptSelection).
 */
import { WITNESS_SCALE_FACTOR, type OutPoint } from '../../primitives/index.js';
import { selectCoinsBnB } from './bnb.js';
import { coinGrinder } from './coin-grinder.js';
import type { CoinSelectionParams } from './coin-selection-params.js';
import type { FeeRate } from './fee-rate.js';
import type { Groups, OutputGroupTypeMap } from './group-outputs.js';
import { knapsackSolver } from './knapsack.js';
import { MAX_STANDARD_TX_WEIGHT } from './limits.js';
import { COIN_SELECTION_ERROR, hasErrorMessage, selected, selectionFailed, type SelectionOutcome } from './outcome.js';
import { bestSelection, type SelectionResult } from './selection-result.js';
import { selectCoinsSRD } from './srd.js';

/**
 * interfaces::Chain::calculateCombinedBumpFee: the fee to bump the unconfirmed ancestry of these
 * outpoints, taken together, to `feeRate` (MiniMiner), or null when the cluster is too large to
 * compute. Shared ancestors make it less than the coins' individual bump fees summed.
 */
export type CombinedBumpFee = (outpoints: readonly OutPoint[], feeRate: FeeRate) => bigint | null;

/**
 * ChooseSelectionResult. Runs BnB (not under subtract-fee-from-outputs: a changeless selection
 * can still need change there), Knapsack, CoinGrinder (only above three times the long-term
 * rate, where minimising weight pays most) and SRD; discounts each result's bump fees by what
 * shared ancestry saves; and returns the least waste, more inputs winning ties. When all fail,
 * the first specific error, else a message-less failure. Sorts and shuffles the group arrays in
 * place, as Core does.
 *
 * `combinedBumpFee` defaults to the coins' summed individual bump fees (no discount), which is
 * what Core computes without a mempool, where every bump fee is 0.
 */
export function chooseSelectionResult(
  target: bigint,
  groups: Groups,
  params: CoinSelectionParams,
  combinedBumpFee?: CombinedBumpFee,
): SelectionOutcome {
  const results: SelectionResult[] = [];
  const errors: string[] = [];
  const collect = (outcome: SelectionOutcome): void => {
    if (outcome.ok) results.push(outcome.result);
    // A specific message means something other than "no selection found": keep it for the user.
    else if (outcome.error !== '') errors.push(outcome.error);
  };

  // The weight inputs may take.
  const maxTransactionWeight = params.maxTxWeight ?? MAX_STANDARD_TX_WEIGHT;
  let maxSelectionWeight = maxTransactionWeight - params.txNoInputsSize * WITNESS_SCALE_FACTOR;
  if (maxSelectionWeight <= 0) return selectionFailed(COIN_SELECTION_ERROR.MAX_WEIGHT_BELOW_NO_INPUTS_WEIGHT);

  // SFFO frequently causes issues with changeless input sets: no BnB then.
  if (!params.subtractFeeOutputs) {
    collect(selectCoinsBnB(groups.positiveGroup, target, params.costOfChange, maxSelectionWeight));
  }

  // The other algorithms may make change: leave room for it.
  maxSelectionWeight -= params.changeOutputSize * WITNESS_SCALE_FACTOR;
  if (maxSelectionWeight < 0 && results.length === 0) return selectionFailed(COIN_SELECTION_ERROR.MAX_WEIGHT_TOO_LOW_FOR_CHANGE);

  // Knapsack keeps its legacy habit of spending dust, so it gets the mixed groups.
  collect(knapsackSolver(groups.mixedGroup, target, params.minChangeTarget, params.rng, maxSelectionWeight));

  // Minimise the input set at fee rates above 3 × the long-term rate (default: 30 sat/vB and up).
  if (params.effectiveFeeRate > 3n * params.longTermFeeRate) {
    const cg = coinGrinder(groups.positiveGroup, target, params.minChangeTarget, maxSelectionWeight);
    if (cg.ok) cg.result.recalculateWaste(params.minViableChange, params.costOfChange, params.changeFee);
    collect(cg);
  }

  collect(selectCoinsSRD(groups.positiveGroup, target, params.changeFee, params.rng, maxSelectionWeight));

  if (results.length === 0) return selectionFailed(errors[0] ?? '');

  // Unconfirmed inputs sharing ancestors need not each pay to bump them.
  for (const result of results) {
    const outpoints: OutPoint[] = [];
    let summedBumpFees = 0n;
    for (const coin of result.inputs()) {
      if (coin.depth > 0) continue; // Only unconfirmed inputs have bump fees.
      outpoints.push(coin.outpoint);
      summedBumpFees += coin.ancestorBumpFees;
    }
    const combined = combinedBumpFee === undefined ? summedBumpFees : combinedBumpFee(outpoints, params.effectiveFeeRate);
    if (combined === null) return selectionFailed(COIN_SELECTION_ERROR.BUMP_FEE_UNAVAILABLE);
    const overestimate = summedBumpFees - combined;
    if (overestimate !== 0n) result.setBumpFeeDiscount(overestimate);
    result.recalculateWaste(params.minViableChange, params.costOfChange, params.changeFee);
  }

  return selected(bestSelection(results));
}

/**
 * AttemptSelection. Tries each output type's groups alone and keeps the least waste; a specific
 * error from any type is returned at once. Only when no single type can fund the target, and
 * mixing is allowed and there is more than one type, tries all groups together.
 */
export function attemptSelection(
  target: bigint,
  groups: OutputGroupTypeMap,
  params: CoinSelectionParams,
  allowMixedOutputTypes: boolean,
  combinedBumpFee?: CombinedBumpFee,
): SelectionOutcome {
  const results: SelectionResult[] = [];
  for (const [, typeGroups] of groups.byType()) {
    const outcome = chooseSelectionResult(target, typeGroups, params, combinedBumpFee);
    // Something particularly wrong happened: report it.
    if (hasErrorMessage(outcome)) return outcome;
    if (outcome.ok) results.push(outcome.result);
  }
  if (results.length > 0) return selected(bestSelection(results));
  if (allowMixedOutputTypes && groups.typesCount() > 1) {
    return chooseSelectionResult(target, groups.allGroups, params, combinedBumpFee);
  }
  return selectionFailed();
}
