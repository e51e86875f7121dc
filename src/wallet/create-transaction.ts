/**
 * Making a transaction that pays recipients from the wallet's coins (Core's CreateTransaction
 * and CreateTransactionInternal in wallet/spend.cpp): the fee rate (GetMinimumFeeRate), the
 * discard rate, the change destination reserved from the change type's descriptor, the
 * wallet's spendable coins (AvailableCoins), coin selection, change at a random position,
 * shuffled inputs, anti-fee-sniping locktime, the fee settled on the change or on the
 * recipients that pay it, signing, and the limits Core checks before it returns.
 */
import { hashToHex, Transaction, type OutPoint, type TxIn, type TxOut } from '../primitives/index.js';
import { isDust as isDustAt } from '../mempool/index.js';
import { WALLET_FLAG } from './new-wallet.js';
import type { WalletOutputType } from './records.js';
import {
  AvailableCoins,
  cryptoSelectionRng,
  feeAtRate,
  MAX_STANDARD_TX_WEIGHT,
  preferAvoidPartialSpends,
  prepareTransactionSelection,
  selectCoins,
  SelectableCoin,
  selectionErrorText,
  shouldTryAvoidPartialSpends,
  type CoinOutputType,
  type SelectionRng,
} from './coin-selection/index.js';
import { maximumSignedInputSize, maximumSignedTxSize } from './signed-size.js';
import type { Wallet } from './wallet.js';
import { signWalletTransaction } from './wallet-signer.js';

/** Core's MAX_BIP125_RBF_SEQUENCE and CTxIn::MAX_SEQUENCE_NONFINAL. */
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
const MAX_SEQUENCE_NONFINAL = 0xfffffffe;
/** Core's MAX_ANTI_FEE_SNIPING_TIP_AGE. */
const MAX_ANTI_FEE_SNIPING_TIP_AGE = 8 * 60 * 60;

export interface Recipient {
  readonly scriptPubKey: Uint8Array;
  readonly amount: bigint;
  readonly subtractFeeFromAmount: boolean;
}

/** The node-wide wallet options (Core's CWallet members set from the command line). */
export interface WalletSpendSettings {
  /** -fallbackfee, sat/kvB (0: disabled). */
  readonly fallbackFee: bigint;
  /** -discardfee, sat/kvB. */
  readonly discardFee: bigint;
  /** -mintxfee, sat/kvB. */
  readonly minTxFee: bigint;
  /** -txconfirmtarget. */
  readonly confirmTarget: number;
  /** -walletrbf. */
  readonly signalRbf: boolean;
  /** -maxtxfee, sat. */
  readonly maxTxFee: bigint;
  /** -consolidatefeerate, sat/kvB. */
  readonly consolidateFeeRate: bigint;
  /** -spendzeroconfchange. */
  readonly spendZeroConfChange: boolean;
  /** -avoidpartialspends. */
  readonly avoidPartialSpends: boolean;
  /** -maxapsfee, sat: what a grouped (avoid-partial-spends) build may cost more; -1 never tries one. */
  readonly maxApsFee: bigint;
  /** -walletrejectlongchains. */
  readonly rejectLongChains: boolean;
  /** -addresstype, and -changetype (undefined: chosen per transaction). */
  readonly addressType: WalletOutputType;
  readonly changeType: WalletOutputType | undefined;
}

/** Core's CCoinControl, the parts the RPCs set. */
export interface CoinControl {
  readonly changeScript?: Uint8Array;
  readonly changeType?: WalletOutputType;
  /** fee_rate (sat/kvB), and whether it bypasses the minimum checks (fOverrideFeeRate). */
  readonly feeRate?: bigint;
  readonly overrideFeeRate?: boolean;
  readonly confTarget?: number;
  readonly feeMode?: 'unset' | 'economical' | 'conservative';
  readonly signalRbf?: boolean;
  /** Pre-selected inputs, in the order given. */
  readonly selected?: readonly OutPoint[];
  /** Their sequences as given (Core's PreselectedInput::SetSequence); any disables anti-fee-sniping. */
  readonly presetSequences?: ReadonlyMap<string, number>;
  readonly allowOtherInputs?: boolean;
  readonly includeUnsafe?: boolean;
  readonly minDepth?: number;
  readonly maxDepth?: number;
  readonly lockTime?: number;
  readonly version?: number;
  readonly avoidPartialSpends?: boolean;
  /** Spend from addresses already used (avoid_reuse wallets); default: not. */
  readonly allowUsedAddresses?: boolean;
  readonly changePosition?: number;
}

