/**
 * Funding a transaction from the wallet (Core's FundTransaction in wallet/rpc/spend.cpp):
 * fundrawtransaction and walletcreatefundedpsbt. The transaction's outputs are the
 * recipients (in their order) and its inputs are pre-selected; the wallet adds inputs
 * (unless add_inputs is false) and change, at a random position unless one is given, and
 * keeps the transaction's locktime, version and input sequences.
 */
import { hashToHex, toHex, type Transaction } from '../primitives/index.js';
import { decodeAddress } from '../script/index.js';
import { encodePsbt, psbtFromTransaction } from '../psbt/index.js';
import { createTransaction, CreateTransactionError, fillWalletPsbt, type CoinControl, type Wallet, type WalletOutputType } from '../wallet/index.js';
import type { RpcArgs } from './args.js';
import { RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_WALLET_ERROR, RpcError } from './errors.js';
import { decodeTxHex } from './format/index.js';
import type { Json, JsonObject } from './json.js';
import { constructTransaction } from './rawtransaction-methods.js';
import { amountFromValue, getInt, getStr, isJsonObject, rpcTypeCheckObj } from './value-parse.js';
import { amountJson } from './values.js';
import { feeEstimateMode, subtractFeePosition } from './wallet-send-handlers.js';
import { parseOutputType, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/** The options FundTransaction reads, with their JSON types (Core's RPCTypeCheckObj list). */
const FUND_OPTION_TYPES = {
  add_inputs: 'bool',
  include_unsafe: 'bool',
  add_to_wallet: 'bool',
  changeAddress: 'string',
  change_address: 'string',
  changePosition: 'number',
  change_position: 'number',
  change_type: 'string',
  includeWatching: 'bool',
  include_watching: 'bool',
  inputs: 'array',
  lockUnspents: 'bool',
  lock_unspents: 'bool',
  locktime: 'number',
  psbt: 'bool',
  solving_data: 'object',
  subtractFeeFromOutputs: 'array',
  subtract_fee_from_outputs: 'array',
  replaceable: 'bool',
  conf_target: 'number',
  estimate_mode: 'string',
  minconf: 'number',
  maxconf: 'number',
  input_weights: 'array',
  max_tx_weight: 'number',
} as const;

interface Funded {
  readonly tx: Transaction;
  readonly fee: bigint;
  readonly changePosition: number;
}

/** The option of either spelling (Core accepts both camelCase and snake_case names). */
function option(options: JsonObject, ...names: string[]): Json | undefined {
  for (const name of names) if (options[name] !== undefined && options[name] !== null) return options[name];
  return undefined;
}

/** Core's FundTransaction over an unsigned transaction; `addInputsDefault` is the add_inputs default of the caller. */
export function fundTransaction(deps: WalletRpcDeps, wallet: Wallet, tx: Transaction, optionsArg: Json | undefined, addInputsDefault: boolean, antiFeeSniping = false): Funded {
  const options: JsonObject = isJsonObject(optionsArg) ? optionsArg : {};
  // fee_rate and feeRate are any amount AmountFromValue reads: checked where they are read.
  const { fee_rate: _feeRate, feeRate: _feeRateBtc, ...typed } = options;
  rpcTypeCheckObj(typed, FUND_OPTION_TYPES, true, true);
  let control: CoinControl = {};
  const changeAddress = option(options, 'changeAddress', 'change_address');
  let changeScript: Uint8Array | undefined;
  if (changeAddress !== undefined) {
    const decoded = decodeAddress(getStr(changeAddress), wallet.chainName);
    if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Change address must be a valid bitcoin address');
    changeScript = decoded.scriptPubKey;
  }
  const positionValue = option(options, 'changePosition', 'change_position');
  const changePosition = positionValue !== undefined ? getInt(positionValue, -2147483648, 2147483647) : undefined;
  let changeType: WalletOutputType | undefined;
  const changeTypeValue = option(options, 'change_type');
  if (changeTypeValue !== undefined) {
    if (changeScript) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot specify both changeAddress and address_type options');
    changeType = parseOutputType(getStr(changeTypeValue));
  }
  const lockUnspents = option(options, 'lockUnspents', 'lock_unspents') === true;
  const feeRateValue = option(options, 'feeRate');
  if (feeRateValue !== undefined) {
    if (option(options, 'fee_rate') !== undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot specify both fee_rate (sat/vB) and feeRate (BTC/kvB)');
    if (option(options, 'conf_target') !== undefined) {
      throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot specify both conf_target and feeRate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.');
    }
    if (option(options, 'estimate_mode') !== undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot specify both estimate_mode and feeRate');
    control = { feeRate: amountFromValue(feeRateValue), overrideFeeRate: true };
  }
  const replaceable = option(options, 'replaceable');
  const fee = feeEstimateMode(wallet, option(options, 'conf_target'), option(options, 'estimate_mode'), option(options, 'fee_rate'), false, replaceable === undefined ? undefined : (replaceable as boolean));
  control = { ...fee, ...control };
  const minconf = option(options, 'minconf');
  const maxconf = option(options, 'maxconf');
  const minDepth = minconf !== undefined ? getInt(minconf, -2147483648, 2147483647) : undefined;
  const maxDepth = maxconf !== undefined ? getInt(maxconf, -2147483648, 2147483647) : undefined;
  if (minDepth !== undefined && minDepth < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative minconf');
  if (maxDepth !== undefined && minDepth !== undefined && maxDepth < minDepth) throw new RpcError(RPC_INVALID_PARAMETER, `maxconf can't be lower than minconf: ${maxDepth} < ${minDepth}`);
  const subtract = new Set<number>();
  for (const value of (option(options, 'subtractFeeFromOutputs', 'subtract_fee_from_outputs') as Json[] | undefined) ?? []) {
    subtract.add(subtractFeePosition(value, subtract, tx.outputs.length));
  }
  if (tx.outputs.length === 0) throw new RpcError(RPC_INVALID_PARAMETER, 'TX must have at least one output');
  if (changePosition !== undefined && (changePosition < -1 || changePosition > tx.outputs.length)) throw new RpcError(RPC_INVALID_PARAMETER, 'changePosition out of bounds');
  const recipients = tx.outputs.map((out, i) => ({ scriptPubKey: out.scriptPubKey, amount: out.value, subtractFeeFromAmount: subtract.has(i) }));
  const addInputs = option(options, 'add_inputs');
  try {
    const created = createTransaction(
      wallet,
      recipients,
      {
        ...control,
        ...(changeScript ? { changeScript } : {}),
        ...(changeType ? { changeType } : {}),
        ...(changePosition !== undefined && changePosition !== -1 ? { changePosition } : {}),
        ...(minDepth !== undefined ? { minDepth } : {}),
        ...(maxDepth !== undefined ? { maxDepth } : {}),
        includeUnsafe: option(options, 'include_unsafe') === true,
        allowOtherInputs: addInputs === undefined ? addInputsDefault : (addInputs as boolean),
        selected: tx.inputs.map((i) => i.prevout),
        presetSequences: new Map(tx.inputs.map((i) => [`${hashToHex(i.prevout.txid)}:${i.prevout.vout}`, i.sequence])),
        // FundTransaction keeps the transaction's locktime (anti-fee-sniping off); send without a locktime snipes as bitcoind does.
        ...(antiFeeSniping ? {} : { lockTime: tx.locktime }),
        version: tx.version,
      },
      deps.spendSettings,
      false,
    );
    if (lockUnspents) for (const input of created.tx.inputs) wallet.lockCoin(hashToHex(input.prevout.txid), input.prevout.vout, false);
    return { tx: created.tx, fee: created.fee, changePosition: created.changePosition };
  } catch (err) {
    if (err instanceof CreateTransactionError) throw new RpcError(RPC_WALLET_ERROR, err.message);
    throw err;
  }
}

function createPsbtTransaction(args: RpcArgs, options: JsonObject, chain: Wallet['chainName']): Transaction {
  const replaceable = options.replaceable;
  return constructTransaction(
    {
      inputs: (args.value('inputs') as Json[] | undefined) ?? [],
      outputs: args.value('outputs') as Json,
      locktime: args.value('locktime'),
      rbf: typeof replaceable === 'boolean' ? replaceable : undefined,
      version: args.int('version'),
    },
    chain,
  );
}

export function walletFundHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    fundrawtransaction: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const iswitness = args.optBoolean('iswitness');
      const tx = decodeTxHex(args.string('hexstring'), iswitness !== true, iswitness !== false);
      if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
      const funded = fundTransaction(deps, wallet, tx, args.value('options'), true);
      return { hex: toHex(funded.tx.toBytes()), fee: amountJson(funded.fee), changepos: funded.changePosition };
    },

    walletcreatefundedpsbt: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const options = (args.optObject('options') ?? {}) as JsonObject;
      const raw = createPsbtTransaction(args, options, wallet.chainName);
      // Inputs given: add more only when asked (add_inputs); none given: the wallet picks them.
      const funded = fundTransaction(deps, wallet, raw, options, raw.inputs.length === 0);
      const psbt = psbtFromTransaction(funded.tx);
      const { sighashMismatch } = fillWalletPsbt(wallet, psbt, { sign: false, sighash: null, finalize: false, bip32derivs: args.boolean('bip32derivs') });
      if (sighashMismatch) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Specified sighash value does not match value stored in PSBT');
      return { psbt: encodePsbt(psbt), fee: amountJson(funded.fee), changepos: funded.changePosition };
    },
  };
}
