/**
 * Core v31's PartiallySignedTransaction deserializer (psbt.h Unserialize, version 0 only):
 * the same checks in the same order, failing with Core's messages, so decodepsbt's
 * "TX decode failed ..." texts are bitcoind's.
 */
import { bytesEqual, hash160, toHex } from '../primitives/index.js';
import { decodeBase64, isValidSignatureEncoding } from '../script/index.js';
import { isFullyValidPubkey } from './pubkeys.js';
import { iosFailure, PsbtDecodeError, SpanReader } from './stream.js';
import { emptyInput, emptyOutput, tapScriptKey, type KeyOrigin, type Proprietary, type Psbt, type PsbtInput, type PsbtOutput, type TapKeyPath } from './types.js';

const MAGIC = Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff);
const PSBT_HIGHEST_VERSION = 0;
const TAPROOT_CONTROL_MAX_NODE_COUNT = 128;
const TAPROOT_LEAF_MASK = 0xfe;

function keyOrigin(s: SpanReader, length: number): KeyOrigin {
  if (length % 4 !== 0 || length === 0) throw iosFailure('Invalid length for HD key path');
  const fingerprint = s.read(4).slice();
  const path: number[] = [];
  for (let i = 4; i < length; i += 4) path.push(s.u32());
  return { fingerprint, path };
}

function hdKeypath(s: SpanReader): KeyOrigin {
  return keyOrigin(s, s.count());
}

function hdKeypaths(s: SpanReader, key: Uint8Array, into: Map<string, KeyOrigin>): void {
  if (key.length !== 66 && key.length !== 34) throw iosFailure('Size of key was not the expected size for the type BIP32 keypath');
  const pubkey = key.subarray(1);
  if (!isFullyValidPubkey(pubkey)) throw iosFailure('Invalid pubkey');
  const id = toHex(pubkey);
  if (into.has(id)) throw iosFailure('Duplicate Key, pubkey derivation path already provided');
  into.set(id, hdKeypath(s));
}

function proprietary(s: SpanReader, skey: SpanReader, key: Uint8Array, into: Map<string, Proprietary>): void {
  const identifier = skey.bytesVector();
  const subtype = skey.compactSize();
  const id = toHex(key);
  if (into.has(id)) throw iosFailure('Duplicate Key, proprietary key already found');
  into.set(id, { identifier, subtype, key: key.slice(), value: s.bytesVector() });
}

function unknown(s: SpanReader, key: Uint8Array, into: Map<string, Uint8Array>): void {
  const id = toHex(key);
  if (into.has(id)) throw iosFailure('Duplicate Key, key for unknown value already provided');
  into.set(id, s.bytesVector());
}

/** A taproot BIP32 derivation value: leaf hashes, then the origin filling the rest of the stated length. */
function tapKeyPath(s: SpanReader, what: 'Input' | 'Output'): TapKeyPath {
  const valueLength = Number(s.compactSize());
  const before = s.remaining;
  const leafHashes = new Set<string>();
  for (let n = s.count(); n > 0; n--) leafHashes.add(toHex(s.read(32)));
  const hashesLength = before - s.remaining;
  if (hashesLength > valueLength) throw iosFailure(`${what} Taproot BIP32 keypath has an invalid length`);
  return { leafHashes, origin: keyOrigin(s, valueLength - hashesLength) };
}

function musig2Participants(s: SpanReader, skey: SpanReader, into: Map<string, Uint8Array[]>, what: 'Input' | 'Output'): void {
  const aggregate = skey.read(33);
  if (!isFullyValidPubkey(aggregate)) throw iosFailure(`${what} musig2 aggregate pubkey is invalid`);
  const value = new SpanReader(s.bytesVector());
  const participants: Uint8Array[] = [];
  while (value.remaining >= 33) {
    const participant = value.read(33).slice();
    if (!isFullyValidPubkey(participant)) throw iosFailure(`${what} musig2 participant pubkey is invalid`);
    participants.push(participant);
  }
  if (!value.empty) throw iosFailure(`${what} musig2 participants pubkeys value size is not a multiple of 33`);
  const id = toHex(aggregate);
  if (!into.has(id)) into.set(id, participants);
}

