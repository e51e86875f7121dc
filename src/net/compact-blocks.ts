/**
 * BIP152 compact block messages: cmpctblock (header, nonce, 6-byte short IDs, prefilled
 * transactions with differentially encoded indexes), getblocktxn and blocktxn, and the
 * short ID itself. Decoders check every count against what the message can hold before
 * allocating, and reject index overflow as Core's deserializer does.
 */
import {
  ByteReader,
  ByteWriter,
  DecodeError,
  readHeader,
  readTransaction,
  serializeTransaction,
  sha256,
  sipHash24,
  sipKeyFromBytes,
  type BlockHeader,
  type SipKey,
  type Transaction,
} from '../primitives/index.js';

export const SHORT_ID_LENGTH = 6;
/** Core bounds every index list by what fits in a block's 16-bit index space (uint16_t). */
const MAX_INDEX = 0xffff;

export interface PrefilledTransaction {
  /** Absolute index in the block. */
  readonly index: number;
  readonly tx: Transaction;
}

export interface CompactBlock {
  readonly header: BlockHeader;
  readonly nonce: bigint;
  /** Short IDs as 48-bit unsigned integers. */
  readonly shortIds: readonly bigint[];
  readonly prefilled: readonly PrefilledTransaction[];
}

export interface BlockTransactionsRequest {
  /** Internal byte order. */
  readonly blockHash: Uint8Array;
  /** Absolute, strictly increasing. */
  readonly indexes: readonly number[];
}

export interface BlockTransactions {
  readonly blockHash: Uint8Array;
  readonly transactions: readonly Transaction[];
}

/** The SipHash key of a compact block: the first 16 bytes of SHA-256(header ‖ nonce), as two little-endian words. */
export function shortIdKey(header: BlockHeader, nonce: bigint): SipKey {
  return sipKeyFromBytes(sha256(new ByteWriter(88).bytes(header.toBytes()).u64(nonce).finish()));
}

/** A transaction's short ID: SipHash-2-4 of its wtxid, lower 48 bits. */
export function shortTxId(key: SipKey, wtxid: Uint8Array): bigint {
  return sipHash24(key, wtxid) & 0xffff_ffff_ffffn;
}

function writeShortId(w: ByteWriter, id: bigint): void {
  for (let i = 0n; i < 6n; i++) w.u8(Number((id >> (8n * i)) & 0xffn));
}

function readShortId(r: ByteReader): bigint {
  const b = r.slice(SHORT_ID_LENGTH);
  let id = 0n;
  for (let i = 5; i >= 0; i--) id = (id << 8n) | BigInt(b[i]!);
  return id;
}

/**
 * Entries at increasing absolute indexes, each written as BIP152's difference (its index
 * minus the previous one's, minus one) followed by whatever `writeRest` adds for it.
 */
function writeDifferential<T>(w: ByteWriter, entries: readonly T[], indexOf: (entry: T) => number, writeRest: (entry: T) => void = () => undefined): void {
  w.compactSize(entries.length);
  let previous = -1;
  for (const entry of entries) {
    const index = indexOf(entry);
    if (index <= previous || index > MAX_INDEX) throw new RangeError('indexes must increase and fit in 16 bits');
    w.compactSize(index - previous - 1);
    previous = index;
    writeRest(entry);
  }
}

/** `count` differentially encoded entries; `readEntry` reads the rest of each, given its absolute index. */
function readDifferential<T>(r: ByteReader, count: number, readEntry: (index: number) => T): T[] {
  const entries: T[] = [];
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const index = previous + 1 + r.compactSize();
    if (index > MAX_INDEX) throw new DecodeError('differentially encoded index overflows');
    entries.push(readEntry(index));
    previous = index;
  }
  return entries;
}

export function encodeCompactBlock(m: CompactBlock): Uint8Array {
  const w = new ByteWriter(100 + 6 * m.shortIds.length).bytes(m.header.toBytes()).u64(m.nonce).compactSize(m.shortIds.length);
  for (const id of m.shortIds) writeShortId(w, id);
  writeDifferential(w, m.prefilled, (p) => p.index, (p) => serializeTransaction(p.tx, true, w));
  return w.finish();
}

export function decodeCompactBlock(payload: Uint8Array): CompactBlock {
  const r = new ByteReader(payload);
  const header = readHeader(r);
  const nonce = r.u64();
  const idCount = r.compactSize();
  if (idCount * SHORT_ID_LENGTH > r.remaining) throw new DecodeError(`${idCount} short IDs do not fit in the message`);
  const shortIds: bigint[] = [];
  for (let i = 0; i < idCount; i++) shortIds.push(readShortId(r));
  const prefilledCount = r.compactSize();
  if (prefilledCount > r.remaining) throw new DecodeError(`${prefilledCount} prefilled transactions do not fit in the message`);
  const prefilled: PrefilledTransaction[] = readDifferential(r, prefilledCount, (index) => ({ index, tx: readTransaction(r) }));
  if (shortIds.length + prefilled.length > MAX_INDEX) throw new DecodeError('compact block holds more transactions than indexes allow');
  r.assertEnd();
  return { header, nonce, shortIds, prefilled };
}

export function encodeBlockTransactionsRequest(m: BlockTransactionsRequest): Uint8Array {
  const w = new ByteWriter(40 + 3 * m.indexes.length).bytes(m.blockHash);
  writeDifferential(w, m.indexes, (index) => index);
  return w.finish();
}

export function decodeBlockTransactionsRequest(payload: Uint8Array): BlockTransactionsRequest {
  const r = new ByteReader(payload);
  const blockHash = r.slice(32);
  const count = r.compactSize();
  if (count > r.remaining) throw new DecodeError(`${count} indexes do not fit in the message`);
  const indexes = readDifferential(r, count, (index) => index);
  r.assertEnd();
  return { blockHash, indexes };
}

export function encodeBlockTransactions(m: BlockTransactions): Uint8Array {
  const w = new ByteWriter(1024).bytes(m.blockHash).compactSize(m.transactions.length);
  for (const tx of m.transactions) serializeTransaction(tx, true, w);
  return w.finish();
}

export function decodeBlockTransactions(payload: Uint8Array): BlockTransactions {
  const r = new ByteReader(payload);
  const blockHash = r.slice(32);
  const count = r.compactSize();
  if (count > r.remaining) throw new DecodeError(`${count} transactions do not fit in the message`);
  const transactions: Transaction[] = [];
  for (let i = 0; i < count; i++) transactions.push(readTransaction(r));
  r.assertEnd();
  return { blockHash, transactions };
}
