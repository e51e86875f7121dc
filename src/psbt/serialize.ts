/** Core v31's PartiallySignedTransaction serializer (psbt.h Serialize): fields in Core's order, maps in key order. */
import { ByteWriter, compareBytes, fromHex, serializeTransaction, type TxOut } from '../primitives/index.js';
import { encodeBase64 } from '../script/index.js';
import { inputIsSigned, isNull32, type KeyOrigin, type Proprietary, type Psbt, type PsbtInput, type PsbtOutput, type TapKeyPath } from './types.js';

/** Entries in the order of their hex keys (the byte order Core's maps keep). */
export function sortedEntries<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

const sortedHex = (set: ReadonlySet<string>) => [...set].sort();

function writeVector(w: ByteWriter, build: (inner: ByteWriter) => void): void {
  const inner = new ByteWriter(64);
  build(inner);
  w.varBytes(inner.finish());
}

function writeKey(w: ByteWriter, type: number, ...parts: Uint8Array[]): void {
  writeVector(w, (k) => {
    k.compactSize(type);
    for (const p of parts) k.bytes(p);
  });
}

function writeOrigin(w: ByteWriter, origin: KeyOrigin): void {
  w.bytes(origin.fingerprint);
  for (const step of origin.path) w.u32(step);
}

function writeHdKeypaths(w: ByteWriter, type: number, paths: ReadonlyMap<string, KeyOrigin>): void {
  for (const [pubkey, origin] of sortedEntries(paths)) {
    writeKey(w, type, fromHex(pubkey));
    writeVector(w, (v) => writeOrigin(v, origin));
  }
}

function writeTapKeyPaths(w: ByteWriter, type: number, paths: ReadonlyMap<string, TapKeyPath>): void {
  for (const [xonly, { leafHashes, origin }] of sortedEntries(paths)) {
    writeKey(w, type, fromHex(xonly));
    writeVector(w, (v) => {
      v.compactSize(leafHashes.size);
      for (const hash of sortedHex(leafHashes)) v.bytes(fromHex(hash));
      writeOrigin(v, origin);
    });
  }
}

function writeMusigParticipants(w: ByteWriter, type: number, participants: ReadonlyMap<string, Uint8Array[]>): void {
  for (const [aggregate, keys] of sortedEntries(participants)) {
    writeKey(w, type, fromHex(aggregate));
    writeVector(w, (v) => keys.forEach((k) => v.bytes(k)));
  }
}

function writeExtras(w: ByteWriter, proprietary: ReadonlyMap<string, Proprietary>, unknown: ReadonlyMap<string, Uint8Array>): void {
  for (const [, entry] of sortedEntries(proprietary)) w.varBytes(entry.key).varBytes(entry.value);
  for (const [key, value] of sortedEntries(unknown)) w.varBytes(fromHex(key)).varBytes(value);
  w.u8(0);
}

/** The redeem script under `type` and the witness script under the next type, each when present. */
function writeScripts(w: ByteWriter, type: number, redeemScript: Uint8Array, witnessScript: Uint8Array): void {
  if (redeemScript.length > 0) {
    writeKey(w, type);
    w.varBytes(redeemScript);
  }
  if (witnessScript.length > 0) {
    writeKey(w, type + 1);
    w.varBytes(witnessScript);
  }
}

const writeTxOut = (v: ByteWriter, out: TxOut) => v.i64(out.value).varBytes(out.scriptPubKey);

