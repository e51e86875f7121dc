/**
 * Replacing a wallet transaction with one paying a higher fee rate (Core's feebumper:
 * CreateRateBumpTransaction, PreconditionChecks, CheckFeeRate, EstimateFeeRate and
 * CommitTransaction with MarkReplaced): the same inputs (and more confirmed ones if needed),
 * the same recipients, the change output recycled, the fee rate the user asks or the old
 * rate plus the incremental relay fee.
 */
import { formatMoney } from '../consensus/index.js';
import { feeRatePerKvB } from '../mempool/index.js';
import { hashToHex, Transaction, type TxOut } from '../primitives/index.js';
import { createTransaction, CreateTransactionError, minimumFeeRate, type CoinControl, type Recipient, type WalletSpendSettings } from './create-transaction.js';
import { feeAtRate } from './coin-selection/index.js';
import { maximumSignedTxSize } from './signed-size.js';
import type { Wallet } from './wallet.js';
import type { WalletTx } from './wallet-txs.js';

/** Core's WALLET_INCREMENTAL_RELAY_FEE (sat/kvB). */
const WALLET_INCREMENTAL_RELAY_FEE = 5_000n;

export type BumpErrorKind = 'INVALID_ADDRESS_OR_KEY' | 'INVALID_PARAMETER' | 'WALLET_ERROR' | 'MISC_ERROR';

export class FeeBumpError extends Error {
  constructor(
    readonly kind: BumpErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'FeeBumpError';
  }
}

/** Core's PreconditionChecks. */
function preconditions(wallet: Wallet, wtx: WalletTx, requireMine: boolean): void {
  for (let vout = 0; vout < wtx.tx.outputs.length; vout++) {
    if (wallet.txs.spenders(wtx.txid, vout).size > 0) throw new FeeBumpError('INVALID_PARAMETER', 'Transaction has descendants in the wallet');
  }
  if (wallet.chain.hasDescendantsInMempool(wtx.txid)) throw new FeeBumpError('INVALID_PARAMETER', 'Transaction has descendants in the mempool');
  if (wallet.txs.depth(wtx) !== 0) throw new FeeBumpError('WALLET_ERROR', 'Transaction has been mined, or is conflicted with a mined transaction');
  const replacedBy = wtx.mapValue.get('replaced_by_txid');
  if (replacedBy !== undefined) throw new FeeBumpError('WALLET_ERROR', `Cannot bump transaction ${wtx.txid} which was already bumped by transaction ${replacedBy}`);
  if (requireMine) {
    for (const input of wtx.tx.inputs) {
      const parent = wallet.txs.get(hashToHex(input.prevout.txid));
      const out = parent?.tx.outputs[input.prevout.vout];
      if (!out || !wallet.isMine(out.scriptPubKey)) throw new FeeBumpError('WALLET_ERROR', "Transaction contains inputs that don't belong to this wallet");
    }
  }
}

export interface BumpOptions {
  readonly control: CoinControl;
  readonly outputs?: readonly TxOut[];
  readonly originalChangeIndex?: number;
  readonly requireMine: boolean;
}

