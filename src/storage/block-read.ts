/**
 * Reading one record of a blk file, written once as a sequence of positioned reads and
 * run either synchronously (the coordinator) or asynchronously (front-ends, which must
 * not stall their event loop on a cold disk). A record is magic (4) ‖ LE32 size ‖ block;
 * positions name the block's first byte, 8 bytes after the record start, as Core's
 * FlatFilePos does. Every read checks the header first, so a wrong position fails as a
 * typed error instead of returning someone else's bytes.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { open as openAsync, type FileHandle } from 'node:fs/promises';
import { BlockFileError } from './errors.js';
import { xorAtOffset } from './xor-key.js';

export const STORAGE_HEADER_BYTES = 8;
/** Core's MAX_SIZE: the largest record size a read accepts (a sanity bound, not consensus). */
export const MAX_RECORD_SIZE = 0x02000000;

export interface FlatFilePos {
  readonly file: number;
  /** Offset of the block's first byte in the file (after the 8-byte record header). */
  readonly pos: number;
}

/** A positioned read: `length` bytes at file offset `position`. */
interface ReadStep {
  readonly position: number;
  readonly length: number;
}

/** A read plan: yields the reads it needs, receives their (possibly short) results. */
export type ReadPlan<T> = Generator<ReadStep, T, Uint8Array>;

export interface RecordContext {
  readonly path: string;
  readonly magic: Uint8Array;
  readonly xorKey: Uint8Array;
}

function where(ctx: RecordContext, pos: FlatFilePos): string {
  return `${ctx.path} at ${pos.pos}`;
}

/** Reads and checks the record header; returns the block size. */
function* readRecordHeader(ctx: RecordContext, pos: FlatFilePos): ReadPlan<number> {
  if (!Number.isInteger(pos.pos) || pos.pos < STORAGE_HEADER_BYTES) {
    throw new BlockFileError('bad-position', `block position ${pos.pos} in ${ctx.path} is before the first record body`);
  }
  const start = pos.pos - STORAGE_HEADER_BYTES;
  const header = yield { position: start, length: STORAGE_HEADER_BYTES };
  if (header.length < STORAGE_HEADER_BYTES) {
    throw new BlockFileError(header.length === 0 ? 'bad-position' : 'truncated', `no record header for ${where(ctx, pos)}`);
  }
  xorAtOffset(header, ctx.xorKey, start);
  for (let i = 0; i < 4; i++) {
    if (header[i] !== ctx.magic[i]) throw new BlockFileError('bad-magic', `record at ${where(ctx, pos)} does not start with the network magic`);
  }
  const size = new DataView(header.buffer, header.byteOffset, 8).getUint32(4, true);
  if (size > MAX_RECORD_SIZE) throw new BlockFileError('bad-size', `record at ${where(ctx, pos)} claims ${size} bytes`);
  return size;
}

function* readBody(ctx: RecordContext, pos: FlatFilePos, offset: number, length: number): ReadPlan<Uint8Array> {
  const position = pos.pos + offset;
  const bytes = yield { position, length };
  if (bytes.length < length) throw new BlockFileError('truncated', `file ends inside the block at ${where(ctx, pos)}`);
  xorAtOffset(bytes, ctx.xorKey, position);
  return bytes;
}

/** The whole block. */
export function* planBlock(ctx: RecordContext, pos: FlatFilePos): ReadPlan<Uint8Array> {
  const size = yield* readRecordHeader(ctx, pos);
  return yield* readBody(ctx, pos, 0, size);
}

/** `length` bytes from `offset` within the block; only those bytes are read. */
export function* planRange(ctx: RecordContext, pos: FlatFilePos, offset: number, length: number): ReadPlan<Uint8Array> {
  if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0) {
    throw new BlockFileError('out-of-range', `invalid range ${offset}+${length}`);
  }
  const size = yield* readRecordHeader(ctx, pos);
  if (offset + length > size) {
    throw new BlockFileError('out-of-range', `range ${offset}+${length} exceeds the ${size}-byte block at ${where(ctx, pos)}`);
  }
  return yield* readBody(ctx, pos, offset, length);
}

/** The block's size from its record header. */
export function* planSize(ctx: RecordContext, pos: FlatFilePos): ReadPlan<number> {
  return yield* readRecordHeader(ctx, pos);
}

function missing(ctx: RecordContext, err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOENT'
    ? new BlockFileError('missing', `block file ${ctx.path} does not exist`, { cause: err })
    : err;
}

/**
 * A plain Uint8Array of `length` bytes left unfilled (a read overwrites them): zeroing a
 * 118 kB block's buffer cost as much as reading it.
 */
function readBuffer(length: number): Uint8Array {
  return new Uint8Array(Buffer.allocUnsafeSlow(length).buffer, 0, length);
}

function readFully(fd: number, step: ReadStep): Uint8Array {
  const out = readBuffer(step.length);
  let done = 0;
  while (done < step.length) {
    const n = readSync(fd, out, done, step.length - done, step.position + done);
    if (n === 0) break;
    done += n;
  }
  return done === step.length ? out : out.subarray(0, done);
}

async function readFullyAsync(handle: FileHandle, step: ReadStep): Promise<Uint8Array> {
  const out = readBuffer(step.length);
  let done = 0;
  while (done < step.length) {
    const { bytesRead } = await handle.read(out, done, step.length - done, step.position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === step.length ? out : out.subarray(0, done);
}

/** Opens the context's file for reading; a missing file is a BlockFileError('missing'). */
export function openRecordFile(ctx: RecordContext): number {
  try {
    return openSync(ctx.path, 'r');
  } catch (err) {
    throw missing(ctx, err);
  }
}

/** Runs a plan on a descriptor the caller opened (with openRecordFile) and keeps. */
export function runSyncOn<T>(fd: number, plan: ReadPlan<T>): T {
  let step = plan.next();
  while (!step.done) step = plan.next(readFully(fd, step.value));
  return step.value;
}

export function runSync<T>(ctx: RecordContext, plan: ReadPlan<T>): T {
  const fd = openRecordFile(ctx);
  try {
    return runSyncOn(fd, plan);
  } finally {
    closeSync(fd);
  }
}

export async function runAsync<T>(ctx: RecordContext, plan: ReadPlan<T>): Promise<T> {
  let handle: FileHandle;
  try {
    handle = await openAsync(ctx.path, 'r');
  } catch (err) {
    throw missing(ctx, err);
  }
  try {
    let step = plan.next();
    while (!step.done) step = plan.next(await readFullyAsync(handle, step.value));
    return step.value;
  } finally {
    await handle.close();
  }
}
