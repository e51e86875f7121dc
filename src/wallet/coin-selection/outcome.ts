/**
 * What a selection step returns, Core's util::Result<SelectionResult>: a selection, or an
 * error whose text is empty when the step simply found nothing (util::Error() — "insufficient
 * funds" to the caller) and Core's own message when something specific went wrong (too heavy,
 * bump fees not computable, ...). The empty/non-empty distinction matters: ChooseSelectionResult,
 * AttemptSelection and AutomaticCoinSelection keep going past empty errors but remember and
 * return the first specific one.
 */
import type { SelectionResult } from './selection-result.js';

export type SelectionOutcome =
  | { readonly ok: true; readonly result: SelectionResult }
  | { readonly ok: false; readonly error: string };

export function selected(result: SelectionResult): SelectionOutcome {
  return { ok: true, result };
}

/** A failure; '' is Core's message-less util::Error(). */
export function selectionFailed(error = ''): SelectionOutcome {
  return { ok: false, error };
}

/** Core's HasErrorMsg: a failure carrying a specific message. */
export function hasErrorMessage(outcome: SelectionOutcome): boolean {
  return !outcome.ok && outcome.error !== '';
}

/**
 * Core v31's texts (checked against the v31.0 bitcoind binary's strings). The send path shows
 * INSUFFICIENT_FUNDS for a failure without a message, as CreateTransactionInternal does.
 */
export const COIN_SELECTION_ERROR = {
  INSUFFICIENT_FUNDS: 'Insufficient funds',
  /** ErrorMaxWeightExceeded (coinselection.cpp), from BnB, CoinGrinder, SRD and Knapsack. */
  MAX_WEIGHT_EXCEEDED:
    "The inputs size exceeds the maximum weight. Please try sending a smaller amount or manually consolidating your wallet's UTXOs",
  /** ChooseSelectionResult: the outputs alone leave no weight for inputs. */
  MAX_WEIGHT_BELOW_NO_INPUTS_WEIGHT: 'Maximum transaction weight is less than transaction weight without inputs',
  /** ChooseSelectionResult: no room for a change output and BnB found no changeless selection. */
  MAX_WEIGHT_TOO_LOW_FOR_CHANGE: 'Maximum transaction weight is too low, can not accommodate change output',
  /** ChooseSelectionResult: the chain could not price bumping the selection's unconfirmed ancestry. */
  BUMP_FEE_UNAVAILABLE:
    'Failed to calculate bump fees, because unconfirmed UTXOs depend on an enormous cluster of unconfirmed transactions.',
  /** SelectCoins: pre-selected inputs fall short and other inputs are not allowed. */
  PRESELECTED_INSUFFICIENT:
    'The preselected coins total amount does not cover the transaction target. Please allow other inputs to be automatically selected or include more coins manually',
  /** SelectCoins: pre-selected plus automatically selected inputs are too heavy. */
  PRESELECTED_PLUS_AUTOMATIC_TOO_HEAVY:
    "The combination of the pre-selected inputs and the wallet automatic inputs selection exceeds the transaction maximum weight. Please try sending a smaller amount or manually consolidating your wallet's UTXOs",
  /** AutomaticCoinSelection: enough funds only counting coins with too long unconfirmed chains. */
  UNCONFIRMED_CHAIN_TOO_LONG:
    'Unconfirmed UTXOs are available, but spending them creates a chain of transactions that will be rejected by the mempool',
  /** CreateTransactionInternal: nothing to pay and nothing pre-selected would make a 0-input transaction. */
  NOTHING_TO_FUND: 'Transaction requires one destination of non-zero value, a non-zero feerate, or a pre-selected input',
  /** CreateTransactionInternal's check of coin control's max_tx_weight (printf-style %d twice). */
  MAX_TX_WEIGHT_OUT_OF_RANGE: 'Maximum transaction weight must be between %d and %d',
} as const;

/** The text CreateTransactionInternal reports for a failed SelectCoins. */
export function selectionErrorText(outcome: SelectionOutcome & { ok: false }): string {
  return outcome.error === '' ? COIN_SELECTION_ERROR.INSUFFICIENT_FUNDS : outcome.error;
}
