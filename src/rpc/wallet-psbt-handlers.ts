/**
 * Signing with the wallet as Core's RPCs do: signrawtransactionwithwallet (the coins from
 * the UTXO set, the mempool and prevtxs, the wallet's keys for the inputs it owns) and
 * walletprocesspsbt (CWallet::FillPSBT: previous transactions, signatures, our outputs'
 * data, then finalized and extracted when complete).
 */
import { encodePsbt, finalizeAndExtract } from '../psbt/index.js';
import { hashToHex, toHex } from '../primitives/index.js';
import { walletProvider } from '../wallet/index.js';
import { RPC_DESERIALIZATION_ERROR, RpcError } from './errors.js';
import { decodeTxHex } from './format/index.js';
import type { JsonObject } from './json.js';
import { decodePsbtArg } from './psbt-methods.js';
import { inputCoins, parsePrevouts, parseSighash, signedTransactionJson } from './sign-rawtransaction.js';
import { ensureUnlocked, fillPsbt, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

export function walletPsbtHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    signrawtransactionwithwallet: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const tx = decodeTxHex(args.string('hexstring'), false, true);
      if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed. Make sure the tx has at least one input.');
      ensureUnlocked(wallet);
      const coins = inputCoins(ctx, tx);
      // Spent outputs the chain no longer shows (our own, already spent in the pool) come from the wallet.
      for (const input of tx.inputs) {
        const txid = hashToHex(input.prevout.txid);
        const key = `${txid}:${input.prevout.vout}`;
        if (coins.get(key)) continue;
        const out = wallet.txs.get(txid)?.tx.outputs[input.prevout.vout];
        if (out) coins.set(key, out);
      }
      const scripts = [...coins.values()].filter((c) => c !== undefined).map((c) => c!.scriptPubKey);
      const provider = walletProvider(wallet, scripts);
      parsePrevouts(args.raw[1], coins, provider.keys);
      return signedTransactionJson(tx, provider.keys, coins, parseSighash(args.raw[2]), provider);
    },

    walletprocesspsbt: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const psbt = decodePsbtArg(args.string('psbt'));
      // Not given: the PSBT's own sighash type, else the default (Core's nullopt).
      const sighash = args.has('sighashtype') ? parseSighash(args.raw[2]) : null;
      const sign = args.boolean('sign');
      if (sign) ensureUnlocked(wallet);
      const { complete } = await fillPsbt(deps, wallet, psbt, { sign, sighash, finalize: args.boolean('finalize'), bip32derivs: args.boolean('bip32derivs') });
      const result: JsonObject = { psbt: encodePsbt(psbt), complete };
      if (complete) {
        const tx = finalizeAndExtract(psbt);
        if (tx) result.hex = toHex(tx.toBytes());
      }
      return result;
    },
  };
}
