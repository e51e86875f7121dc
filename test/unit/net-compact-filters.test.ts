/**
 * BIP157 serving (src/net/compact-filters.ts): every payload codec's round trip and
 * malformations, then answerFilterRequest on a synthetic block tree with a map-backed
 * filter index: Core's disconnects (filter type, serving off, unknown or unservable stop
 * block, start above stop, the range limits at their exact bounds), the answers' contents
 * (ancestors of a stale stop block included), and a lagging index answered with nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActiveChain, BASIC_FILTER_PARAMS, blockFilterHash, blockFilterHeader, BlockStatus, BlockTree, ZERO_FILTER_HEADER, type BlockIndexEntry } from '../../src/chain/index.js';
import { selectParams } from '../../src/consensus/index.js';
import {
  answerFilterRequest,
  CFCHECKPT_INTERVAL,
  decodeCFCheckpt,
  decodeCFHeaders,
  decodeCFilter,
  decodeGetCFCheckpt,
  decodeGetCFHeaders,
  decodeGetCFilters,
  encodeCFCheckpt,
  encodeCFHeaders,
  encodeCFilter,
  encodeGetCFCheckpt,
  encodeGetCFHeaders,
  encodeGetCFilters,
  filterLookupFromView,
  MAX_GETCFHEADERS_SIZE,
  MAX_GETCFILTERS_SIZE,
  type BlockFilterLookup,
  type FilterRequestAnswer,
  type FilterRequestDeps,
} from '../../src/net/index.js';
import { BlockHeader, ByteWriter, concatBytes, DecodeError, encodeGcs, hashToHex, sipKeyFromBytes, toHex } from '../../src/primitives/index.js';

const hash = (seed: number): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => (seed * 31 + i * 7) & 0xff);
const filterOf = (blockHash: Uint8Array, n: number): Uint8Array =>
  encodeGcs(sipKeyFromBytes(blockHash), Array.from({ length: n }, (_, i) => Uint8Array.of(0x51, i, blockHash[0]!)), BASIC_FILTER_PARAMS);

/** Every strict prefix of a payload fails to decode, and so does one extra byte. */
function assertTruncationsAndTrailing(payload: Uint8Array, decode: (p: Uint8Array) => unknown): void {
  for (let n = 0; n < payload.length; n++) assert.throws(() => decode(payload.subarray(0, n)), DecodeError, `prefix of ${n} bytes`);
  assert.throws(() => decode(concatBytes(payload, Uint8Array.of(0))), DecodeError, 'a trailing byte');
}

test('getcfilters / getcfheaders / getcfcheckpt: layout, round trips and malformations', () => {
  const request = { filterType: 0, startHeight: 0x01020304, stopHash: hash(1) };
  const bytes = encodeGetCFilters(request);
  assert.equal(toHex(bytes), `00${'04030201'}${toHex(hash(1))}`);
  assert.deepEqual(decodeGetCFilters(bytes), request);
  assert.deepEqual(encodeGetCFHeaders(request), bytes);
  assert.deepEqual(decodeGetCFHeaders(bytes), request);
  // Any type byte and the whole u32 range decode: Core refuses them when answering.
  const odd = { filterType: 0xff, startHeight: 0xffffffff, stopHash: hash(2) };
  assert.deepEqual(decodeGetCFilters(encodeGetCFilters(odd)), odd);
  assertTruncationsAndTrailing(bytes, decodeGetCFilters);
  assertTruncationsAndTrailing(bytes, decodeGetCFHeaders);

  const checkpt = { filterType: 0, stopHash: hash(3) };
  const checkptBytes = encodeGetCFCheckpt(checkpt);
  assert.equal(toHex(checkptBytes), `00${toHex(hash(3))}`);
  assert.deepEqual(decodeGetCFCheckpt(checkptBytes), checkpt);
  assertTruncationsAndTrailing(checkptBytes, decodeGetCFCheckpt);

  assert.throws(() => encodeGetCFilters({ ...request, filterType: 256 }), RangeError);
  assert.throws(() => encodeGetCFilters({ ...request, startHeight: -1 }), RangeError);
  assert.throws(() => encodeGetCFilters({ ...request, startHeight: 2 ** 32 }), RangeError);
  assert.throws(() => encodeGetCFHeaders({ ...request, stopHash: new Uint8Array(31) }), RangeError);
  assert.throws(() => encodeGetCFCheckpt({ filterType: 0, stopHash: new Uint8Array(33) }), RangeError);
});

