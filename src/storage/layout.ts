/**
 * THE storage layout: every directory, LMDB environment, table, key and value the node
 * persists, in one place, as a schema is documented. Nothing stores an absolute path, so
 * a network directory copied elsewhere loads as it is.
 *
 * ## Directories of a network directory (`<netdir>`)
 *
 * | path                      | what                                                          |
 * |---------------------------|---------------------------------------------------------------|
 * | `blocks/blkNNNNN.dat`     | raw blocks in Core's framing (block-files.ts), ≤ 128 MiB each |
 * | `blocks/xor.dat`          | 8-byte obfuscation key XORed over blk files (xor-key.ts)      |
 * | `chainstate/data.mdb`     | LMDB environment "chainstate": the tables below               |
 * | `indexes/data.mdb`        | LMDB environment "indexes": optional indexes                  |
 *
 * The two environments commit independently. Everything that must change atomically with
 * the tip (coins, undo, block index, active chain, tip) is in `chainstate`; an index
 * records the block it has reached in its own meta table and catches up after a crash,
 * as Core's indexes do.
 *
 * ## Environment `chainstate`
 *
 * Keys and values are raw bytes (lmdb-js keyEncoding and encoding 'binary'). Integers in
 * keys are big-endian so that LMDB's byte order is numeric order and range scans walk
 * heights and output indexes in order. Hashes are in internal byte order (as hashed, the
 * reverse of the hex shown to users).
 *
 * | table      | key                                   | value                                           |
 * |------------|---------------------------------------|-------------------------------------------------|
 * | `meta`     | UTF-8 field name (CHAINSTATE_META)    | per field, see below                            |
 * | `index`    | block hash (32)                       | BlockIndexRecord, 144 bytes (index-record.ts)   |
 * | `active`   | height u32 BE (4)                     | block hash (32) of the active chain at height   |
 * | `headers`  | height / 256, u32 BE (4)              | the active chain's headers of those 256 heights, 80 bytes each, in height order |
 * | `coins`    | txid (32) ‖ vout u32 BE (4)           | Coin: Core's Coin serialization (coin-codec.ts) |
 * | `undo`     | block hash (32)                       | Core's CBlockUndo serialization (undo-codec.ts) |
 * | `mempool`  | txid (32)                             | MempoolEntryRecord (mempool-record.ts)          |
 * | `mempooldelta` | txid (32)                         | prioritisetransaction delta, i64 LE (satoshis)  |
 * | `mempooladdr` | script hash (32) ‖ txid (32)       | 0x00: a pooled transaction funds or spends the script (with -addressindex; address-index-record.ts) |
 * | `fileinfo` | blk file number u32 BE (4)            | BlockFileInfo, 24 bytes (block-file-info.ts)    |
 *
 * `coins` keys put all outputs of a transaction next to each other, so "does txid have
 * any unspent output" (BIP30) is one prefix seek, and an ordered scan yields txid order
 * then numeric vout order — the order Core's hash_serialized_3 hashes coins in (it
 * regroups each txid's outputs in a std::map<uint32_t, Coin>). Core's own LevelDB key,
 * txid ‖ VARINT(vout), would not: VARINT byte order departs from numeric order at
 * vout 16512. `active` holds exactly the heights 0..tip of the active chain, and
 * `headers` the same chain's headers (active-headers.ts), written in the same
 * transactions and rebuilt at open when a directory predates the table. `mempooldelta`
 * is Core's mapDeltas: every prioritisation, of pooled transactions and of others,
 * committed with the pool changes. `fileinfo` is written in the same transaction as the
 * index entries that point into the file.
 *
 * Meta fields (CHAINSTATE_META):
 *
 * | key             | value                         | meaning                                        |
 * |-----------------|-------------------------------|------------------------------------------------|
 * | `format`        | u32 LE                        | layout version, FORMAT_VERSION                 |
 * | `network`       | UTF-8                         | chain name the directory belongs to            |
 * | `tip`           | block hash (32)               | block whose effects the coins table holds      |
 * | `flushedHeight` | u32 LE                        | height of `tip`                                |
 * | `txindex`       | u8 0/1                        | -txindex was on when the chain was built       |
 * | `prune`         | u8 0/1                        | prune mode                                     |
 * | `havePruned`    | u8 0/1                        | some block files have been deleted             |
 * | `reindexing`    | u8 0/1                        | a -reindex is in progress (resume it)          |
 * | `bestHeader`    | block hash (32)               | most-work valid header known at the last flush |
 * | `mempoolSequence` | u64 LE                      | the pool's mempool_sequence as of the `mempool` table |
 * | `mempoolStats`  | MempoolStatsRecord, 25 bytes  | the pool's memory usage and rolling minimum fee state as of the `mempool` table (mempool-stats-meta.ts) |
 * | `mempoolVersion` | u64 LE                       | bumped by every batch that changes the `mempool` or `mempooldelta` table (renderers key per-pool results on it; absent: 0) |
 * | `mempoolDumpHash` | hash (32)                   | SHA-256 of the mempool.dat this node last wrote (its own dump: not loaded again at start-up) |
 * | `blockFilesSize` | u64 LE                       | sum of `fileinfo` sizes, kept in the same batches (absent in older directories: summed then) |
 *
 * ## Environment `indexes`
 *
 * | table                | key                             | value                                                  |
 * |----------------------|---------------------------------|--------------------------------------------------------|
 * | `meta`               | UTF-8 field name (INDEXES_META) | `format` u32 LE; `txindex.best`, `filter.basic.best`, `coinstats.best` block hash (32) |
 * | `txindex`            | txid (32)                       | TxIndexEntry, 16 bytes (txindex-record.ts)             |
 * | `filter.basic`       | block hash (32)                 | BIP158 basic filter: CompactSize N ‖ Golomb-Rice bits  |
 * | `filterheader.basic` | block hash (32)                 | FilterHeaderRecord, 64 bytes (blockfilter-record.ts)   |
 * | `coinstats`          | block hash (32)                 | CoinStatsRecord, 868 bytes (coinstats-record.ts)       |
 * | `addr.history`       | script hash ‖ height BE ‖ tx position BE | txid ‖ funded/spent counts and sums, 56 bytes (address-index-record.ts) |
 * | `addr.utxo`          | script hash ‖ txid ‖ vout BE    | height ‖ value, 12 bytes                               |
 * | `addr.spender`       | txid ‖ vout BE (a spent output) | spending txid ‖ input index ‖ height, 40 bytes         |
 * | `txospender`         | txid ‖ vout BE (a spent output) | the spending transaction's TxIndexEntry, 16 bytes      |
 *
 * -blockfilterindex writes the two filter tables and `filter.basic.best`, the block it has
 * reached; a FilterHeaderRecord is the filter's double-SHA-256 ‖ the filter header.
 * Entries are keyed by block hash, so those of blocks a reorg disconnected stay readable,
 * as Core's hash-keyed copies are. Hashes and headers are in internal byte order.
 * -coinstatsindex writes `coinstats` and `coinstats.best` the same way, keyed by block hash.
 * -addressindex (beyond Core) writes the three `addr.` tables and `addr.best`; unlike the
 * others it describes the active chain only, so a rewind removes the disconnected blocks'
 * entries and restores the outputs they spent (from their undo data).
 * -txospenderindex (Core v31) writes `txospender` and `txospender.best`: where the active
 * chain's transaction spending each output is; a rewind removes the disconnected blocks'
 * spends, as Core's CustomRemove does.
 */
