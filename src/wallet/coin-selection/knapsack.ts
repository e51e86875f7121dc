/**
 * The Knapsack solver (Core's KnapsackSolver with ApproximateBestSubset): the wallet's original
 * algorithm, kept as a fallback. It looks for a subset close above the target plus the change
 * target by stochastic approximation, or else the smallest single coin above it. Unlike the
 * other solvers it is given the mixed groups, so it may spend coins of negative effective value.
 */
import { COIN_SELECTION_ERROR, selected, selectionFailed, type SelectionOutcome } from './outcome.js';
import { descendingByAmountThenWaste, type OutputGroup } from './output-group.js';
import type { SelectionRng } from './rng.js';
import { SELECTION_ALGORITHM, SelectionResult } from './selection-result.js';

/** ApproximateBestSubset's default number of random passes. */
export const APPROXIMATE_BEST_SUBSET_ITERATIONS = 1000;

/**
 * ApproximateBestSubset: the subset of `groups` (sorted by value, descending) whose total is at
 * least, and as close as possible to, `targetValue` within the weight limit. Each repetition
 * includes groups at random, then fills up deterministically; on reaching the target it records
 * the subset if it is the closest yet and removes the last group to look for a closer one. The
 * worst case "best" is all groups. Randomness is not for security but to avoid degenerate
 * behaviour (and for some privacy).
 */
export function approximateBestSubset(
  rng: SelectionRng,
  groups: readonly OutputGroup[],
  totalLower: bigint,
  targetValue: bigint,
  maxSelectionWeight: number,
  iterations = APPROXIMATE_BEST_SUBSET_ITERATIONS,
): { readonly included: boolean[]; readonly total: bigint } {
  let best: boolean[] = groups.map(() => true);
  let bestTotal = totalLower;

  for (let rep = 0; rep < iterations && bestTotal !== targetValue; rep++) {
    const included: boolean[] = groups.map(() => false);
    let total = 0n;
    let selectedWeight = 0;
    let reachedTarget = false;
    for (let pass = 0; pass < 2 && !reachedTarget; pass++) {
      for (let i = 0; i < groups.length; i++) {
        if (pass === 0 ? rng.randbool() : !included[i]) {
          const group = groups[i]!;
          total += group.selectionAmount;
          selectedWeight += group.weight;
          included[i] = true;
          if (total >= targetValue && selectedWeight <= maxSelectionWeight) {
            reachedTarget = true;
            // Between the target and the best so far: the new best approximation.
            if (total < bestTotal) {
              bestTotal = total;
              best = included.slice();
            }
            total -= group.selectionAmount;
            selectedWeight -= group.weight;
            included[i] = false;
          }
        }
      }
    }
  }
  return { included: best, total: bestTotal };
}

/**
 * KnapsackSolver. Shuffles `groups` in place. An exact single group wins at once; groups worth
 * at least target + changeTarget compete only as "lowest larger", the smallest such group, which
 * is taken when the approximation cannot reach target + changeTarget (or the exact target) or
 * is no better. Groups heavier than maxSelectionWeight are skipped.
 */
export function knapsackSolver(
  groups: OutputGroup[],
  targetValue: bigint,
  changeTarget: bigint,
  rng: SelectionRng,
  maxSelectionWeight: number,
): SelectionOutcome {
  const result = new SelectionResult(targetValue, SELECTION_ALGORITHM.KNAPSACK);
  let maxWeightExceeded = false;
  let lowestLarger: OutputGroup | undefined;
  // Groups below target + change: larger ones would only overshoot.
  const applicableGroups: OutputGroup[] = [];
  let totalLower = 0n;

  rng.shuffle(groups);

  for (const group of groups) {
    if (group.weight > maxSelectionWeight) {
      maxWeightExceeded = true;
      continue;
    }
    if (group.selectionAmount === targetValue) {
      result.addInput(group);
      return selected(result);
    } else if (group.selectionAmount < targetValue + changeTarget) {
      applicableGroups.push(group);
      totalLower += group.selectionAmount;
    } else if (lowestLarger === undefined || group.selectionAmount < lowestLarger.selectionAmount) {
      lowestLarger = group;
    }
  }

  if (totalLower === targetValue) {
    for (const group of applicableGroups) result.addInput(group);
    if (result.weight <= maxSelectionWeight) return selected(result);
    maxWeightExceeded = true;
    // Try something else.
    result.clear();
  }

  if (totalLower < targetValue) {
    if (lowestLarger === undefined) return selectionFailed(maxWeightExceeded ? COIN_SELECTION_ERROR.MAX_WEIGHT_EXCEEDED : '');
    result.addInput(lowestLarger);
    return selected(result);
  }

  // Subset sum by stochastic approximation.
  applicableGroups.sort(descendingByAmountThenWaste);
  let best = approximateBestSubset(rng, applicableGroups, totalLower, targetValue, maxSelectionWeight);
  if (best.total !== targetValue && totalLower >= targetValue + changeTarget) {
    best = approximateBestSubset(rng, applicableGroups, totalLower, targetValue + changeTarget, maxSelectionWeight);
  }

  // The bigger coin when the approximation found no good solution, or when it is closer.
  if (
    lowestLarger !== undefined &&
    ((best.total !== targetValue && best.total < targetValue + changeTarget) || lowestLarger.selectionAmount <= best.total)
  ) {
    result.addInput(lowestLarger);
  } else {
    applicableGroups.forEach((group, i) => {
      if (best.included[i]) result.addInput(group);
    });
    // Too heavy: the closest group above the target instead, if there is one.
    if (result.weight > maxSelectionWeight) {
      if (lowestLarger === undefined) return selectionFailed(COIN_SELECTION_ERROR.MAX_WEIGHT_EXCEEDED);
      result.clear();
      result.addInput(lowestLarger);
    }
  }
  return selected(result);
}
