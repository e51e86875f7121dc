/**
 * The BIP158 codec pieces: SipHash-2-4 (Core's CSipHasher vectors and a BigInt reference),
 * the exact 128-bit range mapping, Golomb-Rice encoding and decoding with Core's checks,
 * the basic filter's element rules, a filter Bitcoin Core v30 returned on regtest, the
 * -blockfilterindex option parsing, and the reasons a filter is reported missing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  BASIC_FILTER_PARAMS,
  basicBlockFilter,
  basicFilterElements,
  basicFilterMatchAny,
  BlockStatus,
  blockFilterTypeByName,
  FILTER_NOT_FOUND_MESSAGE,
  filterMissingReason,
} from '../../src/chain/index.js';
import {
  decodeGcs,
  DecodeError,
  encodeGcs,
  fromHex,
  gcsHashedSet,
  gcsMatchAny,
  parseBlock,
  sipHash24,
  sipKey,
  sipKeyFromBytes,
  toHex,
  Transaction,
  type Block,
} from '../../src/primitives/index.js';
import { decodeFilterHeaderRecord, encodeFilterHeaderRecord } from '../../src/storage/index.js';
import { InitError, loadConfig } from '../../src/node/config.js';

/** SipHash-2-4 on 64-bit BigInts, written from the paper, to check the 32-bit-halves version. */
function referenceSipHash(k0: bigint, k1: bigint, data: Uint8Array): bigint {
  const MASK = (1n << 64n) - 1n;
  const rotl = (x: bigint, b: bigint) => ((x << b) | (x >> (64n - b))) & MASK;
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & MASK; v1 = rotl(v1, 13n); v1 ^= v0; v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK; v3 = rotl(v3, 16n); v3 ^= v2;
    v0 = (v0 + v3) & MASK; v3 = rotl(v3, 21n); v3 ^= v0;
    v2 = (v2 + v1) & MASK; v1 = rotl(v1, 17n); v1 ^= v2; v2 = rotl(v2, 32n);
  };
  const words = Math.floor(data.length / 8);
  const word = (offset: number, n: number) => {
    let m = 0n;
    for (let i = n - 1; i >= 0; i--) m = (m << 8n) | BigInt(data[offset + i]!);
    return m;
  };
  for (let w = 0; w < words; w++) {
    const m = word(w * 8, 8);
    v3 ^= m; round(); round(); v0 ^= m;
  }
  const last = word(words * 8, data.length - words * 8) | (BigInt(data.length & 0xff) << 56n);
  v3 ^= last; round(); round(); v0 ^= last;
  v2 ^= 0xffn;
  round(); round(); round(); round();
  return v0 ^ v1 ^ v2 ^ v3;
}

const range = (from: number, to: number) => Uint8Array.from({ length: to - from }, (_, i) => from + i);

test('SipHash-2-4: Core’s CSipHasher vectors (key 00..0f) and a BigInt reference', () => {
  const key = sipKey(0x0706050403020100n, 0x0f0e0d0c0b0a0908n);
  const expected: [number, bigint][] = [
    [0, 0x726fdb47dd0e0e31n],
    [1, 0x74f839c593dc67fdn],
    [8, 0x93f5f5799a932462n],
    [15, 0xa129ca6149be45e5n],
    [16, 0x3f2acc7f57c29bdbn],
    [18, 0x4bc1b3f0968dd39cn],
    [27, 0x2f2e6163076bcfadn],
    [32, 0x7127512f72f27ccen],
    [40, 0x0e3ea96b5304a7d0n],
    [48, 0xe612a3cb9ecba951n],
  ];
  for (const [length, value] of expected) assert.equal(sipHash24(key, range(0, length)), value, `length ${length}`);
  assert.deepEqual(sipKeyFromBytes(range(0, 16)), key);
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
  for (let i = 0; i < 200; i++) {
    const k0 = (BigInt(next()) << 32n) | BigInt(next());
    const k1 = (BigInt(next()) << 32n) | BigInt(next());
    const data = Uint8Array.from({ length: next() % 70 }, () => next() & 0xff);
    assert.equal(sipHash24(sipKey(k0, k1), data), referenceSipHash(k0, k1, data));
  }
});

test('GCS: values are floor(siphash · N·M / 2^64) exactly, even for N near 2^32', () => {
  const key = sipKey(0x0123456789abcdefn, 0xfedcba9876543210n);
  const elements = Array.from({ length: 50 }, (_, i) => Uint8Array.of(i, i * 7, 255 - i));
  for (const count of [1, 50, 1000, 0xffffffff]) {
    const f = BigInt(count) * BigInt(BASIC_FILTER_PARAMS.M);
    const want = elements.map((e) => Number((sipHash24(key, e) * f) >> 64n)).sort((a, b) => a - b);
    assert.deepEqual([...gcsHashedSet(key, elements, count, BASIC_FILTER_PARAMS)], want, `N = ${count}`);
  }
});

