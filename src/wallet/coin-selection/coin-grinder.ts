/**
 * CoinGrinder (Core's CoinGrinder): a depth-first branch-and-bound search for the lightest input
 * set that funds the target plus a change output. ChooseSelectionResult runs it only at fee
 * rates above three times the long-term rate, where every weight unit saved is worth most.
 */
import { COIN_SELECTION_ERROR, selected, selectionFailed, type SelectionOutcome } from './outcome.js';
import { descendingByAmountThenWeight, type OutputGroup } from './output-group.js';
import { MAX_MONEY, TOTAL_TRIES } from './limits.js';
import { SELECTION_ALGORITHM, SelectionResult } from './selection-result.js';

/** std::numeric_limits<int>::max(): the minimum weight of an empty tail. */
const INT_MAX = 2_147_483_647;

/**
 * CoinGrinder. Sorts `utxoPool` in place (descending amount, lighter first on ties). Every
 * group must have a positive selection amount. Records the selections evaluated and whether
 * the search finished before TOTAL_TRIES (an unfinished one may not be the lightest).
 *
 * The walk adds `next_utxo` and evaluates, then either EXPLOREs (adds the next UTXO), SHIFTs
 * (replaces the last selected UTXO by its successor: the omission branch) or CUTs (drops the
 * last two selected UTXOs' subtrees). A funded selection is never extended (more inputs only
 * add weight); a selection heavier than the best is shifted, or cut when its last UTXO is
 * already the lightest of the tail; and after a shift, clones of the omitted UTXO (equal
 * amount, so equal or more weight) are skipped since they can only repeat a visited selection.
 */
export function coinGrinder(
  utxoPool: OutputGroup[],
  selectionTarget: bigint,
  changeTarget: bigint,
  maxSelectionWeight: number,
): SelectionOutcome {
  utxoPool.sort(descendingByAmountThenWeight);
  // lookahead[i]: the summed amount of the UTXOs after i; minTailWeight[i]: the lightest of them.
  const lookahead: bigint[] = new Array<bigint>(utxoPool.length);
  const minTailWeight: number[] = new Array<number>(utxoPool.length);

  let totalAvailable = 0n;
  let minGroupWeight = INT_MAX;
  for (let i = 0; i < utxoPool.length; ++i) {
    const index = utxoPool.length - 1 - i;
    lookahead[index] = totalAvailable;
    minTailWeight[index] = minGroupWeight;
    const group = utxoPool[index]!;
    if (group.selectionAmount <= 0n) throw new Error('coinGrinder: every group must have a positive selection amount');
    totalAvailable += group.selectionAmount;
    minGroupWeight = Math.min(minGroupWeight, group.weight);
  }

  const totalTarget = selectionTarget + changeTarget;
  if (totalAvailable < totalTarget || utxoPool.length === 0) return selectionFailed(); // Insufficient funds.

  const currSelection: number[] = [];
  let bestSelection: number[] = [];
  let currAmount = 0n;
  let bestSelectionAmount = MAX_MONEY;
  let currWeight = 0;
  // A tie with the limit is fine: among equal weights the smaller amount wins.
  let bestSelectionWeight = maxSelectionWeight;
  let maxTxWeightExceeded = false;
  let nextUtxo = 0;

  const deselectLast = (): void => {
    const utxo = utxoPool[currSelection[currSelection.length - 1]!]!;
    currAmount -= utxo.selectionAmount;
    currWeight -= utxo.weight;
    currSelection.pop();
  };

  const result = new SelectionResult(selectionTarget, SELECTION_ALGORITHM.CG);
  let isDone = false;
  let currTry = 0;
  while (!isDone) {
    let shouldShift = false;
    let shouldCut = false;
    // Select next_utxo.
    const utxo = utxoPool[nextUtxo]!;
    currAmount += utxo.selectionAmount;
    currWeight += utxo.weight;
    currSelection.push(nextUtxo);
    ++nextUtxo;
    ++currTry;

    // Evaluate: a solution, or whether to CUT or SHIFT before exploring further.
    const currTail = currSelection[currSelection.length - 1]!;
    const tail = utxoPool[currTail]!;
    if (currAmount + lookahead[currTail]! < totalTarget) {
      // Even everything after this cannot fund it.
      shouldCut = true;
    } else if (currWeight > bestSelectionWeight) {
      if (currWeight > maxSelectionWeight) maxTxWeightExceeded = true;
      // Heavier than the best: more UTXOs only add weight. CUT when the tail UTXO is already
      // the lightest remaining, else SHIFT to try a lighter one in its place.
      if (tail.weight <= minTailWeight[currTail]!) shouldCut = true;
      else shouldShift = true;
    } else if (currAmount >= totalTarget) {
      // Funded: adding weight cannot improve it.
      shouldShift = true;
      if (currWeight < bestSelectionWeight || (currWeight === bestSelectionWeight && currAmount < bestSelectionAmount)) {
        // Lighter, or as light with less value tied up.
        bestSelection = currSelection.slice();
        bestSelectionWeight = currWeight;
        bestSelectionAmount = currAmount;
      }
    } else if (bestSelection.length > 0) {
      // Even filling the gap with tail UTXOs as valuable as the last one and as light as the
      // lightest in the tail would not beat the best weight.
      const missing = totalTarget - currAmount;
      const amount = tail.selectionAmount;
      const inputsNeeded = (missing + amount - 1n) / amount;
      if (BigInt(currWeight) + BigInt(minTailWeight[currTail]!) * inputsNeeded > BigInt(bestSelectionWeight)) {
        if (tail.weight <= minTailWeight[currTail]!) shouldCut = true;
        else shouldShift = true;
      }
    }

    if (currTry >= TOTAL_TRIES) {
      // Not guaranteed optimal.
      result.algorithmCompleted = false;
      break;
    }

    if (nextUtxo === utxoPool.length) {
      // The last UTXO was added: nothing left on either branch.
      shouldCut = true;
    }

    if (shouldCut) {
      // Redirect to the omission branch of the penultimate selected UTXO: deselect the last
      // here, and shift below.
      shouldCut = false;
      deselectLast();
      shouldShift = true;
    }

    while (shouldShift) {
      if (currSelection.length === 0) {
        // Search space exhausted before the attempt limit.
        isDone = true;
        result.algorithmCompleted = true;
        break;
      }
      nextUtxo = currSelection[currSelection.length - 1]! + 1;
      deselectLast();
      shouldShift = false;
      // Skip clones of the UTXO just omitted: equal amount means equal or more weight (the
      // sort's tie-break), so they could only produce an equivalent or worse selection.
      while (utxoPool[nextUtxo - 1]!.selectionAmount === utxoPool[nextUtxo]!.selectionAmount) {
        if (nextUtxo >= utxoPool.length - 1) {
          // Clones up to the end: SHIFT again instead.
          shouldShift = true;
          break;
        }
        ++nextUtxo;
      }
    }
  }

  result.selectionsEvaluated = currTry;
  if (bestSelection.length === 0) return selectionFailed(maxTxWeightExceeded ? COIN_SELECTION_ERROR.MAX_WEIGHT_EXCEEDED : '');
  for (const i of bestSelection) result.addInput(utxoPool[i]!);
  return selected(result);
}