test('cfilter: layout, round trip, and Core’s BlockFilter checks (type, exact Golomb-Rice contents)', () => {
  const blockHash = hash(4);
  for (const n of [0, 1, 40, 300]) {
    const m = { filterType: 0, blockHash, filter: filterOf(blockHash, n) };
    const bytes = encodeCFilter(m);
    assert.deepEqual(decodeCFilter(bytes), m, `${n} elements`);
    assertTruncationsAndTrailing(bytes, decodeCFilter);
  }
  const filter = filterOf(blockHash, 3);
  const bytes = encodeCFilter({ filterType: 0, blockHash, filter });
  // filter type ‖ block hash ‖ CompactSize length ‖ filter
  assert.equal(toHex(bytes), `00${toHex(blockHash)}${filter.length.toString(16).padStart(2, '0')}${toHex(filter)}`);
  // An unknown type: Core's "unknown filter_type".
  assert.throws(() => decodeCFilter(encodeCFilter({ filterType: 1, blockHash, filter })), /unknown filter_type/);
  // A filter with a byte too many, or fewer bits than its N needs.
  assert.throws(() => decodeCFilter(encodeCFilter({ filterType: 0, blockHash, filter: concatBytes(filter, Uint8Array.of(0)) })), /excess data/);
  assert.throws(() => decodeCFilter(encodeCFilter({ filterType: 0, blockHash, filter: filter.subarray(0, filter.length - 1) })), DecodeError);
  assert.throws(() => decodeCFilter(encodeCFilter({ filterType: 0, blockHash, filter: new Uint8Array(0) })), DecodeError);
  // A non-canonical length prefix.
  const nonCanonical = new ByteWriter().u8(0).bytes(blockHash).u8(0xfd).u16(filter.length).bytes(filter).finish();
  assert.throws(() => decodeCFilter(nonCanonical), /non-canonical/);
  assert.throws(() => encodeCFilter({ filterType: 0, blockHash: new Uint8Array(20), filter }), RangeError);
});

