/**
 * Which output groups a selection attempt may use (Core's CoinEligibilityFilter), and the
 * ladder of ever more permissive filters AutomaticCoinSelection climbs: confirmed coins first,
 * unconfirmed change with few ancestors next, long unconfirmed chains last.
 */

export interface CoinEligibilityFilter {
  /** Minimum confirmations for outputs the wallet sent to itself (change may be unconfirmed). */
  readonly confMine: number;
  /** Minimum confirmations for outputs received from other wallets. */
  readonly confTheirs: number;
  /** Maximum unconfirmed ancestors summed over a group's coins. */
  readonly maxAncestors: number;
  /** Maximum descendants (v31: cluster size) of any single coin's transaction in the group. */
  readonly maxDescendants: number;
  /** With avoid-partial-spends and full groups present, whether the partial group is usable too. */
  readonly includePartialGroups: boolean;
}

/** Core's std::numeric_limits<uint64_t>::max() in the unlimited filter: nothing is too long a chain. */
export const UNLIMITED_CHAIN = Number.POSITIVE_INFINITY;

/** CoinEligibilityFilter's constructors: max_descendants defaults to max_ancestors. */
export function eligibilityFilter(
  confMine: number,
  confTheirs: number,
  maxAncestors: number,
  maxDescendants: number = maxAncestors,
  includePartialGroups = false,
): CoinEligibilityFilter {
  return { confMine, confTheirs, maxAncestors, maxDescendants, includePartialGroups };
}

/** A filter's identity: Core keys FilteredOutputGroups (a std::map) by all five fields. */
export function filterKey(filter: CoinEligibilityFilter): string {
  return `${filter.confMine}/${filter.confTheirs}/${filter.maxAncestors}/${filter.maxDescendants}/${filter.includePartialGroups ? 1 : 0}`;
}

/** Core's SelectionFilter: a filter and whether coins of different output types may be mixed under it. */
export interface SelectionFilter {
  readonly filter: CoinEligibilityFilter;
  readonly allowMixedOutputTypes: boolean;
}

export interface EligibilityLadderOptions {
  /** The mempool's ancestor count limit (getPackageLimits; -limitancestorcount, default 25). */
  readonly limitAncestorCount: number;
  /** The mempool's descendant count limit (getPackageLimits; -limitdescendantcount, default 25). */
  readonly limitDescendantCount: number;
  /** -spendzeroconfchange (default true): unconfirmed change may be spent. */
  readonly spendZeroConfChange: boolean;
  /** -walletrejectlongchains (default true): never try past the mempool's chain limits. */
  readonly rejectLongChains: boolean;
  /** Coin control's include_unsafe: unconfirmed coins from other wallets may be spent. */
  readonly includeUnsafeInputs: boolean;
}

/** Core's defaults: DEFAULT_ANCESTOR_LIMIT, DEFAULT_DESCENDANT_LIMIT, DEFAULT_SPEND_ZEROCONF_CHANGE, DEFAULT_WALLET_REJECT_LONG_CHAINS. */
export const DEFAULT_ELIGIBILITY_LADDER: EligibilityLadderOptions = {
  limitAncestorCount: 25,
  limitDescendantCount: 25,
  spendZeroConfChange: true,
  rejectLongChains: true,
  includeUnsafeInputs: false,
};

/** AutomaticCoinSelection: max_ancestors and max_descendants, at least 1 whatever the limits say. */
export function chainLimits(options: EligibilityLadderOptions): { readonly maxAncestors: number; readonly maxDescendants: number } {
  return { maxAncestors: Math.max(1, options.limitAncestorCount), maxDescendants: Math.max(1, options.limitDescendantCount) };
}

/** AutomaticCoinSelection's ordered_filters, most selective first. */
export function orderedEligibilityFilters(options: EligibilityLadderOptions): SelectionFilter[] {
  const { maxAncestors, maxDescendants } = chainLimits(options);
  const ordered: SelectionFilter[] = [
    // Confirmed coins only: six confirmations on coins from others, one on our own change;
    // and no mixing of output types yet.
    { filter: eligibilityFilter(1, 6, 0), allowMixedOutputTypes: false },
    { filter: eligibilityFilter(1, 1, 0), allowMixedOutputTypes: true },
  ];
  if (options.spendZeroConfChange) {
    // Unconfirmed change, with as few mempool ancestors as possible.
    ordered.push({ filter: eligibilityFilter(0, 1, 2), allowMixedOutputTypes: true });
    ordered.push({
      filter: eligibilityFilter(0, 1, Math.min(4, Math.floor(maxAncestors / 3)), Math.min(4, Math.floor(maxDescendants / 3))),
      allowMixedOutputTypes: true,
    });
    ordered.push({ filter: eligibilityFilter(0, 1, Math.floor(maxAncestors / 2), Math.floor(maxDescendants / 2)), allowMixedOutputTypes: true });
    // Partial groups (part of an address's coins) only once whole groups could not fund it.
    ordered.push({ filter: eligibilityFilter(0, 1, maxAncestors - 1, maxDescendants - 1, true), allowMixedOutputTypes: true });
    if (options.includeUnsafeInputs) {
      // Unconfirmed coins received from other wallets.
      ordered.push({ filter: eligibilityFilter(0, 0, maxAncestors - 1, maxDescendants - 1, true), allowMixedOutputTypes: true });
    }
    if (!options.rejectLongChains) {
      // Groups overestimate ancestry (summed per coin), so the mempool may still accept this.
      ordered.push({ filter: eligibilityFilter(0, 1, UNLIMITED_CHAIN, UNLIMITED_CHAIN, true), allowMixedOutputTypes: true });
    }
  }
  return ordered;
}
