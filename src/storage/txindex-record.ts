/**
 * The txindex value: where a confirmed transaction's bytes are, so getrawtransaction
 * reads exactly those bytes with one ranged read. 16 bytes, u32 LE each: the blk file,
 * the block body's position in it, the transaction's offset from the start of the block
 * body, and its serialized length (with witness). Core's CDiskTxPos counts the offset
 * from the end of the 80-byte header and has no length; counting from the body start and
 * storing the length means no parsing is needed to find the end.
 */
import { DecodeError } from '../primitives/index.js';

export interface TxIndexEntry {
  readonly file: number;
  readonly pos: number;
  readonly offset: number;
  readonly length: number;
}

export const TX_INDEX_ENTRY_SIZE = 16;

export function encodeTxIndexEntry(entry: TxIndexEntry): Uint8Array {
  const out = new Uint8Array(TX_INDEX_ENTRY_SIZE);
  const view = new DataView(out.buffer);
  [entry.file, entry.pos, entry.offset, entry.length].forEach((value, i) => {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`txindex field out of range: ${value}`);
    view.setUint32(i * 4, value, true);
  });
  return out;
}

export function decodeTxIndexEntry(bytes: Uint8Array): TxIndexEntry {
  if (bytes.length !== TX_INDEX_ENTRY_SIZE) throw new DecodeError(`txindex entry must be ${TX_INDEX_ENTRY_SIZE} bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    file: view.getUint32(0, true),
    pos: view.getUint32(4, true),
    offset: view.getUint32(8, true),
    length: view.getUint32(12, true),
  };
}
