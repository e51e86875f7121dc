/**
 * The coin-dependent transaction checks (Core's Consensus::CheckTxInputs): every input
 * spends an existing coin, coinbase outputs are mature, amounts stay in range and the
 * inputs cover the outputs. Returns the fee, which the block then accumulates.
 */
import type { Transaction, TxOut } from '../primitives/index.js';
import { formatMoney, moneyRange } from './amounts.js';
import { COINBASE_MATURITY } from './limits.js';
import { txFailure, type TxValidationFailure } from './validation-result.js';

/** An unspent transaction output with what consensus needs to know about its creation (Core's Coin). */
export interface Coin {
  readonly output: TxOut;
  /** Height of the block that created it. */
  readonly height: number;
  /** Created by a coinbase (spendable only after COINBASE_MATURITY blocks). */
  readonly coinbase: boolean;
}

export type TxInputsCheck = { readonly ok: true; readonly fee: bigint; readonly valueIn: bigint } | TxValidationFailure;

/**
 * Core's CheckTxInputs for a non-coinbase transaction. `coins[i]` is the unspent coin
 * input i spends, or undefined when it is missing or spent; `spendHeight` is the height of
 * the block the transaction is in (the next block's, for the mempool).
 */
export function checkTxInputs(tx: Transaction, coins: readonly (Coin | undefined)[], spendHeight: number): TxInputsCheck {
  if (coins.length !== tx.inputs.length || coins.some((coin) => coin === undefined)) {
    return txFailure('missing-inputs', 'bad-txns-inputs-missingorspent', 'CheckTxInputs: inputs missing/spent');
  }
  let valueIn = 0n;
  for (const coin of coins as readonly Coin[]) {
    if (coin.coinbase && spendHeight - coin.height < COINBASE_MATURITY) {
      return txFailure('premature-spend', 'bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${spendHeight - coin.height}`);
    }
    valueIn += coin.output.value;
    if (!moneyRange(coin.output.value) || !moneyRange(valueIn)) return txFailure('consensus', 'bad-txns-inputvalues-outofrange');
  }
  let valueOut = 0n;
  for (const out of tx.outputs) valueOut += out.value;
  if (valueIn < valueOut) {
    return txFailure('consensus', 'bad-txns-in-belowout', `value in (${formatMoney(valueIn)}) < value out (${formatMoney(valueOut)})`);
  }
  const fee = valueIn - valueOut;
  if (!moneyRange(fee)) return txFailure('consensus', 'bad-txns-fee-outofrange');
  return { ok: true, fee, valueIn };
}