export interface CreatedTransaction {
  readonly tx: Transaction;
  readonly fee: bigint;
  /** Where the change output went, or -1 for none. */
  readonly changePosition: number;
  /** Core's StringForFeeReason of how the fee rate was found. */
  readonly feeReason: string;
  /** The fee rate paid per kvB. */
  readonly feeRate: bigint;
}

export class CreateTransactionError extends Error {
  constructor(
    message: string,
    /** Core's RPC code for it: -6 for insufficient funds, -4 otherwise. */
    readonly code: number,
  ) {
    super(message);
    this.name = 'CreateTransactionError';
  }
}

const RPC_WALLET_ERROR = -4;
const RPC_WALLET_INSUFFICIENT_FUNDS = -6;

/** Core's GetMinimumFeeRate: explicit rate, else the estimate for the target (the fallback fee without one, the mempool minimum under it), never below -mintxfee and the relay minimum. */
export function minimumFeeRate(wallet: Wallet, control: CoinControl, settings: WalletSpendSettings): { feeRate: bigint; reason: string } {
  let feeRate: bigint;
  let reason: string;
  if (control.feeRate !== undefined) {
    feeRate = control.feeRate;
    reason = 'PayTxFee set';
    if (control.overrideFeeRate) return { feeRate, reason };
  } else {
    const target = control.confTarget ?? settings.confirmTarget;
    let conservative = !(control.signalRbf ?? settings.signalRbf);
    if (control.feeMode === 'conservative') conservative = true;
    else if (control.feeMode === 'economical') conservative = false;
    const estimate = wallet.chain.estimateSmartFee(target, conservative);
    feeRate = estimate.feeRate;
    reason = estimate.reason;
    if (feeRate === 0n) {
      feeRate = settings.fallbackFee;
      reason = 'Fallback fee';
      if (settings.fallbackFee === 0n) return { feeRate, reason };
    }
    const poolMin = wallet.chain.mempoolMinFee();
    if (feeRate < poolMin) {
      feeRate = poolMin;
      reason = 'Mempool Min Fee';
    }
  }
  const required = settings.minTxFee > wallet.chain.relayMinFee() ? settings.minTxFee : wallet.chain.relayMinFee();
  if (required > feeRate) {
    feeRate = required;
    reason = 'Minimum Required Fee';
  }
  return { feeRate, reason };
}

/** Core's GetDiscardRate: -discardfee, lowered to the longest estimate there is, never below the dust relay rate. */
export function discardFeeRate(wallet: Wallet, settings: WalletSpendSettings): bigint {
  const estimate = wallet.chain.estimateSmartFee(wallet.chain.estimateMaxBlocks(), false).feeRate;
  let rate = estimate === 0n ? settings.discardFee : estimate < settings.discardFee ? estimate : settings.discardFee;
  const dust = wallet.chain.relayDustFee();
  if (rate < dust) rate = dust;
  return rate;
}

/** Core's TransactionChangeType. */
export function transactionChangeType(wallet: Wallet, changeType: WalletOutputType | undefined, settings: WalletSpendSettings, recipients: readonly Recipient[]): WalletOutputType {
  if (changeType) return changeType;
  if (settings.addressType === 'legacy') return 'legacy';
  const has = (test: (s: Uint8Array) => boolean) => recipients.some((r) => test(r.scriptPubKey));
  const anyTr = has((s) => s.length === 34 && s[0] === 0x51 && s[1] === 0x20);
  const anyWpkh = has((s) => s.length === 22 && s[0] === 0x00 && s[1] === 0x14);
  const anySh = has((s) => s.length === 23 && s[0] === 0xa9);
  const anyPkh = has((s) => s.length === 25 && s[0] === 0x76);
  const hasBech32m = wallet.activeSpkm('bech32m', true) !== undefined;
  const hasBech32 = wallet.activeSpkm('bech32', true) !== undefined;
  if (hasBech32m && anyTr) return 'bech32m';
  if (hasBech32 && anyWpkh) return 'bech32';
  if (anySh || anyPkh) return settings.addressType;
  if (hasBech32m) return 'bech32m';
  if (hasBech32) return 'bech32';
  return settings.addressType;
}

