/**
 * A candidate input set and how good it is (Core's SelectionResult): the inputs, the target
 * they were chosen for, the algorithm, and the waste metric ChooseSelectionResult ranks by.
 */
import { WITNESS_SCALE_FACTOR } from '../../primitives/index.js';
import { compareOutpoints, outpointKey, type SelectableCoin } from './coin.js';
import type { OutputGroup } from './output-group.js';
import type { SelectionRng } from './rng.js';

/** SelectionAlgorithm, by the names GetAlgorithmName gives (the coin_selection tracepoint and log use them). */
export const SELECTION_ALGORITHM = {
  BNB: 'bnb',
  KNAPSACK: 'knapsack',
  SRD: 'srd',
  CG: 'cg',
  MANUAL: 'manual',
} as const;
export type SelectionAlgorithm = (typeof SELECTION_ALGORITHM)[keyof typeof SELECTION_ALGORITHM];

export class SelectionResult {
  /** Core keeps a std::set ordered by outpoint (OutputPtrComparator): one entry per outpoint. */
  readonly #inputs = new Map<string, SelectableCoin>();
  #target: bigint;
  #algorithm: SelectionAlgorithm;
  /** Whether values count as effective values (false when the recipients pay the fee). */
  #useEffective = false;
  #waste: bigint | undefined;
  #algorithmCompleted = true;
  #selectionsEvaluated = 0;
  #weight = 0;
  /** How much the coins' individual bump fees overestimate bumping their shared ancestry. */
  #bumpFeeGroupDiscount = 0n;

  constructor(target: bigint, algorithm: SelectionAlgorithm) {
    this.#target = target;
    this.#algorithm = algorithm;
  }

  /** InsertInputs: selections never share a UTXO; Core treats a shared one as an internal bug. */
  #insertInputs(coins: Iterable<SelectableCoin>): void {
    let expected = this.#inputs.size;
    for (const coin of coins) {
      expected++;
      this.#inputs.set(outpointKey(coin.outpoint), coin);
    }
    if (this.#inputs.size !== expected) throw new Error('Internal bug detected: Shared UTXOs among selection results');
  }

  /** AddInput: a whole group. */
  addInput(group: OutputGroup): void {
    this.#insertInputs(group.outputs);
    this.#useEffective = !group.subtractFeeOutputs;
    this.#weight += group.weight;
  }

  /** AddInputs: loose coins (pre-selected inputs). */
  addInputs(coins: Iterable<SelectableCoin>, subtractFeeOutputs: boolean): void {
    const list = [...coins];
    this.#insertInputs(list);
    this.#useEffective = !subtractFeeOutputs;
    for (const coin of list) this.#weight += Math.max(coin.inputBytes, 0) * WITNESS_SCALE_FACTOR;
  }