function writeInput(w: ByteWriter, input: PsbtInput): void {
  if (input.nonWitnessUtxo) {
    writeKey(w, 0x00);
    w.varBytes(serializeTransaction(input.nonWitnessUtxo, false));
  }
  if (input.witnessUtxo) {
    writeKey(w, 0x01);
    writeVector(w, (v) => writeTxOut(v, input.witnessUtxo!));
  }
  if (!inputIsSigned(input)) {
    for (const [, { pubkey, sig }] of sortedEntries(input.partialSigs)) {
      writeKey(w, 0x02, pubkey);
      w.varBytes(sig);
    }
    if (input.sighashType !== null) {
      writeKey(w, 0x03);
      writeVector(w, (v) => v.u32(input.sighashType! >>> 0));
    }
    writeScripts(w, 0x04, input.redeemScript, input.witnessScript);
    writeHdKeypaths(w, 0x06, input.hdKeypaths);
    const preimages: [number, Map<string, Uint8Array>][] = [
      [0x0a, input.ripemd160Preimages],
      [0x0b, input.sha256Preimages],
      [0x0c, input.hash160Preimages],
      [0x0d, input.hash256Preimages],
    ];
    for (const [type, map] of preimages) {
      for (const [hash, preimage] of sortedEntries(map)) {
        writeKey(w, type, fromHex(hash));
        w.varBytes(preimage);
      }
    }
    if (input.tapKeySig.length > 0) {
      writeKey(w, 0x13);
      w.varBytes(input.tapKeySig);
    }
    for (const [key, sig] of sortedEntries(input.tapScriptSigs)) {
      writeKey(w, 0x14, fromHex(key));
      w.varBytes(sig);
    }
    for (const leaf of sortedTapScripts(input)) {
      for (const control of sortedControlBlocks(leaf.controlBlocks)) {
        writeKey(w, 0x15, control);
        writeVector(w, (v) => v.bytes(leaf.script).u8(leaf.leafVersion));
      }
    }
    writeTapKeyPaths(w, 0x16, input.tapBip32Paths);
    if (!isNull32(input.tapInternalKey)) {
      writeKey(w, 0x17);
      w.varBytes(input.tapInternalKey);
    }
    if (!isNull32(input.tapMerkleRoot)) {
      writeKey(w, 0x18);
      w.varBytes(input.tapMerkleRoot);
    }
    writeMusigParticipants(w, 0x1a, input.musig2Participants);
    for (const [type, map] of [
      [0x1b, input.musig2Pubnonces],
      [0x1c, input.musig2PartialSigs],
    ] as const) {
      for (const [aggLeaf, byParticipant] of sortedEntries(map)) {
        const aggregate = fromHex(aggLeaf.slice(0, 66));
        const leaf = fromHex(aggLeaf.slice(66));
        const leafPart = isNull32(leaf) ? [] : [leaf];
        for (const [participant, value] of sortedEntries(byParticipant)) {
          writeKey(w, type, fromHex(participant), aggregate, ...leafPart);
          w.varBytes(value);
        }
      }
    }
  }
  if (input.finalScriptSig.length > 0) {
    writeKey(w, 0x07);
    w.varBytes(input.finalScriptSig);
  }
  if (input.finalScriptWitness.length > 0) {
    writeKey(w, 0x08);
    writeVector(w, (v) => {
      v.compactSize(input.finalScriptWitness.length);
      for (const item of input.finalScriptWitness) v.varBytes(item);
    });
  }
  writeExtras(w, input.proprietary, input.unknown);
}

/** Leaf scripts in Core's pair<script, leaf version> order. */
export function sortedTapScripts(input: PsbtInput) {
  return [...input.tapScripts.values()].sort((a, b) => compareBytes(a.script, b.script) || a.leafVersion - b.leafVersion);
}

/** Control blocks in Core's ShortestVectorFirstComparator order. */
export function sortedControlBlocks(blocks: ReadonlyMap<string, Uint8Array>): Uint8Array[] {
  return [...blocks.values()].sort((a, b) => a.length - b.length || compareBytes(a, b));
}

function writeOutput(w: ByteWriter, output: PsbtOutput): void {
  writeScripts(w, 0x00, output.redeemScript, output.witnessScript);
  writeHdKeypaths(w, 0x02, output.hdKeypaths);
  if (!isNull32(output.tapInternalKey)) {
    writeKey(w, 0x05);
    w.varBytes(output.tapInternalKey);
  }
  if (output.tapTree.length > 0) {
    writeKey(w, 0x06);
    writeVector(w, (v) => output.tapTree.forEach((leaf) => v.u8(leaf.depth).u8(leaf.leafVersion).varBytes(leaf.script)));
  }
  writeTapKeyPaths(w, 0x07, output.tapBip32Paths);
  writeMusigParticipants(w, 0x08, output.musig2Participants);
  writeExtras(w, output.proprietary, output.unknown);
}

/** Global xpubs in Core's order: by key origin, then by extended key. */
export function sortedXpubs(psbt: Psbt) {
  const originCompare = (a: KeyOrigin, b: KeyOrigin) => {
    const f = compareBytes(a.fingerprint, b.fingerprint);
    if (f !== 0) return f;
    if (a.path.length !== b.path.length) return a.path.length - b.path.length;
    for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) if (a.path[i] !== b.path[i]) return a.path[i]! - b.path[i]!;
    return a.path.length - b.path.length;
  };
  return sortedEntries(psbt.xpubs).sort((a, b) => originCompare(a[1].origin, b[1].origin)).map(([, x]) => x);
}

export function serializePsbt(psbt: Psbt): Uint8Array {
  const w = new ByteWriter(1024);
  w.bytes(Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff));
  writeKey(w, 0x00);
  w.varBytes(serializeTransaction(psbt.tx, false));
  for (const xpub of sortedXpubs(psbt)) {
    writeKey(w, 0x01, xpub.encoded);
    writeVector(w, (v) => writeOrigin(v, xpub.origin));
  }
  if ((psbt.version ?? 0) > 0) {
    writeKey(w, 0xfb);
    writeVector(w, (v) => v.u32(psbt.version!));
  }
  writeExtras(w, psbt.proprietary, psbt.unknown);
  for (const input of psbt.inputs) writeInput(w, input);
  for (const output of psbt.outputs) writeOutput(w, output);
  return w.finish();
}

export const encodePsbt = (psbt: Psbt) => encodeBase64(serializePsbt(psbt));
