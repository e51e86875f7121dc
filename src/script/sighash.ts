/**
 * Signature hashes: legacy (with Core's exact scriptCode serialization, including its
 * handling of OP_CODESEPARATOR and of scripts that do not parse), BIP143 (segwit v0) and
 * BIP341/342 (taproot), with the per-transaction midstates computed once and shared.
 */
import { ByteWriter, sha256, sha256d, taggedHashPrefix, type Transaction, type TxOut } from '../primitives/index.js';
import { OP } from './opcodes.js';

/**
 * Scratch writers: a sighash is hashed as soon as it is written, so one buffer per kind of
 * use serves every input instead of a fresh buffer (and its DataView) per hash. Midstates
 * and messages have separate writers because a message pulls midstates while it is
 * being written.
 */
const midstateScratch = new ByteWriter(4096);
const messageScratch = new ByteWriter(1024);

export const SIGHASH_DEFAULT = 0x00;
export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;
export const SIGHASH_OUTPUT_MASK = 0x03;
export const SIGHASH_INPUT_MASK = 0x80;

/** uint256 ONE: what the legacy sighash returns for SIGHASH_SINGLE without a matching output. */
export const SIGHASH_ONE: Uint8Array = (() => {
  const one = new Uint8Array(32);
  one[0] = 1;
  return one;
})();

/**
 * Where GetScriptOp leaves its cursor: past the element on success, and on failure past
 * whatever length bytes it managed to read. Core's scriptCode serialization copies bytes
 * up to that cursor, so an unparsable script hashes exactly as Core hashes it.
 */
function stepOp(script: Uint8Array, pc: number): { ok: boolean; opcode: number; next: number } {
  const opcode = script[pc]!;
  let cursor = pc + 1;
  if (opcode > OP.OP_PUSHDATA4) return { ok: true, opcode, next: cursor };
  let size: number;
  const end = script.length;
  if (opcode < OP.OP_PUSHDATA1) size = opcode;
  else if (opcode === OP.OP_PUSHDATA1) {
    if (end - cursor < 1) return { ok: false, opcode, next: cursor };
    size = script[cursor]!;
    cursor += 1;
  } else if (opcode === OP.OP_PUSHDATA2) {
    if (end - cursor < 2) return { ok: false, opcode, next: cursor };
    size = script[cursor]! | (script[cursor + 1]! << 8);
    cursor += 2;
  } else {
    if (end - cursor < 4) return { ok: false, opcode, next: cursor };
    size = (script[cursor]! | (script[cursor + 1]! << 8) | (script[cursor + 2]! << 16) | (script[cursor + 3]! << 24)) >>> 0;
    cursor += 4;
  }
  if (end - cursor < size) return { ok: false, opcode, next: cursor };
  return { ok: true, opcode, next: cursor + size };
}

/** Core's CTransactionSignatureSerializer::SerializeScriptCode: the script minus its OP_CODESEPARATORs. */
function writeLegacyScriptCode(writer: ByteWriter, scriptCode: Uint8Array): void {
  let separators = 0;
  for (let pc = 0; pc < scriptCode.length; ) {
    const step = stepOp(scriptCode, pc);
    if (!step.ok) break;
    if (step.opcode === OP.OP_CODESEPARATOR) separators++;
    pc = step.next;
  }
  writer.compactSize(scriptCode.length - separators);
  if (separators === 0) {
    writer.bytes(scriptCode);
    return;
  }
  let begin = 0;
  let pc = 0;
  while (pc < scriptCode.length) {
    const step = stepOp(scriptCode, pc);
    pc = step.next;
    if (!step.ok) break;
    if (step.opcode === OP.OP_CODESEPARATOR) {
      writer.bytes(scriptCode.subarray(begin, pc - 1));
      begin = pc;
    }
  }
  if (begin !== scriptCode.length) writer.bytes(scriptCode.subarray(begin, pc));
}

/**
 * Legacy signature hash. `hashType` is the full signed 32-bit value (it is serialized
 * whole; only its low bits pick the mode), which sighash.json exercises.
 */
