/**
 * The parameters of one coin selection (Core's CoinSelectionParams): fee rates, change costs
 * and targets, and the flags that shape grouping and eligibility.
 */
import type { FeeRate } from './fee-rate.js';
import type { SelectionRng } from './rng.js';

export interface CoinSelectionParams {
  /** Randomness for the shuffles, coin flips and change target. */
  readonly rng: SelectionRng;
  /** Serialized size of the change output, bytes. */
  readonly changeOutputSize: number;
  /** vsize of spending the change output later. */
  readonly changeSpendSize: number;
  /** m_min_change_target: Knapsack and CoinGrinder select for the payment plus at least this much change. */
  readonly minChangeTarget: bigint;
  /** min_viable_change: below this the change is dropped to fees. */
  readonly minViableChange: bigint;
  /** m_change_fee: creating the change output. */
  readonly changeFee: bigint;
  /** m_cost_of_change: creating the change output now and spending it later. */
  readonly costOfChange: bigint;
  /** The transaction's target fee rate. */
  readonly effectiveFeeRate: FeeRate;
  /** The rate coins could be spent at later (-consolidatefeerate): the waste metric's baseline. */
  readonly longTermFeeRate: FeeRate;
  /** -discardfee: change worth less than spending it at this rate is dropped. */
  readonly discardFeeRate: FeeRate;
  /** vsize of the transaction without inputs or change: header and recipient outputs. */
  readonly txNoInputsSize: number;
  /** Some recipient pays the fee: the solvers select by value instead of effective value. */
  readonly subtractFeeOutputs: boolean;
  /** Spend all coins of an address or none (up to OUTPUT_GROUP_MAX_ENTRIES), against address-reuse leaks. */
  readonly avoidPartialSpends: boolean;
  /** Unconfirmed coins from other wallets and replacement transactions may be spent. */
  readonly includeUnsafeInputs: boolean;
  /** Coin control's max_tx_weight; MAX_STANDARD_TX_WEIGHT when absent. */
  readonly maxTxWeight?: number;
}

/**
 * CoinSelectionParams with Core's dummy defaults (CoinSelectionParams(rng_fast)): zero sizes,
 * costs and rates, all flags off; `overrides` set the rest.
 */
export function coinSelectionParams(rng: SelectionRng, overrides: Partial<Omit<CoinSelectionParams, 'rng'>> = {}): CoinSelectionParams {
  return {
    rng,
    changeOutputSize: 0,
    changeSpendSize: 0,
    minChangeTarget: 0n,
    minViableChange: 0n,
    changeFee: 0n,
    costOfChange: 0n,
    effectiveFeeRate: 0n,
    longTermFeeRate: 0n,
    discardFeeRate: 0n,
    txNoInputsSize: 0,
    subtractFeeOutputs: false,
    avoidPartialSpends: false,
    includeUnsafeInputs: false,
    ...overrides,
  };
}
