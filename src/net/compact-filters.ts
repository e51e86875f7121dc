/**
 * BIP157 serving, as Core's net_processing does it (PrepareBlockFilterRequest,
 * ProcessGetCFilters, ProcessGetCFHeaders, ProcessGetCFCheckPt): the payload codecs of
 * getcfilters / cfilter / getcfheaders / cfheaders / getcfcheckpt / cfcheckpt, and
 * answerFilterRequest, which turns one request into the messages Core would send, or into
 * the disconnect Core would make (with the text of Core's debug log line, minus its
 * ", disconnecting peer=N" tail, which the caller knows).
 *
 * Core's rules: the filter type must be basic (0) and NODE_COMPACT_FILTERS must be among
 * the services offered to the peer (-peerblockfilters); the stop hash must be a known block
 * the peer may fetch (BlockRequestAllowed: on the active chain, or fully validated and no
 * more than a month from the best header in time and in equivalent work); the start height
 * must not exceed the stop height and the range is at most MAX_GETCFILTERS_SIZE filters or
 * MAX_GETCFHEADERS_SIZE filter hashes. Filters and filter hashes are those of the stop
 * block's ancestors (so a stale branch's own filters, which the index keeps by hash); when
 * the index lacks one (it has not caught up), Core logs and sends nothing.
 */
import type { ActiveChain, BlockFilterIndexView, BlockIndexEntry, BlockTree } from '../chain/index.js';
import { BASIC_FILTER_PARAMS, blockFilterHash, BlockStatus } from '../chain/index.js';
import { blockProofEquivalentTime, type ChainParams } from '../consensus/index.js';
import { ByteReader, ByteWriter, DecodeError, decodeGcs, hashToHex } from '../primitives/index.js';

/** Core's MAX_GETCFILTERS_SIZE: filters one getcfilters may ask for (BIP157). */
export const MAX_GETCFILTERS_SIZE = 1000;
/** Core's MAX_GETCFHEADERS_SIZE: filter hashes one getcfheaders may ask for (BIP157). */
export const MAX_GETCFHEADERS_SIZE = 2000;
/** Core's CFCHECKPT_INTERVAL (index/blockfilterindex.h): a cfcheckpt header every this many blocks. */
export const CFCHECKPT_INTERVAL = 1000;
/** BlockFilterType::BASIC, the only filter type. */
export const BASIC_FILTER_TYPE = 0;
/** Core's STALE_RELAY_AGE_LIMIT: a month, in seconds (BlockRequestAllowed). */
export const STALE_RELAY_AGE_LIMIT = 30 * 24 * 60 * 60;

/** getcfilters and getcfheaders: a filter type, the first height and the last block. */
export interface FilterRangeRequest {
  /** Any byte: a type other than basic is refused when answering, as Core does. */
  readonly filterType: number;
  /** Unsigned 32-bit. */
  readonly startHeight: number;
  /** Internal byte order. */
  readonly stopHash: Uint8Array;
}

/** getcfcheckpt: a filter type and the last block. */
export interface FilterCheckptRequest {
  readonly filterType: number;
  readonly stopHash: Uint8Array;
}

/** cfilter: one block's filter (Core's BlockFilter serialization). */
export interface CFilterMessage {
  readonly filterType: number;
  readonly blockHash: Uint8Array;
  /** The encoded filter: CompactSize N ‖ Golomb-Rice bit stream. */
  readonly filter: Uint8Array;
}

/** cfheaders: the filter header before the range and each block's filter hash. */
export interface CFHeadersMessage {
  readonly filterType: number;
  readonly stopHash: Uint8Array;
  /** The filter header of the block before the first (zero when starting at genesis). */
  readonly previousFilterHeader: Uint8Array;
  readonly filterHashes: readonly Uint8Array[];
}

/** cfcheckpt: the filter headers at every CFCHECKPT_INTERVAL-th height up to the stop block. */
export interface CFCheckptMessage {
  readonly filterType: number;
  readonly stopHash: Uint8Array;
  readonly filterHeaders: readonly Uint8Array[];
}