export function legacySignatureHash(scriptCode: Uint8Array, tx: Transaction, inputIndex: number, hashType: number): Uint8Array {
  if (inputIndex >= tx.inputs.length) return SIGHASH_ONE;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const base = hashType & 0x1f;
  const hashSingle = base === SIGHASH_SINGLE;
  const hashNone = base === SIGHASH_NONE;
  if (hashSingle && inputIndex >= tx.outputs.length) return SIGHASH_ONE;

  const inputCount = anyoneCanPay ? 1 : tx.inputs.length;
  const outputCount = hashNone ? 0 : hashSingle ? inputIndex + 1 : tx.outputs.length;
  // The scratch writer keeps the largest buffer it has needed, so a transaction with many
  // inputs (the quadratic legacy sighash) grows it once, not once per input.
  const writer = messageScratch.reset();
  writer.u32(tx.version);
  writer.compactSize(inputCount);
  for (let i = 0; i < inputCount; i++) {
    const n = anyoneCanPay ? inputIndex : i;
    const input = tx.inputs[n]!;
    writer.bytes(input.prevout.txid).u32(input.prevout.vout);
    if (n === inputIndex) writeLegacyScriptCode(writer, scriptCode);
    else writer.compactSize(0);
    if (n !== inputIndex && (hashSingle || hashNone)) writer.u32(0);
    else writer.u32(input.sequence);
  }
  writer.compactSize(outputCount);
  for (let i = 0; i < outputCount; i++) {
    if (hashSingle && i !== inputIndex) {
      writer.i64(-1n).compactSize(0);
    } else {
      const out = tx.outputs[i]!;
      writer.i64(out.value).varBytes(out.scriptPubKey);
    }
  }
  writer.u32(tx.locktime);
  writer.i32(hashType);
  return sha256d(writer.finish());
}

/**
 * Per-transaction hashes shared by all inputs (Core's PrecomputedTransactionData):
 * single-SHA256 midstates of prevouts, sequences, outputs, spent amounts and scripts.
 * BIP143 uses their SHA256 again; BIP341 uses them as they are. Computed on first use.
 */
export class PrecomputedTransactionData {
  readonly tx: Transaction;
  /** One per input, or undefined when the spent outputs are unknown (taproot sighash then fails). */
  readonly spentOutputs: readonly TxOut[] | undefined;
  private prevouts?: Uint8Array;
  private sequences?: Uint8Array;
  private outputs?: Uint8Array;
  private amounts?: Uint8Array;
  private scripts?: Uint8Array;
  private v0Prevouts?: Uint8Array;
  private v0Sequences?: Uint8Array;
  private v0Outputs?: Uint8Array;

  constructor(tx: Transaction, spentOutputs?: readonly TxOut[]) {
    this.tx = tx;
    this.spentOutputs = spentOutputs && spentOutputs.length === tx.inputs.length ? spentOutputs : undefined;
  }

  get prevoutsHash(): Uint8Array {
    if (!this.prevouts) {
      const w = midstateScratch.reset();
      for (const input of this.tx.inputs) w.bytes(input.prevout.txid).u32(input.prevout.vout);
      this.prevouts = sha256(w.finish());
    }
    return this.prevouts;
  }

  get sequencesHash(): Uint8Array {
    if (!this.sequences) {
      const w = midstateScratch.reset();
      for (const input of this.tx.inputs) w.u32(input.sequence);
      this.sequences = sha256(w.finish());
    }
    return this.sequences;
  }

  get outputsHash(): Uint8Array {
    if (!this.outputs) {
      const w = midstateScratch.reset();
      for (const out of this.tx.outputs) w.i64(out.value).varBytes(out.scriptPubKey);
      this.outputs = sha256(w.finish());
    }
    return this.outputs;
  }

  get amountsHash(): Uint8Array | undefined {
    if (!this.amounts && this.spentOutputs) {
      const w = midstateScratch.reset();
      for (const out of this.spentOutputs) w.i64(out.value);
      this.amounts = sha256(w.finish());
    }
    return this.amounts;
  }

  get scriptsHash(): Uint8Array | undefined {
    if (!this.scripts && this.spentOutputs) {
      const w = midstateScratch.reset();
      for (const out of this.spentOutputs) w.varBytes(out.scriptPubKey);
      this.scripts = sha256(w.finish());
    }
    return this.scripts;
  }

  get bip143Prevouts(): Uint8Array {
    this.v0Prevouts ??= sha256(this.prevoutsHash);
    return this.v0Prevouts;
  }

  get bip143Sequences(): Uint8Array {
    this.v0Sequences ??= sha256(this.sequencesHash);
    return this.v0Sequences;
  }

  get bip143Outputs(): Uint8Array {
    this.v0Outputs ??= sha256(this.outputsHash);
    return this.v0Outputs;
  }
}

const ZERO_HASH: Uint8Array = new Uint8Array(32);

