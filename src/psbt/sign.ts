/**
 * Core's SignPSBTInput (psbt.cpp) over the shared ProduceSignature: the input's PSBT fields
 * become a SignatureData (FillSignatureData), ProduceSignature signs or only assembles with
 * what the signer knows, and the result goes back into the input (FromSignatureData).
 */
import { bytesEqual, fromHex, hash160, toHex, Transaction, type TxOut } from '../primitives/index.js';
import {
  emptySignatureData,
  PrecomputedTransactionData,
  produceSignature,
  ScriptError,
  SIGHASH_ALL,
  SIGHASH_DEFAULT,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  TransactionSignatureChecker,
  verifyScript,
  type InputSigner,
  type SignatureChecker,
  type SignatureData,
  type TaprootSigner,
} from '../script/index.js';
import { taprootSigner, type TaprootKeys } from './taproot-sign.js';
import { inputUtxo, preimageMaps, type KeyOrigin, type Psbt, type PsbtInput } from './types.js';

export type PsbtError = 'ok' | 'missing_inputs' | 'sighash_mismatch' | 'incomplete';

/** What signs an input: Core's signing provider with a signature creator for one input. */
export interface PsbtSigner {
  /** The signer for input `index` spending `amount` with `hashType`; txdata is null for Core's DUMMY_SIGNATURE_CREATOR. */
  forInput(tx: Transaction, index: number, amount: bigint, hashType: number, txdata: PrecomputedTransactionData | null): InputSigner;
  taproot?(input: PsbtInput, tx: Transaction, index: number, hashType: number, txdata: PrecomputedTransactionData | null): TaprootSigner;
  /** What the signer knows about taproot outputs, for updating outputs. */
  readonly taprootKeys?: TaprootKeys;
}

/** Core's DUMMY_SIGNATURE_CREATOR signature: a valid DER encoding with 32-byte R and S, 71 bytes with SIGHASH_ALL. */
function dummySignature(): Uint8Array {
  const sig = new Uint8Array(71);
  sig.set([0x30, 68, 0x02, 32, 0x01], 0);
  sig.set([0x02, 32, 0x01], 36);
  sig[70] = SIGHASH_ALL;
  return sig;
}

/** Core's DUMMY_SIGNING_PROVIDER: knows nothing; its creator signs for any key only without txdata. */
export const DUMMY_PSBT_SIGNER: PsbtSigner = {
  forInput: (_tx, _index, _amount, _hashType, txdata) => ({
    pubkey: () => undefined,
    script: () => undefined,
    sign: () => (txdata ? null : dummySignature()),
  }),
  taproot: (input, tx, index, hashType, txdata) => taprootSigner(null, input, tx, index, hashType, txdata),
};

/** Core's DummySignatureChecker: every signature and lock passes. */
const DUMMY_CHECKER: SignatureChecker = {
  checkEcdsaSignature: () => true,
  checkSchnorrSignature: () => ScriptError.OK,
  checkLockTime: () => true,
  checkSequence: () => true,
};

/** Core's PrecomputePSBTData: spent outputs only when every input has one. */
export function precomputePsbtData(psbt: Psbt): PrecomputedTransactionData {
  const utxos = psbt.inputs.map((_, i) => inputUtxo(psbt, i));
  return new PrecomputedTransactionData(psbt.tx, utxos.every((u) => u !== null) ? (utxos as TxOut[]) : undefined);
}

/** Core's PSBTInputSignedAndVerified. */
export function inputSignedAndVerified(psbt: Psbt, index: number, txdata: PrecomputedTransactionData | null): boolean {
  const input = psbt.inputs[index]!;
  const utxo = inputUtxo(psbt, index);
  if (!utxo) return false;
  const checker = new TransactionSignatureChecker(psbt.tx, index, utxo.value, txdata ?? new PrecomputedTransactionData(psbt.tx));
  return verifyScript(input.finalScriptSig, utxo.scriptPubKey, input.finalScriptWitness, STANDARD_SCRIPT_VERIFY_FLAGS, checker) === ScriptError.OK;
}

/** Core's PSBTInput::FillSignatureData. */
function fillSignatureData(input: PsbtInput): SignatureData {
  const data = emptySignatureData();
  if (input.finalScriptSig.length > 0) {
    data.scriptSig = input.finalScriptSig;
    data.complete = true;
  }
  if (input.finalScriptWitness.length > 0) {
    data.witness = input.finalScriptWitness;
    data.complete = true;
  }
  if (data.complete) return data;
  for (const [id, pair] of input.partialSigs) data.signatures.set(id, pair);
  data.redeemScript = input.redeemScript;
  data.witnessScript = input.witnessScript;
  for (const [fragment, map] of preimageMaps(input)) for (const [hash, preimage] of map) data.preimages.set(`${fragment}:${hash}`, preimage);
  addKnownDerivations(data, input.hdKeypaths);
  return data;
}

/** A PSBT map's BIP32 derivations as Core's misc_pubkeys (by key id). */
export function addKnownDerivations(data: SignatureData, hdKeypaths: ReadonlyMap<string, KeyOrigin>): void {
  for (const [pubkey, origin] of hdKeypaths) {
    const bytes = fromHex(pubkey);
    const id = toHex(hash160(bytes));
    if (!data.miscPubkeys.has(id)) data.miscPubkeys.set(id, { pubkey: bytes, origin });
  }
}

