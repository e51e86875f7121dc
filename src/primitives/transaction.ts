import { hashToHex, EMPTY_BYTES } from './bytes.js';
import { DecodeError } from './errors.js';
import { sha256d } from './hashes.js';
import { ByteReader } from './reader.js';
import { ByteWriter } from './writer.js';

/** A reference to a transaction output; `txid` is in internal (little-endian) byte order. */
export interface OutPoint {
  readonly txid: Uint8Array;
  readonly vout: number;
}

export interface TxIn {
  readonly prevout: OutPoint;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  /** Witness stack, bottom item first; empty for non-witness inputs. */
  readonly witness: readonly Uint8Array[];
}

export interface TxOut {
  /** Satoshis as the signed 64-bit integer on the wire: out-of-range values must survive parsing to be rejected later. */
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
}

export const SEQUENCE_FINAL = 0xffffffff;
/** The witness of every input without one: shared, never written to. */
export const EMPTY_WITNESS: readonly Uint8Array[] = Object.freeze([]);
/** Weight units per byte of non-witness data. */
export const WITNESS_SCALE_FACTOR = 4;

const NULL_TXID = new Uint8Array(32);

export function isNullOutPoint(o: OutPoint): boolean {
  return o.vout === 0xffffffff && o.txid.every((b) => b === 0);
}

export const NULL_OUTPOINT: OutPoint = { txid: NULL_TXID, vout: 0xffffffff };

export interface TransactionFields {
  version: number;
  inputs: readonly TxIn[];
  outputs: readonly TxOut[];
  locktime: number;
}

/**
 * Where a parsed transaction lies in the bytes it was read from: its exact serialization
 * as read and, for the BIP144 format, the offset of its witness section (-1 without one).
 */
export interface TransactionWire {
  readonly bytes: Uint8Array;
  readonly witnessStart: number;
}

/**
 * An immutable transaction. Hashes and sizes are computed once on first use because
 * validation asks for them repeatedly (txid for the coins view, wtxid for the witness
 * commitment, sizes for weight limits and fee rates). A parsed transaction hashes the
 * bytes it was read from instead of serializing itself again: the parser accepts only
 * canonical encodings, so they are exactly what serializing would produce.
 */
export class Transaction implements TransactionFields {
  /** Unsigned 32-bit, as Core stores it since v28 (BIP68 and CSV compare it unsigned). */
  readonly version: number;
  readonly inputs: readonly TxIn[];
  readonly outputs: readonly TxOut[];
  readonly locktime: number;

  private cachedTxid: Uint8Array | undefined;
  private cachedWtxid: Uint8Array | undefined;
  private cachedBase: Uint8Array | undefined;
  private cachedFull: Uint8Array | undefined;
  /** The witness section's offset in cachedFull, when the base serialization can be cut from it. */
  private witnessStart = -1;

  constructor(fields: TransactionFields, wire?: TransactionWire) {
    this.version = fields.version >>> 0;
    this.inputs = fields.inputs;
    this.outputs = fields.outputs;
    this.locktime = fields.locktime >>> 0;
    if (wire) {
      if (wire.witnessStart < 0) {
        this.cachedBase = wire.bytes;
      } else {
        this.cachedFull = wire.bytes;
        this.witnessStart = wire.witnessStart;
      }
    }
  }

  get hasWitness(): boolean {
    for (const input of this.inputs) if (input.witness.length > 0) return true;
    return false;
  }

  isCoinbase(): boolean {
    return this.inputs.length === 1 && isNullOutPoint(this.inputs[0]!.prevout);
  }

  /** Serialization without witness data: what the txid commits to. */
  toBytesNoWitness(): Uint8Array {
    this.cachedBase ??= this.witnessStart >= 0 ? stripWitness(this.cachedFull!, this.witnessStart) : serializeTransaction(this, false);
    return this.cachedBase;
  }