test('cfheaders and cfcheckpt: layout, round trips, counts that do not fit or exceed BIP157’s bound', () => {
  const m = { filterType: 0, stopHash: hash(5), previousFilterHeader: hash(6), filterHashes: [hash(7), hash(8), hash(9)] };
  const bytes = encodeCFHeaders(m);
  assert.equal(toHex(bytes), `00${toHex(hash(5))}${toHex(hash(6))}03${m.filterHashes.map(toHex).join('')}`);
  assert.deepEqual(decodeCFHeaders(bytes), m);
  assertTruncationsAndTrailing(bytes, decodeCFHeaders);
  const empty = { ...m, filterHashes: [] };
  assert.deepEqual(decodeCFHeaders(encodeCFHeaders(empty)), empty);
  const full = { ...m, filterHashes: Array.from({ length: MAX_GETCFHEADERS_SIZE }, (_, i) => hash(i)) };
  assert.deepEqual(decodeCFHeaders(encodeCFHeaders(full)), full);
  assert.throws(() => encodeCFHeaders({ ...m, filterHashes: [...full.filterHashes, hash(1)] }), RangeError);
  const over = new ByteWriter().u8(0).bytes(hash(5)).bytes(hash(6)).compactSize(MAX_GETCFHEADERS_SIZE + 1).finish();
  assert.throws(() => decodeCFHeaders(concatBytes(over, new Uint8Array(32 * (MAX_GETCFHEADERS_SIZE + 1)))), /over 2000/);
  // A count the payload cannot hold is refused before anything is read.
  const short = new ByteWriter().u8(0).bytes(hash(5)).bytes(hash(6)).compactSize(1000).finish();
  assert.throws(() => decodeCFHeaders(short), /do not fit/);
  assert.throws(() => encodeCFHeaders({ ...m, previousFilterHeader: new Uint8Array(0) }), RangeError);
  assert.throws(() => encodeCFHeaders({ ...m, filterHashes: [new Uint8Array(16)] }), RangeError);

  const c = { filterType: 0, stopHash: hash(10), filterHeaders: [hash(11), hash(12)] };
  const cBytes = encodeCFCheckpt(c);
  assert.equal(toHex(cBytes), `00${toHex(hash(10))}02${toHex(hash(11))}${toHex(hash(12))}`);
  assert.deepEqual(decodeCFCheckpt(cBytes), c);
  assertTruncationsAndTrailing(cBytes, decodeCFCheckpt);
  assert.deepEqual(decodeCFCheckpt(encodeCFCheckpt({ ...c, filterHeaders: [] })), { ...c, filterHeaders: [] });
  assert.throws(() => decodeCFCheckpt(new ByteWriter().u8(0).bytes(hash(10)).u8(0xfe).u32(0x01000000).finish()), /do not fit/);
  assert.throws(() => decodeCFCheckpt(new ByteWriter().u8(0).bytes(hash(10)).u8(0xfd).u16(2).bytes(hash(11)).bytes(hash(12)).finish()), /non-canonical/);
  assert.throws(() => encodeCFCheckpt({ ...c, filterHeaders: [new Uint8Array(1)] }), RangeError);
});

// ------------------------------------------------------------------ answering, on a synthetic tree

const params = selectParams('regtest');
const REGTEST_BITS = 0x207fffff;
const SPACING = 2000;
const T0 = 1_600_000_000;

interface Synthetic {
  tree: BlockTree;
  chain: ActiveChain;
  main: BlockIndexEntry[];
  index: Map<string, { filter: Uint8Array; filterHash: Uint8Array; header: Uint8Array }>;
}

function addBlock(s: Synthetic, prev: BlockIndexEntry | undefined, time: number, nonce: number): BlockIndexEntry {
  const header = new BlockHeader({ version: 4, prevHash: prev?.hash ?? new Uint8Array(32), merkleRoot: hash(nonce), time, bits: REGTEST_BITS, nonce });
  const entry = s.tree.addHeader(header, prev);
  entry.status = BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA | BlockStatus.HAVE_UNDO;
  return entry;
}

/** Indexes `entry` as the filter index would: its filter, filter hash and the header chained on its parent's. */
function indexBlock(s: Synthetic, entry: BlockIndexEntry): void {
  const filter = filterOf(entry.hash, entry.height % 5);
  const filterHash = blockFilterHash(filter);
  const prevHeader = entry.prev ? s.index.get(entry.prev.hashHex)!.header : ZERO_FILTER_HEADER;
  s.index.set(entry.hashHex, { filter, filterHash, header: blockFilterHeader(filterHash, prevHeader) });
}

/** A main chain of 2,100 blocks 2,000 s apart (48 days), all indexed. */
function synthetic(): Synthetic {
  const s: Synthetic = { tree: new BlockTree(), chain: new ActiveChain(), main: [], index: new Map() };
  let prev: BlockIndexEntry | undefined;
  for (let h = 0; h <= 2100; h++) {
    prev = addBlock(s, prev, T0 + h * SPACING, h);
    s.main.push(prev);
    indexBlock(s, prev);
  }
  s.chain.setTip(prev);
  return s;
}

const S = synthetic();
const lookup: BlockFilterLookup = {
  filter: (h) => S.index.get(hashToHex(h))?.filter,
  filterHash: (h) => S.index.get(hashToHex(h))?.filterHash,
  header: (h) => S.index.get(hashToHex(h))?.header,
};

function deps(overrides: Partial<FilterRequestDeps> = {}, logs: string[] = []): FilterRequestDeps {
  return { servingFilters: true, chain: { chain: S.chain, tree: S.tree, params }, index: lookup, log: (m) => logs.push(m), ...overrides };
}

