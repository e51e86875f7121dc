/** decodepsbt's result object (Core v31 rpc/rawtransaction.cpp decodepsbt): fields in Core's order. */
import { fromHex, toHex, type TxOut } from '../primitives/index.js';
import { sortedControlBlocks, sortedEntries, sortedTapScripts, sortedXpubs, isNull32, type KeyOrigin, type Proprietary, type Psbt, type TapKeyPath } from '../psbt/index.js';
import { encodeBase58Check, formatKeyPath, scriptToAsm, sighashToStr, solve, type ChainName } from '../script/index.js';
import { scriptPubKeyJson, txToJson, type ResultJson, type ResultObject } from './format/index.js';
import { amountJson } from './values.js';

const MAX_MONEY = 2_100_000_000_000_000n;
const moneyRange = (v: bigint) => v >= 0n && v <= MAX_MONEY;

/** Core's ScriptToUniv without address: asm, hex, type. */
const scriptJson = (script: Uint8Array): ResultObject => ({ asm: scriptToAsm(script), hex: toHex(script), type: solve(script).type });

const fingerprintHex = (origin: KeyOrigin) => toHex(origin.fingerprint);
const pathText = (origin: KeyOrigin) => `m${formatKeyPath(origin.path, false)}`;

function proprietaryJson(map: ReadonlyMap<string, Proprietary>): ResultJson[] {
  return sortedEntries(map).map(([, p]) => ({ identifier: toHex(p.identifier), subtype: Number(p.subtype), key: toHex(p.key), value: toHex(p.value) }));
}

function unknownJson(map: ReadonlyMap<string, Uint8Array>): ResultObject {
  const out: ResultObject = {};
  for (const [key, value] of sortedEntries(map)) out[key] = toHex(value);
  return out;
}

function hexMapJson(map: ReadonlyMap<string, Uint8Array>): ResultObject {
  return unknownJson(map);
}

function keypathsJson(map: ReadonlyMap<string, KeyOrigin>): ResultJson[] {
  return sortedEntries(map).map(([pubkey, origin]) => ({ pubkey, master_fingerprint: fingerprintHex(origin), path: pathText(origin) }));
}

function tapKeypathsJson(map: ReadonlyMap<string, TapKeyPath>): ResultJson[] {
  return sortedEntries(map).map(([pubkey, { leafHashes, origin }]) => ({
    pubkey,
    master_fingerprint: fingerprintHex(origin),
    path: pathText(origin),
    leaf_hashes: [...leafHashes].sort(),
  }));
}

function musigParticipantsJson(map: ReadonlyMap<string, Uint8Array[]>): ResultJson[] {
  return sortedEntries(map).map(([aggregate, keys]) => ({ aggregate_pubkey: aggregate, participant_pubkeys: keys.map(toHex) }));
}

function musigValuesJson(map: ReadonlyMap<string, Map<string, Uint8Array>>, name: string): ResultJson[] {
  const out: ResultJson[] = [];
  for (const [aggLeaf, byParticipant] of sortedEntries(map)) {
    const leaf = aggLeaf.slice(66);
    for (const [participant, value] of sortedEntries(byParticipant)) {
      out.push({ participant_pubkey: participant, aggregate_pubkey: aggLeaf.slice(0, 66), ...(isNull32(fromHex(leaf)) ? {} : { leaf_hash: leaf }), [name]: toHex(value) });
    }
  }
  return out;
}