test('GCS: encoding round-trips, matches its elements, and decoding applies Core’s checks', () => {
  const key = sipKey(1n, 2n);
  assert.equal(toHex(encodeGcs(key, [], BASIC_FILTER_PARAMS)), '00');
  assert.equal(gcsMatchAny(key, fromHex('00'), [Uint8Array.of(1)], BASIC_FILTER_PARAMS), false);
  const elements = Array.from({ length: 300 }, (_, i) => new TextEncoder().encode(`element ${i}`));
  const encoded = encodeGcs(key, elements, BASIC_FILTER_PARAMS);
  const values = decodeGcs(encoded, BASIC_FILTER_PARAMS);
  assert.deepEqual([...values], [...gcsHashedSet(key, elements, elements.length, BASIC_FILTER_PARAMS)]);
  for (const e of elements.slice(0, 20)) assert.ok(gcsMatchAny(key, encoded, [e], BASIC_FILTER_PARAMS));
  const strangers = Array.from({ length: 200 }, (_, i) => new TextEncoder().encode(`stranger ${i}`));
  assert.ok(strangers.filter((e) => gcsMatchAny(key, encoded, [e], BASIC_FILTER_PARAMS)).length <= 1, 'false positives come at rate 1/M');
  assert.ok(gcsMatchAny(key, encoded, [...strangers.slice(0, 5), elements[123]!], BASIC_FILTER_PARAMS));
  // One byte more is excess data; one byte less runs out of bits.
  assert.throws(() => decodeGcs(Uint8Array.of(...encoded, 0), BASIC_FILTER_PARAMS), DecodeError);
  assert.throws(() => decodeGcs(encoded.subarray(0, encoded.length - 1), BASIC_FILTER_PARAMS), DecodeError);
  assert.throws(() => decodeGcs(fromHex('05ff'), BASIC_FILTER_PARAMS), DecodeError);
});

