/**
 * CreateTransaction's second attempt with avoid-partial-spends (-maxapsfee): after building the
 * transaction normally, the wallet builds it again grouping coins by address, and keeps the
 * grouped one if it costs at most -maxapsfee more. Grouping improves privacy at some fee cost.
 */

/** -maxapsfee's default (DEFAULT_MAX_AVOIDPARTIALSPEND_FEE): grouped only if it costs nothing more. */
export const DEFAULT_MAX_AVOIDPARTIALSPEND_FEE = 0n;

/**
 * Whether to build the grouped alternative: the first build paid a fee (0 means fee estimation
 * did not work), -maxapsfee is not -1 (disabled), and grouping was not already on.
 */
export function shouldTryAvoidPartialSpends(ungroupedFee: bigint, maxApsFee: bigint, alreadyAvoidingPartialSpends: boolean): boolean {
  return ungroupedFee > 0n && maxApsFee > -1n && !alreadyAvoidingPartialSpends;
}

/** Whether the grouped build (null when it failed) wins: its fee is within -maxapsfee of the ungrouped one's. */
export function preferAvoidPartialSpends(ungroupedFee: bigint, groupedFee: bigint | null, maxApsFee: bigint): boolean {
  return groupedFee !== null && groupedFee <= ungroupedFee + maxApsFee;
}
