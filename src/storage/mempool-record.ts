/**
 * A mempool entry as the coordinator mirrors it into LMDB, so front-ends answer mempool
 * queries from the same snapshot as chain queries. Fixed 33-byte prefix, then the raw
 * transaction (with witness) to the end of the value:
 * fee i64 LE (satoshis), vsize u32 LE (sigop-adjusted), time u64 LE (unix seconds it
 * entered), height u32 LE (chain height when it entered), sequence u64 LE (entry order),
 * flags u8 (bit 0: unbroadcast; bit 1: a fee delta follows), then with bit 1 the
 * prioritisetransaction delta i64 LE (satoshis).
 *
 * A `mempooldelta` value (a prioritisation, pooled or not) is the delta alone, i64 LE.
 */
import { DecodeError } from '../primitives/index.js';

export interface MempoolEntryRecord {
  readonly tx: Uint8Array;
  readonly fee: bigint;
  readonly vsize: number;
  readonly time: number;
  readonly height: number;
  readonly sequence: number;
  /** Submitted locally and not yet announced to a peer. */
  readonly unbroadcast: boolean;
  /** prioritisetransaction's delta: the modified fee is fee + feeDelta. */
  readonly feeDelta: bigint;
}

const PREFIX = 33;
const FLAG_UNBROADCAST = 1;
const FLAG_FEE_DELTA = 2;
const DELTA_BYTES = 8;

function checkUint(value: number, max: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`mempool entry ${field} out of range: ${value}`);
}

export function encodeMempoolEntry(entry: MempoolEntryRecord): Uint8Array {
  checkUint(entry.vsize, 0xffffffff, 'vsize');
  checkUint(entry.time, Number.MAX_SAFE_INTEGER, 'time');
  checkUint(entry.height, 0xffffffff, 'height');
  checkUint(entry.sequence, Number.MAX_SAFE_INTEGER, 'sequence');
  if (BigInt.asIntN(64, entry.fee) !== entry.fee) throw new RangeError(`mempool entry fee out of range: ${entry.fee}`);
  if (BigInt.asIntN(64, entry.feeDelta) !== entry.feeDelta) throw new RangeError(`mempool entry fee delta out of range: ${entry.feeDelta}`);
  const deltaBytes = entry.feeDelta === 0n ? 0 : DELTA_BYTES;
  const out = new Uint8Array(PREFIX + deltaBytes + entry.tx.length);
  const view = new DataView(out.buffer);
  view.setBigInt64(0, entry.fee, true);
  view.setUint32(8, entry.vsize, true);
  view.setBigUint64(12, BigInt(entry.time), true);
  view.setUint32(20, entry.height, true);
  view.setBigUint64(24, BigInt(entry.sequence), true);
  out[32] = (entry.unbroadcast ? FLAG_UNBROADCAST : 0) | (deltaBytes > 0 ? FLAG_FEE_DELTA : 0);
  if (deltaBytes > 0) view.setBigInt64(PREFIX, entry.feeDelta, true);
  out.set(entry.tx, PREFIX + deltaBytes);
  return out;
}

/** Decodes a mempool-table value; `tx` is a view into `bytes`. */
export function decodeMempoolEntry(bytes: Uint8Array): MempoolEntryRecord {
  if (bytes.length <= PREFIX) throw new DecodeError(`mempool entry must be longer than ${PREFIX} bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const time = view.getBigUint64(12, true);
  const sequence = view.getBigUint64(24, true);
  if (time > BigInt(Number.MAX_SAFE_INTEGER) || sequence > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DecodeError('mempool entry time or sequence exceeds 2^53');
  }
  const flags = bytes[32]!;
  if ((flags & ~(FLAG_UNBROADCAST | FLAG_FEE_DELTA)) !== 0) throw new DecodeError(`mempool entry has unknown flags ${flags}`);
  const deltaBytes = (flags & FLAG_FEE_DELTA) !== 0 ? DELTA_BYTES : 0;
  if (bytes.length <= PREFIX + deltaBytes) throw new DecodeError(`mempool entry with a fee delta must be longer than ${PREFIX + deltaBytes} bytes, got ${bytes.length}`);
  return {
    fee: view.getBigInt64(0, true),
    vsize: view.getUint32(8, true),
    time: Number(time),
    height: view.getUint32(20, true),
    sequence: Number(sequence),
    unbroadcast: (flags & FLAG_UNBROADCAST) !== 0,
    feeDelta: deltaBytes > 0 ? view.getBigInt64(PREFIX, true) : 0n,
    tx: bytes.subarray(PREFIX + deltaBytes),
  };
}

export function encodeFeeDelta(delta: bigint): Uint8Array {
  if (BigInt.asIntN(64, delta) !== delta) throw new RangeError(`fee delta out of range: ${delta}`);
  const out = new Uint8Array(DELTA_BYTES);
  new DataView(out.buffer).setBigInt64(0, delta, true);
  return out;
}

export function decodeFeeDelta(bytes: Uint8Array): bigint {
  if (bytes.length !== DELTA_BYTES) throw new DecodeError(`fee delta must be ${DELTA_BYTES} bytes, got ${bytes.length}`);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigInt64(0, true);
}
