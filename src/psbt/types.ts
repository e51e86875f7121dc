/**
 * The PSBT (BIP174 version 0 with BIP371 taproot and BIP373 MuSig2 fields) as Core v31's
 * PartiallySignedTransaction holds it. Maps are keyed by the hex of the bytes Core's
 * std::map orders by, so serializing in sorted key order gives Core's byte order.
 */
import { bytesEqual, type Transaction, type TxOut } from '../primitives/index.js';

export interface KeyOrigin {
  readonly fingerprint: Uint8Array;
  readonly path: readonly number[];
}

export interface Proprietary {
  readonly identifier: Uint8Array;
  readonly subtype: bigint;
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

export interface TapLeafScripts {
  readonly script: Uint8Array;
  readonly leafVersion: number;
  /** Control blocks by hex. */
  readonly controlBlocks: Map<string, Uint8Array>;
}

export interface TapKeyPath {
  /** Leaf hashes by hex. */
  readonly leafHashes: Set<string>;
  readonly origin: KeyOrigin;
}

export interface TapTreeLeaf {
  readonly depth: number;
  readonly leafVersion: number;
  readonly script: Uint8Array;
}

export interface PartialSig {
  readonly pubkey: Uint8Array;
  readonly sig: Uint8Array;
}

export interface PsbtInput {
  nonWitnessUtxo: Transaction | null;
  /** Null as Core's CTxOut::IsNull (a value of -1). */
  witnessUtxo: TxOut | null;
  /** By hex key id. */
  partialSigs: Map<string, PartialSig>;
  sighashType: number | null;
  redeemScript: Uint8Array;
  witnessScript: Uint8Array;
  /** By hex public key. */
  hdKeypaths: Map<string, KeyOrigin>;
  finalScriptSig: Uint8Array;
  finalScriptWitness: readonly Uint8Array[];
  ripemd160Preimages: Map<string, Uint8Array>;
  sha256Preimages: Map<string, Uint8Array>;
  hash160Preimages: Map<string, Uint8Array>;
  hash256Preimages: Map<string, Uint8Array>;
  tapKeySig: Uint8Array;
  /** By hex x-only key followed by hex leaf hash. */
  tapScriptSigs: Map<string, Uint8Array>;
  /** By hex script and leaf version (see tapScriptKey). */
  tapScripts: Map<string, TapLeafScripts>;
  /** By hex x-only key. */
  tapBip32Paths: Map<string, TapKeyPath>;
  /** 32 zero bytes is Core's null key. */
  tapInternalKey: Uint8Array;
  tapMerkleRoot: Uint8Array;
  /** By hex aggregate key. */
  musig2Participants: Map<string, Uint8Array[]>;
  /** By hex aggregate key and hex leaf hash (zeros for the key path), then by hex participant key. */
  musig2Pubnonces: Map<string, Map<string, Uint8Array>>;
  musig2PartialSigs: Map<string, Map<string, Uint8Array>>;
  /** By hex key. */
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

export interface PsbtOutput {
  redeemScript: Uint8Array;
  witnessScript: Uint8Array;
  hdKeypaths: Map<string, KeyOrigin>;
  tapInternalKey: Uint8Array;
  tapTree: TapTreeLeaf[];
  tapBip32Paths: Map<string, TapKeyPath>;
  musig2Participants: Map<string, Uint8Array[]>;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

export interface GlobalXpub {
  /** The 78 serialized bytes, version included. */
  readonly encoded: Uint8Array;
  readonly origin: KeyOrigin;
}

export interface Psbt {
  tx: Transaction;
  /** By hex public key and chain code (Core's CExtPubKey order). */
  xpubs: Map<string, GlobalXpub>;
  version: number | null;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
  inputs: PsbtInput[];
  outputs: PsbtOutput[];
}

export const ZERO32 = new Uint8Array(32);

export const isNull32 = (bytes: Uint8Array) => bytes.length === 0 || bytes.every((b) => b === 0);

/** The key tapScripts orders by: Core's pair<script, leaf version>. */
export const tapScriptKey = (scriptHex: string, leafVersion: number) => `${scriptHex}:${leafVersion}`;

export function emptyInput(): PsbtInput {
  return {
    nonWitnessUtxo: null,
    witnessUtxo: null,
    partialSigs: new Map(),
    sighashType: null,
    redeemScript: new Uint8Array(0),
    witnessScript: new Uint8Array(0),
    hdKeypaths: new Map(),
    finalScriptSig: new Uint8Array(0),
    finalScriptWitness: [],
    ripemd160Preimages: new Map(),
    sha256Preimages: new Map(),
    hash160Preimages: new Map(),
    hash256Preimages: new Map(),
    tapKeySig: new Uint8Array(0),
    tapScriptSigs: new Map(),
    tapScripts: new Map(),
    tapBip32Paths: new Map(),
    tapInternalKey: ZERO32,
    tapMerkleRoot: ZERO32,
    musig2Participants: new Map(),
    musig2Pubnonces: new Map(),
    musig2PartialSigs: new Map(),
    proprietary: new Map(),
    unknown: new Map(),
  };
}

export function emptyOutput(): PsbtOutput {
  return {
    redeemScript: new Uint8Array(0),
    witnessScript: new Uint8Array(0),
    hdKeypaths: new Map(),
    tapInternalKey: ZERO32,
    tapTree: [],
    tapBip32Paths: new Map(),
    musig2Participants: new Map(),
    proprietary: new Map(),
    unknown: new Map(),
  };
}

/** Core's PartiallySignedTransaction(CMutableTransaction): empty maps around a transaction. */
export function psbtFromTransaction(tx: Transaction): Psbt {
  return {
    tx,
    xpubs: new Map(),
    version: null,
    proprietary: new Map(),
    unknown: new Map(),
    inputs: tx.inputs.map(emptyInput),
    outputs: tx.outputs.map(emptyOutput),
  };
}

/** Core's PSBTInputSigned. */
export const inputIsSigned = (input: PsbtInput) => input.finalScriptSig.length > 0 || input.finalScriptWitness.length > 0;

/** Core's PSBTInput::GetUTXO with the prevout it spends. */
export function inputUtxo(psbt: Psbt, index: number): TxOut | null {
  const input = psbt.inputs[index]!;
  const prevout = psbt.tx.inputs[index]!.prevout;
  if (input.nonWitnessUtxo) {
    if (!bytesEqual(input.nonWitnessUtxo.txid, prevout.txid)) return null;
    return input.nonWitnessUtxo.outputs[prevout.vout] ?? null;
  }
  return input.witnessUtxo;
}

/** The input's preimage maps by miniscript fragment name. */
export const preimageMaps = (input: PsbtInput) =>
  [
    ['sha256', input.sha256Preimages],
    ['ripemd160', input.ripemd160Preimages],
    ['hash256', input.hash256Preimages],
    ['hash160', input.hash160Preimages],
  ] as const;