// ------------------------------------------------------------------ codecs

function checkType(filterType: number): void {
  if (!Number.isInteger(filterType) || filterType < 0 || filterType > 0xff) throw new RangeError(`filter type ${filterType} is not a byte`);
}

function checkHash(hash: Uint8Array, what: string): void {
  if (hash.length !== 32) throw new RangeError(`${what} is 32 bytes, not ${hash.length}`);
}

function writeHashes(w: ByteWriter, hashes: readonly Uint8Array[], what: string): void {
  w.compactSize(hashes.length);
  for (const hash of hashes) {
    checkHash(hash, what);
    w.bytes(hash);
  }
}

/** A CompactSize count of 32-byte hashes, refused before allocating when the payload cannot hold them. */
function readHashes(r: ByteReader, limit: number, what: string): Uint8Array[] {
  const count = r.compactSize();
  if (count > limit) throw new DecodeError(`${count} ${what}, over ${limit}`);
  if (count * 32 > r.remaining) throw new DecodeError(`${count} ${what} do not fit in the message`);
  const hashes: Uint8Array[] = [];
  for (let i = 0; i < count; i++) hashes.push(r.slice(32));
  return hashes;
}

function decodeWhole<T>(payload: Uint8Array, read: (r: ByteReader) => T): T {
  const r = new ByteReader(payload);
  const value = read(r);
  r.assertEnd();
  return value;
}

function readRangeRequest(r: ByteReader): FilterRangeRequest {
  return { filterType: r.u8(), startHeight: r.u32(), stopHash: r.slice(32) };
}

function readCheckptRequest(r: ByteReader): FilterCheckptRequest {
  return { filterType: r.u8(), stopHash: r.slice(32) };
}

function encodeRangeRequest(m: FilterRangeRequest): Uint8Array {
  checkType(m.filterType);
  checkHash(m.stopHash, 'a stop hash');
  if (!Number.isInteger(m.startHeight) || m.startHeight < 0 || m.startHeight > 0xffffffff) throw new RangeError(`start height ${m.startHeight} is not an unsigned 32-bit number`);
  return new ByteWriter(37).u8(m.filterType).u32(m.startHeight).bytes(m.stopHash).finish();
}

/** getcfilters: filter type (1) ‖ start height (u32) ‖ stop hash (32). */
export function encodeGetCFilters(m: FilterRangeRequest): Uint8Array {
  return encodeRangeRequest(m);
}

export function decodeGetCFilters(payload: Uint8Array): FilterRangeRequest {
  return decodeWhole(payload, readRangeRequest);
}

/** getcfheaders: the same fields as getcfilters. */
export function encodeGetCFHeaders(m: FilterRangeRequest): Uint8Array {
  return encodeRangeRequest(m);
}

export function decodeGetCFHeaders(payload: Uint8Array): FilterRangeRequest {
  return decodeWhole(payload, readRangeRequest);
}

/** getcfcheckpt: filter type (1) ‖ stop hash (32). */
export function encodeGetCFCheckpt(m: FilterCheckptRequest): Uint8Array {
  checkType(m.filterType);
  checkHash(m.stopHash, 'a stop hash');
  return new ByteWriter(33).u8(m.filterType).bytes(m.stopHash).finish();
}

export function decodeGetCFCheckpt(payload: Uint8Array): FilterCheckptRequest {
  return decodeWhole(payload, readCheckptRequest);
}

/** cfilter: filter type (1) ‖ block hash (32) ‖ CompactSize length ‖ encoded filter. */
export function encodeCFilter(m: CFilterMessage): Uint8Array {
  checkType(m.filterType);
  checkHash(m.blockHash, 'a block hash');
  return new ByteWriter(42 + m.filter.length).u8(m.filterType).bytes(m.blockHash).varBytes(m.filter).finish();
}

/**
 * As Core's BlockFilter::Unserialize: an unknown filter type is refused (its Golomb
 * parameters are unknown), and the filter must decode to exactly its N elements with no
 * data left over (GCSFilter's decode check).
 */
