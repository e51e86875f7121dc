/**
 * Coins that are selected together or not at all (Core's OutputGroup): one coin normally, all
 * of an address's coins (up to OUTPUT_GROUP_MAX_ENTRIES) under avoid-partial-spends. The
 * solvers see a group as one heavier UTXO with summed values, fees and weights.
 */
import { WITNESS_SCALE_FACTOR } from '../../primitives/index.js';
import type { SelectableCoin } from './coin.js';
import type { CoinEligibilityFilter } from './eligibility.js';
import { feeAtRate, type FeeRate } from './fee-rate.js';

export interface OutputGroupParams {
  /** The consolidation rate: each coin's long_term_fee is spending it at this rate. */
  readonly longTermFeeRate?: FeeRate;
  /** Subtract-fee-from-outputs: the solvers then select by value, not effective value. */
  readonly subtractFeeOutputs?: boolean;
}

export class OutputGroup {
  readonly outputs: SelectableCoin[] = [];
  /** Whether every coin came from this wallet (we trust our own unconfirmed coins more). */
  fromMe = true;
  /** Summed txout values. */
  value = 0n;
  /** The fewest confirmations of any coin; 999 for an empty group, as Core initialises it. */
  depth = 999;
  /** Unconfirmed ancestors summed over the coins (overestimates shared ancestry). */
  ancestors = 0;
  /** The largest descendant count (v31: cluster size) of any coin's transaction. */
  descendants = 0;
  /** Summed effective values. */
  effectiveValue = 0n;
  /** Summed fees at the target rate. */
  fee = 0n;
  /** Summed fees at the long-term rate. */
  longTermFee = 0n;
  readonly longTermFeeRate: FeeRate;
  subtractFeeOutputs: boolean;
  /** Summed input weight of coins whose size is known. */
  weight = 0;

  constructor(params: OutputGroupParams = {}) {
    this.longTermFeeRate = params.longTermFeeRate ?? 0n;
    this.subtractFeeOutputs = params.subtractFeeOutputs ?? false;
  }

  /** OutputGroup::Insert. Sets the coin's long_term_fee (the coin is the group's own, not shared with the caller). */
  insert(coin: SelectableCoin, ancestors: number, descendants: number): void {
    this.outputs.push(coin);
    this.fee += coin.fee;
    coin.longTermFee = coin.inputBytes < 0 ? 0n : feeAtRate(this.longTermFeeRate, coin.inputBytes);
    this.longTermFee += coin.longTermFee;
    this.effectiveValue += coin.effectiveValue;
    this.fromMe &&= coin.fromMe;
    this.value += coin.value;
    this.depth = Math.min(this.depth, coin.depth);
    // Ancestors the spending transaction will have: summed, since each coin brings its own
    // (an overestimate when they share some).
    this.ancestors += ancestors;
    // Descendants are counted from the top ancestor, so the group's is the largest, not a sum.
    this.descendants = Math.max(this.descendants, descendants);
    if (coin.inputBytes > 0) this.weight += coin.inputBytes * WITNESS_SCALE_FACTOR;
  }

  /** OutputGroup::EligibleForSpending. */
  eligibleForSpending(filter: CoinEligibilityFilter): boolean {
    return (
      this.depth >= (this.fromMe ? filter.confMine : filter.confTheirs) &&
      this.ancestors <= filter.maxAncestors &&
      this.descendants <= filter.maxDescendants
    );
  }

  /** OutputGroup::GetSelectionAmount: what the solvers add up; raw value when the recipients pay the fee. */
  get selectionAmount(): bigint {
    return this.subtractFeeOutputs ? this.value : this.effectiveValue;
  }
}

/**
 * Core's `descending` (coinselection.cpp), used by BnB and Knapsack: larger selection amount
 * first, and on a tie the group that wastes less (fee - long_term_fee) first.
 */
export function descendingByAmountThenWaste(a: OutputGroup, b: OutputGroup): number {
  const amountA = a.selectionAmount;
  const amountB = b.selectionAmount;
  if (amountA === amountB) {
    const wasteA = a.fee - a.longTermFee;
    const wasteB = b.fee - b.longTermFee;
    return wasteA < wasteB ? -1 : wasteA > wasteB ? 1 : 0;
  }
  return amountA > amountB ? -1 : 1;
}

/** Core's `descending_effval_weight`, used by CoinGrinder: larger amount first, lighter first on a tie. */
export function descendingByAmountThenWeight(a: OutputGroup, b: OutputGroup): number {
  const amountA = a.selectionAmount;
  const amountB = b.selectionAmount;
  if (amountA === amountB) return a.weight - b.weight;
  return amountA > amountB ? -1 : 1;
}