  /** Serialization with witness data when any input has some (BIP144). */
  toBytes(): Uint8Array {
    if (!this.hasWitness) return this.toBytesNoWitness();
    this.cachedFull ??= serializeTransaction(this, true);
    return this.cachedFull;
  }

  get txid(): Uint8Array {
    // A parsed segwit transaction's witness-free form is only hashed here, so it is cut into
    // scratch space rather than into an array of its own that nobody would keep.
    this.cachedTxid ??= sha256d(this.cachedBase ?? (this.witnessStart >= 0 ? stripWitness(this.cachedFull!, this.witnessStart, true) : this.toBytesNoWitness()));
    return this.cachedTxid;
  }

  get wtxid(): Uint8Array {
    if (!this.hasWitness) return this.txid;
    this.cachedWtxid ??= sha256d(this.toBytes());
    return this.cachedWtxid;
  }

  /**
   * Takes hashes computed earlier from these same bytes (when the block was accepted), so
   * a block read back to be connected is not hashed again. Computed ones stay.
   */
  adoptHashes(txid: Uint8Array, wtxid: Uint8Array | undefined): void {
    this.cachedTxid ??= txid;
    if (wtxid) this.cachedWtxid ??= wtxid;
  }

  /** Offset of the BIP144 witness section in the bytes this transaction was read from; -1 without one (or when not parsed). */
  get wireWitnessOffset(): number {
    return this.witnessStart;
  }

  /** The txid and wtxid if they have been computed, without computing them. */
  computedHashes(): { txid: Uint8Array | undefined; wtxid: Uint8Array | undefined } {
    return { txid: this.cachedTxid, wtxid: this.cachedWtxid };
  }

  get txidHex(): string {
    return hashToHex(this.txid);
  }

  get wtxidHex(): string {
    return hashToHex(this.wtxid);
  }

  get baseSize(): number {
    // version ‖ inputs and outputs ‖ locktime, without the marker, flag and witnesses.
    if (this.witnessStart >= 0 && !this.cachedBase) return this.witnessStart - 6 + 8;
    return this.toBytesNoWitness().length;
  }

  get totalSize(): number {
    return this.toBytes().length;
  }

  get weight(): number {
    return this.baseSize * (WITNESS_SCALE_FACTOR - 1) + this.totalSize;
  }

  /** Virtual size without the sigop adjustment that mempool policy applies. */
  get vsize(): number {
    return Math.ceil(this.weight / WITNESS_SCALE_FACTOR);
  }
}

/** Reused by stripWitness for bytes that are hashed at once and dropped (hashing is synchronous). */
let scratch = new Uint8Array(4096);

/**
 * version ‖ inputs and outputs ‖ locktime, cut from a BIP144 serialization (marker and flag
 * at 4 and 5). `transient`: into shared scratch space, valid only until the next call.
 */
function stripWitness(full: Uint8Array, witnessStart: number, transient = false): Uint8Array {
  const bodyLength = witnessStart - 6;
  const length = 4 + bodyLength + 4;
  let out: Uint8Array;
  if (transient) {
    if (scratch.length < length) scratch = new Uint8Array(Math.max(length, scratch.length * 2));
    out = new Uint8Array(scratch.buffer, 0, length);
  } else {
    out = new Uint8Array(length);
  }
  out.set(full.subarray(0, 4), 0);
  out.set(full.subarray(6, witnessStart), 4);
  out.set(full.subarray(full.length - 4), 4 + bodyLength);
  return out;
}

export function serializeTransaction(tx: TransactionFields, withWitness: boolean, writer = new ByteWriter(256)): Uint8Array {
  const segwit = withWitness && tx.inputs.some((i) => i.witness.length > 0);
  writer.u32(tx.version);
  if (segwit) writer.u8(0).u8(1);
  writer.compactSize(tx.inputs.length);
  for (const input of tx.inputs) {
    writer.bytes(input.prevout.txid).u32(input.prevout.vout).varBytes(input.scriptSig).u32(input.sequence);
  }
  writer.compactSize(tx.outputs.length);
  for (const output of tx.outputs) writer.i64(output.value).varBytes(output.scriptPubKey);
  if (segwit) {
    for (const input of tx.inputs) {
      writer.compactSize(input.witness.length);
      for (const item of input.witness) writer.varBytes(item);
    }
  }
  writer.u32(tx.locktime);
  return writer.finish();
}