function coinOutputType(script: Uint8Array): CoinOutputType {
  if (script.length === 25 && script[0] === 0x76) return 'legacy';
  if (script.length === 23 && script[0] === 0xa9) return 'p2sh-segwit';
  if (script.length === 22 && script[0] === 0x00) return 'bech32';
  if (script.length === 34 && script[0] === 0x51) return 'bech32m';
  return 'unknown';
}

const outpointText = (o: OutPoint): string => `${hashToHex(o.txid)}:${o.vout}`;
/** Core's COutPoint::ToString: the txid's first ten digits. */
const coutpointText = (txid: string, vout: number): string => `COutPoint(${txid.slice(0, 10)}, ${vout})`;

/** Core's AvailableCoins over the wallet's transactions, as coins selection can weigh at `feeRate`. */
export function availableCoins(wallet: Wallet, control: CoinControl, feeRate: bigint, settings: WalletSpendSettings): { coins: AvailableCoins; all: Map<string, SelectableCoin> } {
  const coins = new AvailableCoins();
  const all = new Map<string, SelectableCoin>();
  const selected = new Set((control.selected ?? []).map(outpointText));
  const minDepth = control.minDepth ?? 0;
  const maxDepth = control.maxDepth ?? 9_999_999;
  const onlySafe = !(control.includeUnsafe ?? false);
  const trustedParents = new Set<string>();
  const txs = wallet.txs;
  for (const wtx of txs.ordered()) {
    if (txs.isImmatureCoinbase(wtx)) continue;
    const depth = txs.depth(wtx);
    if (depth < 0 || (depth === 0 && wtx.state.kind !== 'mempool')) continue;
    let safe = txs.isTrusted(wtx, (s) => wallet.isMine(s), (w) => wallet.isFromMe(w), settings.spendZeroConfChange, trustedParents);
    if (depth === 0 && (wtx.mapValue.has('replaces_txid') || wtx.mapValue.has('replaced_by_txid'))) safe = false;
    if (onlySafe && !safe) continue;
    if (depth < minDepth || depth > maxDepth) continue;
    const fromMe = wallet.isFromMe(wtx);
    const ancestry = depth === 0 ? wallet.chain.mempoolAncestry?.(wtx.txid) : undefined;
    wtx.tx.outputs.forEach((output, vout) => {
      const key = `${wtx.txid}:${vout}`;
      if (selected.has(key) || wallet.isLockedCoin(wtx.txid, vout) || txs.isSpent(wtx.txid, vout) || !wallet.isMine(output.scriptPubKey)) return;
      if (!(control.allowUsedAddresses ?? !wallet.hasFlag(WALLET_FLAG.AVOID_REUSE)) && wallet.isUsedScript(output.scriptPubKey)) return;
      const inputBytes = maximumSignedInputSize(output.scriptPubKey);
      const coin = new SelectableCoin({
        outpoint: { txid: wtx.tx.txid, vout },
        value: output.value,
        scriptPubKey: output.scriptPubKey,
        depth,
        inputBytes,
        fromMe,
        solvable: inputBytes > -1,
        safe,
        time: wallet.txTime(wtx),
        ancestors: ancestry?.count ?? 0,
        descendants: ancestry?.count ?? 0,
        feeRate,
      });
      coins.add(coinOutputType(output.scriptPubKey), coin);
      all.set(key, coin);
    });
  }
  // Unconfirmed coins pay to bring their mempool ancestry up to the rate (Core's ApplyBumpFee).
  applyBumpFees(wallet, [...all.values()], feeRate);
  return { coins, all };
}

/** calculateIndividualBumpFees over `coins`, each coin charged its own. */
function applyBumpFees(wallet: Wallet, coins: readonly SelectableCoin[], feeRate: bigint): void {
  const unconfirmed = coins.filter((c) => c.depth === 0);
  if (unconfirmed.length === 0 || !wallet.chain.individualBumpFees) return;
  const fees = wallet.chain.individualBumpFees(unconfirmed.map((c) => c.outpoint), feeRate);
  for (const coin of unconfirmed) {
    const fee = fees.get(outpointText(coin.outpoint)) ?? 0n;
    if (fee > 0n) coin.applyBumpFee(fee);
  }
}

