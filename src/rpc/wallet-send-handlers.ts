/**
 * Sending from the wallet as Core's RPCs do: sendtoaddress and sendmany (SendMoney: the
 * recipients shuffled, CreateTransaction, then CommitTransaction, which records the
 * transaction in the wallet before it is offered to the mempool and peers), with Core's fee
 * options (SetFeeEstimateMode) and subtract-fee-from instructions.
 */
import type { Transaction } from '../primitives/index.js';
import { CreateTransactionError, createTransaction, cryptoSelectionRng, WALLET_FLAG, type CoinControl, type Recipient, type Wallet } from '../wallet/index.js';
import type { RpcArgs } from './args.js';
import { RPC_INVALID_PARAMETER, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS, RpcError } from './errors.js';
import type { Json, JsonObject } from './json.js';
import { addOutputs, normalizeOutputs } from './rawtransaction-methods.js';
import { amountFromValue, getInt, getStr } from './value-parse.js';
import { ensureUnlocked, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

const INVALID_ESTIMATE_MODE = 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"';

/** Core's SetFeeEstimateMode. */
export function feeEstimateMode(wallet: Wallet, confTarget: Json | undefined, estimateMode: Json | undefined, feeRate: Json | undefined, overrideMinFee: boolean, signalRbf: boolean | undefined): CoinControl {
  const present = (v: Json | undefined) => v !== undefined && v !== null;
  if (present(feeRate)) {
    if (present(confTarget)) {
      throw new RpcError(
        RPC_INVALID_PARAMETER,
        'Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.',
      );
    }
    if (present(estimateMode) && getStr(estimateMode) !== 'unset') throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot specify both estimate_mode and fee_rate');
    // sat/vB with at most 3 decimals, as sat/kvB.
    const perKvB = amountFromValue(feeRate, 3);
    return { feeRate: perKvB, overrideFeeRate: overrideMinFee, signalRbf: signalRbf ?? true };
  }
  let feeMode: CoinControl['feeMode'];
  if (present(estimateMode)) {
    const mode = getStr(estimateMode).toLowerCase();
    if (mode !== 'unset' && mode !== 'economical' && mode !== 'conservative') throw new RpcError(RPC_INVALID_PARAMETER, INVALID_ESTIMATE_MODE);
    feeMode = mode;
  }
  let target: number | undefined;
  if (present(confTarget)) {
    target = getInt(confTarget, -2147483648, 2147483647);
    const max = wallet.chain.estimateMaxBlocks();
    if (target < 1 || target > max) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${max}`);
  }
  return { ...(feeMode ? { feeMode } : {}), ...(target !== undefined ? { confTarget: target } : {}), ...(signalRbf !== undefined ? { signalRbf } : {}) };
}

/** An output position to subtract the fee from, with Core's checks (duplicated, negative, too large). */
export function subtractFeePosition(value: Json, taken: ReadonlySet<number>, outputs: number): number {
  const pos = getInt(value, -2147483648, 2147483647);
  if (taken.has(pos)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated position: ${pos}`);
  if (pos < 0) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, negative position: ${pos}`);
  if (pos >= outputs) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, position too large: ${pos}`);
  return pos;
}

