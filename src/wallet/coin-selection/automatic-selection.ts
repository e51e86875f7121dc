/**
 * Selecting from the wallet's coins on its own (Core's AutomaticCoinSelection): group the coins,
 * then walk the eligibility ladder from confirmed-only to the most permissive filter until one
 * funds the target.
 */
import type { AvailableCoins } from './available-coins.js';
import { attemptSelection, type CombinedBumpFee } from './choose-selection.js';
import type { CoinSelectionParams } from './coin-selection-params.js';
import { chainLimits, DEFAULT_ELIGIBILITY_LADDER, orderedEligibilityFilters, type EligibilityLadderOptions } from './eligibility.js';
import { groupOutputs, OUTPUT_GROUP_MAX_ENTRIES } from './group-outputs.js';
import { COIN_SELECTION_ERROR, selectionFailed, type SelectionOutcome } from './outcome.js';
import type { OutputGroup } from './output-group.js';

/** What the wallet and its node contribute beyond the selection parameters. */
export interface WalletSelectionContext {
  /** getPackageLimits' ancestor count (-limitancestorcount, default 25). */
  readonly limitAncestorCount?: number;
  /** getPackageLimits' descendant count (-limitdescendantcount, default 25). */
  readonly limitDescendantCount?: number;
  /** -spendzeroconfchange (default true). */
  readonly spendZeroConfChange?: boolean;
  /** -walletrejectlongchains (default true). */
  readonly rejectLongChains?: boolean;
  /** The chain's combined bump fee (see chooseSelectionResult); without it no discount is given. */
  readonly combinedBumpFee?: CombinedBumpFee;
}

/** The ladder options from a context and the parameters (which carry include_unsafe). */
export function ladderOptions(context: WalletSelectionContext, params: CoinSelectionParams): EligibilityLadderOptions {
  return {
    limitAncestorCount: context.limitAncestorCount ?? DEFAULT_ELIGIBILITY_LADDER.limitAncestorCount,
    limitDescendantCount: context.limitDescendantCount ?? DEFAULT_ELIGIBILITY_LADDER.limitDescendantCount,
    spendZeroConfChange: context.spendZeroConfChange ?? DEFAULT_ELIGIBILITY_LADDER.spendZeroConfChange,
    rejectLongChains: context.rejectLongChains ?? DEFAULT_ELIGIBILITY_LADDER.rejectLongChains,
    includeUnsafeInputs: params.includeUnsafeInputs,
  };
}

/**
 * AutomaticCoinSelection. With avoid-partial-spends and more than OUTPUT_GROUP_MAX_ENTRIES coins,
 * the coins are shuffled first (in place), so a heavily reused address is not split into groups
 * in a predictable order. Fails early, without running any solver, when the coins the filters
 * leave cannot cover `valueToSelect`; then, when the coins left out only for their long
 * unconfirmed chains would have covered it, with Core's "Unconfirmed UTXOs are available" text.
 * Otherwise returns the first filter's selection that succeeds, else the first specific error,
 * else a message-less failure (insufficient funds).
 */
export function automaticCoinSelection(
  availableCoins: AvailableCoins,
  valueToSelect: bigint,
  params: CoinSelectionParams,
  context: WalletSelectionContext = {},
): SelectionOutcome {
  const options = ladderOptions(context, params);
  const { maxAncestors, maxDescendants } = chainLimits(options);

  // 101+ outputs to one destination could otherwise be grouped deterministically: a privacy leak.
  if (params.avoidPartialSpends && availableCoins.size() > OUTPUT_GROUP_MAX_ENTRIES) availableCoins.shuffle(params.rng);

  const orderedFilters = orderedEligibilityFilters(options);
  const discarded: OutputGroup[] = [];
  const filteredGroups = groupOutputs(availableCoins, params, orderedFilters, discarded);

  // Is there still enough once the filters have left coins out?
  let totalDiscarded = 0n;
  let totalUnconfirmedLongChain = 0n;
  for (const group of discarded) {
    totalDiscarded += group.selectionAmount;
    if (group.ancestors >= maxAncestors || group.descendants >= maxDescendants) totalUnconfirmedLongChain += group.selectionAmount;
  }
  // Core writes `if (CAmount total_amount = GetTotalAmount() - total_discarded < value_to_select)`,
  // which initialises total_amount with the comparison (1 inside the branch), not the difference;
  // the long-chain test below therefore reads 1 + total_unconf_long_chain. Kept for parity.
  if (availableCoins.totalAmount - totalDiscarded < valueToSelect) {
    const totalAmount = 1n;
    if (totalAmount + totalUnconfirmedLongChain > valueToSelect) return selectionFailed(COIN_SELECTION_ERROR.UNCONFIRMED_CHAIN_TOO_LONG);
    return selectionFailed(); // Insufficient funds.
  }

  const detailedErrors: string[] = [];
  for (const { filter, allowMixedOutputTypes } of orderedFilters) {
    const groups = filteredGroups.get(filter);
    if (groups === undefined) continue;
    const outcome = attemptSelection(valueToSelect, groups, params, allowMixedOutputTypes, context.combinedBumpFee);
    if (outcome.ok) return outcome;
    // Something specific went wrong: keep trying, but report it if nothing works.
    if (outcome.error !== '') detailedErrors.push(outcome.error);
  }
  return selectionFailed(detailedErrors[0] ?? '');
}
