/** Core's UpdatePSBTOutput and RemoveUnnecessaryTransactions (psbt.cpp). */
import { toHex } from '../primitives/index.js';
import { emptySignatureData, produceSignature, SIGHASH_ALL } from '../script/index.js';
import { addKnownDerivations, type PsbtSigner } from './sign.js';
import { taprootSigner, type TaprootKeys } from './taproot-sign.js';
import { treeTuples } from './tree-tuples.js';
import { emptyInput, isNull32, type Psbt } from './types.js';

/** Fills an output's scripts and key origins from what the signer knows about its script. */
export function updatePsbtOutput(signer: PsbtSigner, psbt: Psbt, index: number): void {
  const out = psbt.tx.outputs[index]!;
  const psbtOut = psbt.outputs[index]!;
  const data = emptySignatureData();
  data.redeemScript = psbtOut.redeemScript;
  data.witnessScript = psbtOut.witnessScript;
  addKnownDerivations(data, psbtOut.hdKeypaths);
  // A would-be spend of the output, signed by nobody: only the metadata is wanted.
  produceSignature(data, out.scriptPubKey, { tx: psbt.tx, inputIndex: 0, amount: out.value }, { ...signer.forInput(psbt.tx, 0, out.value, SIGHASH_ALL, null), sign: () => null });
  if (isTaprootScript(out.scriptPubKey) && signer.taprootKeys) updateTaprootOutput(signer.taprootKeys, psbt, index);
  if (psbtOut.redeemScript.length === 0) psbtOut.redeemScript = data.redeemScript;
  if (psbtOut.witnessScript.length === 0) psbtOut.witnessScript = data.witnessScript;
  for (const { pubkey, origin } of data.miscPubkeys.values()) if (!psbtOut.hdKeypaths.has(toHex(pubkey))) psbtOut.hdKeypaths.set(toHex(pubkey), origin);
}

const isTaprootScript = (script: Uint8Array) => script.length === 34 && script[0] === 0x51 && script[1] === 32;

/** SignTaproot over a would-be spend of a taproot output: its internal key, tree and key origins. */
function updateTaprootOutput(keys: TaprootKeys, psbt: Psbt, index: number): void {
  const out = psbt.tx.outputs[index]!;
  const psbtOut = psbt.outputs[index]!;
  const outputKey = out.scriptPubKey.subarray(2);
  const spend = keys.spendData(outputKey);
  const scratch = emptyInput();
  taprootSigner(keys, scratch, psbt.tx, 0, SIGHASH_ALL, null, false)(emptySignatureData(), outputKey);
  if (spend && isNull32(psbtOut.tapInternalKey)) psbtOut.tapInternalKey = spend.internalKey;
  if (spend && spend.tree.length > 0 && psbtOut.tapTree.length === 0) psbtOut.tapTree = treeTuples(spend.tree);
  for (const [xonly, path] of scratch.tapBip32Paths) if (!psbtOut.tapBip32Paths.has(xonly)) psbtOut.tapBip32Paths.set(xonly, path);
  for (const [aggregate, participants] of scratch.musig2Participants) if (!psbtOut.musig2Participants.has(aggregate)) psbtOut.musig2Participants.set(aggregate, participants);
}

const witnessVersion = (script: Uint8Array): number | null => {
  if (script.length < 4 || script.length > 42 || script[1]! + 2 !== script.length) return null;
  if (script[0] === 0) return 0;
  return script[0]! >= 0x51 && script[0]! <= 0x60 ? script[0]! - 0x50 : null;
};

/**
 * Drops non-witness UTXOs when every input spends segwit v1+ and none asks for
 * ANYONECANPAY (signing has put the sighash it used into each input's field).
 */
export function removeUnnecessaryTransactions(psbt: Psbt): void {
  const toDrop: number[] = [];
  for (const [i, input] of psbt.inputs.entries()) {
    const version = input.witnessUtxo ? witnessVersion(input.witnessUtxo.scriptPubKey) : null;
    if (version === null || version === 0) return;
    if (input.sighashType !== null && (input.sighashType & 0x80) === 0x80) return;
    if (input.nonWitnessUtxo) toDrop.push(i);
  }
  for (const i of toDrop) psbt.inputs[i]!.nonWitnessUtxo = null;
}