/** Core's CreateRateBumpTransaction: the unsigned replacement, the old fee and the new one. */
export function createRateBumpTransaction(wallet: Wallet, txid: string, options: BumpOptions, settings: WalletSpendSettings): { tx: Transaction; oldFee: bigint; newFee: bigint } {
  if (options.outputs && options.outputs.length > 0 && options.originalChangeIndex !== undefined) {
    throw new FeeBumpError(
      'INVALID_PARAMETER',
      "The options 'outputs' and 'original_change_index' are incompatible. You can only either specify a new set of outputs, or designate a change output to be recycled.",
    );
  }
  const wtx = wallet.txs.get(txid);
  if (!wtx) throw new FeeBumpError('INVALID_ADDRESS_OR_KEY', 'Invalid or non-wallet transaction id');
  if (options.originalChangeIndex !== undefined && options.originalChangeIndex >= wtx.tx.outputs.length) throw new FeeBumpError('INVALID_PARAMETER', 'Change position is out of range');
  let inputValue = 0n;
  const spentScripts: Uint8Array[] = [];
  for (const input of wtx.tx.inputs) {
    const prevTxid = hashToHex(input.prevout.txid);
    // Core's findCoins: the UTXO set and the pool's outputs (spends in the pool do not count).
    const coin = wallet.chain.findCoin(prevTxid, input.prevout.vout);
    if (!coin) throw new FeeBumpError('MISC_ERROR', `${prevTxid}:${input.prevout.vout} is already spent`);
    inputValue += coin.value;
    spentScripts.push(coin.scriptPubKey);
  }
  preconditions(wallet, wtx, options.requireMine);
  const oldFee = inputValue - wtx.tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  const txouts = options.outputs && options.outputs.length > 0 ? options.outputs : wtx.tx.outputs;
  const recipients: Recipient[] = [];
  let changeScript: Uint8Array | undefined;
  let newOutputsValue = 0n;
  txouts.forEach((output, i) => {
    const isChange = options.originalChangeIndex !== undefined ? options.originalChangeIndex === i : wallet.isChange(output.scriptPubKey);
    if (isChange) changeScript = output.scriptPubKey;
    else recipients.push({ scriptPubKey: output.scriptPubKey, amount: output.value, subtractFeeFromAmount: false });
    newOutputsValue += output.value;
  });
  if (recipients.length === 0) {
    if (!changeScript) throw new FeeBumpError('INVALID_PARAMETER', 'Unable to create transaction. Transaction must have at least one recipient');
    recipients.push({ scriptPubKey: changeScript, amount: newOutputsValue, subtractFeeFromAmount: true });
    changeScript = undefined;
  }
  let feeRate: bigint;
  if (options.control.feeRate !== undefined) {
    feeRate = options.control.feeRate;
    const temp = new Transaction({ version: wtx.tx.version, inputs: wtx.tx.inputs.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })), outputs: [...txouts], locktime: wtx.tx.locktime });
    const maxSize = maximumSignedTxSize(temp, spentScripts)?.vsize ?? temp.vsize;
    checkFeeRate(wallet, feeRate, maxSize, oldFee, settings);
  } else {
    // Core's EstimateFeeRate: the old rate (rounded down) plus one, plus the larger incremental fee, at least the wallet's minimum.
    const oldRate = feeRatePerKvB(oldFee, wtx.tx.vsize) + 1n;
    const incremental = wallet.chain.relayIncrementalFee() > WALLET_INCREMENTAL_RELAY_FEE ? wallet.chain.relayIncrementalFee() : WALLET_INCREMENTAL_RELAY_FEE;
    const bumped = oldRate + incremental;
    const minimum = minimumFeeRate(wallet, options.control, settings).feeRate;
    feeRate = bumped > minimum ? bumped : minimum;
  }
  try {
    const created = createTransaction(
      wallet,
      recipients,
      {
        ...options.control,
        feeRate,
        ...(changeScript ? { changeScript } : {}),
        selected: wtx.tx.inputs.map((i) => i.prevout),
        allowOtherInputs: true,
        minDepth: 1,
      },
      settings,
      false,
    );
    return { tx: created.tx, oldFee, newFee: created.fee };
  } catch (err) {
    if (err instanceof CreateTransactionError) throw new FeeBumpError('WALLET_ERROR', `Unable to create transaction. ${err.message}`);
    throw err;
  }
}

/** Core's CheckFeeRate for a fee rate the user gave. */
function checkFeeRate(wallet: Wallet, feeRate: bigint, maxTxSize: number, oldFee: bigint, settings: WalletSpendSettings): void {
  const poolMin = wallet.chain.mempoolMinFee();
  if (feeRate < poolMin) {
    throw new FeeBumpError('WALLET_ERROR', `New fee rate (${formatMoney(feeRate)}) is lower than the minimum fee rate (${formatMoney(poolMin)}) to get into the mempool -- `);
  }
  const newTotalFee = feeAtRate(feeRate, maxTxSize);
  const incremental = feeAtRate(wallet.chain.relayIncrementalFee(), maxTxSize);
  const minTotalFee = oldFee + incremental;
  if (newTotalFee < minTotalFee) {
    throw new FeeBumpError(
      'INVALID_PARAMETER',
      `Insufficient total fee ${formatMoney(newTotalFee)}, must be at least ${formatMoney(minTotalFee)} (oldFee ${formatMoney(oldFee)} + incrementalFee ${formatMoney(incremental)})`,
    );
  }
  const required = feeAtRate(settings.minTxFee > wallet.chain.relayMinFee() ? settings.minTxFee : wallet.chain.relayMinFee(), maxTxSize);
  if (newTotalFee < required) throw new FeeBumpError('INVALID_PARAMETER', `Insufficient total fee (cannot be less than required fee ${formatMoney(required)})`);
  if (newTotalFee > settings.maxTxFee) {
    throw new FeeBumpError('WALLET_ERROR', `Specified or calculated fee ${formatMoney(newTotalFee)} is too high (cannot be higher than -maxtxfee ${formatMoney(settings.maxTxFee)})`);
  }
}

/** Core's feebumper::CommitTransaction: the replacement recorded (replaces_txid) and the original marked replaced_by_txid. */
export function commitBump(wallet: Wallet, oldTxid: string, tx: Transaction): void {
  const old = wallet.txs.get(oldTxid);
  if (!old) throw new FeeBumpError('MISC_ERROR', 'Invalid or non-wallet transaction id');
  preconditions(wallet, old, false);
  const mapValue = new Map(old.mapValue);
  mapValue.set('replaces_txid', oldTxid);
  wallet.commitTransaction(tx, mapValue, old.orderForm);
  wallet.markReplaced(oldTxid, tx.txidHex);
}
