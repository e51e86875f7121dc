/**
 * The block index record: what the chain knows about one block header, stored under the
 * block's hash. Fixed 144 bytes so a record can be read without parsing:
 *
 * | offset | size | field        | encoding                                              |
 * |-------:|-----:|--------------|-------------------------------------------------------|
 * |      0 |   80 | header       | the raw 80-byte block header                          |
 * |     80 |    4 | height       | u32 LE                                                |
 * |     84 |   32 | chainWork    | 256-bit unsigned, big-endian                          |
 * |    116 |    4 | status       | u32 LE, bits defined by the chain (data, undo, valid…)|
 * |    120 |    4 | txCount      | u32 LE, 0 until the block's transactions are known    |
 * |    124 |    8 | chainTxCount | u64 LE, 0 = unknown                                   |
 * |    132 |    4 | dataFile     | i32 LE, blk file number, -1 = no block data           |
 * |    136 |    4 | dataPos      | u32 LE, offset of the block body in that file         |
 * |    140 |    4 | sequenceId   | i32 LE, first-seen order among equal-work tips        |
 *
 * Whether undo data is stored is a status bit; the undo itself is in the undo table.
 */
import { DecodeError, HEADER_SIZE, toHex } from '../primitives/index.js';

export const BLOCK_INDEX_RECORD_SIZE = 144;
/** dataFile value for a block whose data is not stored (headers only, or pruned). */
export const NO_DATA_FILE = -1;
const MAX_CHAIN_WORK = (1n << 256n) - 1n;

export interface BlockIndexRecord {
  /** The raw 80-byte header. */
  readonly header: Uint8Array;
  readonly height: number;
  /** Total work of the chain up to and including this block. */
  readonly chainWork: bigint;
  /** Bit set owned by the chain (have data, have undo, validity level, failed...). */
  readonly status: number;
  readonly txCount: number;
  /** Transactions in the chain up to and including this block; 0 when not known. */
  readonly chainTxCount: number;
  readonly dataFile: number;
  readonly dataPos: number;
  readonly sequenceId: number;
}

function checkUint(value: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`block index ${field} out of range: ${value}`);
}

export function encodeBlockIndexRecord(record: BlockIndexRecord): Uint8Array {
  if (record.header.length !== HEADER_SIZE) throw new RangeError(`block index header must be ${HEADER_SIZE} bytes`);
  checkUint(record.height, 0xffffffff, 'height');
  checkUint(record.status, 0xffffffff, 'status');
  checkUint(record.txCount, 0xffffffff, 'txCount');
  checkUint(record.chainTxCount, Number.MAX_SAFE_INTEGER, 'chainTxCount');
  checkUint(record.dataPos, 0xffffffff, 'dataPos');
  if (!Number.isInteger(record.dataFile) || record.dataFile < -1 || record.dataFile > 0x7fffffff) {
    throw new RangeError(`block index dataFile out of range: ${record.dataFile}`);
  }
  if (!Number.isInteger(record.sequenceId) || record.sequenceId < -0x80000000 || record.sequenceId > 0x7fffffff) {
    throw new RangeError(`block index sequenceId out of range: ${record.sequenceId}`);
  }
  if (record.chainWork < 0n || record.chainWork > MAX_CHAIN_WORK) throw new RangeError('block index chainWork out of range');

  const out = new Uint8Array(BLOCK_INDEX_RECORD_SIZE);
  const view = new DataView(out.buffer);
  out.set(record.header, 0);
  view.setUint32(80, record.height, true);
  let work = record.chainWork;
  for (let i = 115; i >= 84; i--) {
    out[i] = Number(work & 0xffn);
    work >>= 8n;
  }
  view.setUint32(116, record.status, true);
  view.setUint32(120, record.txCount, true);
  view.setBigUint64(124, BigInt(record.chainTxCount), true);
  view.setInt32(132, record.dataFile, true);
  view.setUint32(136, record.dataPos, true);
  view.setInt32(140, record.sequenceId, true);
  return out;
}

function checkRecordSize(bytes: Uint8Array): void {
  if (bytes.length !== BLOCK_INDEX_RECORD_SIZE) {
    throw new DecodeError(`block index record must be ${BLOCK_INDEX_RECORD_SIZE} bytes, got ${bytes.length}`);
  }
}

/** The header bytes (a view) of an index record, its size checked as decodeBlockIndexRecord checks it. */
export function blockIndexRecordHeader(bytes: Uint8Array): Uint8Array {
  checkRecordSize(bytes);
  return bytes.subarray(0, HEADER_SIZE);
}

/** The txCount of an index record, without decoding the rest (REST header runs). */
export function blockIndexRecordTxCount(bytes: Uint8Array): number {
  checkRecordSize(bytes);
  return (bytes[120]! | (bytes[121]! << 8) | (bytes[122]! << 16)) + bytes[123]! * 0x1000000;
}

export function decodeBlockIndexRecord(bytes: Uint8Array): BlockIndexRecord {
  checkRecordSize(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // One BigInt from hex, not 32 shift-and-or steps that each allocate a BigInt: every
  // snapshot entry lookup decodes a record.
  const chainWork = BigInt(`0x${toHex(bytes.subarray(84, 116))}`);
  const chainTxCount = view.getBigUint64(124, true);
  if (chainTxCount > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError('block index chainTxCount exceeds 2^53');
  const dataFile = view.getInt32(132, true);
  if (dataFile < NO_DATA_FILE) throw new DecodeError(`block index dataFile invalid: ${dataFile}`);
  return {
    header: bytes.slice(0, HEADER_SIZE),
    height: view.getUint32(80, true),
    chainWork,
    status: view.getUint32(116, true),
    txCount: view.getUint32(120, true),
    chainTxCount: Number(chainTxCount),
    dataFile,
    dataPos: view.getUint32(136, true),
    sequenceId: view.getInt32(140, true),
  };
}