/** Core's InterpretSubtractFeeFromOutputInstructions over the outputs' names. */
function subtractFeeFrom(value: Json | undefined, names: readonly string[]): Set<number> {
  const out = new Set<number>();
  if (value === undefined || value === null) return out;
  if (typeof value === 'boolean') {
    if (value) out.add(0);
    return out;
  }
  for (const item of value as Json[]) {
    if (typeof item === 'string') {
      const pos = names.indexOf(item);
      if (pos < 0) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter 'subtract fee from output', destination ${item} not found in tx outputs`);
      out.add(pos);
    } else {
      out.add(subtractFeePosition(item, out, names.length));
    }
  }
  return out;
}

/** Core's ParseOutputs and CreateRecipients. */
function recipientsOf(wallet: Wallet, outputs: Json, sffo: Json | undefined): Recipient[] {
  const names = normalizeOutputs(outputs).map(([name]) => name);
  const parsed = addOutputs(outputs, wallet.chainName);
  const subtract = subtractFeeFrom(sffo, names);
  return parsed.map((out, i) => ({ scriptPubKey: out.scriptPubKey, amount: out.value, subtractFeeFromAmount: subtract.has(i) }));
}


/** Core's SendMoney. */
async function sendMoney(deps: WalletRpcDeps, wallet: Wallet, control: CoinControl, recipients: Recipient[], mapValue: Map<string, string>, verbose: boolean): Promise<unknown> {
  ensureUnlocked(wallet);
  if (wallet.privateKeysDisabled) throw new RpcError(RPC_WALLET_ERROR, 'Error: Private keys are disabled for this wallet');
  const rng = cryptoSelectionRng();
  rng.shuffle(recipients);
  let created;
  try {
    created = createTransaction(wallet, recipients, control, deps.spendSettings, true, rng);
  } catch (err) {
    if (err instanceof CreateTransactionError) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, err.message);
    throw err;
  }
  await commitAndBroadcast(deps, wallet, created.tx, mapValue);
  const txid = created.tx.txidHex;
  return verbose ? { txid, fee_reason: created.feeReason } : txid;
}

/**
 * Core's CommitTransaction: recorded first (a crash keeps it), then offered to the mempool
 * and peers unless -walletbroadcast=0; a refusal is logged, not an error.
 */
export async function commitAndBroadcast(deps: WalletRpcDeps, wallet: Wallet, tx: Transaction, mapValue: Map<string, string>): Promise<void> {
  wallet.commitTransaction(tx, mapValue);
  await broadcastCommitted(deps, wallet, tx);
}

/** CommitTransaction's second half, for a transaction already written to the wallet. */
export async function broadcastCommitted(deps: WalletRpcDeps, wallet: Wallet, tx: Transaction): Promise<void> {
  const wtx = wallet.txs.get(tx.txidHex);
  if (!wtx || !wallet.broadcastTransactions) return;
  const result = await wallet.submitToMempool(wtx, deps.spendSettings.maxTxFee, true);
  if (!result.ok) wallet.log(`CommitTransaction(): Transaction cannot be broadcast immediately, ${result.error}`);
}

/** Core's GetAvoidReuseFlag: the wallet's flag unless given; asking for it on a wallet without the flag is an error. */
export function avoidReuseFlag(wallet: Wallet, given: boolean | undefined): boolean {
  const can = wallet.hasFlag(WALLET_FLAG.AVOID_REUSE);
  const avoid = given ?? can;
  if (avoid && !can) throw new RpcError(RPC_WALLET_ERROR, 'wallet does not have the "avoid reuse" feature enabled');
  return avoid;
}

function comments(args: RpcArgs, pairs: readonly [string, string][]): Map<string, string> {
  const map = new Map<string, string>();
  for (const [arg, key] of pairs) {
    const text = args.optString(arg);
    if (text !== undefined && text !== '') map.set(key, text);
  }
  return map;
}

export function walletSendHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    sendtoaddress: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const mapValue = comments(args, [
        ['comment', 'comment'],
        ['comment_to', 'to'],
      ]);
      const rbf = args.optBoolean('replaceable');
      const avoidReuse = avoidReuseFlag(wallet, args.has('avoid_reuse') ? args.boolean('avoid_reuse') : undefined);
      const fee = feeEstimateMode(wallet, args.raw[6], args.raw[7], args.raw[9], false, rbf);
      const control: CoinControl = { ...fee, allowUsedAddresses: !avoidReuse, avoidPartialSpends: avoidReuse || deps.spendSettings.avoidPartialSpends };
      ensureUnlocked(wallet);
      const address = args.string('address');
      const outputs: JsonObject = { [address]: args.value('amount') as Json };
      const recipients = recipientsOf(wallet, outputs, args.boolean('subtractfeefromamount'));
      return sendMoney(deps, wallet, control, recipients, mapValue, args.boolean('verbose'));
    },

    sendmany: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const dummy = args.optString('dummy');
      if (dummy !== undefined && dummy !== '') throw new RpcError(RPC_INVALID_PARAMETER, 'Dummy value must be set to ""');
      const amounts = args.object('amounts');
      const mapValue = comments(args, [['comment', 'comment']]);
      const fee = feeEstimateMode(wallet, args.raw[6], args.raw[7], args.raw[8], false, args.optBoolean('replaceable'));
      const recipients = recipientsOf(wallet, amounts, args.raw[4] ?? []);
      return sendMoney(deps, wallet, { ...fee, avoidPartialSpends: deps.spendSettings.avoidPartialSpends }, recipients, mapValue, args.boolean('verbose'));
    },
  };
}