/** Aggregate key, participant key and leaf hash (zeros when absent) of a MuSig2 nonce or partial signature key. */
function musig2Identifier(skey: SpanReader): { aggregate: string; participant: string; leafHash: string } {
  const participant = skey.read(33);
  const aggregate = skey.read(33);
  if (!isFullyValidPubkey(aggregate)) throw iosFailure('musig2 aggregate pubkey is invalid');
  if (!isFullyValidPubkey(participant)) throw iosFailure('musig2 participant pubkey is invalid');
  const leafHash = skey.empty ? '00'.repeat(32) : toHex(skey.read(32));
  return { aggregate: toHex(aggregate), participant: toHex(participant), leafHash };
}

function addNested(into: Map<string, Map<string, Uint8Array>>, outer: string, inner: string, value: Uint8Array): void {
  let map = into.get(outer);
  if (!map) into.set(outer, (map = new Map()));
  if (!map.has(inner)) map.set(inner, value);
}

/**
 * Reads key-value pairs up to the separator (an empty key), handing each key, a reader over
 * it positioned after the type, and the type to `field`, which reads the value.
 */
function readMap(s: SpanReader, missingSeparator: string, field: (key: Uint8Array, skey: SpanReader, type: bigint) => void): void {
  while (!s.empty) {
    const key = s.bytesVector();
    if (key.length === 0) return;
    const skey = new SpanReader(key);
    field(key, skey, skey.compactSize());
  }
  throw iosFailure(missingSeparator);
}

function oneByteKey(seen: Set<string>, key: Uint8Array, duplicate: string, tooLong: string): void {
  const id = toHex(key);
  if (seen.has(id)) throw iosFailure(duplicate);
  seen.add(id);
  if (key.length !== 1) throw iosFailure(tooLong);
}