/** The output a wallet transaction or the chain gives for a pre-selected input (Core's FetchSelectedInputs, wallet coins only). */
function presetCoin(wallet: Wallet, outpoint: OutPoint, feeRate: bigint): SelectableCoin {
  const txid = hashToHex(outpoint.txid);
  const wtx = wallet.txs.get(txid);
  const output = wtx?.tx.outputs[outpoint.vout];
  if (!wtx || !output) throw new CreateTransactionError(`Not found pre-selected input ${coutpointText(txid, outpoint.vout)}`, RPC_WALLET_ERROR);
  const inputBytes = maximumSignedInputSize(output.scriptPubKey);
  if (inputBytes < 0) throw new CreateTransactionError(`Not solvable pre-selected input ${coutpointText(txid, outpoint.vout)}`, RPC_WALLET_ERROR);
  return new SelectableCoin({
    outpoint,
    value: output.value,
    scriptPubKey: output.scriptPubKey,
    depth: wallet.txs.depth(wtx),
    inputBytes,
    fromMe: wallet.isFromMe(wtx),
    solvable: true,
    safe: true,
    time: wallet.txTime(wtx),
    feeRate,
  });
}

/** Core's DiscourageFeeSniping: the tip's height (now and then up to 99 blocks back), or 0 when the tip is old. */
function antiFeeSnipingLockTime(wallet: Wallet, rng: SelectionRng): number {
  const { height } = wallet.lastProcessed;
  if (wallet.chain.isInitialBlockDownload() || height < 0) return 0;
  if (wallet.chain.blockTimes(height).time < wallet.chain.now() - MAX_ANTI_FEE_SNIPING_TIP_AGE) return 0;
  let lockTime = height;
  if (rng.randrange(10) === 0) lockTime = Math.max(0, lockTime - rng.randrange(100));
  return lockTime;
}

/** Core's IsDust at the relay dust rate. */
export function isDust(wallet: Wallet, output: TxOut): boolean {
  return isDustAt(output, wallet.chain.relayDustFee());
}

/**
 * Core's CreateTransaction: built once, then (unless partial spends are avoided already or
 * -maxapsfee is -1) again with every address's coins spent together, and that build taken
 * when it costs at most -maxapsfee more. The second build pays change to the first one's
 * change address, so one address is used whichever wins.
 */
export function createTransaction(wallet: Wallet, recipients: readonly Recipient[], control: CoinControl, settings: WalletSpendSettings, sign: boolean, rng: SelectionRng = cryptoSelectionRng()): CreatedTransaction {
  const avoiding = control.avoidPartialSpends ?? settings.avoidPartialSpends;
  const ungrouped = createTransactionInternal(wallet, recipients, { ...control, avoidPartialSpends: avoiding }, settings, sign, rng);
  let chosen = ungrouped;
  if (shouldTryAvoidPartialSpends(ungrouped.created.fee, settings.maxApsFee, avoiding)) {
    const change = ungrouped.created.changePosition >= 0 ? ungrouped.created.tx.outputs[ungrouped.created.changePosition]!.scriptPubKey : control.changeScript;
    let grouped: BuiltTransaction | null = null;
    try {
      grouped = createTransactionInternal(wallet, recipients, { ...control, avoidPartialSpends: true, ...(change ? { changeScript: change } : {}) }, settings, sign, rng);
    } catch (err) {
      if (!(err instanceof CreateTransactionError)) throw err;
    }
    if (grouped && preferAvoidPartialSpends(ungrouped.created.fee, grouped.created.fee, settings.maxApsFee)) chosen = grouped;
  }
  // The change address is kept (Core's KeepDestination) once change went to it.
  if (chosen.created.changePosition >= 0) (chosen.keepChange ?? ungrouped.keepChange)?.();
  return chosen.created;
}

interface BuiltTransaction {
  readonly created: CreatedTransaction;
  /** Keeps the wallet's change address this build reserved (undefined: it took none). */
  readonly keepChange: (() => void) | undefined;
}

/**
 * Core's CreateTransactionInternal. The change destination is taken from the change type's
 * descriptor only when change is made (Core reserves it and returns it otherwise).
 */
