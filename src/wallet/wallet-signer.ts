/**
 * Signing with the wallet's own keys (Core's CWallet::SignTransaction and FillPSBT for
 * descriptor wallets): each input spending a coin of ours gets the spend data of the
 * descriptor position that owns the coin, then ProduceSignature signs it through the PSBT
 * code every other signer here shares. Inputs that are not ours are left as they are.
 */
import {
  addDescriptor,
  finalizeAndExtract,
  finalizePsbt,
  inputIsSigned,
  inputSignedAndVerified,
  precomputePsbtData,
  PsbtProvider,
  psbtFromTransaction,
  removeUnnecessaryTransactions,
  signPsbtInput,
  updatePsbtOutput,
  type Psbt,
} from '../psbt/index.js';
import { hashToHex, type Transaction } from '../primitives/index.js';
import type { ExternalSigner } from './external-signer.js';
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
    // Locked (or without private keys), the cached xpubs still give the public data.
    const expansion = owner.spkm.expansionAt(owner.index);
    if (expansion) addDescriptor(provider, expansion.descriptor, owner.index, expansion.keys);
  }
  return provider;
}

/** FillPSBT's first step: each unsigned input gets its previous transaction when the wallet has it. */
function addPreviousTransactions(wallet: Wallet, psbt: Psbt): void {
  psbt.tx.inputs.forEach((input, i) => {
    const psbtInput = psbt.inputs[i]!;
    if (inputIsSigned(psbtInput) || psbtInput.nonWitnessUtxo) return;
    const parent = wallet.txs.get(hashToHex(input.prevout.txid));
    if (parent) psbtInput.nonWitnessUtxo = parent.tx;
  });
}

/**
 * Core's CWallet::FillPSBT: each unsigned input gets its previous transaction when the wallet
 * has it, then the descriptors of ours add their data and, with `sign`, signatures (origins
 * hidden without bip32derivs); outputs of ours get their data too; complete when every input
 * is signed and verified.
 */
export function fillWalletPsbt(
  wallet: Wallet,
  psbt: Psbt,
  options: { sign: boolean; sighash: number | null; finalize: boolean; bip32derivs?: boolean },
): { complete: boolean; sighashMismatch: boolean } {
  addPreviousTransactions(wallet, psbt);
  const spentScripts = psbt.inputs.map((input, i) => input.nonWitnessUtxo?.outputs[psbt.tx.inputs[i]!.prevout.vout]?.scriptPubKey ?? input.witnessUtxo?.scriptPubKey);
  const ours = (script: Uint8Array | undefined): script is Uint8Array => script !== undefined && wallet.isMine(script);
  const provider = walletProvider(wallet, [...spentScripts.filter(ours), ...psbt.tx.outputs.map((o) => o.scriptPubKey).filter(ours)]);
  provider.hideSecret = !options.sign;
  provider.hideOrigin = options.bip32derivs === false;
  const txdata = precomputePsbtData(psbt);
  let sighashMismatch = false;
  psbt.inputs.forEach((input, i) => {
    if (inputIsSigned(input) || !ours(spentScripts[i])) return;
    if (signPsbtInput(provider, psbt, i, txdata, options.sighash, options.finalize).error === 'sighash_mismatch') sighashMismatch = true;
  });
  // Outputs get public data only (Core's UpdatePSBTOutput with a hiding provider).
  const hideSecret = provider.hideSecret;
  provider.hideSecret = true;
  psbt.tx.outputs.forEach((out, i) => {
    if (ours(out.scriptPubKey)) updatePsbtOutput(provider, psbt, i);
  });
  provider.hideSecret = hideSecret;
  removeUnnecessaryTransactions(psbt);
  const complete = psbt.inputs.every((_, i) => inputSignedAndVerified(psbt, i, txdata));
  return { complete, sighashMismatch };
}

/** Core's PSBTError values an external signer's FillPSBT ends with. */
export type SignerPsbtError = 'EXTERNAL_SIGNER_NOT_FOUND' | 'EXTERNAL_SIGNER_FAILED';

/**
 * CWallet::FillPSBT for a wallet whose keys are on an external signer
 * (ExternalSignerScriptPubKeyMan::FillPSBT). Without `sign` it fills as any descriptor wallet.
 * With it, each of the wallet's descriptors in turn, while some input is unsigned, hands the
 * PSBT as it stands to the signer and takes back what it answers (finalized when asked):
 * nothing is added first, so callers fill without signing before (Core's FinishTransaction).
 */
export async function fillPsbtWithSigner(
  wallet: Wallet,
  psbt: Psbt,
  options: { sign: boolean; sighash: number | null; finalize: boolean; bip32derivs?: boolean },
  signer: () => Promise<ExternalSigner>,
): Promise<{ complete: boolean; sighashMismatch: boolean } | { error: SignerPsbtError }> {
  if (!options.sign) return fillWalletPsbt(wallet, psbt, options);
  addPreviousTransactions(wallet, psbt);
  for (let n = 0; n < wallet.spkms.size; n++) {
    if (psbt.inputs.every(inputIsSigned)) break;
    let device: ExternalSigner;
    try {
      device = await signer();
    } catch (err) {
      wallet.log(`Warning: ${(err as Error).message}`);
      return { error: 'EXTERNAL_SIGNER_NOT_FOUND' };
    }
    const signed = await device.signTransaction(psbt);
    if (!signed.ok) {
      wallet.log(`Warning: Failed to sign: ${signed.error}`);
      return { error: 'EXTERNAL_SIGNER_FAILED' };
    }
    Object.assign(psbt, signed.psbt);
    if (options.finalize) finalizePsbt(psbt);
  }
  removeUnnecessaryTransactions(psbt);
  const txdata = precomputePsbtData(psbt);
  return { complete: psbt.inputs.every((_, i) => inputSignedAndVerified(psbt, i, txdata)), sighashMismatch: false };
}

/** Signs a transaction's inputs of ours; the signed transaction when every input is complete, else null. */
export function signWalletTransaction(wallet: Wallet, tx: Transaction): Transaction | null {
  const psbt = psbtFromTransaction(tx);
  fillWalletPsbt(wallet, psbt, { sign: true, sighash: null, finalize: true });
  return finalizeAndExtract(psbt);
}
