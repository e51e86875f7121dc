/**
 * bumpfee and psbtbumpfee as Core's bumpfee_helper answers them: options checked as Core
 * checks them, the replacement made by the wallet's fee bumper, then either signed,
 * recorded (replaces_txid / replaced_by_txid) and broadcast, or returned as an unsigned PSBT
 * with the wallet's public data.
 */
import { encodePsbt, finalizeAndExtract, psbtFromTransaction } from '../psbt/index.js';
import { hashToHex, type Transaction, type TxOut } from '../primitives/index.js';
import { commitBump, createRateBumpTransaction, FeeBumpError, fillWalletPsbt, signWalletTransaction, WALLET_FLAG, type Wallet } from '../wallet/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_WALLET_ERROR, RpcError } from './errors.js';
import type { Json, JsonObject } from './json.js';
import type { RpcArgs } from './args.js';
import { addOutputs } from './rawtransaction-methods.js';
import type { RpcCallContext } from './spec.js';
import { getInt, isJsonObject, rpcTypeCheckObj } from './value-parse.js';
import { amountJson, parseHash } from './values.js';
import { broadcastCommitted, feeEstimateMode } from './wallet-send-handlers.js';
import { ensureUnlocked, signWalletPsbt, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

const ERROR_CODES = { INVALID_ADDRESS_OR_KEY: RPC_INVALID_ADDRESS_OR_KEY, INVALID_PARAMETER: RPC_INVALID_PARAMETER, WALLET_ERROR: RPC_WALLET_ERROR, MISC_ERROR: RPC_MISC_ERROR } as const;

function bumpHandler(deps: WalletRpcDeps, wantPsbt: boolean) {
  return async (args: RpcArgs, ctx: RpcCallContext): Promise<unknown> => {
    const wallet = walletForRequest(deps, ctx);
    const external = wallet.hasFlag(WALLET_FLAG.EXTERNAL_SIGNER);
    if (wallet.privateKeysDisabled && !external && !wantPsbt) throw new RpcError(RPC_WALLET_ERROR, 'bumpfee is not available with wallets that have private keys disabled. Use psbtbumpfee instead.');
    const txid = hashToHex(parseHash(args.string('txid'), 'txid'));
    const raw = args.value('options');
    const options: JsonObject = isJsonObject(raw) ? raw : {};
    const { fee_rate: _f, outputs: _o, original_change_index: _c, ...typed } = options;
    rpcTypeCheckObj(typed, { confTarget: 'number', conf_target: 'number', replaceable: 'bool', estimate_mode: 'string' }, true, true);
    if (options.confTarget !== undefined && options.conf_target !== undefined) {
      throw new RpcError(RPC_INVALID_PARAMETER, 'confTarget and conf_target options should not both be set. Use conf_target (confTarget is deprecated).');
    }
    const confTarget = options.confTarget ?? options.conf_target;
    const replaceable = typeof options.replaceable === 'boolean' ? options.replaceable : true;
    const control = feeEstimateMode(wallet, confTarget, options.estimate_mode, options.fee_rate, false, replaceable);
    let outputs: TxOut[] | undefined;
    if (options.outputs !== undefined && options.outputs !== null) {
      if (Array.isArray(options.outputs) && options.outputs.length === 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, output argument cannot be an empty array');
      outputs = addOutputs(options.outputs as Json, wallet.chainName);
    }
    const changeIndex = options.original_change_index !== undefined && options.original_change_index !== null ? getInt(options.original_change_index, 0, 0xffffffff) : undefined;
    ensureUnlocked(wallet);
    let bumped;
    try {
      bumped = createRateBumpTransaction(wallet, txid, { control: { ...control, signalRbf: replaceable }, ...(outputs ? { outputs } : {}), ...(changeIndex !== undefined ? { originalChangeIndex: changeIndex } : {}), requireMine: !wantPsbt }, deps.spendSettings);
    } catch (err) {
      if (err instanceof FeeBumpError) throw new RpcError(ERROR_CODES[err.kind], err.message);
      throw err;
    }
    const result: JsonObject = {};
    if (!wantPsbt) {
      const signed = external ? await signWithExternalSigner(deps, wallet, bumped.tx) : signWalletTransaction(wallet, bumped.tx);
      if (!signed) throw new RpcError(RPC_WALLET_ERROR, external ? 'Transaction incomplete. Try psbtbumpfee instead.' : "Can't sign transaction.");
      try {
        commitBump(wallet, txid, signed);
      } catch (err) {
        if (err instanceof FeeBumpError) throw new RpcError(RPC_WALLET_ERROR, err.message);
        throw err;
      }
      await broadcastCommitted(deps, wallet, signed);
      result.txid = signed.txidHex;
    } else {
      const psbt = psbtFromTransaction(bumped.tx);
      fillWalletPsbt(wallet, psbt, { sign: false, sighash: null, finalize: true, bip32derivs: true });
      result.psbt = encodePsbt(psbt);
    }
    result.origfee = amountJson(bumped.oldFee) as unknown as Json;
    result.fee = amountJson(bumped.newFee) as unknown as Json;
    result.errors = [];
    return result;
  };
}

/** feebumper::SignTransaction for an external signer wallet: null when signing fails or leaves the transaction incomplete. */
async function signWithExternalSigner(deps: WalletRpcDeps, wallet: Wallet, tx: Transaction): Promise<Transaction | null> {
  const psbt = psbtFromTransaction(tx);
  try {
    await signWalletPsbt(deps, wallet, psbt);
  } catch (err) {
    if (err instanceof RpcError) return null;
    throw err;
  }
  return finalizeAndExtract(psbt);
}

export function walletBumpHandlers(deps: WalletRpcDeps): WalletHandlers {
  return { bumpfee: bumpHandler(deps, false), psbtbumpfee: bumpHandler(deps, true) };
}
