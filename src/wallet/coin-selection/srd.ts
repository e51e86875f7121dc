/**
 * Single Random Draw (Core's SelectCoinsSRD): groups in random order until the target plus a
 * minimal change is covered. It is the privacy-minded baseline among the solvers: no pattern
 * in which coins it takes.
 */
import { CHANGE_LOWER } from './change.js';
import { COIN_SELECTION_ERROR, selected, selectionFailed, type SelectionOutcome } from './outcome.js';
import type { OutputGroup } from './output-group.js';
import { SmallestGroupHeap } from './group-heap.js';
import type { SelectionRng } from './rng.js';
import { SELECTION_ALGORITHM, SelectionResult } from './selection-result.js';

/**
 * SelectCoinsSRD. The target is raised by CHANGE_LOWER + changeFee so SRD never leaves a tiny
 * change output; it uses the lower bound rather than the random change target because its
 * change is random anyway. When the drawn groups get heavier than maxSelectionWeight, the
 * least valuable ones are dropped until they fit. The result's target stays `targetValue`.
 */
export function selectCoinsSRD(
  utxoPool: readonly OutputGroup[],
  targetValue: bigint,
  changeFee: bigint,
  rng: SelectionRng,
  maxSelectionWeight: number,
): SelectionOutcome {
  const result = new SelectionResult(targetValue, SELECTION_ALGORITHM.SRD);
  const heap = new SmallestGroupHeap();
  const target = targetValue + CHANGE_LOWER + changeFee;

  const indexes = utxoPool.map((_, i) => i);
  rng.shuffle(indexes);

  let selectedEffectiveValue = 0n;
  let weight = 0;
  let maxTxWeightExceeded = false;
  for (const i of indexes) {
    const group = utxoPool[i]!;
    if (group.selectionAmount <= 0n) throw new Error('selectCoinsSRD: every group must have a positive selection amount');
    heap.push(group);
    selectedEffectiveValue += group.selectionAmount;
    weight += group.weight;

    if (weight > maxSelectionWeight) {
      // Remember it in case nothing fits in the end.
      maxTxWeightExceeded = true;
      do {
        const smallest = heap.top();
        selectedEffectiveValue -= smallest.selectionAmount;
        weight -= smallest.weight;
        heap.pop();
      } while (heap.size > 0 && weight > maxSelectionWeight);
    }

    if (selectedEffectiveValue >= target) {
      while (heap.size > 0) {
        result.addInput(heap.top());
        heap.pop();
      }
      return selected(result);
    }
  }
  return selectionFailed(maxTxWeightExceeded ? COIN_SELECTION_ERROR.MAX_WEIGHT_EXCEEDED : '');
}