import type { OutPoint } from '../primitives/index.js';
import { flagMeta, hashMeta, metaField, textMeta, u32Meta, u64Meta } from './meta-codec.js';
import { mempoolStatsMeta } from './mempool-stats-meta.js';

export const BLOCKS_DIR = 'blocks';
export const CHAINSTATE_DIR = 'chainstate';
export const INDEXES_DIR = 'indexes';

/** Bumped when any table's encoding changes; a directory with another version is refused. */
export const FORMAT_VERSION = 1;

export const CHAINSTATE_TABLES = ['meta', 'index', 'active', 'headers', 'coins', 'undo', 'mempool', 'mempooldelta', 'mempooladdr', 'fileinfo'] as const;
export type ChainstateTable = (typeof CHAINSTATE_TABLES)[number];

export const INDEXES_TABLES = ['meta', 'txindex', 'filter.basic', 'filterheader.basic', 'coinstats', 'addr.history', 'addr.utxo', 'addr.spender', 'txospender'] as const;
export type IndexesTable = (typeof INDEXES_TABLES)[number];

export const CHAINSTATE_META = {
  format: metaField('format', u32Meta),
  network: metaField('network', textMeta),
  tip: metaField('tip', hashMeta),
  flushedHeight: metaField('flushedHeight', u32Meta),
  txindex: metaField('txindex', flagMeta),
  prune: metaField('prune', flagMeta),
  havePruned: metaField('havePruned', flagMeta),
  reindexing: metaField('reindexing', flagMeta),
  bestHeader: metaField('bestHeader', hashMeta),
  mempoolSequence: metaField('mempoolSequence', u64Meta),
  mempoolStats: metaField('mempoolStats', mempoolStatsMeta),
  mempoolVersion: metaField('mempoolVersion', u64Meta),
  mempoolDumpHash: metaField('mempoolDumpHash', hashMeta),
  blockFilesSize: metaField('blockFilesSize', u64Meta),
} as const;