/** Core's PSBTInput::FromSignatureData. */
function fromSignatureData(input: PsbtInput, data: SignatureData): void {
  if (data.complete) {
    input.partialSigs.clear();
    input.hdKeypaths.clear();
    input.redeemScript = new Uint8Array(0);
    input.witnessScript = new Uint8Array(0);
    if (data.scriptSig.length > 0) input.finalScriptSig = data.scriptSig;
    if (data.witness.length > 0) input.finalScriptWitness = data.witness;
    return;
  }
  for (const [id, pair] of data.signatures) if (!input.partialSigs.has(id)) input.partialSigs.set(id, pair);
  if (input.redeemScript.length === 0 && data.redeemScript.length > 0) input.redeemScript = data.redeemScript;
  if (input.witnessScript.length === 0 && data.witnessScript.length > 0) input.witnessScript = data.witnessScript;
  for (const { pubkey, origin } of data.miscPubkeys.values()) {
    const id = toHex(pubkey);
    if (!input.hdKeypaths.has(id)) input.hdKeypaths.set(id, origin);
  }
}

const isTaproot = (script: Uint8Array) => script.length === 34 && script[0] === 0x51 && script[1] === 32;

export interface SignInputResult {
  readonly error: PsbtError;
  /** The SignatureData after signing, for analyzepsbt's missing fields. */
  readonly data?: SignatureData;
}

/** Core's SignPSBTInput. */
export function signPsbtInput(
  signer: PsbtSigner,
  psbt: Psbt,
  index: number,
  txdata: PrecomputedTransactionData | null,
  sighashOption: number | null,
  finalize = true,
): SignInputResult {
  const input = psbt.inputs[index]!;
  const { tx } = psbt;
  if (inputSignedAndVerified(psbt, index, txdata)) return { error: 'ok' };
  const data = fillSignatureData(input);

  let utxo: TxOut;
  let requireWitnessSig = false;
  if (input.nonWitnessUtxo) {
    const prevout = tx.inputs[index]!.prevout;
    const out = input.nonWitnessUtxo.outputs[prevout.vout];
    if (!out || !bytesEqual(input.nonWitnessUtxo.txid, prevout.txid)) return { error: 'missing_inputs' };
    utxo = out;
  } else if (input.witnessUtxo) {
    utxo = input.witnessUtxo;
    requireWitnessSig = true;
  } else {
    return { error: 'missing_inputs' };
  }

  const taproot = isTaproot(utxo.scriptPubKey);
  const sighash = sighashOption ?? (taproot ? SIGHASH_DEFAULT : SIGHASH_ALL);
  if (input.sighashType !== null && input.sighashType !== sighash) return { error: 'sighash_mismatch' };
  if (taproot ? sighash !== SIGHASH_DEFAULT : sighash !== SIGHASH_DEFAULT && sighash !== SIGHASH_ALL) input.sighashType = sighash;

  if (sighash === SIGHASH_DEFAULT) {
    if (input.tapKeySig.length > 0 && input.tapKeySig.length !== 64) return { error: 'sighash_mismatch' };
    for (const sig of input.tapScriptSigs.values()) if (sig.length !== 64) return { error: 'sighash_mismatch' };
  } else {
    const wrong = (sig: Uint8Array) => sig.length !== 65 || sig[64] !== sighash;
    if (input.tapKeySig.length > 0 && wrong(input.tapKeySig)) return { error: 'sighash_mismatch' };
    for (const sig of input.tapScriptSigs.values()) if (wrong(sig)) return { error: 'sighash_mismatch' };
    for (const { sig } of input.partialSigs.values()) if (sig[sig.length - 1] !== sighash) return { error: 'sighash_mismatch' };
  }

  const spending = { tx, inputIndex: index, amount: utxo.value };
  const wasComplete = data.complete;
  const produced = produceSignature(data, utxo.scriptPubKey, spending, signer.forInput(tx, index, utxo.value, sighash, txdata), signer.taproot?.(input, tx, index, sighash, txdata));
  let complete = wasComplete;
  if (!wasComplete) {
    data.scriptSig = produced.scriptSig;
    data.witness = produced.isWitness ? produced.witness : [];
    const checker = txdata ? new TransactionSignatureChecker(tx, index, utxo.value, txdata) : DUMMY_CHECKER;
    complete = produced.solved && verifyScript(data.scriptSig, utxo.scriptPubKey, data.witness, STANDARD_SCRIPT_VERIFY_FLAGS, checker) === ScriptError.OK;
    data.complete = complete;
  }
  // Before the missing fields reach the caller, as in Core.
  if (requireWitnessSig && !produced.isWitness) return { error: 'incomplete' };
  if (!finalize && data.complete) data.complete = false;
  fromSignatureData(input, data);
  if (produced.isWitness) input.witnessUtxo = utxo;
  return { error: complete ? 'ok' : 'incomplete', data };
}

/** Core's FinalizePSBT: every input finalized as far as its signatures go; true when all are. */
export function finalizePsbt(psbt: Psbt): boolean {
  const txdata = precomputePsbtData(psbt);
  let complete = true;
  for (let i = 0; i < psbt.inputs.length; i++) {
    complete = signPsbtInput(DUMMY_PSBT_SIGNER, psbt, i, txdata, psbt.inputs[i]!.sighashType, true).error === 'ok' && complete;
  }
  return complete;
}

/** Core's FinalizeAndExtractPSBT: the network transaction, or null when an input is not final. */
export function finalizeAndExtract(psbt: Psbt): Transaction | null {
  if (!finalizePsbt(psbt)) return null;
  return extractTransaction(psbt);
}

export function extractTransaction(psbt: Psbt): Transaction {
  const { tx } = psbt;
  const inputs = tx.inputs.map((txin, i) => ({ ...txin, scriptSig: psbt.inputs[i]!.finalScriptSig, witness: psbt.inputs[i]!.finalScriptWitness }));
  return new Transaction({ version: tx.version, inputs, outputs: tx.outputs, locktime: tx.locktime });
}