function readInputs(reader: ByteReader): TxIn[] {
  const count = reader.compactSize();
  const inputs: TxIn[] = [];
  for (let i = 0; i < count; i++) {
    const txid = reader.slice(32);
    const vout = reader.u32();
    const scriptSig = reader.varBytes();
    const sequence = reader.u32();
    inputs.push({ prevout: { txid, vout }, scriptSig, sequence, witness: EMPTY_WITNESS });
  }
  return inputs;
}

function readOutputs(reader: ByteReader): TxOut[] {
  const count = reader.compactSize();
  const outputs: TxOut[] = [];
  for (let i = 0; i < count; i++) {
    const value = reader.i64();
    outputs.push({ value, scriptPubKey: reader.varBytes() });
  }
  return outputs;
}

export interface ParseTransactionOptions {
  /** Accept the BIP144 extended format (default true), as Core's TX_WITH_WITNESS. */
  allowWitness?: boolean;
}

/**
 * Reads one transaction at the reader's position, following Core's UnserializeTransaction
 * exactly, including its ambiguity: an empty input list followed by a non-zero byte is
 * the segwit marker. The returned byte arrays are views into the reader's buffer.
 */
export function readTransaction(reader: ByteReader, options: ParseTransactionOptions = {}): Transaction {
  const allowWitness = options.allowWitness ?? true;
  const start = reader.offset;
  const version = reader.u32();
  let flags = 0;
  let inputs = readInputs(reader);
  let outputs: TxOut[] = [];
  if (inputs.length === 0 && allowWitness) {
    flags = reader.u8();
    if (flags !== 0) {
      inputs = readInputs(reader);
      outputs = readOutputs(reader);
    }
  } else {
    outputs = readOutputs(reader);
  }
  let witnessStart = -1;
  if ((flags & 1) !== 0 && allowWitness) {
    flags ^= 1;
    witnessStart = reader.offset - start;
    let any = false;
    for (const input of inputs) {
      const count = reader.compactSize();
      if (count === 0) continue;
      const witness: Uint8Array[] = [];
      for (let i = 0; i < count; i++) witness.push(reader.varBytes());
      // The input objects were made by readInputs just above and nobody else holds them yet.
      (input as { witness: readonly Uint8Array[] }).witness = witness;
      any = true;
    }
    if (!any) throw new DecodeError('Superfluous witness record');
  }
  if (flags !== 0) throw new DecodeError('Unknown transaction optional data');
  const locktime = reader.u32();
  const source = reader.bytes;
  const bytes = new Uint8Array(source.buffer, source.byteOffset + start, reader.offset - start);
  return new Transaction({ version, inputs, outputs, locktime }, { bytes, witnessStart });
}

/** Parses a whole byte array as exactly one transaction. */
export function parseTransaction(bytes: Uint8Array, options: ParseTransactionOptions = {}): Transaction {
  const reader = new ByteReader(bytes);
  const tx = readTransaction(reader, options);
  reader.assertEnd();
  return tx;
}

export function serializeTxOut(output: TxOut, writer = new ByteWriter(64)): Uint8Array {
  writer.i64(output.value).varBytes(output.scriptPubKey);
  return writer.finish();
}

export function readTxOut(reader: ByteReader): TxOut {
  const value = reader.i64();
  return { value, scriptPubKey: reader.varBytes() };
}

export function parseTxOut(bytes: Uint8Array): TxOut {
  const reader = new ByteReader(bytes);
  const out = readTxOut(reader);
  reader.assertEnd();
  return out;
}

export { EMPTY_BYTES };
