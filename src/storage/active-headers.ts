/**
 * The `headers` table: the active chain's 80-byte headers by height, laid out for
 * sequential reads. A header never changes once written at a height until a reorg
 * replaces it, so runs of them are stored as they are, HEADERS_PER_CHUNK per value: a
 * REST headers request of 2,000 is nine reads and one copy each, where a walk of the
 * index would be two lookups per header.
 *
 * The table follows the `active` table in the same write transactions (applyActiveChanges),
 * so both always describe the same chain: the chunks concatenated are the headers of
 * heights 0..tip exactly. A directory written before the table existed, or by a build that
 * did not keep it, is rebuilt at open (activeHeadersCurrent / rebuildActiveHeaders).
 */
import { bytesEqual, HEADER_SIZE, sha256d, toHex } from '../primitives/index.js';
import { CorruptionError } from './errors.js';
import { blockIndexRecordHeader } from './index-record.js';
import { blockHashKey, decodeHeightKey, headerChunkKey, HEADERS_PER_CHUNK, heightKey, type ChainstateTable } from './layout.js';
import type { TableReader, TableWriter } from './lmdb-env.js';
import { decodeStored } from './stored-value.js';

const CHUNK_BYTES = HEADERS_PER_CHUNK * HEADER_SIZE;

/**
 * The headers of heights from..from+count-1, concatenated, in `into` (count × 80 bytes)
 * when given (REST's reused reply buffers), else in new memory; the caller keeps the range
 * within the active chain (0..tip of the same snapshot).
 */
export function readActiveHeaders(tables: TableReader<ChainstateTable>, from: number, count: number, into?: Uint8Array): Uint8Array {
  if (into && into.length !== count * HEADER_SIZE) throw new RangeError(`${into.length} bytes given for ${count} headers`);
  const out = into ?? new Uint8Array(count * HEADER_SIZE);
  let written = 0;
  let height = from;
  while (written < out.length) {
    const chunk = Math.floor(height / HEADERS_PER_CHUNK);
    const start = (height - chunk * HEADERS_PER_CHUNK) * HEADER_SIZE;
    const copied = tables.withValue('headers', headerChunkKey(chunk), (value) => {
      const end = Math.min(value.length, start + out.length - written);
      if (end <= start) return 0;
      out.set(value.subarray(start, end), written);
      return end - start;
    });
    if (!copied) throw new CorruptionError(`headers table ends before height ${height}`);
    written += copied;
    height += copied / HEADER_SIZE;
  }
  return out;
}

/** One chunk being changed: its headers so far, room for a whole chunk. */
interface ChunkEdit {
  readonly bytes: Uint8Array;
  /** Headers held. */
  count: number;
}

function writeChunk(tables: TableWriter<ChainstateTable>, chunk: number, edit: ChunkEdit): void {
  if (edit.count === 0) tables.del('headers', headerChunkKey(chunk));
  else tables.put('headers', headerChunkKey(chunk), edit.bytes.subarray(0, edit.count * HEADER_SIZE));
}

/** The header of an indexed block: the index holds every block the active table names. */
function indexedHeader(tables: TableReader<ChainstateTable>, hash: Uint8Array): Uint8Array {
  const header = tables.withValue('index', blockHashKey(hash), (value) => decodeStored('index', hash, value, blockIndexRecordHeader).slice());
  if (!header) throw new CorruptionError(`active block ${toHex(hash)} has no index entry`);
  return header;
}

/**
 * Applies active-chain changes (a height's new block, or null when the height left the
 * chain) to the `active` and `headers` tables; the headers come from the `index` table,
 * which must already hold the new blocks' entries. The changes are the batch's final
 * state per height, in any order: puts are heights at most the new tip, removals above it.
 */
export function applyActiveChanges(tables: TableWriter<ChainstateTable>, changes: Iterable<{ readonly height: number; readonly hash: Uint8Array | null }>): void {
  const edits = new Map<number, ChunkEdit>();
  const edit = (chunk: number): ChunkEdit => {
    let e = edits.get(chunk);
    if (!e) {
      const bytes = new Uint8Array(CHUNK_BYTES);
      const count = tables.withValue('headers', headerChunkKey(chunk), (value) => (bytes.set(value), value.length / HEADER_SIZE)) ?? 0;
      edits.set(chunk, (e = { bytes, count }));
    }
    return e;
  };
  for (const { height, hash } of changes) {
    const chunk = Math.floor(height / HEADERS_PER_CHUNK);
    const slot = height - chunk * HEADERS_PER_CHUNK;
    const e = edit(chunk);
    if (hash === null) {
      tables.del('active', heightKey(height));
      e.count = Math.min(e.count, slot);
    } else {
      tables.put('active', heightKey(height), blockHashKey(hash));
      e.bytes.set(indexedHeader(tables, hash), slot * HEADER_SIZE);
      e.count = Math.max(e.count, slot + 1);
    }
  }
  for (const [chunk, e] of edits) writeChunk(tables, chunk, e);
}

/**
 * Whether the `headers` table describes the `active` table's chain: as many headers as
 * heights, the last one hashing to the tip. Chunks are only ever written with the active
 * table, so a table that ends at the tip's hash holds that chain's headers throughout.
 */
export function activeHeadersCurrent(tables: TableReader<ChainstateTable>): boolean {
  let tip: { height: number; hash: Uint8Array } | undefined;
  for (const { key, value } of tables.range('active', { reverse: true, limit: 1 })) tip = { height: decodeHeightKey(key), hash: value };
  let last: { chunk: number; value: Uint8Array } | undefined;
  for (const { key, value } of tables.range('headers', { reverse: true, limit: 1 })) last = { chunk: decodeHeightKey(key), value };
  if (!tip || !last) return !tip && !last;
  const chunk = Math.floor(tip.height / HEADERS_PER_CHUNK);
  if (last.chunk !== chunk || last.value.length !== (tip.height + 1 - chunk * HEADERS_PER_CHUNK) * HEADER_SIZE) return false;
  return bytesEqual(sha256d(last.value.subarray(last.value.length - HEADER_SIZE)), tip.hash);
}

/** Rewrites the `headers` table from the `active` and `index` tables (upgrade or repair). */
export function rebuildActiveHeaders(tables: TableWriter<ChainstateTable>): void {
  tables.clear('headers');
  let chunk = 0;
  let e: ChunkEdit = { bytes: new Uint8Array(CHUNK_BYTES), count: 0 };
  for (const { key, value } of tables.range('active')) {
    const height = decodeHeightKey(key);
    if (height !== chunk * HEADERS_PER_CHUNK + e.count) throw new CorruptionError(`active table skips height ${chunk * HEADERS_PER_CHUNK + e.count}`);
    e.bytes.set(indexedHeader(tables, value), e.count++ * HEADER_SIZE);
    if (e.count === HEADERS_PER_CHUNK) {
      writeChunk(tables, chunk++, e);
      e = { bytes: e.bytes, count: 0 };
    }
  }
  writeChunk(tables, chunk, e);
}