/** BIP143 signature hash for segwit v0 inputs. */
export function witnessV0SignatureHash(
  scriptCode: Uint8Array,
  tx: Transaction,
  inputIndex: number,
  hashType: number,
  amount: bigint,
  txdata: PrecomputedTransactionData = new PrecomputedTransactionData(tx),
): Uint8Array {
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const base = hashType & 0x1f;
  const hashPrevouts = anyoneCanPay ? ZERO_HASH : txdata.bip143Prevouts;
  const hashSequence = !anyoneCanPay && base !== SIGHASH_SINGLE && base !== SIGHASH_NONE ? txdata.bip143Sequences : ZERO_HASH;
  let hashOutputs: Uint8Array = ZERO_HASH;
  if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) {
    hashOutputs = txdata.bip143Outputs;
  } else if (base === SIGHASH_SINGLE && inputIndex < tx.outputs.length) {
    const out = tx.outputs[inputIndex]!;
    hashOutputs = sha256d(new ByteWriter(64).i64(out.value).varBytes(out.scriptPubKey).finish());
  }
  const input = tx.inputs[inputIndex]!;
  const w = messageScratch.reset();
  w.u32(tx.version).bytes(hashPrevouts).bytes(hashSequence);
  w.bytes(input.prevout.txid).u32(input.prevout.vout);
  w.varBytes(scriptCode).i64(amount).u32(input.sequence);
  w.bytes(hashOutputs).u32(tx.locktime).i32(hashType);
  return sha256d(w.finish());
}

/** What BIP341/342 signature hashes commit to beyond the transaction: the execution context. */
export interface TaprootExecutionContext {
  /** SHA256 of the annex (CompactSize length prefix included), when one is present. */
  annexHash: Uint8Array | undefined;
  /** Tapscript only: the leaf hash and the opcode position of the last executed OP_CODESEPARATOR. */
  tapleafHash?: Uint8Array;
  codeseparatorPosition?: number;
}

/**
 * BIP341 signature hash (Core's SignatureHashSchnorr). Returns null where Core fails:
 * an undefined hash type, SIGHASH_SINGLE without a matching output, or unknown spent outputs.
 */
export function taprootSignatureHash(
  tx: Transaction,
  inputIndex: number,
  hashType: number,
  txdata: PrecomputedTransactionData,
  context: TaprootExecutionContext,
  tapscript: boolean,
): Uint8Array | null {
  // The tag's 64-byte prefix goes first in the scratch writer, so the message is hashed where it is written.
  const w = messageScratch.reset().bytes(TAP_SIGHASH_PREFIX);
  return writeTaprootSignatureMessage(w, tx, inputIndex, hashType, txdata, context, tapscript) ? sha256(w.finish()) : null;
}

const TAP_SIGHASH_PREFIX = taggedHashPrefix('TapSighash');

/** The BIP341 SigMsg preimage (with its leading epoch byte) that taprootSignatureHash tags and hashes. */
export function taprootSignatureMessage(
  tx: Transaction,
  inputIndex: number,
  hashType: number,
  txdata: PrecomputedTransactionData,
  context: TaprootExecutionContext,
  tapscript: boolean,
): Uint8Array | null {
  const w = new ByteWriter(256);
  return writeTaprootSignatureMessage(w, tx, inputIndex, hashType, txdata, context, tapscript) ? w.finish() : null;
}

/** Appends the SigMsg preimage to `w`; false (with `w` in an unspecified state) where Core fails. */
function writeTaprootSignatureMessage(
  w: ByteWriter,
  tx: Transaction,
  inputIndex: number,
  hashType: number,
  txdata: PrecomputedTransactionData,
  context: TaprootExecutionContext,
  tapscript: boolean,
): boolean {
  if (!(hashType <= 0x03 || (hashType >= 0x81 && hashType <= 0x83))) return false;
  const spent = txdata.spentOutputs;
  if (!spent) return false;
  const outputType = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType & SIGHASH_OUTPUT_MASK;
  const anyoneCanPay = (hashType & SIGHASH_INPUT_MASK) === SIGHASH_ANYONECANPAY;
  if (outputType === SIGHASH_SINGLE && inputIndex >= tx.outputs.length) return false;

  w.u8(0); // epoch
  w.u8(hashType);
  w.u32(tx.version).u32(tx.locktime);
  if (!anyoneCanPay) {
    w.bytes(txdata.prevoutsHash).bytes(txdata.amountsHash!).bytes(txdata.scriptsHash!).bytes(txdata.sequencesHash);
  }
  if (outputType === SIGHASH_ALL) w.bytes(txdata.outputsHash);
  const spendType = (tapscript ? 2 : 0) + (context.annexHash ? 1 : 0);
  w.u8(spendType);
  if (anyoneCanPay) {
    const input = tx.inputs[inputIndex]!;
    const out = spent[inputIndex]!;
    w.bytes(input.prevout.txid).u32(input.prevout.vout);
    w.i64(out.value).varBytes(out.scriptPubKey);
    w.u32(input.sequence);
  } else {
    w.u32(inputIndex);
  }
  if (context.annexHash) w.bytes(context.annexHash);
  if (outputType === SIGHASH_SINGLE) {
    const out = tx.outputs[inputIndex]!;
    w.bytes(sha256(new ByteWriter(64).i64(out.value).varBytes(out.scriptPubKey).finish()));
  }
  if (tapscript) {
    w.bytes(context.tapleafHash!);
    w.u8(0); // key_version
    w.u32(context.codeseparatorPosition ?? 0xffffffff);
  }
  return true;
}