function readInput(s: SpanReader): PsbtInput {
  const input = emptyInput();
  const seen = new Set<string>();
  readMap(s, 'Separator is missing at the end of an input map', (key, skey, type) => {
    const once = (what: string, tooLong: string) => oneByteKey(seen, key, `Duplicate Key, input ${what} already provided`, tooLong);
    switch (type) {
      case 0x00n:
        once('non-witness utxo', 'Non-witness utxo key is more than one byte type');
        input.nonWitnessUtxo = s.fromVector(() => s.transaction(true));
        break;
      case 0x01n: {
        once('witness utxo', 'Witness utxo key is more than one byte type');
        const out = s.fromVector(() => s.txOut());
        input.witnessUtxo = out.value === -1n ? null : out;
        break;
      }
      case 0x02n: {
        if (key.length !== 66 && key.length !== 34) throw iosFailure('Size of key was not the expected size for the type partial signature pubkey');
        const pubkey = key.slice(1);
        if (!isFullyValidPubkey(pubkey)) throw iosFailure('Invalid pubkey');
        const id = toHex(hash160(pubkey));
        if (input.partialSigs.has(id)) throw iosFailure('Duplicate Key, input partial signature for pubkey already provided');
        const sig = s.bytesVector();
        if (sig.length === 0 || !isValidSignatureEncoding(sig) || !definedHashType(sig)) throw iosFailure('Signature is not a valid encoding');
        input.partialSigs.set(id, { pubkey, sig });
        break;
      }
      case 0x03n:
        once('sighash type', 'Sighash type key is more than one byte type');
        input.sighashType = s.fromVector(() => s.i32());
        break;
      case 0x04n:
        once('redeemScript', 'Input redeemScript key is more than one byte type');
        input.redeemScript = s.bytesVector();
        break;
      case 0x05n:
        once('witnessScript', 'Input witnessScript key is more than one byte type');
        input.witnessScript = s.bytesVector();
        break;
      case 0x06n:
        hdKeypaths(s, key, input.hdKeypaths);
        break;
      case 0x07n:
        once('final scriptSig', 'Final scriptSig key is more than one byte type');
        input.finalScriptSig = s.bytesVector();
        break;
      case 0x08n:
        once('final scriptWitness', 'Final scriptWitness key is more than one byte type');
        input.finalScriptWitness = s.fromVector(() => s.witnessStack());
        break;
      case 0x0an:
        preimage(s, key, 20, 'ripemd160', input.ripemd160Preimages);
        break;
      case 0x0bn:
        preimage(s, key, 32, 'sha256', input.sha256Preimages);
        break;
      case 0x0cn:
        preimage(s, key, 20, 'hash160', input.hash160Preimages);
        break;
      case 0x0dn:
        preimage(s, key, 32, 'hash256', input.hash256Preimages);
        break;
      case 0x13n: {
        once('Taproot key signature', 'Input Taproot key signature key is more than one byte type');
        const sig = s.bytesVector();
        if (sig.length < 64) throw iosFailure('Input Taproot key path signature is shorter than 64 bytes');
        if (sig.length > 65) throw iosFailure('Input Taproot key path signature is longer than 65 bytes');
        input.tapKeySig = sig;
        break;
      }
      case 0x14n: {
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure('Duplicate Key, input Taproot script signature already provided');
        seen.add(id);
        if (key.length !== 65) throw iosFailure('Input Taproot script signature key is not 65 bytes');
        const sig = s.bytesVector();
        if (sig.length < 64) throw iosFailure('Input Taproot script path signature is shorter than 64 bytes');
        if (sig.length > 65) throw iosFailure('Input Taproot script path signature is longer than 65 bytes');
        input.tapScriptSigs.set(toHex(key.subarray(1)), sig);
        break;
      }
      case 0x15n: {
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure('Duplicate Key, input Taproot leaf script already provided');
        seen.add(id);
        if (key.length < 34) throw iosFailure('Taproot leaf script key is not at least 34 bytes');
        if ((key.length - 2) % 32 !== 0) throw iosFailure("Input Taproot leaf script key's control block size is not valid");
        const value = s.bytesVector();
        if (value.length === 0) throw iosFailure('Input Taproot leaf script must be at least 1 byte');
        const script = value.subarray(0, value.length - 1);
        const leafVersion = value[value.length - 1]!;
        const leafKey = tapScriptKey(toHex(script), leafVersion);
        let entry = input.tapScripts.get(leafKey);
        if (!entry) input.tapScripts.set(leafKey, (entry = { script, leafVersion, controlBlocks: new Map() }));
        entry.controlBlocks.set(toHex(key.subarray(1)), key.slice(1));
        break;
      }
      case 0x16n: {
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure('Duplicate Key, input Taproot BIP32 keypath already provided');
        seen.add(id);
        if (key.length !== 33) throw iosFailure('Input Taproot BIP32 keypath key is not at 33 bytes');
        const path = tapKeyPath(s, 'Input');
        const xonly = toHex(key.subarray(1));
        if (!input.tapBip32Paths.has(xonly)) input.tapBip32Paths.set(xonly, path);
        break;
      }
      case 0x17n:
        once('Taproot internal key', 'Input Taproot internal key key is more than one byte type');
        input.tapInternalKey = s.fromVector(() => s.read(32).slice());
        break;
      case 0x18n:
        once('Taproot merkle root', 'Input Taproot merkle root key is more than one byte type');
        input.tapMerkleRoot = s.fromVector(() => s.read(32).slice());
        break;
      case 0x1an: {
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure('Duplicate Key, input participant pubkeys for an aggregate key already provided');
        seen.add(id);
        if (key.length !== 34) throw iosFailure('Input musig2 participants pubkeys aggregate key is not 34 bytes');
        musig2Participants(s, skey, input.musig2Participants, 'Input');
        break;
      }
      case 0x1bn:
      case 0x1cn: {
        const what = type === 0x1bn ? 'pubnonce' : 'partial sig';
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure(`Duplicate Key, input musig2 ${what} already provided`);
        seen.add(id);
        if (key.length !== 67 && key.length !== 99) throw iosFailure(`Input musig2 ${what} key is not expected size of 67 or 99 bytes`);
        const { aggregate, participant, leafHash } = musig2Identifier(skey);
        if (type === 0x1bn) {
          const nonce = s.bytesVector();
          if (nonce.length !== 66) throw iosFailure('Input musig2 pubnonce value is not 66 bytes');
          addNested(input.musig2Pubnonces, aggregate + leafHash, participant, nonce);
        } else {
          addNested(input.musig2PartialSigs, aggregate + leafHash, participant, s.fromVector(() => s.read(32).slice()));
        }
        break;
      }
      case 0xfcn:
        proprietary(s, skey, key, input.proprietary);
        break;
      default:
        unknown(s, key, input.unknown);
    }
  });
  return input;
}