function sent(answer: FilterRequestAnswer): { command: string; payload: Uint8Array }[] {
  assert.ok('send' in answer, JSON.stringify(answer));
  return answer.send;
}

const getcfilters = (startHeight: number, stop: BlockIndexEntry, filterType = 0) => encodeGetCFilters({ filterType, startHeight, stopHash: stop.hash });
const getcfheaders = (startHeight: number, stop: BlockIndexEntry, filterType = 0) => encodeGetCFHeaders({ filterType, startHeight, stopHash: stop.hash });
const getcfcheckpt = (stop: BlockIndexEntry, filterType = 0) => encodeGetCFCheckpt({ filterType, stopHash: stop.hash });

test('Core’s disconnects: filter type, serving off, unknown stop hash, start above stop, ranges one over the limits', () => {
  const tip = S.main[2100]!;
  for (const command of ['getcfilters', 'getcfheaders'] as const) {
    const make = command === 'getcfilters' ? getcfilters : getcfheaders;
    assert.deepEqual(answerFilterRequest(command, make(0, S.main[10]!, 1), deps()), { disconnect: 'peer requested unsupported block filter type: 1' });
    assert.deepEqual(answerFilterRequest(command, make(0, S.main[10]!), deps({ servingFilters: false })), { disconnect: 'peer requested unsupported block filter type: 0' });
    assert.deepEqual(answerFilterRequest(command, encodeGetCFilters({ filterType: 0, startHeight: 0, stopHash: hash(99) }), deps()), {
      disconnect: `peer requested invalid block hash: ${hashToHex(hash(99))}`,
    });
    assert.deepEqual(answerFilterRequest(command, make(11, S.main[10]!), deps()), { disconnect: 'peer sent invalid getcfilters/getcfheaders with start height 11 and stop height 10' });
    assert.deepEqual(answerFilterRequest(command, make(0xffffffff, S.main[10]!), deps()), { disconnect: 'peer sent invalid getcfilters/getcfheaders with start height 4294967295 and stop height 10' });
  }
  // The type is checked before anything else, even with serving off or an unknown block.
  assert.deepEqual(answerFilterRequest('getcfcheckpt', encodeGetCFCheckpt({ filterType: 7, stopHash: hash(99) }), deps({ servingFilters: false })), {
    disconnect: 'peer requested unsupported block filter type: 7',
  });
  assert.deepEqual(answerFilterRequest('getcfcheckpt', getcfcheckpt(tip), deps({ servingFilters: false })), { disconnect: 'peer requested unsupported block filter type: 0' });
  assert.deepEqual(answerFilterRequest('getcfcheckpt', encodeGetCFCheckpt({ filterType: 0, stopHash: hash(98) }), deps()), { disconnect: `peer requested invalid block hash: ${hashToHex(hash(98))}` });

  // Exactly at the limits: answered; one more: disconnected with Core's counts.
  assert.equal(sent(answerFilterRequest('getcfilters', getcfilters(1, S.main[MAX_GETCFILTERS_SIZE]!), deps())).length, MAX_GETCFILTERS_SIZE);
  assert.deepEqual(answerFilterRequest('getcfilters', getcfilters(0, S.main[MAX_GETCFILTERS_SIZE]!), deps()), { disconnect: 'peer requested too many cfilters/cfheaders: 1001 / 1000' });
  const headers = sent(answerFilterRequest('getcfheaders', getcfheaders(100, S.main[100 + MAX_GETCFHEADERS_SIZE - 1]!), deps()));
  assert.equal(decodeCFHeaders(headers[0]!.payload).filterHashes.length, MAX_GETCFHEADERS_SIZE);
  assert.deepEqual(answerFilterRequest('getcfheaders', getcfheaders(99, S.main[100 + MAX_GETCFHEADERS_SIZE - 1]!), deps()), { disconnect: 'peer requested too many cfilters/cfheaders: 2001 / 2000' });
});

