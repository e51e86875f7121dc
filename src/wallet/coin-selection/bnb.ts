/**
 * Branch and Bound (Core's SelectCoinsBnB): a depth-first search for a changeless input set,
 * one whose selection amount lands in [target, target + cost_of_change], choosing the one of
 * least waste. Overshooting by less than a change output would cost is cheaper than making
 * change, which is what makes changeless solutions worth a search.
 */
import { COIN_SELECTION_ERROR, selected, selectionFailed, type SelectionOutcome } from './outcome.js';
import { descendingByAmountThenWaste, type OutputGroup } from './output-group.js';
import { MAX_MONEY, TOTAL_TRIES } from './limits.js';
import { SELECTION_ALGORITHM, SelectionResult } from './selection-result.js';

/**
 * SelectCoinsBnB. Sorts `utxoPool` in place (descending amount, less waste first on ties), as
 * Core does to the caller's vector. Every group must have a positive selection amount.
 *
 * The tree is explored inclusion branch first. A branch is cut when the lookahead cannot reach
 * the target, when it overshoots target + cost_of_change, when it is heavier than
 * maxSelectionWeight, or — while fees exceed long-term fees, so every extra input adds waste —
 * when its waste already exceeds the best. An input identical in amount and fee to an omitted
 * predecessor is omitted too: including it would only repeat a visited selection.
 */
export function selectCoinsBnB(
  utxoPool: OutputGroup[],
  selectionTarget: bigint,
  costOfChange: bigint,
  maxSelectionWeight: number,
): SelectionOutcome {
  const result = new SelectionResult(selectionTarget, SELECTION_ALGORITHM.BNB);
  let currValue = 0n;
  const currSelection: number[] = [];
  let currSelectionWeight = 0;

  let currAvailableValue = 0n;
  for (const utxo of utxoPool) {
    // Effective value filtering must have removed non-positive groups.
    if (utxo.selectionAmount <= 0n) throw new Error('selectCoinsBnB: every group must have a positive selection amount');
    currAvailableValue += utxo.selectionAmount;
  }
  if (currAvailableValue < selectionTarget || utxoPool.length === 0) return selectionFailed();

  utxoPool.sort(descendingByAmountThenWaste);

  let currWaste = 0n;
  let bestSelection: number[] = [];
  let bestWaste = MAX_MONEY;

  const isFeerateHigh = utxoPool[0]!.fee > utxoPool[0]!.longTermFee;
  let maxTxWeightExceeded = false;

  for (let currTry = 0, utxoPoolIndex = 0; currTry < TOTAL_TRIES; ++currTry, ++utxoPoolIndex) {
    let backtrack = false;
    if (
      // Cannot reach the target with what is left.
      currValue + currAvailableValue < selectionTarget ||
      // Overshot the window: go back and try the other branch.
      currValue > selectionTarget + costOfChange ||
      // At high fee rates more inputs only add waste.
      (currWaste > bestWaste && isFeerateHigh)
    ) {
      backtrack = true;
    } else if (currSelectionWeight > maxSelectionWeight) {
      // Too heavy: adding inputs cannot help.
      maxTxWeightExceeded = true;
      backtrack = true;
    } else if (currValue >= selectionTarget) {
      // In the window. The excess counts as waste for the comparison; adding more inputs could
      // only lower waste at low fee rates by burning more value, so this branch ends here.
      currWaste += currValue - selectionTarget;
      if (currWaste <= bestWaste) {
        bestSelection = currSelection.slice();
        bestWaste = currWaste;
      }
      currWaste -= currValue - selectionTarget;
      backtrack = true;
    }

    if (backtrack) {
      if (currSelection.length === 0) break; // Every branch searched.
      const last = currSelection[currSelection.length - 1]!;
      // Put the omitted UTXOs after the last included one back into the lookahead.
      for (--utxoPoolIndex; utxoPoolIndex > last; --utxoPoolIndex) {
        currAvailableValue += utxoPool[utxoPoolIndex]!.selectionAmount;
      }
      // The last included UTXO: now explore its omission branch.
      const utxo = utxoPool[utxoPoolIndex]!;
      currValue -= utxo.selectionAmount;
      currWaste -= utxo.fee - utxo.longTermFee;
      currSelectionWeight -= utxo.weight;
      currSelection.pop();
    } else {
      const utxo = utxoPool[utxoPoolIndex]!;
      currAvailableValue -= utxo.selectionAmount;
      const previous = utxoPoolIndex > 0 ? utxoPool[utxoPoolIndex - 1]! : undefined;
      if (
        currSelection.length === 0 ||
        // The previous UTXO is included, so the clone shortcut does not apply.
        utxoPoolIndex - 1 === currSelection[currSelection.length - 1] ||
        // Same amount and fee as an omitted predecessor means the same waste: skip the repeat.
        utxo.selectionAmount !== previous!.selectionAmount ||
        utxo.fee !== previous!.fee
      ) {
        // Inclusion branch first (largest first exploration).
        currSelection.push(utxoPoolIndex);
        currValue += utxo.selectionAmount;
        currWaste += utxo.fee - utxo.longTermFee;
        currSelectionWeight += utxo.weight;
      }
    }
  }

  if (bestSelection.length === 0) return selectionFailed(maxTxWeightExceeded ? COIN_SELECTION_ERROR.MAX_WEIGHT_EXCEEDED : '');

  for (const i of bestSelection) result.addInput(utxoPool[i]!);
  result.recalculateWaste(costOfChange, costOfChange, 0n);
  if (result.waste !== bestWaste) throw new Error('selectCoinsBnB: internal waste mismatch');
  return selected(result);
}