export const INDEXES_META = {
  format: metaField('format', u32Meta),
  txindexBest: metaField('txindex.best', hashMeta),
  blockFilterBest: metaField('filter.basic.best', hashMeta),
  coinStatsBest: metaField('coinstats.best', hashMeta),
  addressIndexBest: metaField('addr.best', hashMeta),
  txoSpenderBest: metaField('txospender.best', hashMeta),
} as const;

export const HASH_SIZE = 32;
export const COIN_KEY_SIZE = HASH_SIZE + 4;

function checkHash(hash: Uint8Array, what: string): Uint8Array {
  if (hash.length !== HASH_SIZE) throw new RangeError(`${what} must be ${HASH_SIZE} bytes, got ${hash.length}`);
  return hash;
}

function u32BE(value: number, what: string): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${what} out of range: ${value}`);
  // Byte stores, not a DataView: reading `.buffer` of a small on-heap typed array makes
  // V8 move it to a malloc'd backing store, which this key (one per lookup) does not need.
  return Uint8Array.of(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

function readU32BE(key: Uint8Array, offset: number): number {
  return new DataView(key.buffer, key.byteOffset, key.byteLength).getUint32(offset, false);
}

/** Key of the index and undo tables (and of the block filter tables). */
export function blockHashKey(hash: Uint8Array): Uint8Array {
  return checkHash(hash, 'block hash');
}

/** Key of the mempool and txindex tables. */
export function txidKey(txid: Uint8Array): Uint8Array {
  return checkHash(txid, 'txid');
}

/** Key of the active table. */
export function heightKey(height: number): Uint8Array {
  return u32BE(height, 'height');
}

/** Heights per value of the headers table. */
export const HEADERS_PER_CHUNK = 256;

/** Key of the headers table: the chunk number (height / HEADERS_PER_CHUNK). */
export function headerChunkKey(chunk: number): Uint8Array {
  return u32BE(chunk, 'header chunk');
}

export function decodeHeightKey(key: Uint8Array): number {
  if (key.length !== 4) throw new RangeError(`height key must be 4 bytes, got ${key.length}`);
  return readU32BE(key, 0);
}

/** Key of the coins table: txid ‖ vout (BE). */
export function coinKey(txid: Uint8Array, vout: number): Uint8Array {
  return writeCoinKey(new Uint8Array(COIN_KEY_SIZE), txid, vout);
}

/** A coins-table key for one lookup: valid until the next call (lookups copy their key). */
const lookupCoinKey = new Uint8Array(new ArrayBuffer(COIN_KEY_SIZE));

/** coinKey into shared space, for a read that does not keep the key (every BIP30 check is one). */
export function coinLookupKey(txid: Uint8Array, vout: number): Uint8Array {
  return writeCoinKey(lookupCoinKey, txid, vout);
}

function writeCoinKey(out: Uint8Array, txid: Uint8Array, vout: number): Uint8Array {
  checkHash(txid, 'txid');
  if (!Number.isInteger(vout) || vout < 0 || vout > 0xffffffff) throw new RangeError(`vout out of range: ${vout}`);
  out.set(txid, 0);
  out[HASH_SIZE] = vout >>> 24;
  out[HASH_SIZE + 1] = (vout >>> 16) & 0xff;
  out[HASH_SIZE + 2] = (vout >>> 8) & 0xff;
  out[HASH_SIZE + 3] = vout & 0xff;
  return out;
}

/** Checks that `key` has the coins-table key shape and returns it. */
export function checkCoinKey(key: Uint8Array): Uint8Array {
  if (key.length !== COIN_KEY_SIZE) throw new RangeError(`coin key must be ${COIN_KEY_SIZE} bytes, got ${key.length}`);
  return key;
}

export function decodeCoinKey(key: Uint8Array): OutPoint {
  checkCoinKey(key);
  return { txid: key.slice(0, HASH_SIZE), vout: readU32BE(key, HASH_SIZE) };
}

/** Key of the fileinfo table. */
export function fileKey(file: number): Uint8Array {
  return u32BE(file, 'block file number');
}

export function decodeFileKey(key: Uint8Array): number {
  if (key.length !== 4) throw new RangeError(`file key must be 4 bytes, got ${key.length}`);
  return readU32BE(key, 0);
}
