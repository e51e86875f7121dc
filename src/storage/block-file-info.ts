/**
 * Per blk file statistics, Core's CBlockFileInfo without the undo size (undo data lives in
 * LMDB here): how many blocks, how many bytes, and the height and time ranges of the
 * blocks in it. Pruning picks files by their last height; getblockchaininfo's
 * size_on_disk adds the sizes. Stored as six u32 LE, 24 bytes:
 * blocks, size, heightFirst, heightLast, timeFirst, timeLast.
 */
import { DecodeError } from '../primitives/index.js';

export interface BlockFileInfo {
  readonly blocks: number;
  /** Bytes in the file, headers and any unreferenced tail included. */
  readonly size: number;
  readonly heightFirst: number;
  readonly heightLast: number;
  readonly timeFirst: number;
  readonly timeLast: number;
}

export const BLOCK_FILE_INFO_SIZE = 24;

export const EMPTY_BLOCK_FILE_INFO: BlockFileInfo = { blocks: 0, size: 0, heightFirst: 0, heightLast: 0, timeFirst: 0, timeLast: 0 };

/** Core's CBlockFileInfo::AddBlock: the first block sets the ranges, later ones widen them. */
export function addBlockToFileInfo(info: BlockFileInfo, height: number, time: number): BlockFileInfo {
  const first = info.blocks === 0;
  return {
    blocks: info.blocks + 1,
    size: info.size,
    heightFirst: first || height < info.heightFirst ? height : info.heightFirst,
    heightLast: height > info.heightLast ? height : info.heightLast,
    timeFirst: first || time < info.timeFirst ? time : info.timeFirst,
    timeLast: time > info.timeLast ? time : info.timeLast,
  };
}

const FIELDS = ['blocks', 'size', 'heightFirst', 'heightLast', 'timeFirst', 'timeLast'] as const;

export function encodeBlockFileInfo(info: BlockFileInfo): Uint8Array {
  const out = new Uint8Array(BLOCK_FILE_INFO_SIZE);
  const view = new DataView(out.buffer);
  FIELDS.forEach((field, i) => {
    const value = info[field];
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`block file info ${field} out of range: ${value}`);
    view.setUint32(i * 4, value, true);
  });
  return out;
}

export function decodeBlockFileInfo(bytes: Uint8Array): BlockFileInfo {
  if (bytes.length !== BLOCK_FILE_INFO_SIZE) throw new DecodeError(`block file info must be ${BLOCK_FILE_INFO_SIZE} bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (i: number): number => view.getUint32(i * 4, true);
  return { blocks: u32(0), size: u32(1), heightFirst: u32(2), heightLast: u32(3), timeFirst: u32(4), timeLast: u32(5) };
}

/** A file whose info changed since it was last saved; `info` undefined means the file was deleted. */
export interface DirtyFileInfo {
  readonly file: number;
  readonly info: BlockFileInfo | undefined;
  /** Change counter, so a save only clears what it actually wrote. */
  readonly version: number;
}

/** What keeps file info in memory and needs it persisted with the index (the BlockFileStore). */
export interface FileInfoSource {
  /** Makes every appended block durable: called before the index that points at them commits. */
  flush(): void;
  dirtyFileInfo(): DirtyFileInfo[];
  markFileInfoSaved(saved: readonly DirtyFileInfo[]): void;
}