/** STRICTENC's hash type check: the last byte without ANYONECANPAY is ALL, NONE or SINGLE. */
function definedHashType(sig: Uint8Array): boolean {
  const base = sig[sig.length - 1]! & ~0x80;
  return base >= 1 && base <= 3;
}

function preimage(s: SpanReader, key: Uint8Array, size: number, name: string, into: Map<string, Uint8Array>): void {
  if (key.length !== size + 1) throw iosFailure(`Size of key was not the expected size for the type ${name} preimage`);
  const hash = toHex(key.subarray(1));
  if (into.has(hash)) throw iosFailure(`Duplicate Key, input ${name} preimage already provided`);
  into.set(hash, s.bytesVector());
}

/** Core's TaprootBuilder: whether leaves at these depths, in order, make one complete tree. */
export function isCompleteTree(depths: readonly number[]): boolean {
  const branch: boolean[] = [];
  for (let depth of depths) {
    if (depth < 0 || depth > TAPROOT_CONTROL_MAX_NODE_COUNT) return false;
    if (depth + 1 < branch.length) return false;
    while (branch.length > depth && branch[depth]) {
      branch.pop();
      if (depth === 0) return false;
      depth--;
    }
    while (branch.length <= depth) branch.push(false);
    branch[depth] = true;
  }
  return branch.length === 0 || (branch.length === 1 && branch[0] === true);
}

function readOutput(s: SpanReader): PsbtOutput {
  const output = emptyOutput();
  const seen = new Set<string>();
  readMap(s, 'Separator is missing at the end of an output map', (key, skey, type) => {
    const once = (what: string, tooLong: string) => oneByteKey(seen, key, `Duplicate Key, output ${what} already provided`, tooLong);
    switch (type) {
      case 0x00n:
        once('redeemScript', 'Output redeemScript key is more than one byte type');
        output.redeemScript = s.bytesVector();
        break;
      case 0x01n:
        once('witnessScript', 'Output witnessScript key is more than one byte type');
        output.witnessScript = s.bytesVector();
        break;
      case 0x02n:
        hdKeypaths(s, key, output.hdKeypaths);
        break;
      case 0x05n:
        once('Taproot internal key', 'Output Taproot internal key key is more than one byte type');
        output.tapInternalKey = s.fromVector(() => s.read(32).slice());
        break;
      case 0x06n: {
        once('Taproot tree', 'Output Taproot tree key is more than one byte type');
        const tree = new SpanReader(s.bytesVector());
        if (tree.empty) throw iosFailure('Output Taproot tree must not be empty');
        const depths: number[] = [];
        while (!tree.empty) {
          const depth = tree.u8();
          const leafVersion = tree.u8();
          const script = tree.bytesVector();
          if (depth > TAPROOT_CONTROL_MAX_NODE_COUNT) throw iosFailure('Output Taproot tree has as leaf greater than Taproot maximum depth');
          if ((leafVersion & ~TAPROOT_LEAF_MASK) !== 0) throw iosFailure('Output Taproot tree has a leaf with an invalid leaf version');
          output.tapTree.push({ depth, leafVersion, script });
          depths.push(depth);
        }
        if (!isCompleteTree(depths)) throw iosFailure('Output Taproot tree is malformed');
        break;
      }
      case 0x07n: {
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure('Duplicate Key, output Taproot BIP32 keypath already provided');
        seen.add(id);
        if (key.length !== 33) throw iosFailure('Output Taproot BIP32 keypath key is not at 33 bytes');
        const path = tapKeyPath(s, 'Output');
        const xonly = toHex(key.subarray(1));
        if (!output.tapBip32Paths.has(xonly)) output.tapBip32Paths.set(xonly, path);
        break;
      }
      case 0x08n: {
        const id = toHex(key);
        if (seen.has(id)) throw iosFailure('Duplicate Key, output participant pubkeys for an aggregate key already provided');
        seen.add(id);
        if (key.length !== 34) throw iosFailure('Output musig2 participants pubkeys aggregate key is not 34 bytes');
        musig2Participants(s, skey, output.musig2Participants, 'Output');
        break;
      }
      case 0xfcn:
        proprietary(s, skey, key, output.proprietary);
        break;
      default:
        unknown(s, key, output.unknown);
    }
  });
  return output;
}

