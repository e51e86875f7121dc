/**
 * Core v31's PSBTInput/PSBTOutput/PartiallySignedTransaction::Merge, CombinePSBTs and joinpsbts'
 * AddInput/AddOutput. Proprietary entries are never merged: the first PSBT's stay.
 */
import { bytesEqual, Transaction, type TxIn } from '../primitives/index.js';
import { isNull32, type Psbt, type PsbtInput, type PsbtOutput } from './types.js';

/** std::map::insert: keys already present keep their values. */
function insertAll<V>(into: Map<string, V>, from: ReadonlyMap<string, V>): void {
  for (const [k, v] of from) if (!into.has(k)) into.set(k, v);
}

function mergeNested(into: Map<string, Map<string, Uint8Array>>, from: ReadonlyMap<string, Map<string, Uint8Array>>): void {
  for (const [outer, inner] of from) {
    let map = into.get(outer);
    if (!map) into.set(outer, (map = new Map()));
    insertAll(map, inner);
  }
}

function mergeInput(into: PsbtInput, from: PsbtInput): void {
  if (!into.nonWitnessUtxo && from.nonWitnessUtxo) into.nonWitnessUtxo = from.nonWitnessUtxo;
  if (!into.witnessUtxo && from.witnessUtxo) into.witnessUtxo = from.witnessUtxo;
  insertAll(into.partialSigs, from.partialSigs);
  insertAll(into.ripemd160Preimages, from.ripemd160Preimages);
  insertAll(into.sha256Preimages, from.sha256Preimages);
  insertAll(into.hash160Preimages, from.hash160Preimages);
  insertAll(into.hash256Preimages, from.hash256Preimages);
  insertAll(into.hdKeypaths, from.hdKeypaths);
  insertAll(into.unknown, from.unknown);
  insertAll(into.tapScriptSigs, from.tapScriptSigs);
  insertAll(into.tapScripts, from.tapScripts);
  insertAll(into.tapBip32Paths, from.tapBip32Paths);
  if (into.redeemScript.length === 0) into.redeemScript = from.redeemScript;
  if (into.witnessScript.length === 0) into.witnessScript = from.witnessScript;
  if (into.finalScriptSig.length === 0) into.finalScriptSig = from.finalScriptSig;
  if (into.finalScriptWitness.length === 0) into.finalScriptWitness = from.finalScriptWitness;
  if (into.tapKeySig.length === 0) into.tapKeySig = from.tapKeySig;
  if (isNull32(into.tapInternalKey)) into.tapInternalKey = from.tapInternalKey;
  if (isNull32(into.tapMerkleRoot)) into.tapMerkleRoot = from.tapMerkleRoot;
  insertAll(into.musig2Participants, from.musig2Participants);
  mergeNested(into.musig2Pubnonces, from.musig2Pubnonces);
  mergeNested(into.musig2PartialSigs, from.musig2PartialSigs);
}

function mergeOutput(into: PsbtOutput, from: PsbtOutput): void {
  insertAll(into.hdKeypaths, from.hdKeypaths);
  insertAll(into.unknown, from.unknown);
  insertAll(into.tapBip32Paths, from.tapBip32Paths);
  if (into.redeemScript.length === 0) into.redeemScript = from.redeemScript;
  if (into.witnessScript.length === 0) into.witnessScript = from.witnessScript;
  if (isNull32(into.tapInternalKey)) into.tapInternalKey = from.tapInternalKey;
  if (into.tapTree.length === 0) into.tapTree = from.tapTree;
  insertAll(into.musig2Participants, from.musig2Participants);
}

/** Core's CombinePSBTs: the first PSBT with every other merged in; null when their transactions differ. */
export function combinePsbts(psbts: readonly Psbt[]): Psbt | null {
  const [first, ...rest] = psbts;
  const out = first!;
  for (const other of rest) {
    if (!bytesEqual(out.tx.txid, other.tx.txid)) return null;
    out.inputs.forEach((input, i) => mergeInput(input, other.inputs[i]!));
    out.outputs.forEach((output, i) => mergeOutput(output, other.outputs[i]!));
    insertAll(out.xpubs, other.xpubs);
    insertAll(out.unknown, other.unknown);
  }
  return out;
}

const sameTxIn = (a: TxIn, b: TxIn) => bytesEqual(a.prevout.txid, b.prevout.txid) && a.prevout.vout === b.prevout.vout && bytesEqual(a.scriptSig, b.scriptSig) && a.sequence === b.sequence;

/** joinpsbts' merge: every input and output in order, or the first input already present. */
export function joinPsbts(psbts: readonly Psbt[], version: number, locktime: number): Psbt | TxIn {
  const txInputs: TxIn[] = [];
  const joined: Psbt = { tx: undefined as never, xpubs: new Map(), version: null, proprietary: new Map(), unknown: new Map(), inputs: [], outputs: [] };
  const txOutputs = [];
  for (const psbt of psbts) {
    for (const [i, txin] of psbt.tx.inputs.entries()) {
      if (txInputs.some((existing) => sameTxIn(existing, txin))) return txin;
      txInputs.push(txin);
      const input = psbt.inputs[i]!;
      input.partialSigs.clear();
      input.finalScriptSig = new Uint8Array(0);
      input.finalScriptWitness = [];
      joined.inputs.push(input);
    }
    txOutputs.push(...psbt.tx.outputs);
    joined.outputs.push(...psbt.outputs);
    insertAll(joined.xpubs, psbt.xpubs);
    insertAll(joined.unknown, psbt.unknown);
  }
  joined.tx = new Transaction({ version, inputs: txInputs, outputs: txOutputs, locktime });
  return joined;
}