export function decodePsbtJson(psbt: Psbt, chain: ChainName): ResultObject {
  const result: ResultObject = { tx: txToJson(psbt.tx, { chain, includeHex: false }) };
  result.global_xpubs = sortedXpubs(psbt).map((x) => ({ xpub: encodeBase58Check(x.encoded), master_fingerprint: fingerprintHex(x.origin), path: pathText(x.origin) }));
  result.psbt_version = psbt.version ?? 0;
  result.proprietary = proprietaryJson(psbt.proprietary);
  result.unknown = unknownJson(psbt.unknown);

  let totalIn = 0n;
  let haveAllUtxos = true;
  result.inputs = psbt.inputs.map((input, i) => {
    const entry: ResultObject = {};
    let txout: TxOut | undefined;
    if (input.witnessUtxo) {
      txout = input.witnessUtxo;
      entry.witness_utxo = { amount: amountJson(txout.value), scriptPubKey: scriptPubKeyJson(txout.scriptPubKey, chain) };
    }
    if (input.nonWitnessUtxo) {
      txout = input.nonWitnessUtxo.outputs[psbt.tx.inputs[i]!.prevout.vout]!;
      entry.non_witness_utxo = txToJson(input.nonWitnessUtxo, { chain, includeHex: false });
    }
    if (txout && moneyRange(txout.value) && moneyRange(totalIn + txout.value)) totalIn += txout.value;
    else haveAllUtxos = false;

    if (input.partialSigs.size > 0) {
      const sigs: ResultObject = {};
      for (const [, { pubkey, sig }] of sortedEntries(input.partialSigs)) sigs[toHex(pubkey)] = toHex(sig);
      entry.partial_signatures = sigs;
    }
    if (input.sighashType !== null) entry.sighash = sighashToStr(input.sighashType & 0xff);
    if (input.redeemScript.length > 0) entry.redeem_script = scriptJson(input.redeemScript);
    if (input.witnessScript.length > 0) entry.witness_script = scriptJson(input.witnessScript);
    if (input.hdKeypaths.size > 0) entry.bip32_derivs = keypathsJson(input.hdKeypaths);
    if (input.finalScriptSig.length > 0) entry.final_scriptSig = { asm: scriptToAsm(input.finalScriptSig, true), hex: toHex(input.finalScriptSig) };
    if (input.finalScriptWitness.length > 0) entry.final_scriptwitness = input.finalScriptWitness.map(toHex);
    if (input.ripemd160Preimages.size > 0) entry.ripemd160_preimages = hexMapJson(input.ripemd160Preimages);
    if (input.sha256Preimages.size > 0) entry.sha256_preimages = hexMapJson(input.sha256Preimages);
    if (input.hash160Preimages.size > 0) entry.hash160_preimages = hexMapJson(input.hash160Preimages);
    if (input.hash256Preimages.size > 0) entry.hash256_preimages = hexMapJson(input.hash256Preimages);
    if (input.tapKeySig.length > 0) entry.taproot_key_path_sig = toHex(input.tapKeySig);
    if (input.tapScriptSigs.size > 0) {
      entry.taproot_script_path_sigs = sortedEntries(input.tapScriptSigs).map(([key, sig]) => ({ pubkey: key.slice(0, 64), leaf_hash: key.slice(64), sig: toHex(sig) }));
    }
    if (input.tapScripts.size > 0) {
      entry.taproot_scripts = sortedTapScripts(input).map((leaf) => ({ script: toHex(leaf.script), leaf_ver: leaf.leafVersion, control_blocks: sortedControlBlocks(leaf.controlBlocks).map(toHex) }));
    }
    if (input.tapBip32Paths.size > 0) entry.taproot_bip32_derivs = tapKeypathsJson(input.tapBip32Paths);
    if (!isNull32(input.tapInternalKey)) entry.taproot_internal_key = toHex(input.tapInternalKey);
    if (!isNull32(input.tapMerkleRoot)) entry.taproot_merkle_root = toHex(input.tapMerkleRoot);
    if (input.musig2Participants.size > 0) entry.musig2_participant_pubkeys = musigParticipantsJson(input.musig2Participants);
    if (input.musig2Pubnonces.size > 0) entry.musig2_pubnonces = musigValuesJson(input.musig2Pubnonces, 'pubnonce');
    if (input.musig2PartialSigs.size > 0) entry.musig2_partial_sigs = musigValuesJson(input.musig2PartialSigs, 'partial_sig');
    if (input.proprietary.size > 0) entry.proprietary = proprietaryJson(input.proprietary);
    if (input.unknown.size > 0) entry.unknown = unknownJson(input.unknown);
    return entry;
  });

  let outputValue = 0n;
  result.outputs = psbt.outputs.map((output, i) => {
    const entry: ResultObject = {};
    if (output.redeemScript.length > 0) entry.redeem_script = scriptJson(output.redeemScript);
    if (output.witnessScript.length > 0) entry.witness_script = scriptJson(output.witnessScript);
    if (output.hdKeypaths.size > 0) entry.bip32_derivs = keypathsJson(output.hdKeypaths);
    if (!isNull32(output.tapInternalKey)) entry.taproot_internal_key = toHex(output.tapInternalKey);
    if (output.tapTree.length > 0) entry.taproot_tree = output.tapTree.map((leaf) => ({ depth: leaf.depth, leaf_ver: leaf.leafVersion, script: toHex(leaf.script) }));
    if (output.tapBip32Paths.size > 0) entry.taproot_bip32_derivs = tapKeypathsJson(output.tapBip32Paths);
    if (output.musig2Participants.size > 0) entry.musig2_participant_pubkeys = musigParticipantsJson(output.musig2Participants);
    if (output.proprietary.size > 0) entry.proprietary = proprietaryJson(output.proprietary);
    if (output.unknown.size > 0) entry.unknown = unknownJson(output.unknown);
    const value = psbt.tx.outputs[i]!.value;
    if (moneyRange(value) && moneyRange(outputValue + value)) outputValue += value;
    else haveAllUtxos = false;
    return entry;
  });
  if (haveAllUtxos) result.fee = amountJson(totalIn - outputValue);
  return result;
}