function readPsbt(s: SpanReader): Psbt {
  if (!bytesEqual(s.read(5), MAGIC)) throw iosFailure('Invalid PSBT magic bytes');
  const seen = new Set<string>();
  const psbt: Psbt = { tx: undefined as never, xpubs: new Map(), version: null, proprietary: new Map(), unknown: new Map(), inputs: [], outputs: [] };
  readMap(s, 'Separator is missing at the end of the global map', (key, skey, type) => {
    switch (type) {
      case 0x00n: {
        oneByteKey(seen, key, 'Duplicate Key, unsigned tx already provided', 'Global unsigned tx key is more than one byte type');
        const tx = s.fromVector(() => s.transaction(false));
        if (tx.inputs.some((input) => input.scriptSig.length > 0 || input.witness.length > 0)) throw iosFailure('Unsigned tx does not have empty scriptSigs and scriptWitnesses.');
        psbt.tx = tx;
        break;
      }
      case 0x01n: {
        if (key.length !== 79) throw iosFailure('Size of key was not the expected size for the type global xpub');
        const encoded = key.slice(1);
        const pubkey = encoded.subarray(45, 78);
        if (!isFullyValidPubkey(pubkey)) throw iosFailure('Invalid pubkey');
        const id = toHex(pubkey) + toHex(encoded.subarray(13, 45));
        if (psbt.xpubs.has(id)) throw iosFailure('Duplicate key, global xpub already provided');
        psbt.xpubs.set(id, { encoded, origin: hdKeypath(s) });
        break;
      }
      case 0xfbn: {
        if (psbt.version !== null) throw iosFailure('Duplicate Key, version already provided');
        if (key.length !== 1) throw iosFailure('Global version key is more than one byte type');
        const version = s.fromVector(() => s.u32());
        psbt.version = version;
        if (version > PSBT_HIGHEST_VERSION) throw iosFailure('Unsupported version number');
        break;
      }
      case 0xfcn:
        proprietary(s, skey, key, psbt.proprietary);
        break;
      default:
        unknown(s, key, psbt.unknown);
    }
  });
  if (!psbt.tx) throw iosFailure('No unsigned transaction was provided');
  const { tx } = psbt;
  while (!s.empty && psbt.inputs.length < tx.inputs.length) {
    const input = readInput(s);
    const i = psbt.inputs.length;
    psbt.inputs.push(input);
    if (input.nonWitnessUtxo) {
      if (!bytesEqual(input.nonWitnessUtxo.txid, tx.inputs[i]!.prevout.txid)) throw iosFailure('Non-witness UTXO does not match outpoint hash');
      if (tx.inputs[i]!.prevout.vout >= input.nonWitnessUtxo.outputs.length) throw iosFailure('Input specifies output index that does not exist');
    }
  }
  if (psbt.inputs.length !== tx.inputs.length) throw iosFailure('Inputs provided does not match the number of inputs in transaction.');
  while (!s.empty && psbt.outputs.length < tx.outputs.length) psbt.outputs.push(readOutput(s));
  if (psbt.outputs.length !== tx.outputs.length) throw iosFailure('Outputs provided does not match the number of outputs in transaction.');
  return psbt;
}

/** Core's DecodeRawPSBT: the PSBT, or the error text. */
export function decodeRawPsbt(bytes: Uint8Array): Psbt | string {
  const s = new SpanReader(bytes);
  try {
    const psbt = readPsbt(s);
    return s.empty ? psbt : 'extra data after PSBT';
  } catch (err) {
    if (err instanceof PsbtDecodeError) return err.message;
    throw err;
  }
}

/** Core's DecodeBase64PSBT. */
export function decodeBase64Psbt(text: string): Psbt | string {
  const bytes = decodeBase64(text);
  return bytes ? decodeRawPsbt(bytes) : 'invalid base64';
}
