/**
 * The flat block files, in Bitcoin Core's format so a Core blocks directory can be read
 * (and ours read by Core): `blocks/blkNNNNN.dat`, each a sequence of records
 * magic (4) ‖ LE32 size ‖ block, XORed with blocks/xor.dat's key by file offset, a file
 * taking records until the next would bring it to 128 MiB.
 *
 * Crash safety rests on two rules:
 * - Blocks are only ever appended, and a block is fsynced before anything points at it:
 *   appendBlock syncs by default, and ChainstateWriter.saveBlockFileInfo syncs any block
 *   appended with `sync: false` before the batch carrying its index entry can commit.
 * - The append position is the file's real end on disk, never a size remembered in the
 *   database. A crash after an append but before the index commit leaves an unreferenced
 *   record (or a torn tail) that is simply never pointed at — nothing committed is ever
 *   overwritten, and a -reindex scan skips the garbage.
 */
import { closeSync, constants, fdatasync, fdatasyncSync, fstatSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { addBlockToFileInfo, EMPTY_BLOCK_FILE_INFO, type BlockFileInfo, type DirtyFileInfo, type FileInfoSource } from './block-file-info.js';
import { blockFilePath, listBlockFiles } from './block-file-names.js';
import { planBlock, planRange, planSize, openRecordFile, runAsync, runSync, runSyncOn, STORAGE_HEADER_BYTES, type FlatFilePos, type ReadPlan, type RecordContext } from './block-read.js';
import { BlockFileError, StorageError } from './errors.js';
import { fsyncDirectory } from './fs-durable.js';
import { initBlocksXorKey, xorAtOffset } from './xor-key.js';

/** Core's MAX_BLOCKFILE_SIZE. */
export const MAX_BLOCKFILE_SIZE = 0x8000000;
/** Read descriptors a writable store keeps open (see readFds). */
const READ_FDS_KEPT = 4;
const HEADER_SIZE = 80;
const HEADER_TIME_OFFSET = 68;

export interface BlockFileStoreOptions {
  /** Front-ends: read blocks, never create, write or delete anything. */
  readonly readOnly?: boolean;
  /** -blocksxor (default true): obfuscate a new blocks directory with a random key. */
  readonly xor?: boolean;
  /** Bytes at which a file is full (default 128 MiB; tests use less). */
  readonly maxFileSize?: number;
  /** Saved per-file statistics (ChainstateReader.fileInfos()); sizes are re-read from disk. */
  readonly fileInfo?: Iterable<readonly [number, BlockFileInfo]>;
}

export interface AppendOptions {
  /**
   * fsync the file before returning (default true). With false, the block is durable
   * only after flush() — which saveBlockFileInfo calls before the index commits.
   */
  readonly sync?: boolean;
}

function readHeaderTime(block: Uint8Array): number {
  return new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(HEADER_TIME_OFFSET, true);
}

export class BlockFileStore implements FileInfoSource {
  readonly blocksDir: string;
  readonly magic: Uint8Array;
  readonly xorKey: Uint8Array;
  readonly readOnly: boolean;
  readonly maxFileSize: number;

  private readonly infos = new Map<number, BlockFileInfo>();
  /** Files whose info changed since last saved, with the change counter at that change. */
  private readonly dirty = new Map<number, number>();
  private changeCounter = 0;
  private writeFile: number;
  private writeFd: number | undefined;
  /** The current write file has data not yet fsynced. */
  private unsynced = false;
  /** A file was created since the directory was last fsynced. */
  private directoryUnsynced = false;
  private closed = false;
  /**
   * Read descriptors of the files read last, most recent last (the writer only). Opening
   * and closing a file for each block read cost more than the read itself: connecting
   * reads back every block it stored. A read-only store (a front-end) opens per read, as
   * another process may prune the file.
   */
  private readonly readFds = new Map<number, number>();
  /** Where appendBlock assembles a record (grown on demand). */
  private recordScratch = new Uint8Array(64 * 1024);

  private constructor(blocksDir: string, magic: Uint8Array, xorKey: Uint8Array, readOnly: boolean, maxFileSize: number) {
    this.blocksDir = blocksDir;
    this.magic = magic;
    this.xorKey = xorKey;
    this.readOnly = readOnly;
    this.maxFileSize = maxFileSize;
    this.writeFile = 0;
  }

  /**
   * Opens the blocks directory: settles the XOR key (creating blocks/ and xor.dat for a
   * writer), takes every blk file's size from disk and the rest of its statistics from
   * `fileInfo`. New blocks go to the highest-numbered file.
   */
  static open(blocksDir: string, magic: Uint8Array, options: BlockFileStoreOptions = {}): BlockFileStore {
    if (magic.length !== 4) throw new RangeError('network magic must be 4 bytes');
    const maxFileSize = options.maxFileSize ?? MAX_BLOCKFILE_SIZE;
    if (!Number.isInteger(maxFileSize) || maxFileSize <= STORAGE_HEADER_BYTES + HEADER_SIZE || maxFileSize > 0xffffffff) {
      throw new RangeError(`maxFileSize out of range: ${maxFileSize}`);
    }
    const readOnly = options.readOnly ?? false;
    const xorKey = initBlocksXorKey(blocksDir, magic, { readOnly, xor: options.xor ?? true });
    const store = new BlockFileStore(blocksDir, Uint8Array.from(magic), xorKey, readOnly, maxFileSize);
    store.loadFileInfo(options.fileInfo ?? []);
    return store;
  }

  private loadFileInfo(saved: Iterable<readonly [number, BlockFileInfo]>): void {
    const savedInfo = new Map(saved);
    const present = listBlockFiles(this.blocksDir);
    for (const file of present) {
      const size = statSync(blockFilePath(this.blocksDir, file)).size;
      const known = savedInfo.get(file);
      this.infos.set(file, { ...(known ?? EMPTY_BLOCK_FILE_INFO), size });
      // A size that moved (an append whose index never committed) is saved again.
      if (!known || known.size !== size) this.markDirty(file);
    }
    // Info for a file that is gone (deleted after the info was saved) is dropped.
    for (const file of savedInfo.keys()) if (!this.infos.has(file)) this.markDirty(file);
    this.writeFile = present.length > 0 ? present[present.length - 1]! : 0;
  }

  private markDirty(file: number): void {
    this.dirty.set(file, ++this.changeCounter);
  }

  private checkWritable(): void {
    if (this.closed) throw new StorageError('block file store is closed');
    if (this.readOnly) throw new BlockFileError('read-only', `block files in ${this.blocksDir} are open read-only`);
  }

  private context(file: number): RecordContext {
    if (!Number.isInteger(file) || file < 0) throw new BlockFileError('bad-position', `invalid block file number ${file}`);
    return { path: blockFilePath(this.blocksDir, file), magic: this.magic, xorKey: this.xorKey };
  }

  /** The file new blocks are appended to. */
  get currentFile(): number {
    return this.writeFile;
  }

  private openWriteFile(): number {
    if (this.writeFd !== undefined) return this.writeFd;
    const path = blockFilePath(this.blocksDir, this.writeFile);
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    // Not O_APPEND: writes go to an explicit offset, the file's size at open.
    const size = fstatSync(fd).size;
    const info = this.infos.get(this.writeFile);
    if (!info) {
      this.infos.set(this.writeFile, { ...EMPTY_BLOCK_FILE_INFO, size });
      this.markDirty(this.writeFile);
      this.directoryUnsynced = true;
    } else if (info.size !== size) {
      this.infos.set(this.writeFile, { ...info, size });
      this.markDirty(this.writeFile);
    }
    this.writeFd = fd;
    return fd;
  }

  private closeWriteFile(): void {
    if (this.writeFd === undefined) return;
    this.flush();
    closeSync(this.writeFd);
    this.writeFd = undefined;
  }

  /**
   * Appends a block record and returns where the block starts. The block is durable when
   * this returns unless `sync: false` was asked for. `height` feeds the file's statistics.
   */
  appendBlock(block: Uint8Array, height: number, options: AppendOptions = {}): FlatFilePos {
    this.checkWritable();
    if (block.length < HEADER_SIZE) throw new RangeError(`a block is at least ${HEADER_SIZE} bytes, got ${block.length}`);
    const recordLength = STORAGE_HEADER_BYTES + block.length;
    let fd = this.openWriteFile();
    let info = this.infos.get(this.writeFile)!;
    if (info.size > 0 && info.size + recordLength >= this.maxFileSize) {
      // Core's rule: a record that would bring the file to the limit opens the next file.
      this.closeWriteFile();
      this.writeFile++;
      fd = this.openWriteFile();
      info = this.infos.get(this.writeFile)!;
    }
    const start = info.size;
    if (start + recordLength > 0xffffffff) throw new StorageError(`block file ${this.writeFile} would exceed 4 GiB`);

    // The record is assembled (and obfuscated) in scratch space reused by every append:
    // a new array per block was fresh memory, and first-touching pages costs more than
    // the copy.
    if (this.recordScratch.length < recordLength) this.recordScratch = new Uint8Array(Math.max(recordLength, 2 * this.recordScratch.length));
    const record = this.recordScratch.subarray(0, recordLength);
    record.set(this.magic, 0);
    new DataView(record.buffer, record.byteOffset, 8).setUint32(4, block.length, true);
    record.set(block, STORAGE_HEADER_BYTES);
    xorAtOffset(record, this.xorKey, start);
    let written = 0;
    while (written < recordLength) written += writeSync(fd, record, written, recordLength - written, start + written);
    this.unsynced = true;

    const grown = { ...info, size: start + recordLength };
    this.infos.set(this.writeFile, addBlockToFileInfo(grown, height, readHeaderTime(block)));
    this.markDirty(this.writeFile);
    if (options.sync ?? true) this.flush();
    return { file: this.writeFile, pos: start + STORAGE_HEADER_BYTES };
  }

  /**
   * Starts writing the appended blocks out in the background (libuv's threadpool), without
   * making them durable for anyone: flush() still syncs. Called when a long run of appends
   * ends (an import's blocks are all stored), so the flush that must come before the next
   * commit finds little left to write.
   */
  syncInBackground(): void {
    if (!this.unsynced || this.writeFd === undefined) return;
    // The error, if any, is flush()'s to report: it syncs again before anything relies on it.
    fdatasync(this.writeFd, () => undefined);
  }

  /** Makes every appended block durable (file data, and the directory entry of a new file). */
  flush(): void {
    if (this.unsynced && this.writeFd !== undefined) {
      fdatasyncSync(this.writeFd);
      this.unsynced = false;
    }
    if (this.directoryUnsynced) {
      fsyncDirectory(this.blocksDir);
      this.directoryUnsynced = false;
    }
  }

  /**
   * Counts a block already in `file` into its statistics without writing it: -reindex
   * rebuilding the info of the files it scans.
   */
  noteBlock(file: number, height: number, time: number): void {
    this.checkWritable();
    let info = this.infos.get(file);
    if (!info) {
      const size = statSync(blockFilePath(this.blocksDir, file)).size;
      info = { ...EMPTY_BLOCK_FILE_INFO, size };
    }
    this.infos.set(file, addBlockToFileInfo(info, height, time));
    this.markDirty(file);
  }

  private runRead<T>(file: number, plan: (ctx: RecordContext) => ReadPlan<T>): T {
    const ctx = this.context(file);
    if (this.readOnly || this.closed) return runSync(ctx, plan(ctx));
    let fd = this.readFds.get(file);
    if (fd === undefined) {
      fd = openRecordFile(ctx);
      if (this.readFds.size >= READ_FDS_KEPT) {
        const [oldestFile, oldestFd] = this.readFds.entries().next().value as [number, number];
        this.readFds.delete(oldestFile);
        closeSync(oldestFd);
      }
    } else {
      this.readFds.delete(file);
    }
    this.readFds.set(file, fd);
    return runSyncOn(fd, plan(ctx));
  }

  private closeReadFds(files: Iterable<number>): void {
    for (const file of files) {
      const fd = this.readFds.get(file);
      if (fd === undefined) continue;
      this.readFds.delete(file);
      closeSync(fd);
    }
  }

  readBlock(pos: FlatFilePos): Uint8Array {
    return this.runRead(pos.file, (ctx) => planBlock(ctx, pos));
  }

  /** Bytes [offset, offset + length) of the block, reading only those from disk. */
  readRange(pos: FlatFilePos, offset: number, length: number): Uint8Array {
    return this.runRead(pos.file, (ctx) => planRange(ctx, pos, offset, length));
  }

  /** The block's 80-byte header. */
  readHeaderBytes(pos: FlatFilePos): Uint8Array {
    return this.readRange(pos, 0, HEADER_SIZE);
  }

  /** The block's size, from its record header. */
  readBlockSize(pos: FlatFilePos): number {
    return this.runRead(pos.file, (ctx) => planSize(ctx, pos));
  }

  readBlockAsync(pos: FlatFilePos): Promise<Uint8Array> {
    const ctx = this.context(pos.file);
    return runAsync(ctx, planBlock(ctx, pos));
  }

  readRangeAsync(pos: FlatFilePos, offset: number, length: number): Promise<Uint8Array> {
    const ctx = this.context(pos.file);
    return runAsync(ctx, planRange(ctx, pos, offset, length));
  }

  readBlockSizeAsync(pos: FlatFilePos): Promise<number> {
    const ctx = this.context(pos.file);
    return runAsync(ctx, planSize(ctx, pos));
  }

  /**
   * This process's view of a file's statistics. Front-ends should read the snapshot's
   * (ChainstateReader.fileInfo) instead: it moves with the chain they are answering for.
   */
  fileInfo(file: number): BlockFileInfo | undefined {
    return this.infos.get(file);
  }

  fileInfos(): [number, BlockFileInfo][] {
    return [...this.infos.entries()].sort((a, b) => a[0] - b[0]);
  }

  dirtyFileInfo(): DirtyFileInfo[] {
    return [...this.dirty.entries()].sort((a, b) => a[0] - b[0]).map(([file, version]) => ({ file, info: this.infos.get(file), version }));
  }

  markFileInfoSaved(saved: readonly DirtyFileInfo[]): void {
    for (const { file, version } of saved) if (this.dirty.get(file) === version) this.dirty.delete(file);
  }

  /**
   * Deletes whole blk files (pruning). Only after the batch that removed every index
   * reference to them has committed: a crash between the two then leaves files nothing
   * points at, never pointers to missing files. The file being written to is refused.
   */
  deleteFiles(files: Iterable<number>): void {
    this.checkWritable();
    const list = [...new Set(files)];
    if (list.includes(this.writeFile)) throw new StorageError(`block file ${this.writeFile} is being written to and cannot be pruned`);
    this.closeReadFds(list);
    for (const file of list) {
      try {
        unlinkSync(blockFilePath(this.blocksDir, file));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      if (this.infos.delete(file)) this.markDirty(file);
    }
    if (list.length > 0) fsyncDirectory(this.blocksDir);
  }

  /** Bytes in blk files: this process's count, or (read-only) what is on disk now. */
  sizeOnDisk(): number {
    if (this.readOnly) {
      let total = 0;
      for (const file of listBlockFiles(this.blocksDir)) {
        try {
          total += statSync(blockFilePath(this.blocksDir, file)).size;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      return total;
    }
    let total = 0;
    for (const info of this.infos.values()) total += info.size;
    return total;
  }

  /** Syncs and closes the write file. */
  close(): void {
    if (this.closed) return;
    this.closeWriteFile();
    this.closeReadFds([...this.readFds.keys()]);
    this.closed = true;
  }
}
