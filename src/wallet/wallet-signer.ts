/**
 * Signing with the wallet's own keys (Core's CWallet::SignTransaction and FillPSBT for
 * descriptor wallets): each input spending a coin of ours gets the spend data of the
 * descriptor position that owns the coin, then ProduceSignature signs it through the PSBT
 * code every other signer here shares. Inputs that are not ours are left as they are.
 */
import { addDescriptor, finalizeAndExtract, precomputePsbtData, PsbtProvider, psbtFromTransaction, signPsbtInput, type Psbt } from '../psbt/index.js';
import { hashToHex, type Transaction, type TxOut } from '../primitives/index.js';
import type { Wallet } from './wallet.js';

/** The provider of every position of ours that `scripts` name (Core's GetSolvingProvider per script). */
export function walletProvider(wallet: Wallet, scripts: readonly Uint8Array[]): PsbtProvider {
  const provider = new PsbtProvider();
  const added = new Set<string>();
  for (const script of scripts) {
    const owner = wallet.ownerOf(script);
    if (!owner) continue;
    const key = `${owner.spkm.stored.record.descriptor}#${owner.index}`;
    if (added.has(key)) continue;
    added.add(key);
    addDescriptor(provider, owner.spkm.descriptor, owner.index, owner.spkm.keys);
  }
  return provider;
}

/** Core's FillPSBT with signing: the previous transactions (or outputs) of the inputs we know, then signatures where our keys can make them. */
export function fillWalletPsbt(wallet: Wallet, psbt: Psbt, options: { sign: boolean; sighash: number | null; finalize: boolean; spent?: ReadonlyMap<string, TxOut> }): { complete: boolean; sighashMismatch: boolean } {
  const scripts: Uint8Array[] = [];
  psbt.tx.inputs.forEach((input, i) => {
    const txid = hashToHex(input.prevout.txid);
    const parent = wallet.txs.get(txid);
    const psbtInput = psbt.inputs[i]!;
    if (parent && !psbtInput.nonWitnessUtxo) psbtInput.nonWitnessUtxo = parent.tx;
    const out = parent?.tx.outputs[input.prevout.vout] ?? options.spent?.get(`${txid}:${input.prevout.vout}`);
    if (out) {
      scripts.push(out.scriptPubKey);
      if (!parent && !psbtInput.witnessUtxo) psbtInput.witnessUtxo = out;
    }
  });
  const provider = walletProvider(wallet, scripts);
  provider.hideSecret = !options.sign;
  const txdata = precomputePsbtData(psbt);
  let sighashMismatch = false;
  let complete = true;
  psbt.inputs.forEach((_, i) => {
    const result = signPsbtInput(provider, psbt, i, txdata, options.sighash, options.finalize);
    if (result.error === 'sighash_mismatch') sighashMismatch = true;
    if (result.error !== 'ok') complete = false;
  });
  return { complete, sighashMismatch };
}

/** Signs a transaction's inputs of ours; the signed transaction when every input is complete, else null. */
export function signWalletTransaction(wallet: Wallet, tx: Transaction): Transaction | null {
  const psbt = psbtFromTransaction(tx);
  fillWalletPsbt(wallet, psbt, { sign: true, sighash: null, finalize: true });
  return finalizeAndExtract(psbt);
}
