/**
 * The wire format between the coordinator and a verify worker. A task is ONE ArrayBuffer,
 * transferred (not copied) to the worker: structured-cloning arrays of objects costs more
 * than the hashing it feeds, while a moved buffer costs nothing and the worker parses it
 * with views, no copies.
 *
 * Every integer is little-endian; nothing is aligned.
 *
 * | field | type | meaning |
 * |---|---|---|
 * | magic | u32 | `TASK_MAGIC` ("TSV2"), so a stray message fails loudly |
 * | options | u32 | `STORE_SIGNATURES` when valid signatures go into the signature cache |
 * | itemCount | u32 | number of transaction items that follow |
 * | per item: txIndex | u32 | the item's index in the caller's job list, echoed back in verdicts |
 * | flags | u32 | script verification flags (VerifyFlags bits) |
 * | txLength | u32 | length of the serialized transaction |
 * | txBytes | txLength bytes | the transaction, with witness data when it has any (BIP144) |
 * | spentCount | u32 | number of spent outputs: one per input of the transaction |
 * | per spent output: amount | i64 | satoshis |
 * | scriptLength | u32 | length of the scriptPubKey |
 * | script | scriptLength bytes | the scriptPubKey |
 * | checkCount | u32 | `ALL_INPUTS` to check every input, otherwise how many indexes follow |
 * | per checked input: index | u32 | an input index, ascending |
 *
 * The reply is not in this format: it is the small ScriptCheckResult object, which
 * structured clone handles cheaply.
 */
import { ByteReader, ByteWriter, DecodeError, type TxOut } from '../src/primitives/index.js';

/** "TSV2" read as a little-endian u32. */
export const TASK_MAGIC = 0x32565354;
/** Task option bit: add the signatures found valid to the shared signature cache (mempool checks). */
export const STORE_SIGNATURES = 1;

/** What applies to every item of a task. */
export interface TaskOptions {
  readonly storeSignatures: boolean;
}

const NO_STORE: TaskOptions = { storeSignatures: false };
/** checkCount value meaning "every input of the transaction". */
export const ALL_INPUTS = 0xffffffff;

export interface TaskItem {
  readonly txIndex: number;
  readonly flags: number;
  readonly txBytes: Uint8Array;
  readonly spentOutputs: readonly TxOut[];
  /** Input indexes to check; null checks every input. */
  readonly inputs: readonly number[] | null;
}

/** The buffer a task carries was not produced by encodeTask (wrong magic, truncated, trailing bytes). */
export class TaskMessageError extends Error {
  override readonly name = 'TaskMessageError';
}

const U32_MAX = 0xffffffff;

function checkU32(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > U32_MAX) throw new RangeError(`${what} ${value} does not fit in u32`);
}

/** Exact encoded size, so the buffer is allocated once and transferred without slack. */
export function encodedTaskSize(items: readonly TaskItem[]): number {
  let size = 12;
  for (const item of items) {
    // txIndex, flags, txLength, spentCount and checkCount: five u32s.
    size += 20 + item.txBytes.length;
    for (const out of item.spentOutputs) size += 12 + out.scriptPubKey.length;
    if (item.inputs) size += 4 * item.inputs.length;
  }
  return size;
}

export function encodeTask(items: readonly TaskItem[], options: TaskOptions = NO_STORE): ArrayBuffer {
  const size = encodedTaskSize(items);
  const writer = new ByteWriter(size);
  checkU32(items.length, 'item count');
  writer.u32(TASK_MAGIC).u32(options.storeSignatures ? STORE_SIGNATURES : 0).u32(items.length);
  for (const item of items) {
    checkU32(item.txIndex, 'txIndex');
    checkU32(item.flags, 'flags');
    writer.u32(item.txIndex).u32(item.flags).u32(item.txBytes.length).bytes(item.txBytes);
    writer.u32(item.spentOutputs.length);
    for (const out of item.spentOutputs) writer.i64(out.value).u32(out.scriptPubKey.length).bytes(out.scriptPubKey);
    if (item.inputs === null) {
      writer.u32(ALL_INPUTS);
    } else {
      // ALL_INPUTS is reserved; a real list is bounded far below it by the transaction size limit.
      if (item.inputs.length >= ALL_INPUTS) throw new RangeError('too many input indexes');
      writer.u32(item.inputs.length);
      for (const index of item.inputs) {
        checkU32(index, 'input index');
        writer.u32(index);
      }
    }
  }
  const bytes = writer.finish();
  // The writer was sized exactly, so it never grew: its buffer is exactly the message.
  if (bytes.byteOffset !== 0 || bytes.buffer.byteLength !== size || bytes.length !== size) {
    throw new Error(`task encoder wrote ${bytes.length} bytes, expected ${size}`);
  }
  return bytes.buffer as ArrayBuffer;
}

/** Decodes a task buffer's items; the returned byte arrays are views into it. */
export function decodeTask(buffer: ArrayBuffer): TaskItem[] {
  return decodeTaskMessage(buffer).items;
}

/** Decodes a whole task: its options and its items (views into the buffer). */
export function decodeTaskMessage(buffer: ArrayBuffer): { options: TaskOptions; items: TaskItem[] } {
  const reader = new ByteReader(new Uint8Array(buffer));
  try {
    if (reader.u32() !== TASK_MAGIC) throw new TaskMessageError('not a verify task (bad magic)');
    const optionBits = reader.u32();
    if ((optionBits & ~STORE_SIGNATURES) !== 0) throw new TaskMessageError(`unknown task option bits ${optionBits}`);
    const options: TaskOptions = { storeSignatures: (optionBits & STORE_SIGNATURES) !== 0 };
    const count = reader.u32();
    const items: TaskItem[] = [];
    for (let i = 0; i < count; i++) {
      const txIndex = reader.u32();
      const flags = reader.u32();
      const txBytes = reader.slice(reader.u32());
      const spentCount = reader.u32();
      // Each spent output takes at least 12 bytes: refuse counts the buffer cannot hold before allocating.
      if (spentCount * 12 > reader.remaining) throw new TaskMessageError(`spent output count ${spentCount} exceeds the message`);
      const spentOutputs: TxOut[] = [];
      for (let j = 0; j < spentCount; j++) {
        const value = reader.i64();
        spentOutputs.push({ value, scriptPubKey: reader.slice(reader.u32()) });
      }
      const checkCount = reader.u32();
      let inputs: number[] | null = null;
      if (checkCount !== ALL_INPUTS) {
        if (checkCount * 4 > reader.remaining) throw new TaskMessageError(`input count ${checkCount} exceeds the message`);
        inputs = [];
        for (let j = 0; j < checkCount; j++) inputs.push(reader.u32());
      }
      items.push({ txIndex, flags, txBytes, spentOutputs, inputs });
    }
    reader.assertEnd();
    return { options, items };
  } catch (err) {
    if (err instanceof DecodeError) throw new TaskMessageError(`malformed verify task: ${err.message}`);
    throw err;
  }
}