export function decodeCFilter(payload: Uint8Array): CFilterMessage {
  return decodeWhole(payload, (r) => {
    const filterType = r.u8();
    const blockHash = r.slice(32);
    const filter = r.varBytes();
    if (filterType !== BASIC_FILTER_TYPE) throw new DecodeError(`unknown filter_type ${filterType}`);
    decodeGcs(filter, BASIC_FILTER_PARAMS);
    return { filterType, blockHash, filter };
  });
}

/** cfheaders: filter type (1) ‖ stop hash (32) ‖ previous filter header (32) ‖ CompactSize count ‖ filter hashes (32 each). */
export function encodeCFHeaders(m: CFHeadersMessage): Uint8Array {
  checkType(m.filterType);
  checkHash(m.stopHash, 'a stop hash');
  checkHash(m.previousFilterHeader, 'a filter header');
  if (m.filterHashes.length > MAX_GETCFHEADERS_SIZE) throw new RangeError(`${m.filterHashes.length} filter hashes, over ${MAX_GETCFHEADERS_SIZE}`);
  const w = new ByteWriter(74 + 32 * m.filterHashes.length).u8(m.filterType).bytes(m.stopHash).bytes(m.previousFilterHeader);
  writeHashes(w, m.filterHashes, 'a filter hash');
  return w.finish();
}

/** At most MAX_GETCFHEADERS_SIZE filter hashes, as BIP157 bounds the message. */
export function decodeCFHeaders(payload: Uint8Array): CFHeadersMessage {
  return decodeWhole(payload, (r) => ({
    filterType: r.u8(),
    stopHash: r.slice(32),
    previousFilterHeader: r.slice(32),
    filterHashes: readHashes(r, MAX_GETCFHEADERS_SIZE, 'filter hashes'),
  }));
}

/** cfcheckpt: filter type (1) ‖ stop hash (32) ‖ CompactSize count ‖ filter headers (32 each). */
export function encodeCFCheckpt(m: CFCheckptMessage): Uint8Array {
  checkType(m.filterType);
  checkHash(m.stopHash, 'a stop hash');
  const w = new ByteWriter(42 + 32 * m.filterHeaders.length).u8(m.filterType).bytes(m.stopHash);
  writeHashes(w, m.filterHeaders, 'a filter header');
  return w.finish();
}

/** The count is bounded only by the payload (one header per 1,000 blocks of the stop height). */
export function decodeCFCheckpt(payload: Uint8Array): CFCheckptMessage {
  return decodeWhole(payload, (r) => ({
    filterType: r.u8(),
    stopHash: r.slice(32),
    filterHeaders: readHashes(r, Number.MAX_SAFE_INTEGER, 'filter headers'),
  }));
}

// ------------------------------------------------------------------ the index, narrowly

/**
 * What serving needs from the basic block filter index, looked up by block hash (the
 * index keeps every block it ever indexed, active or since disconnected, by hash, as
 * Core's height-then-hash lookup finds them). Undefined: not indexed (yet).
 */
export interface BlockFilterLookup {
  /** The encoded filter, checked against its stored filter hash (Core's ReadFilterFromDisk). */
  filter(blockHash: Uint8Array): Uint8Array | undefined;
  /** The filter's double-SHA-256, internal byte order (Core's DBVal::hash). */
  filterHash(blockHash: Uint8Array): Uint8Array | undefined;
  /** The block's filter header, internal byte order. */
  header(blockHash: Uint8Array): Uint8Array | undefined;
}

/**
 * A lookup over BlockFilterIndex.view (or a snapshot's BlockFilterIndexView): `filter` and
 * `header` are the view's own; the filter hash is that of the checked filter, which equals
 * the stored one (the view reads a filter whose hash differs as missing).
 */
export function filterLookupFromView(view: Pick<BlockFilterIndexView, 'filter' | 'header'>): BlockFilterLookup {
  return {
    filter: (blockHash) => view.filter(blockHash),
    filterHash: (blockHash) => {
      const filter = view.filter(blockHash);
      return filter && blockFilterHash(filter);
    },
    header: (blockHash) => view.header(blockHash),
  };
}

