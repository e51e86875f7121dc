/**
 * Wallet coin selection: a pure, synchronous port of Bitcoin Core v31's (wallet/coinselection.cpp
 * and the selection half of wallet/spend.cpp). Amounts are satoshis as bigint, fee rates sat/kvB
 * as bigint, and all randomness comes from an injected SelectionRng.
 *
 * A send uses it in four steps:
 *   1. prepareTransactionSelection: recipients, fee rates and change script → CoinSelectionParams
 *      and the selection target (or Core's refusal).
 *   2. Describe the wallet's spendable coins as SelectableCoin (built with `feeRate:
 *      params.effectiveFeeRate`, bump fees applied) in an AvailableCoins by output type.
 *   3. selectCoins({ availableCoins, presetInputs, target, params, context }).
 *   4. From the SelectionResult: inputs()/shuffledInputs(rng), change(minViableChange, changeFee),
 *      totalBumpFees(), waste, algorithm; a failure's text is selectionErrorText(outcome).
 */
export { type FeeRate, feeAtRate } from './fee-rate.js';
export { type SelectionRng, seededSelectionRng, shuffleWith } from './rng.js';
export { cryptoSelectionRng } from './crypto-rng.js';
export {
  COIN_SELECTION_ERROR,
  hasErrorMessage,
  selected,
  selectionErrorText,
  selectionFailed,
  type SelectionOutcome,
} from './outcome.js';
export { compareOutpoints, outpointKey, SelectableCoin, type SelectableCoinInit } from './coin.js';
export {
  chainLimits,
  DEFAULT_ELIGIBILITY_LADDER,
  eligibilityFilter,
  filterKey,
  orderedEligibilityFilters,
  UNLIMITED_CHAIN,
  type CoinEligibilityFilter,
  type EligibilityLadderOptions,
  type SelectionFilter,
} from './eligibility.js';
export { descendingByAmountThenWaste, descendingByAmountThenWeight, OutputGroup, type OutputGroupParams } from './output-group.js';
export { AvailableCoins, COIN_OUTPUT_TYPES, type CoinOutputType } from './available-coins.js';
export {
  FilteredOutputGroups,
  groupOutputs,
  OUTPUT_GROUP_MAX_ENTRIES,
  OutputGroupTypeMap,
  type GroupingParams,
  type Groups,
} from './group-outputs.js';
export { bestSelection, isBetterSelection, SELECTION_ALGORITHM, SelectionResult, type SelectionAlgorithm } from './selection-result.js';
export { coinSelectionParams, type CoinSelectionParams } from './coin-selection-params.js';
export { MAX_MONEY, MAX_STANDARD_TX_WEIGHT, TOTAL_TRIES } from './limits.js';
export { selectCoinsBnB } from './bnb.js';
export { coinGrinder } from './coin-grinder.js';
export { APPROXIMATE_BEST_SUBSET_ITERATIONS, approximateBestSubset, knapsackSolver } from './knapsack.js';
export { selectCoinsSRD } from './srd.js';
export {
  CHANGE_LOWER,
  CHANGE_UPPER,
  changeCosts,
  DUMMY_NESTED_P2WPKH_INPUT_SIZE,
  dustThresholdOf,
  generateChangeTarget,
  serializedOutputSize,
  type ChangeCostInputs,
  type ChangeCosts,
} from './change.js';
export { attemptSelection, chooseSelectionResult, type CombinedBumpFee } from './choose-selection.js';
export { automaticCoinSelection, ladderOptions, type WalletSelectionContext } from './automatic-selection.js';
export { presetInputsTotal, selectCoins, type SelectCoinsRequest } from './select-coins.js';
export {
  CREATE_TRANSACTION_ERROR,
  DEFAULT_CONSOLIDATE_FEERATE,
  DEFAULT_DISCARD_FEE,
  prepareTransactionSelection,
  type PreparedSelection,
  type SelectionRecipient,
  type TransactionSelectionRequest,
} from './prepare-transaction.js';
export { DEFAULT_MAX_AVOIDPARTIALSPEND_FEE, preferAvoidPartialSpends, shouldTryAvoidPartialSpends } from './avoid-partial-spends.js';
