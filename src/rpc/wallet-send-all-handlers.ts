/**
 * send and sendall as Core answers them: the fee instructions moved into the options
 * (InterpretFeeEstimationInstructions), the old option spellings refused
 * (PreventOutdatedOptions), the transaction funded (send: FundTransaction; sendall: every
 * spendable coin, or the given inputs, the fee taken from the unassigned remainder), then
 * FinishTransaction: filled and signed as a PSBT, committed and broadcast unless a PSBT or
 * no broadcast is asked for.
 */
import { MAX_STANDARD_TX_WEIGHT } from '../mempool/index.js';
import { encodePsbt, finalizeAndExtract, psbtFromTransaction } from '../psbt/index.js';
import { hashToHex, toHex, Transaction, type TxIn, type TxOut } from '../primitives/index.js';
import { availableCoins, feeAtRate, formatSatVb, isDust, MAX_BIP125_RBF_SEQUENCE, maximumSignedTxSize, minimumFeeRate, type Wallet } from '../wallet/index.js';
import type { RpcArgs } from './args.js';
import { RPC_INVALID_PARAMETER, RPC_WALLET_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS, RpcError } from './errors.js';
import type { Json, JsonObject } from './json.js';
import { addOutputs, constructTransaction } from './rawtransaction-methods.js';
import { getBool, getInt, isJsonObject } from './value-parse.js';
import { fundTransaction } from './wallet-fund-handlers.js';
import { commitAndBroadcast, feeEstimateMode } from './wallet-send-handlers.js';
import { ensureUnlocked, signWalletPsbt, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/** Core's InterpretFeeEstimationInstructions: positional fee arguments go into the options, never both. */
function feeInstructionsIntoOptions(args: RpcArgs, options: JsonObject): void {
  for (const [position, name] of [
    [1, 'conf_target'],
    [2, 'estimate_mode'],
    [3, 'fee_rate'],
  ] as const) {
    const value = args.raw[position];
    if (value === undefined || value === null) continue;
    if (options[name] !== undefined && options[name] !== null) throw new RpcError(RPC_INVALID_PARAMETER, `Pass the ${name} either as an argument, or in the options object, but not both`);
    options[name] = value;
  }
}

/** Core's PreventOutdatedOptions. */
function preventOutdatedOptions(options: JsonObject): void {
  const outdated: [string, string][] = [
    ['feeRate', 'Use fee_rate (sat/vB) instead of feeRate'],
    ['changeAddress', 'Use change_address instead of changeAddress'],
    ['changePosition', 'Use change_position instead of changePosition'],
    ['includeWatching', 'Use include_watching instead of includeWatching'],
    ['lockUnspents', 'Use lock_unspents instead of lockUnspents'],
    ['subtractFeeFromOutputs', 'Use subtract_fee_from_outputs instead of subtractFeeFromOutputs'],
  ];
  for (const [key, text] of outdated) if (Object.hasOwn(options, key)) throw new RpcError(RPC_INVALID_PARAMETER, text);
}

/** Core's FinishTransaction. */
async function finishTransaction(deps: WalletRpcDeps, wallet: Wallet, options: JsonObject, tx: Transaction): Promise<JsonObject> {
  const psbt = psbtFromTransaction(tx);
  await signWalletPsbt(deps, wallet, psbt);
  const encoded = encodePsbt(psbt);
  const final = finalizeAndExtract(psbt);
  const psbtOptIn = options.psbt === true;
  const addToWallet = options.add_to_wallet === undefined ? true : getBool(options.add_to_wallet);
  const result: JsonObject = {};
  if (psbtOptIn || !final || !addToWallet) result.psbt = encoded;
  if (final) {
    result.txid = final.txidHex;
    if (addToWallet && !psbtOptIn) await commitAndBroadcast(deps, wallet, final, new Map());
    else result.hex = toHex(final.toBytes());
  }
  result.complete = final !== null;
  return result;
}

function optionsOf(args: RpcArgs): JsonObject {
  const raw = args.value('options');
  return isJsonObject(raw) ? { ...raw } : {};
}

export function walletSendAllHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    send: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const options = optionsOf(args);
      feeInstructionsIntoOptions(args, options);
      preventOutdatedOptions(options);
      ensureUnlocked(wallet);
      const rbf = options.replaceable === undefined ? deps.spendSettings.signalRbf : getBool(options.replaceable);
      const raw = constructTransaction(
        { inputs: (options.inputs as Json[] | undefined) ?? [], outputs: args.value('outputs') as Json, locktime: options.locktime, rbf, version: args.int('version') },
        wallet.chainName,
      );
      // FundTransaction reads the snake_case spellings send documents.
      const { subtract_fee_from_outputs: subtract, change_address: changeAddress, change_position: changePosition, lock_unspents: lockUnspents, inputs: _inputs, add_to_wallet: _a, psbt: _p, locktime: _l, ...rest } = options;
      const fundOptions: JsonObject = { ...rest, replaceable: rbf };
      if (subtract !== undefined) fundOptions.subtractFeeFromOutputs = subtract;
      if (changeAddress !== undefined) fundOptions.changeAddress = changeAddress;
      if (changePosition !== undefined) fundOptions.changePosition = changePosition;
      if (lockUnspents !== undefined) fundOptions.lockUnspents = lockUnspents;
      const funded = fundTransaction(deps, wallet, raw, fundOptions, raw.inputs.length === 0, options.locktime === undefined);
      return finishTransaction(deps, wallet, options, funded.tx);
    },

    sendall: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const options = optionsOf(args);
      feeInstructionsIntoOptions(args, options);
      preventOutdatedOptions(options);
      const withoutAmount = new Set<string>();
      const pairs: Json[] = [];
      for (const recipient of args.array('recipients')) {
        if (typeof recipient === 'string') {
          pairs.push({ [recipient]: 0 });
          withoutAmount.add(recipient);
        } else {
          pairs.push(recipient);
        }
      }
      if (withoutAmount.size === 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Must provide at least one address without a specified amount');
      const fee = feeEstimateMode(wallet, options.conf_target, options.estimate_mode, options.fee_rate, false, undefined);
      let minDepth: number | undefined;
      let maxDepth: number | undefined;
      if (options.minconf !== undefined) {
        minDepth = getInt(options.minconf, -2147483648, 2147483647);
        if (minDepth < 0) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid minconf (minconf cannot be negative): ${minDepth}`);
      }
      if (options.maxconf !== undefined) {
        maxDepth = getInt(options.maxconf, -2147483648, 2147483647);
        if (maxDepth < (minDepth ?? 0)) throw new RpcError(RPC_INVALID_PARAMETER, `maxconf can't be lower than minconf: ${maxDepth} < ${minDepth ?? 0}`);
      }
      const rbf = options.replaceable === undefined ? deps.spendSettings.signalRbf : getBool(options.replaceable);
      const control = { ...fee, ...(minDepth !== undefined ? { minDepth } : {}), ...(maxDepth !== undefined ? { maxDepth } : {}) };
      const { feeRate, reason } = minimumFeeRate(wallet, control, deps.spendSettings);
      if (control.feeRate !== undefined && feeRate > control.feeRate) {
        throw new RpcError(RPC_INVALID_PARAMETER, `Fee rate (${formatSatVb(control.feeRate)}) is lower than the minimum fee rate setting (${formatSatVb(feeRate)})`);
      }
      if (reason === 'Fallback fee' && deps.spendSettings.fallbackFee === 0n) {
        throw new RpcError(RPC_WALLET_ERROR, 'Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee.');
      }
      const shell = constructTransaction({ inputs: (options.inputs as Json[] | undefined) ?? [], outputs: pairs, locktime: options.locktime, rbf, version: getInt(options.version ?? 2, 1, 3) }, wallet.chainName);
      ensureUnlocked(wallet);
      const sendMax = options.send_max === true;
      let inputs: TxIn[] = [...shell.inputs];
      let totalInput = 0n;
      const spentScripts: Uint8Array[] = [];
      if (options.inputs !== undefined && options.send_max !== undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot combine send_max with specific inputs.');
      if (options.inputs !== undefined && (options.minconf !== undefined || options.maxconf !== undefined)) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot combine minconf or maxconf with specific inputs.');
      if (options.inputs !== undefined) {
        for (const input of inputs) {
          const txid = hashToHex(input.prevout.txid);
          if (wallet.txs.isSpent(txid, input.prevout.vout)) throw new RpcError(RPC_INVALID_PARAMETER, `Input not available. UTXO (${txid}:${input.prevout.vout}) was already spent.`);
          const out = wallet.txs.get(txid)?.tx.outputs[input.prevout.vout];
          if (!out || !wallet.isMine(out.scriptPubKey)) throw new RpcError(RPC_INVALID_PARAMETER, `Input not found. UTXO (${txid}:${input.prevout.vout}) is not part of wallet.`);
          totalInput += out.value;
          spentScripts.push(out.scriptPubKey);
        }
      } else {
        const { all } = availableCoins(wallet, control, feeRate, deps.spendSettings);
        inputs = [];
        for (const coin of all.values()) {
          if (sendMax && feeAtRate(feeRate, coin.inputBytes) > coin.value) continue;
          inputs.push({ prevout: coin.outpoint, scriptSig: new Uint8Array(0), sequence: rbf ? MAX_BIP125_RBF_SEQUENCE : 0xffffffff, witness: [] });
          totalInput += coin.value;
          spentScripts.push(coin.scriptPubKey);
        }
      }
      let outputs: TxOut[] = addOutputs(pairs, wallet.chainName);
      const draft = new Transaction({ version: shell.version, inputs, outputs, locktime: shell.locktime });
      const size = maximumSignedTxSize(draft, spentScripts);
      if (!size) throw new RpcError(RPC_WALLET_ERROR, 'Unable to determine the size of the transaction, the wallet contains unsolvable descriptors');
      const feeFromSize = feeAtRate(feeRate, size.vsize);
      // Unconfirmed inputs also pay to bring their pool ancestry up to the rate (calculateCombinedBumpFee).
      const actualFee = feeFromSize + (wallet.chain.combinedBumpFee?.(inputs.map((i) => i.prevout), feeRate) ?? 0n);
      const effective = totalInput - actualFee;
      if (actualFee > deps.spendSettings.maxTxFee) throw new RpcError(RPC_WALLET_ERROR, 'Fee exceeds maximum configured by user (e.g. -paytxfee, -maxtxfee)');
      if (effective <= 0n) {
        throw new RpcError(
          RPC_WALLET_INSUFFICIENT_FUNDS,
          sendMax
            ? 'Total value of UTXO pool too low to pay for transaction, try using lower feerate.'
            : "Total value of UTXO pool too low to pay for transaction. Try using lower feerate or excluding uneconomic UTXOs with 'send_max' option.",
        );
      }
      if (size.weight > MAX_STANDARD_TX_WEIGHT) throw new RpcError(RPC_WALLET_ERROR, 'Transaction too large.');
      const claimed = outputs.reduce((sum, o) => sum + o.value, 0n);
      if (claimed > totalInput) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Assigned more value to outputs than available funds.');
      const remainder = effective - claimed;
      if (remainder < 0n) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds for fees after creating specified outputs.');
      const share = remainder / BigInt(withoutAmount.size);
      let gaveRest = false;
      const names = pairs.map((p) => Object.keys(p as JsonObject)[0]!);
      outputs = outputs.map((out, i) => {
        if (!withoutAmount.has(names[i]!)) {
          if (isDust(wallet, out)) throw new RpcError(RPC_INVALID_PARAMETER, `Specified output amount to ${names[i]} is below dust threshold.`);
          return out;
        }
        let value = share;
        if (!gaveRest) {
          value += remainder % BigInt(withoutAmount.size);
          gaveRest = true;
        }
        const next = { ...out, value };
        if (isDust(wallet, next)) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Dynamically assigned remainder results in dust output.');
        return next;
      });
      if (options.lock_unspents === true) for (const input of inputs) wallet.lockCoin(hashToHex(input.prevout.txid), input.prevout.vout, false);
      return finishTransaction(deps, wallet, options, new Transaction({ version: shell.version, inputs, outputs, locktime: shell.locktime }));
    },
  };
}