function blockWith(outputs: Uint8Array[][]): Block {
  const header = parseBlock(fromHex('0000002016bbc0d92cf7aa9f8a39d2d48e49dcf3dd6cfc45ed1c335f390f84015f46d2465d896453cb86c33485e7faac015236bc33a8eb12c02667747e41b66bca0cb22c54a7026bffff7f200300000002020000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff03016f00feffffff02bef7052a01000000160014378dd8818c59bfba521a32d840b2033934caa7de0000000000000000266a24aa21a9ed02ca6e86196f01c4435bb1f0b35381044626525c3887714ed7a28881cdf63625012000000000000000000000000000000000000000000000000000000000000000006e00000002000000000101054ec8d2281fb60d589eba46346989a3f1ef7b9958ce6869b780d69ed183046e0000000000fdffffff02c21a1521010000001976a914ac3e41f4ce534080d3c48145536499116c7f9a3e88ac80d1f008000000001976a9148ed4b4e64dc4995f58db18ee3ff63f99c4963bd288ac0247304402204fc781e2c18e1d0fe8b5b75512ce7ca97898c0d40c493d199d8f4f3f364c396d0220482c3d13796db3d1e2325279b11b8ad3377a8a334d1ea830c5c2ae04be182802012103481f67d447046d7e38f601ac61f5c6d2069e3fc7800a4f39746e6b85e31121636e000000')).header;
  const transactions = outputs.map(
    (scripts, i) =>
      new Transaction({
        version: 2,
        inputs: [{ prevout: { txid: new Uint8Array(32).fill(i + 1), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0, witness: [] }],
        outputs: scripts.map((scriptPubKey) => ({ value: 1n, scriptPubKey })),
        locktime: 0,
      }),
  );
  return { header, transactions };
}

test('basic filter elements: outputs but not empty or OP_RETURN ones; spent scripts but not empty ones; each once', () => {
  const a = fromHex('0014' + '11'.repeat(20));
  const b = fromHex('5120' + '22'.repeat(32));
  const c = fromHex('6a0401020304');
  const d = fromHex('51');
  const block = blockWith([[a, new Uint8Array(0), c], [b, a]]);
  // A spent script starting with OP_RETURN counts (Core only skips empty prevout scripts).
  const elements = basicFilterElements(block, [d, new Uint8Array(0), a, c]);
  assert.deepEqual(elements.map(toHex), [a, b, d, c].map(toHex));
  const filter = basicBlockFilter(block, [d, new Uint8Array(0), a, c]);
  assert.equal(filter[0], 4);
  assert.ok(basicFilterMatchAny(block.header.hash, filter, [c]));
});

test('the basic filter Bitcoin Core v30 returned for a regtest block (getblockfilter_111 sample)', () => {
  const block = parseBlock(fromHex('0000002016bbc0d92cf7aa9f8a39d2d48e49dcf3dd6cfc45ed1c335f390f84015f46d2465d896453cb86c33485e7faac015236bc33a8eb12c02667747e41b66bca0cb22c54a7026bffff7f200300000002020000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff03016f00feffffff02bef7052a01000000160014378dd8818c59bfba521a32d840b2033934caa7de0000000000000000266a24aa21a9ed02ca6e86196f01c4435bb1f0b35381044626525c3887714ed7a28881cdf63625012000000000000000000000000000000000000000000000000000000000000000006e00000002000000000101054ec8d2281fb60d589eba46346989a3f1ef7b9958ce6869b780d69ed183046e0000000000fdffffff02c21a1521010000001976a914ac3e41f4ce534080d3c48145536499116c7f9a3e88ac80d1f008000000001976a9148ed4b4e64dc4995f58db18ee3ff63f99c4963bd288ac0247304402204fc781e2c18e1d0fe8b5b75512ce7ca97898c0d40c493d199d8f4f3f364c396d0220482c3d13796db3d1e2325279b11b8ad3377a8a334d1ea830c5c2ae04be182802012103481f67d447046d7e38f601ac61f5c6d2069e3fc7800a4f39746e6b85e31121636e000000'));
  assert.equal(block.header.hashHex, '7974566abf98282e2bc32d47b40995769b12f9d93ea5e4b200dd90e83b1fa98d');
  const spent = [fromHex('0014378dd8818c59bfba521a32d840b2033934caa7de')];
  assert.equal(toHex(basicBlockFilter(block, spent)), '03c664c2784d0047e6');
});

test('filter header records: 64 bytes, filter hash then header', () => {
  const record = { filterHash: new Uint8Array(32).fill(1), header: new Uint8Array(32).fill(2) };
  const bytes = encodeFilterHeaderRecord(record);
  assert.equal(bytes.length, 64);
  assert.deepEqual(decodeFilterHeaderRecord(bytes), record);
  assert.throws(() => decodeFilterHeaderRecord(bytes.subarray(1)), DecodeError);
});

test('-blockfilterindex parsing as Core’s: "", 1 and basic enable it, 0 and -no disable it, other names fail', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsbtcd-bfi-'));
  try {
    const types = (...argv: string[]) => loadConfig(['-regtest', `-datadir=${dir}`, ...argv], {}).blockFilterTypes;
    assert.deepEqual(types(), []);
    assert.deepEqual(types('-blockfilterindex'), ['basic']);
    assert.deepEqual(types('-blockfilterindex=1'), ['basic']);
    assert.deepEqual(types('-blockfilterindex=basic'), ['basic']);
    assert.deepEqual(types('-blockfilterindex=basic', '-blockfilterindex=basic'), ['basic']);
    assert.deepEqual(types('-blockfilterindex=0'), []);
    assert.deepEqual(types('-blockfilterindex', '-noblockfilterindex'), []);
    assert.deepEqual(types('-blockfilterindex=basic', '-blockfilterindex=1'), ['basic']);
    assert.throws(() => types('-blockfilterindex=abc'), new InitError('Unknown -blockfilterindex value abc.'));
    assert.throws(() => types('-blockfilterindex=1', '-blockfilterindex=basic'), new InitError('Unknown -blockfilterindex value 1.'));
    assert.throws(() => types('-blockfilterindex=Basic'), new InitError('Unknown -blockfilterindex value Basic.'));
    assert.equal(blockFilterTypeByName('basic'), 'basic');
    assert.equal(blockFilterTypeByName('extended'), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing filter: not connected (-5), still indexing (-1) or corruption (-32603), in Core’s order', () => {
  const connected = BlockStatus.VALID_SCRIPTS | BlockStatus.HAVE_DATA | BlockStatus.HAVE_UNDO;
  assert.equal(filterMissingReason(BlockStatus.VALID_TREE, true), 'not-connected');
  assert.equal(filterMissingReason(BlockStatus.VALID_TRANSACTIONS | BlockStatus.HAVE_DATA, false), 'not-connected');
  assert.equal(filterMissingReason(connected | BlockStatus.FAILED_VALID, true), 'not-connected');
  assert.equal(filterMissingReason(connected, false), 'indexing');
  assert.equal(filterMissingReason(connected, true), 'corruption');
  assert.equal(FILTER_NOT_FOUND_MESSAGE['not-connected'], 'Filter not found. Block was not connected to active chain.');
  assert.equal(FILTER_NOT_FOUND_MESSAGE.indexing, 'Filter not found. Block filters are still in the process of being indexed.');
  assert.equal(FILTER_NOT_FOUND_MESSAGE.corruption, 'Filter not found. This error is unexpected and indicates index corruption.');
});
