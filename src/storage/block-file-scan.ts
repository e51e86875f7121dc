/**
 * Walking the records of blk files without an index, for -reindex and -loadblock. The
 * search is Core's LoadExternalBlockFile: find the magic's first byte, check the four
 * magic bytes and a plausible size (80 ≤ size ≤ 4,000,000), take the block; on any
 * mismatch resume one byte after where the candidate began. Garbage between records
 * (torn appends, zero-filled preallocation, foreign data) is skipped, and a truncated
 * final record — a crash in the middle of an append — ends the scan without error.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { MAX_BLOCK_SERIALIZED_SIZE } from '../consensus/index.js';
import { blockFilePath, parseBlockFileName } from './block-file-names.js';
import { STORAGE_HEADER_BYTES } from './block-read.js';
import { xorAtOffset } from './xor-key.js';

const MIN_BLOCK_SIZE = 80;
/**
 * One window of 1 MiB, read into again and again: reading a file into fresh 16 MiB arrays
 * ran at a tenth of the speed, as every page of new memory costs a fault (about 11 µs
 * each on these machines), and a small window stays in the CPU's caches for the copy out.
 */
const DEFAULT_CHUNK = 1024 * 1024;

export interface ScannedBlock {
  /** The block's bytes (de-obfuscated, a copy the caller owns). */
  readonly bytes: Uint8Array;
  /** File number from the blkNNNNN.dat name, -1 for any other file (-loadblock=bootstrap.dat). */
  readonly file: number;
  /** Offset of the block's first byte, as an index entry would record it. */
  readonly pos: number;
}

export interface ScanOptions {
  /**
   * Whether the bytes are a block. Core's loop deserializes the block and, on failure,
   * searches on from one byte after the candidate's magic; pass a parser-backed check
   * to get that. The default takes every well-framed record.
   */
  readonly accept?: (bytes: Uint8Array) => boolean;
  /** Read granularity in bytes (default 1 MiB). */
  readonly chunkSize?: number;
}

/** A sliding, de-obfuscated window over a file, read in chunks. */
class FileWindow {
  private buffer = new Uint8Array(0);
  private start = 0;

  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly xorKey: Uint8Array,
    private readonly chunk: number,
  ) {}

  /** The memory every load reads into (grown only for a record larger than the chunk). */
  private memory = new Uint8Array(0);

  private load(position: number, minimum: number): void {
    const length = Math.min(Math.max(minimum, this.chunk), this.size - position);
    if (this.memory.length < length) this.memory = new Uint8Array(length);
    const buffer = this.memory;
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buffer, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    this.buffer = buffer.subarray(0, done);
    this.start = position;
    xorAtOffset(this.buffer, this.xorKey, position);
  }

  /** Bytes [position, position + length), or undefined when the file ends first. */
  view(position: number, length: number): Uint8Array | undefined {
    if (position + length > this.size) return undefined;
    const end = this.start + this.buffer.length;
    if (position < this.start || position + length > end) this.load(position, length);
    if (position + length > this.start + this.buffer.length) return undefined;
    return this.buffer.subarray(position - this.start, position - this.start + length);
  }

  /** Offset of the next `byte` at or after `position`, or -1. */
  find(byte: number, position: number): number {
    let at = position;
    while (at < this.size) {
      if (at < this.start || at >= this.start + this.buffer.length) {
        this.load(at, 1);
        if (this.buffer.length === 0) return -1;
      }
      const found = this.buffer.indexOf(byte, at - this.start);
      if (found >= 0) return this.start + found;
      at = this.start + this.buffer.length;
    }
    return -1;
  }
}

/** Every block record in one file, in file order. */
export function* scanBlockFile(path: string, magic: Uint8Array, xorKey: Uint8Array, options: ScanOptions = {}): Generator<ScannedBlock> {
  const file = parseBlockFileName(basename(path)) ?? -1;
  const accept = options.accept ?? (() => true);
  const fd = openSync(path, 'r');
  try {
    const window = new FileWindow(fd, fstatSync(fd).size, xorKey, options.chunkSize ?? DEFAULT_CHUNK);
    let position = 0;
    while (position < window.size) {
      const candidate = window.find(magic[0]!, position);
      if (candidate < 0) return;
      // Whatever happens to this candidate, the search resumes after its first byte.
      position = candidate + 1;
      const header = window.view(candidate, STORAGE_HEADER_BYTES);
      if (!header) return;
      if (header[1] !== magic[1] || header[2] !== magic[2] || header[3] !== magic[3]) continue;
      const size = new DataView(header.buffer, header.byteOffset, STORAGE_HEADER_BYTES).getUint32(4, true);
      if (size < MIN_BLOCK_SIZE || size > MAX_BLOCK_SERIALIZED_SIZE) continue;
      const body = window.view(candidate + STORAGE_HEADER_BYTES, size);
      // A record cut short by the end of the file (a torn append). Like Core, search on
      // from the next byte: the rest of the file is that record's partial body.
      if (!body) continue;
      // A copy: the window's memory is read into again.
      const bytes = body.slice();
      if (!accept(bytes)) continue;
      yield { bytes, file, pos: candidate + STORAGE_HEADER_BYTES };
      position = candidate + STORAGE_HEADER_BYTES + size;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Every block of blk00000.dat, blk00001.dat, ... up to the first missing number, as
 * Core's -reindex walks them.
 */
export function* scanBlocksDir(blocksDir: string, magic: Uint8Array, xorKey: Uint8Array, options: ScanOptions = {}): Generator<ScannedBlock> {
  for (let file = 0; existsSync(blockFilePath(blocksDir, file)); file++) {
    yield* scanBlockFile(blockFilePath(blocksDir, file), magic, xorKey, options);
  }
}