test('answers: each filter of the range, the filter hashes after the previous header, the checkpoints', () => {
  const out = sent(answerFilterRequest('getcfilters', getcfilters(95, S.main[104]!), deps()));
  assert.equal(out.length, 10);
  out.forEach((m, i) => {
    const entry = S.main[95 + i]!;
    assert.equal(m.command, 'cfilter');
    assert.deepEqual(decodeCFilter(m.payload), { filterType: 0, blockHash: entry.hash, filter: S.index.get(entry.hashHex)!.filter });
  });
  // A single block, genesis.
  assert.deepEqual(decodeCFilter(sent(answerFilterRequest('getcfilters', getcfilters(0, S.main[0]!), deps()))[0]!.payload).blockHash, S.main[0]!.hash);

  const [fromGenesis] = sent(answerFilterRequest('getcfheaders', getcfheaders(0, S.main[3]!), deps()));
  assert.equal(fromGenesis!.command, 'cfheaders');
  assert.deepEqual(decodeCFHeaders(fromGenesis!.payload), {
    filterType: 0,
    stopHash: S.main[3]!.hash,
    previousFilterHeader: new Uint8Array(32),
    filterHashes: S.main.slice(0, 4).map((e) => S.index.get(e.hashHex)!.filterHash),
  });
  const later = decodeCFHeaders(sent(answerFilterRequest('getcfheaders', getcfheaders(500, S.main[700]!), deps()))[0]!.payload);
  assert.deepEqual(later.previousFilterHeader, S.index.get(S.main[499]!.hashHex)!.header);
  // The headers chain on: folding the hashes over the previous header gives the stop block's header.
  const folded = later.filterHashes.reduce((prev, fh) => blockFilterHeader(fh, prev), later.previousFilterHeader);
  assert.deepEqual(folded, S.index.get(S.main[700]!.hashHex)!.header);

  const checkpt = (stop: BlockIndexEntry) => decodeCFCheckpt(sent(answerFilterRequest('getcfcheckpt', getcfcheckpt(stop), deps()))[0]!.payload);
  assert.deepEqual(checkpt(S.main[999]!), { filterType: 0, stopHash: S.main[999]!.hash, filterHeaders: [] });
  assert.deepEqual(checkpt(S.main[1000]!).filterHeaders, [S.index.get(S.main[1000]!.hashHex)!.header]);
  assert.deepEqual(
    checkpt(S.main[2100]!).filterHeaders,
    [1, 2].map((k) => S.index.get(S.main[k * CFCHECKPT_INTERVAL]!.hashHex)!.header),
  );

  // Bytes after the request's fields are ignored, as Core's stream leaves them unread; too few is a DecodeError.
  assert.equal(sent(answerFilterRequest('getcfilters', concatBytes(getcfilters(5, S.main[6]!), Uint8Array.of(1, 2, 3)), deps())).length, 2);
  assert.throws(() => answerFilterRequest('getcfheaders', getcfheaders(5, S.main[6]!).subarray(0, 36), deps()), DecodeError);
  assert.throws(() => answerFilterRequest('getcfcheckpt', new Uint8Array(0), deps()), DecodeError);
});