// ------------------------------------------------------------------ answering

/** The chain facts a request is judged on; a Chainstate has all three. */
export interface FilterRequestChain {
  readonly chain: ActiveChain;
  readonly tree: BlockTree;
  readonly params: ChainParams;
}

export interface FilterRequestDeps {
  /** NODE_COMPACT_FILTERS is among the services offered to the peer (-peerblockfilters). */
  readonly servingFilters: boolean;
  readonly chain: FilterRequestChain;
  /** The basic block filter index; undefined when there is none (Core logs and sends nothing). */
  readonly index: BlockFilterLookup | undefined;
  /** Core's LogDebug(BCLog::NET) lines of a request answered with nothing. */
  readonly log?: (message: string) => void;
}

export type FilterRequestCommand = 'getcfilters' | 'getcfheaders' | 'getcfcheckpt';

export type FilterRequestAnswer = { send: { command: string; payload: Uint8Array }[] } | { disconnect: string };

/**
 * Core's BlockRequestAllowed: a block on the active chain, or one fully validated whose
 * time and equivalent work are both less than a month behind the best header (so stale
 * blocks cannot fingerprint a node).
 */
export function blockRequestAllowed(entry: BlockIndexEntry, chain: FilterRequestChain): boolean {
  if (chain.chain.contains(entry)) return true;
  const best = chain.tree.bestHeader;
  return (
    entry.isValid(BlockStatus.VALID_SCRIPTS) &&
    best !== undefined &&
    best.time - entry.time < STALE_RELAY_AGE_LIMIT &&
    blockProofEquivalentTime(best.chainWork, entry.chainWork, best.bits, chain.params) < BigInt(STALE_RELAY_AGE_LIMIT)
  );
}

/** BlockFilterTypeName: the name Core's log lines give a filter type. */
function filterTypeName(filterType: number): string {
  return filterType === BASIC_FILTER_TYPE ? 'basic' : '';
}

/** Core's PrepareBlockFilterRequest: the stop block, a disconnect, or nothing to do. */
function prepare(
  filterType: number,
  startHeight: number,
  stopHash: Uint8Array,
  maxHeightDiff: number,
  deps: FilterRequestDeps,
): { stop: BlockIndexEntry; index: BlockFilterLookup } | { disconnect: string } | undefined {
  if (filterType !== BASIC_FILTER_TYPE || !deps.servingFilters) return { disconnect: `peer requested unsupported block filter type: ${filterType}` };
  const stop = deps.chain.tree.getByHash(stopHash);
  if (!stop || !blockRequestAllowed(stop, deps.chain)) return { disconnect: `peer requested invalid block hash: ${hashToHex(stopHash)}` };
  const stopHeight = stop.height;
  if (startHeight > stopHeight) {
    return { disconnect: `peer sent invalid getcfilters/getcfheaders with start height ${startHeight} and stop height ${stopHeight}` };
  }
  if (stopHeight - startHeight >= maxHeightDiff) {
    return { disconnect: `peer requested too many cfilters/cfheaders: ${stopHeight - startHeight + 1} / ${maxHeightDiff}` };
  }
  if (!deps.index) {
    deps.log?.(`Filter index for supported type ${filterTypeName(filterType)} not found`);
    return undefined;
  }
  return { stop, index: deps.index };
}

/**
 * Core's LookupRange over the stop block's ancestors from `startHeight` (in height order):
 * every one must be indexed, or the lookup fails.
 */
function lookupRange<T>(startHeight: number, stop: BlockIndexEntry, read: (hash: Uint8Array) => T | undefined): { entry: BlockIndexEntry; value: T }[] | undefined {
  const out = new Array<{ entry: BlockIndexEntry; value: T }>(stop.height - startHeight + 1);
  for (let walk: BlockIndexEntry | undefined = stop; walk && walk.height >= startHeight; walk = walk.prev) {
    const value = read(walk.hash);
    if (value === undefined) return undefined;
    out[walk.height - startHeight] = { entry: walk, value };
  }
  return out;
}