  /**
   * Merge: another selection's inputs join this one (they must not overlap), targets add up,
   * and a manual selection takes the other's algorithm. The bump fee discount is not merged,
   * as in Core.
   */
  merge(other: SelectionResult): void {
    this.#insertInputs(other.#inputs.values());
    this.#target += other.#target;
    this.#useEffective ||= other.#useEffective;
    if (this.#algorithm === SELECTION_ALGORITHM.MANUAL) this.#algorithm = other.#algorithm;
    this.#weight += other.#weight;
  }

  /** Clear: inputs, waste and weight go; target and algorithm stay. */
  clear(): void {
    this.#inputs.clear();
    this.#waste = undefined;
    this.#weight = 0;
  }

  /** GetInputSet: the inputs in outpoint order. */
  inputs(): SelectableCoin[] {
    return [...this.#inputs.values()].sort((a, b) => compareOutpoints(a.outpoint, b.outpoint));
  }

  get inputCount(): number {
    return this.#inputs.size;
  }

  /** GetShuffledInputVector: the inputs in random order, as the transaction's vin gets them. */
  shuffledInputs(rng: SelectionRng): SelectableCoin[] {
    const coins = this.inputs();
    rng.shuffle(coins);
    return coins;
  }

  /** GetSelectedValue: summed txout values. */
  selectedValue(): bigint {
    let sum = 0n;
    for (const coin of this.#inputs.values()) sum += coin.value;
    return sum;
  }

  /** GetSelectedEffectiveValue: summed effective values, plus the bump fee discount given back. */
  selectedEffectiveValue(): bigint {
    let sum = 0n;
    for (const coin of this.#inputs.values()) sum += coin.effectiveValue;
    return sum + this.#bumpFeeGroupDiscount;
  }

  /** GetTotalBumpFees: what bumping the inputs' unconfirmed ancestors costs, shared ancestry counted once. */
  totalBumpFees(): bigint {
    let sum = 0n;
    for (const coin of this.#inputs.values()) sum += coin.ancestorBumpFees;
    return sum - this.#bumpFeeGroupDiscount;
  }

  /** SetBumpFeeDiscount: overlapping ancestry can only lower the bump fees. */
  setBumpFeeDiscount(discount: bigint): void {
    if (discount < 0n) throw new RangeError('setBumpFeeDiscount: discount must not be negative');
    this.#bumpFeeGroupDiscount = discount;
  }

  /**
   * GetChange: the change output's amount after fees, or 0 when it would be below
   * min_viable_change (then the excess goes to fees). With subtract-fee-from-outputs the
   * recipients pay every fee, so change is raw value less target.
   */
  change(minViableChange: bigint, changeFee: bigint): bigint {
    const change = this.#useEffective
      ? this.selectedEffectiveValue() - this.#target - changeFee
      : this.selectedValue() - this.#target;
    return change < minViableChange ? 0n : change;
  }

  /**
   * RecalculateWaste: spending the inputs now rather than at the long-term rate
   * (sum of fee - long_term_fee, less the bump fee discount), plus either the cost of creating
   * and later spending change, or, without change, the excess dropped to fees.
   */
  recalculateWaste(minViableChange: bigint, changeCost: bigint, changeFee: bigint): void {
    if (this.#inputs.size === 0) throw new Error('recalculateWaste: a selection without inputs has no waste');
    let waste = 0n;
    for (const coin of this.#inputs.values()) waste += coin.fee - coin.longTermFee;
    waste -= this.#bumpFeeGroupDiscount;
    if (this.change(minViableChange, changeFee) !== 0n) {
      waste += changeCost;
    } else {
      const selected = this.#useEffective ? this.selectedEffectiveValue() : this.selectedValue();
      if (selected < this.#target) throw new Error('recalculateWaste: selection is below its target');
      waste += selected - this.#target;
    }
    this.#waste = waste;
  }

  /** GetWaste: only after recalculateWaste. */
  get waste(): bigint {
    if (this.#waste === undefined) throw new Error('SelectionResult: waste not computed (call recalculateWaste)');
    return this.#waste;
  }

  get hasWaste(): boolean {
    return this.#waste !== undefined;
  }

  get target(): bigint {
    return this.#target;
  }

  get algorithm(): SelectionAlgorithm {
    return this.#algorithm;
  }

  /** Whether values are effective values (false under subtract-fee-from-outputs). */
  get usesEffectiveValue(): boolean {
    return this.#useEffective;
  }

  /** Summed input weight. */
  get weight(): number {
    return this.#weight;
  }

  /** False when the search stopped at its attempt limit, so the result may not be optimal (CoinGrinder). */
  get algorithmCompleted(): boolean {
    return this.#algorithmCompleted;
  }

  set algorithmCompleted(completed: boolean) {
    this.#algorithmCompleted = completed;
  }

  /** Selections the search evaluated (CoinGrinder records it; Core's other algorithms leave it unset). */
  get selectionsEvaluated(): number {
    return this.#selectionsEvaluated;
  }

  set selectionsEvaluated(attempts: number) {
    this.#selectionsEvaluated = attempts;
  }
}

/**
 * SelectionResult::operator<: less waste wins, and on equal waste more inputs (consolidating
 * at no extra cost). Both wastes must be computed.
 */
export function isBetterSelection(a: SelectionResult, b: SelectionResult): boolean {
  return a.waste < b.waste || (a.waste === b.waste && a.inputCount > b.inputCount);
}

/** std::min_element with operator<: the first best one. */
export function bestSelection(results: readonly SelectionResult[]): SelectionResult {
  if (results.length === 0) throw new Error('bestSelection: no results');
  let best = results[0]!;
  for (const result of results.slice(1)) if (isBetterSelection(result, best)) best = result;
  return best;
}