test('stale stop blocks: a recent validated fork is served with its own filters; an old one, or one never validated, is not', () => {
  const fork: BlockIndexEntry[] = [];
  let prev = S.main[2097]!;
  for (let i = 0; i < 2; i++) {
    prev = addBlock(S, prev, prev.time + SPACING, 100_000 + i);
    indexBlock(S, prev);
    fork.push(prev);
  }
  const out = sent(answerFilterRequest('getcfilters', getcfilters(2097, fork[1]!), deps())).map((m) => decodeCFilter(m.payload));
  assert.deepEqual(out.map((f) => hashToHex(f.blockHash)), [S.main[2097]!.hashHex, fork[0]!.hashHex, fork[1]!.hashHex]);
  assert.deepEqual(out[2]!.filter, S.index.get(fork[1]!.hashHex)!.filter);
  const headers = decodeCFHeaders(sent(answerFilterRequest('getcfheaders', getcfheaders(2098, fork[1]!), deps()))[0]!.payload);
  assert.deepEqual(headers.filterHashes, fork.map((e) => S.index.get(e.hashHex)!.filterHash));

  // A fork block that never passed script validation (or failed) is not served.
  const unvalidated = addBlock(S, S.main[2099]!, S.main[2099]!.time + SPACING, 100_010);
  unvalidated.status = BlockStatus.VALID_TREE;
  assert.deepEqual(answerFilterRequest('getcfilters', getcfilters(2099, unvalidated), deps()), { disconnect: `peer requested invalid block hash: ${unvalidated.hashHex}` });
  // More than a month older than the best header: not served, however valid.
  const old = addBlock(S, S.main[800]!, S.main[800]!.time + SPACING, 100_020);
  indexBlock(S, old);
  assert.ok(S.tree.bestHeader!.time - old.time >= 30 * 24 * 3600);
  assert.deepEqual(answerFilterRequest('getcfcheckpt', getcfcheckpt(old), deps()), { disconnect: `peer requested invalid block hash: ${old.hashHex}` });
});

test('an index that has not caught up: Core logs which lookup failed and sends nothing', () => {
  const logs: string[] = [];
  const tip = S.main[2100]!;
  const behind: BlockFilterLookup = {
    filter: (h) => (S.tree.getByHash(h)!.height > 2050 ? undefined : lookup.filter(h)),
    filterHash: (h) => (S.tree.getByHash(h)!.height > 2050 ? undefined : lookup.filterHash(h)),
    header: (h) => (S.tree.getByHash(h)!.height > 1500 ? undefined : lookup.header(h)),
  };
  const d = deps({ index: behind }, logs);
  assert.deepEqual(answerFilterRequest('getcfilters', getcfilters(2000, tip), d), { send: [] });
  assert.deepEqual(answerFilterRequest('getcfheaders', getcfheaders(1000, tip), d), { send: [] });
  assert.deepEqual(answerFilterRequest('getcfheaders', getcfheaders(1502, tip), d), { send: [] });
  assert.deepEqual(answerFilterRequest('getcfcheckpt', getcfcheckpt(tip), d), { send: [] });
  assert.equal(sent(answerFilterRequest('getcfheaders', getcfheaders(1400, S.main[1501]!), d)).length, 1);
  assert.deepEqual(answerFilterRequest('getcfilters', getcfilters(0, S.main[10]!), deps({ index: undefined }, logs)), { send: [] });
  assert.deepEqual(logs, [
    `Failed to find block filter in index: filter_type=basic, start_height=2000, stop_hash=${tip.hashHex}`,
    `Failed to find block filter hashes in index: filter_type=basic, start_height=1000, stop_hash=${tip.hashHex}`,
    `Failed to find block filter header in index: filter_type=basic, block_hash=${S.main[1501]!.hashHex}`,
    `Failed to find block filter header in index: filter_type=basic, block_hash=${S.main[2000]!.hashHex}`,
    'Filter index for supported type basic not found',
  ]);
  // Disconnect checks come before the index is consulted.
  assert.deepEqual(answerFilterRequest('getcfilters', getcfilters(0, tip), deps({ index: undefined })), { disconnect: 'peer requested too many cfilters/cfheaders: 2101 / 1000' });
});

test('filterLookupFromView: a BlockFilterIndexView’s filter and header, the filter hash from the checked filter', () => {
  const entry = S.main[42]!;
  const view = { filter: lookup.filter, header: lookup.header };
  const adapted = filterLookupFromView(view);
  assert.deepEqual(adapted.filter(entry.hash), S.index.get(entry.hashHex)!.filter);
  assert.deepEqual(adapted.filterHash(entry.hash), S.index.get(entry.hashHex)!.filterHash);
  assert.deepEqual(adapted.header(entry.hash), S.index.get(entry.hashHex)!.header);
  assert.equal(adapted.filterHash(hash(77)), undefined);
});