/** A fresh empty answer each time (callers may append to it). */
const nothing = (): FilterRequestAnswer => ({ send: [] });

/**
 * One getcfilters, getcfheaders or getcfcheckpt, answered as Core's net_processing does.
 * `disconnect` carries Core's log text (the caller appends ", disconnecting peer=N" if it
 * writes Core's line). The request's fields are read as Core's stream reads them (bytes
 * after them are ignored); a payload too short for them throws DecodeError, which Core's
 * ProcessMessages catches and logs, keeping the peer.
 */
export function answerFilterRequest(command: FilterRequestCommand, payload: Uint8Array, deps: FilterRequestDeps): FilterRequestAnswer {
  const r = new ByteReader(payload);
  switch (command) {
    case 'getcfilters': {
      const request = readRangeRequest(r);
      const prepared = prepare(request.filterType, request.startHeight, request.stopHash, MAX_GETCFILTERS_SIZE, deps);
      if (!prepared) return nothing();
      if ('disconnect' in prepared) return prepared;
      const { stop, index } = prepared;
      const filters = lookupRange(request.startHeight, stop, (hash) => index.filter(hash));
      if (!filters) {
        deps.log?.(`Failed to find block filter in index: filter_type=${filterTypeName(request.filterType)}, start_height=${request.startHeight}, stop_hash=${hashToHex(request.stopHash)}`);
        return nothing();
      }
      return { send: filters.map(({ entry, value }) => ({ command: 'cfilter', payload: encodeCFilter({ filterType: request.filterType, blockHash: entry.hash, filter: value }) })) };
    }
    case 'getcfheaders': {
      const request = readRangeRequest(r);
      const prepared = prepare(request.filterType, request.startHeight, request.stopHash, MAX_GETCFHEADERS_SIZE, deps);
      if (!prepared) return nothing();
      if ('disconnect' in prepared) return prepared;
      const { stop, index } = prepared;
      let previousFilterHeader: Uint8Array = new Uint8Array(32);
      if (request.startHeight > 0) {
        const prevBlock = stop.ancestor(request.startHeight - 1)!;
        const header = index.header(prevBlock.hash);
        if (!header) {
          deps.log?.(`Failed to find block filter header in index: filter_type=${filterTypeName(request.filterType)}, block_hash=${prevBlock.hashHex}`);
          return nothing();
        }
        previousFilterHeader = header;
      }
      const filterHashes = lookupRange(request.startHeight, stop, (hash) => index.filterHash(hash));
      if (!filterHashes) {
        deps.log?.(`Failed to find block filter hashes in index: filter_type=${filterTypeName(request.filterType)}, start_height=${request.startHeight}, stop_hash=${hashToHex(request.stopHash)}`);
        return nothing();
      }
      const payload = encodeCFHeaders({ filterType: request.filterType, stopHash: stop.hash, previousFilterHeader, filterHashes: filterHashes.map((f) => f.value) });
      return { send: [{ command: 'cfheaders', payload }] };
    }
    case 'getcfcheckpt': {
      const request = readCheckptRequest(r);
      const prepared = prepare(request.filterType, 0, request.stopHash, 0xffffffff, deps);
      if (!prepared) return nothing();
      if ('disconnect' in prepared) return prepared;
      const { stop, index } = prepared;
      const filterHeaders = new Array<Uint8Array>(Math.floor(stop.height / CFCHECKPT_INTERVAL));
      // Core fills them from the highest down, so a failure names the highest missing checkpoint.
      for (let i = filterHeaders.length - 1; i >= 0; i--) {
        const block = stop.ancestor((i + 1) * CFCHECKPT_INTERVAL)!;
        const header = index.header(block.hash);
        if (!header) {
          deps.log?.(`Failed to find block filter header in index: filter_type=${filterTypeName(request.filterType)}, block_hash=${block.hashHex}`);
          return nothing();
        }
        filterHeaders[i] = header;
      }
      return { send: [{ command: 'cfcheckpt', payload: encodeCFCheckpt({ filterType: request.filterType, stopHash: stop.hash, filterHeaders }) }] };
    }
  }
}