function createTransactionInternal(wallet: Wallet, recipients: readonly Recipient[], control: CoinControl, settings: WalletSpendSettings, sign: boolean, rng: SelectionRng): BuiltTransaction {
  if (recipients.length === 0) throw new CreateTransactionError('Transaction must have at least one recipient', RPC_WALLET_ERROR);
  if (recipients.some((r) => r.amount < 0n)) throw new CreateTransactionError('Transaction amounts must not be negative', RPC_WALLET_ERROR);
  for (const r of recipients) {
    if (isDust(wallet, { value: r.amount, scriptPubKey: r.scriptPubKey })) throw new CreateTransactionError('Transaction amount too small', RPC_WALLET_ERROR);
  }
  // The change script: coin control's, or the next change address of the change type.
  let changeScript = control.changeScript;
  let changeSpkm: ReturnType<Wallet['activeSpkm']>;
  let changeError = '';
  if (!changeScript) {
    const type = transactionChangeType(wallet, control.changeType, settings, recipients);
    changeSpkm = wallet.activeSpkm(type, true);
    const scripts = changeSpkm?.scriptsAt(changeSpkm.record.nextIndex);
    if (scripts?.[0] && changeSpkm!.record.nextIndex < changeSpkm!.record.rangeEnd) changeScript = scripts[0];
    else changeError = `Transaction needs a change address, but we can't generate it. Error: No ${type} addresses available.`;
  }
  const changeSpendSize = changeScript ? maximumSignedInputSize(changeScript) : -1;
  const discardRate = discardFeeRate(wallet, settings);
  const { feeRate, reason } = minimumFeeRate(wallet, control, settings);
  if (control.feeRate !== undefined && feeRate > control.feeRate) {
    throw new CreateTransactionError(`Fee rate (${formatSatVb(control.feeRate)}) is lower than the minimum fee rate setting (${formatSatVb(feeRate)})`, RPC_WALLET_ERROR);
  }
  if (reason === 'Fallback fee' && settings.fallbackFee === 0n) {
    throw new CreateTransactionError('Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee.', RPC_WALLET_ERROR);
  }
  const prepared = prepareTransactionSelection({
    rng,
    recipients: recipients.map((r) => ({ amount: r.amount, scriptPubKey: r.scriptPubKey, subtractFeeFromAmount: r.subtractFeeFromAmount })),
    effectiveFeeRate: feeRate,
    longTermFeeRate: settings.consolidateFeeRate,
    discardFeeRate: discardRate,
    changeScriptPubKey: changeScript ?? new Uint8Array(0),
    changeSpendSize,
    avoidPartialSpends: control.avoidPartialSpends ?? settings.avoidPartialSpends,
    includeUnsafeInputs: control.includeUnsafe ?? false,
    hasPreselectedInputs: (control.selected?.length ?? 0) > 0,
  });
  if (!prepared.ok) throw new CreateTransactionError(prepared.error, RPC_WALLET_ERROR);
  const { params, selectionTarget } = prepared;
  const presetInputs = (control.selected ?? []).map((o) => presetCoin(wallet, o, feeRate));
  applyBumpFees(wallet, presetInputs, feeRate);
  const allowOther = control.allowOtherInputs ?? true;
  const available = allowOther ? availableCoins(wallet, control, feeRate, settings).coins : new AvailableCoins();
  const outcome = selectCoins({
    availableCoins: available,
    presetInputs,
    target: selectionTarget,
    allowOtherInputs: allowOther,
    params,
    context: {
      spendZeroConfChange: settings.spendZeroConfChange,
      rejectLongChains: settings.rejectLongChains,
      ...(wallet.chain.combinedBumpFee ? { combinedBumpFee: (outpoints: readonly OutPoint[], rate: bigint) => wallet.chain.combinedBumpFee!(outpoints, rate) } : {}),
    },
  });
  if (!outcome.ok) {
    const text = selectionErrorText(outcome);
    throw new CreateTransactionError(text, text === 'Insufficient funds' ? RPC_WALLET_INSUFFICIENT_FUNDS : RPC_WALLET_ERROR);
  }
  const result = outcome.result;
  const outputs: TxOut[] = recipients.map((r) => ({ value: r.amount, scriptPubKey: r.scriptPubKey }));
  const changeAmount = result.change(params.minViableChange, params.changeFee);
  let changePosition = -1;
  if (changeAmount > 0n) {
    if (control.changePosition === undefined) changePosition = rng.randrange(outputs.length + 1);
    else if (control.changePosition > outputs.length) throw new CreateTransactionError('Transaction change output index out of range', RPC_WALLET_ERROR);
    else changePosition = control.changePosition;
    outputs.splice(changePosition, 0, { value: changeAmount, scriptPubKey: changeScript ?? new Uint8Array(0) });
  }
  // Shuffled inputs; pre-selected ones first, in the order given.
  const order = new Map((control.selected ?? []).map((o, i) => [outpointText(o), i] as const));
  const chosen = result.shuffledInputs(rng);
  const preset = chosen.filter((c) => order.has(outpointText(c.outpoint))).sort((a, b) => order.get(outpointText(a.outpoint))! - order.get(outpointText(b.outpoint))!);
  const coins = [...preset, ...chosen.filter((c) => !order.has(outpointText(c.outpoint)))];
  const sequence = (control.signalRbf ?? settings.signalRbf) ? MAX_BIP125_RBF_SEQUENCE : MAX_SEQUENCE_NONFINAL;
  let antiFeeSniping = control.lockTime === undefined;
  const inputs: TxIn[] = coins.map((c) => {
    const preset = control.presetSequences?.get(outpointText(c.outpoint));
    if (preset !== undefined) antiFeeSniping = false;
    return { prevout: c.outpoint, scriptSig: new Uint8Array(0), sequence: preset ?? sequence, witness: [] };
  });
  const lockTime = antiFeeSniping ? antiFeeSnipingLockTime(wallet, rng) : (control.lockTime ?? 0);
  let tx = new Transaction({ version: control.version ?? 2, inputs, outputs, locktime: lockTime });

  const size = maximumSignedTxSize(tx, coins.map((c) => c.scriptPubKey));
  if (!size) throw new CreateTransactionError('Missing solving data for estimating transaction size', RPC_WALLET_ERROR);
  const feeNeeded = feeAtRate(feeRate, size.vsize) + result.totalBumpFees();
  const outputValue = (o: readonly TxOut[]) => o.reduce((s, out) => s + out.value, 0n);
  let currentFee = result.selectedValue() - outputValue(outputs);
  if (currentFee < 0n) throw new CreateTransactionError('Fee paid < 0', RPC_WALLET_ERROR);
  if (changePosition >= 0 && feeNeeded < currentFee) {
    const change = outputs[changePosition]!;
    outputs[changePosition] = { ...change, value: change.value + currentFee - feeNeeded };
    currentFee = feeNeeded;
  }
  if (params.subtractFeeOutputs) {
    const toReduce = feeNeeded - currentFee;
    const payers = recipients.filter((r) => r.subtractFeeFromAmount).length;
    let first = true;
    let i = 0;
    for (const recipient of recipients) {
      if (changePosition >= 0 && i === changePosition) i++;
      if (recipient.subtractFeeFromAmount) {
        const out = outputs[i]!;
        let value = out.value - toReduce / BigInt(payers);
        if (first) {
          first = false;
          value -= toReduce % BigInt(payers);
        }
        outputs[i] = { ...out, value };
        if (isDust(wallet, outputs[i]!)) {
          throw new CreateTransactionError(value < 0n ? 'The transaction amount is too small to pay the fee' : 'The transaction amount is too small to send after the fee has been deducted', RPC_WALLET_ERROR);
        }
      }
      i++;
    }
    currentFee = result.selectedValue() - outputValue(outputs);
  }
  if (feeNeeded > currentFee) throw new CreateTransactionError('Fee needed > fee paid', RPC_WALLET_ERROR);
  if (changePosition >= 0 && !changeScript) throw new CreateTransactionError(changeError, RPC_WALLET_ERROR);
  tx = new Transaction({ version: tx.version, inputs, outputs, locktime: lockTime });
  if (sign) {
    const signed = signWalletTransaction(wallet, tx);
    if (!signed) throw new CreateTransactionError('Signing transaction failed', RPC_WALLET_ERROR);
    tx = signed;
  }
  const weight = sign ? tx.weight : size.weight;
  if (weight > MAX_STANDARD_TX_WEIGHT) throw new CreateTransactionError('Transaction too large', RPC_WALLET_ERROR);
  if (currentFee > settings.maxTxFee) throw new CreateTransactionError('Fee exceeds maximum configured by user (e.g. -paytxfee, -maxtxfee)', RPC_WALLET_ERROR);
  const spkm = changeSpkm;
  return { created: { tx, fee: currentFee, changePosition, feeReason: reason, feeRate }, keepChange: spkm && !control.changeScript ? () => wallet.keepChangeDestination(spkm) : undefined };
}

/** CFeeRate::ToString(SAT_VB): sat/vB with 3 decimals. */
export function formatSatVb(perKvB: bigint): string {
  const whole = perKvB / 1000n;
  const frac = (perKvB % 1000n).toString().padStart(3, '0');
  return `${whole}.${frac} sat/vB`;
}
