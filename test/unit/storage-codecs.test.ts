/**
 * The storage codecs against Core's own test vectors (serialize_tests varints_bitpatterns,
 * compress_tests, coins_tests ccoins_serialization), every script compression class, real
 * mainnet outputs and undo data, and seeded randomized round trips.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as secp from '@noble/secp256k1';
import { ByteReader, ByteWriter, DecodeError, fromHex, hashToHex, parseBlock, toHex } from '../../src/primitives/index.js';
import {
  BLOCK_INDEX_RECORD_SIZE,
  compressAmount,
  compressScript,
  decodeBlockFileInfo,
  decodeBlockIndexRecord,
  decodeBlockUndo,
  decodeCoin,
  decodeFeeDelta,
  decodeMempoolEntry,
  decodeTxIndexEntry,
  decompressAmount,
  encodeBlockFileInfo,
  encodeBlockIndexRecord,
  encodeBlockUndo,
  encodeCoin,
  encodeFeeDelta,
  encodeMempoolEntry,
  encodeTxIndexEntry,
  flagMeta,
  hashMeta,
  mempoolStatsMeta,
  readCompressedScript,
  readVarInt,
  readVarInt64,
  textMeta,
  u32Meta,
  u64Meta,
  writeCompressedScript,
  writeVarInt,
  type BlockIndexRecord,
} from '../../src/storage/index.js';
import type { Coin } from '../../src/consensus/index.js';
import { readVectorText } from '../support/vectors.js';
import { randomBytes, randomU64, seeded } from './storage-fixtures.js';

const COIN = 100_000_000n;
const CENT = 1_000_000n;

function varIntHex(value: number | bigint): string {
  return toHex(writeVarInt(new ByteWriter(), value).finish());
}

test('VARINT: Core bit patterns (serialize_tests varints_bitpatterns)', () => {
  const cases: [number | bigint, string][] = [
    [0, '00'],
    [0x7f, '7f'],
    [0x80, '8000'],
    [0x1234, 'a334'],
    [0xffff, '82fe7f'],
    [0x123456, 'c7e756'],
    [0x80123456, '86ffc7e756'],
    [0xffffffff, '8efefefe7f'],
    [0x7fffffffffffffffn, 'fefefefefefefefe7f'],
    [0xffffffffffffffffn, '80fefefefefefefefe7f'],
  ];
  for (const [value, hex] of cases) {
    assert.equal(varIntHex(value), hex, `encode ${value}`);
    assert.equal(readVarInt64(new ByteReader(fromHex(hex))), BigInt(value), `decode ${hex}`);
    if (BigInt(value) <= 0xffffffffn) assert.equal(readVarInt(new ByteReader(fromHex(hex))), Number(value));
  }
  // The number and bigint paths agree.
  assert.equal(varIntHex(2 ** 40), varIntHex(2n ** 40n));
});

test('VARINT: Core round trips (serialize_tests varints) and overflow rejection', () => {
  const writer = new ByteWriter();
  for (let i = 0; i < 100_000; i++) writeVarInt(writer, i);
  for (let i = 0n; i < 100_000_000_000n; i += 999_999_937n) writeVarInt(writer, i);
  const reader = new ByteReader(writer.finish());
  for (let i = 0; i < 100_000; i++) assert.equal(readVarInt(reader), i);
  for (let i = 0n; i < 100_000_000_000n; i += 999_999_937n) assert.equal(readVarInt64(reader), i);
  assert.equal(reader.remaining, 0);

  // 2^32 does not fit Core's 32-bit reader; 2^64 does not fit the 64-bit one.
  assert.throws(() => readVarInt(new ByteReader(fromHex('8efefeff00'))), DecodeError);
  assert.throws(() => readVarInt64(new ByteReader(fromHex('80fefefefefefefeff00'))), DecodeError);
  assert.throws(() => readVarInt(new ByteReader(fromHex('80'))), DecodeError, 'truncated');
  assert.throws(() => writeVarInt(new ByteWriter(), -1), RangeError);
  assert.throws(() => writeVarInt(new ByteWriter(), 1n << 64n), RangeError);
});

test('CompressAmount: Core pairs and round trips (compress_tests)', () => {
  const pairs: [bigint, bigint][] = [
    [0n, 0x0n],
    [1n, 0x1n],
    [CENT, 0x7n],
    [COIN, 0x9n],
    [50n * COIN, 0x32n],
    [21_000_000n * COIN, 0x1406f40n],
  ];
  for (const [amount, compressed] of pairs) {
    assert.equal(compressAmount(amount), compressed, `compress ${amount}`);
    assert.equal(decompressAmount(compressed), amount, `decompress ${compressed}`);
  }
  for (let i = 1n; i <= 100_000n; i++) assert.equal(decompressAmount(compressAmount(i)), i);
  for (let i = 1n; i <= 10_000n; i++) assert.equal(decompressAmount(compressAmount(i * CENT)), i * CENT);
  for (let i = 1n; i <= 10_000n; i++) assert.equal(decompressAmount(compressAmount(i * COIN)), i * COIN);
  for (let i = 1n; i <= 10_000n; i++) assert.equal(decompressAmount(compressAmount(i * 50n * COIN)), i * 50n * COIN);
  for (let i = 0n; i < 100_000n; i++) assert.equal(compressAmount(decompressAmount(i)), i);
});

test('CompressAmount: odd amounts, the money range and far beyond it (seeded)', () => {
  const random = seeded(0x5eed0001);
  // 900e12 is where the implementation switches from doubles to bigints.
  const fastLimit = 900_000_000_000_000n;
  const edge = [21_000_000n * COIN - 1n, 21_000_000n * COIN + 1n, 123_456_789n, 999_999_999n, 1_000_000_001n, 2n ** 53n + 1n];
  for (let d = -3n; d <= 3n; d++) edge.push(fastLimit + d, fastLimit * 10n + d);
  for (const amount of edge) assert.equal(decompressAmount(compressAmount(amount)), amount, `${amount}`);
  for (let i = 0; i < 20_000; i++) {
    const inMoneyRange = randomU64(random) % (21_000_000n * COIN + 1n);
    assert.equal(decompressAmount(compressAmount(inMoneyRange)), inMoneyRange);
    // Multiples of powers of ten exercise the exponent, including e = 9 (the else branch).
    const scaled = BigInt(random() % 100_000) * 10n ** BigInt(random() % 12);
    assert.equal(decompressAmount(compressAmount(scaled)), scaled);
    // Up to 2^60 the compressed form (about 9 × the amount) fits in 64 bits; above, Core's
    // arithmetic wraps and so does ours, so only this range round-trips.
    const large = randomU64(random) >> 4n;
    assert.equal(decompressAmount(compressAmount(large)), large);
  }
  // A negative CAmount is compressed as its uint64 reinterpretation, as Core casts it.
  assert.equal(compressAmount(-1n), compressAmount(2n ** 64n - 1n));
});

function scriptRoundTrip(script: Uint8Array): Uint8Array {
  const writer = new ByteWriter();
  writeCompressedScript(writer, script);
  const bytes = writer.finish().slice();
  const reader = new ByteReader(bytes);
  assert.deepEqual(readCompressedScript(reader), script, `round trip of ${toHex(script)}`);
  assert.equal(reader.remaining, 0);
  return bytes;
}

function p2pk(publicKey: Uint8Array): Uint8Array {
  return Uint8Array.from([publicKey.length, ...publicKey, 0xac]);
}

test('script compression: every special class and the raw fallback', () => {
  const hash20 = fromHex('816115944e077fe7c803cfa57f29b36bf87c1d35');
  const p2pkh = fromHex(`76a914${toHex(hash20)}88ac`);
  assert.equal(toHex(scriptRoundTrip(p2pkh)), `00${toHex(hash20)}`);
  const p2sh = fromHex(`a914${toHex(hash20)}87`);
  assert.equal(toHex(scriptRoundTrip(p2sh)), `01${toHex(hash20)}`);

  const random = seeded(0x5eed0002);
  const parities = new Set<number>();
  for (let i = 0; i < 16; i++) {
    const secret = secp.utils.randomSecretKey(randomBytes(random, 48));
    const compressed = secp.getPublicKey(secret, true);
    assert.equal(toHex(scriptRoundTrip(p2pk(compressed))), toHex(compressed), 'compressed P2PK is its key');
    const full = secp.getPublicKey(secret, false);
    const stored = scriptRoundTrip(p2pk(full));
    assert.equal(stored.length, 33);
    assert.equal(stored[0], 0x04 | (full[64]! & 1), 'uncompressed P2PK: 4 | parity of y');
    assert.deepEqual(stored.subarray(1), full.subarray(1, 33));
    parities.add(stored[0]!);
  }
  assert.deepEqual([...parities].sort(), [4, 5], 'both parities seen');

  // Compressed-looking P2PK is compressed without a curve check (Core's IsToPubKey), so an
  // x off the curve still round-trips through codes 2/3.
  const offCurve = Uint8Array.from([0x02, ...new Uint8Array(32).fill(0xff)]);
  assert.equal(scriptRoundTrip(p2pk(offCurve)).length, 33);
  // An uncompressed key that is not a curve point cannot be rebuilt from x: stored raw.
  const notAPoint = Uint8Array.from([0x04, ...new Uint8Array(64).fill(0x01)]);
  assert.equal(compressScript(p2pk(notAPoint)), undefined);
  assert.equal(scriptRoundTrip(p2pk(notAPoint)).length, 1 + 67);
  // Hybrid keys (0x06/0x07) are not P2PK templates for compression.
  const hybrid = secp.getPublicKey(secp.utils.randomSecretKey(randomBytes(random, 48)), false);
  hybrid[0] = 0x06 | (hybrid[64]! & 1);
  assert.equal(compressScript(p2pk(hybrid)), undefined);

  // Everything else: VARINT(size + 6) ‖ bytes.
  const p2wpkh = fromHex(`0014${toHex(hash20)}`);
  assert.equal(toHex(scriptRoundTrip(p2wpkh)), `1c0014${toHex(hash20)}`);
  const p2tr = Uint8Array.from([0x51, 0x20, ...randomBytes(random, 32)]);
  assert.equal(scriptRoundTrip(p2tr)[0], 34 + 6);
  assert.equal(toHex(scriptRoundTrip(new Uint8Array(0))), '06', 'empty script');
  const nearlyP2pkh = p2pkh.slice();
  nearlyP2pkh[24] = 0xad;
  assert.equal(scriptRoundTrip(nearlyP2pkh)[0], 25 + 6);
  const big = randomBytes(random, 10_000);
  assert.equal(scriptRoundTrip(big).length, 2 + 10_000, 'MAX_SCRIPT_SIZE still stored');
});

test('script compression: oversized stored scripts decode as OP_RETURN; bad special forms fail', () => {
  const writer = new ByteWriter();
  writeVarInt(writer, 10_001 + 6);
  writer.bytes(new Uint8Array(10_001));
  const reader = new ByteReader(writer.finish());
  assert.deepEqual(readCompressedScript(reader), Uint8Array.of(0x6a));
  assert.equal(reader.remaining, 0, 'the bytes are skipped');
  // Code 4 with an x that has no point on the curve (x = 5 has no square root of x^3 + 7).
  const bad = new Uint8Array(33);
  bad[0] = 0x04;
  bad[32] = 5;
  assert.throws(() => readCompressedScript(new ByteReader(bad)), DecodeError);
});

test('Coin: Core vectors (coins_tests ccoins_serialization)', () => {
  const c1 = decodeCoin(fromHex('97f23c835800816115944e077fe7c803cfa57f29b36bf87c1d35'));
  assert.deepEqual(c1, {
    coinbase: false,
    height: 203998,
    output: { value: 60_000_000_000n, scriptPubKey: fromHex('76a914816115944e077fe7c803cfa57f29b36bf87c1d3588ac') },
  });
  const c2 = decodeCoin(fromHex('8ddf77bbd123008c988f1a4a4de2161e0f50aac7f17e7f9555caa4'));
  assert.deepEqual(c2, {
    coinbase: true,
    height: 120891,
    output: { value: 110397n, scriptPubKey: fromHex('76a9148c988f1a4a4de2161e0f50aac7f17e7f9555caa488ac') },
  });
  const c3 = decodeCoin(fromHex('000006'));
  assert.deepEqual(c3, { coinbase: false, height: 0, output: { value: 0n, scriptPubKey: new Uint8Array(0) } });
  for (const [coin, hex] of [
    [c1, '97f23c835800816115944e077fe7c803cfa57f29b36bf87c1d35'],
    [c2, '8ddf77bbd123008c988f1a4a4de2161e0f50aac7f17e7f9555caa4'],
    [c3, '000006'],
  ] as const) {
    assert.equal(toHex(encodeCoin(coin)), hex, 're-encodes to Core bytes');
  }
  // Scripts running past the end of the data.
  assert.throws(() => decodeCoin(fromHex('000007')), DecodeError);
  assert.equal(varIntHex(3_000_000_000), '8a95c0bb00');
  assert.throws(() => decodeCoin(fromHex('00008a95c0bb00')), DecodeError);
  assert.throws(() => decodeCoin(fromHex('00000600')), DecodeError, 'trailing bytes');
  assert.throws(() => encodeCoin({ ...c3, height: 2 ** 31 }), RangeError);
});

function randomCoin(random: () => number): Coin {
  const kind = random() % 5;
  const scriptPubKey =
    kind === 0
      ? fromHex(`76a914${toHex(randomBytes(random, 20))}88ac`)
      : kind === 1
        ? fromHex(`a914${toHex(randomBytes(random, 20))}87`)
        : kind === 2
          ? p2pk(secp.getPublicKey(secp.utils.randomSecretKey(randomBytes(random, 48)), random() % 2 === 0))
          : randomBytes(random, random() % (kind === 3 ? 40 : 600));
  const value = random() % 4 === 0 ? BigInt(random() % 1000) * 10n ** BigInt(random() % 10) : randomU64(random) % (21_000_000n * COIN + 1n);
  return {
    output: { value, scriptPubKey },
    height: random() % 3 === 0 ? random() % 1000 : random() >>> 1,
    coinbase: random() % 2 === 0,
  };
}

test('Coin: seeded random round trips over every script class', () => {
  const random = seeded(0x5eed0003);
  for (let i = 0; i < 3000; i++) {
    const coin = randomCoin(random);
    assert.deepEqual(decodeCoin(encodeCoin(coin)), coin, `case ${i}`);
  }
});

/** Mainnet 0–255 replayed: every output as a coin, every block's spends as undo data. */
function replayMainnet(): { coins: Coin[]; undos: Coin[][][] } {
  const lines = readVectorText('mainnet-blocks-0-255.hex').split('\n').filter((line) => line.trim() !== '');
  const utxos = new Map<string, Coin>();
  const coins: Coin[] = [];
  const undos: Coin[][][] = [];
  lines.forEach((line, height) => {
    const block = parseBlock(fromHex(line.trim()));
    const undo: Coin[][] = [];
    block.transactions.forEach((tx, index) => {
      if (index > 0) {
        undo.push(
          tx.inputs.map((input) => {
            const key = `${hashToHex(input.prevout.txid)}:${input.prevout.vout}`;
            const spent = utxos.get(key);
            assert.ok(spent, `height ${height} spends unknown ${key}`);
            utxos.delete(key);
            return spent;
          }),
        );
      }
      tx.outputs.forEach((output, vout) => {
        const coin: Coin = { output: { value: output.value, scriptPubKey: output.scriptPubKey }, height, coinbase: index === 0 };
        utxos.set(`${tx.txidHex}:${vout}`, coin);
        coins.push(coin);
      });
    });
    undos.push(undo);
  });
  return { coins, undos };
}

test('Coin and undo: real mainnet outputs (uncompressed P2PK) and spends of blocks 0-255', () => {
  const { coins, undos } = replayMainnet();
  let special = 0;
  for (const coin of coins) {
    const bytes = encodeCoin(coin);
    if (compressScript(coin.output.scriptPubKey)) special++;
    assert.deepEqual(decodeCoin(bytes), coin);
  }
  assert.ok(special > 200, 'early coinbases pay to uncompressed P2PK and compress to 33 bytes');
  const withSpends = undos.filter((undo) => undo.length > 0);
  assert.ok(withSpends.length > 0, 'block 170 and later spend coins');
  for (const undo of undos) assert.deepEqual(decodeBlockUndo(encodeBlockUndo(undo)), undo);
});

test('undo: Core CBlockUndo layout with the legacy version byte', () => {
  const genesisCoin: Coin = { output: { value: 50n * COIN, scriptPubKey: Uint8Array.of(0x51) }, height: 0, coinbase: true };
  const later: Coin = { output: { value: 1n, scriptPubKey: Uint8Array.of(0x51) }, height: 1, coinbase: false };
  // 2 txs; tx 0 spends the height-0 coin (no version byte), tx 1 spends two coins at height 1.
  const bytes = encodeBlockUndo([[genesisCoin], [later, later]]);
  assert.equal(toHex(bytes), '02' + '01' + '01' + '32' + '0751' + '02' + ('02' + '00' + '01' + '0751').repeat(2));
  assert.deepEqual(decodeBlockUndo(bytes), [[genesisCoin], [later, later]]);
  // Core reads any value in the version slot.
  assert.deepEqual(decodeBlockUndo(fromHex('0101' + '02' + '8000' + '01' + '0751')), [[later]]);
  assert.deepEqual(decodeBlockUndo(fromHex('00')), []);
  assert.throws(() => decodeBlockUndo(fromHex('0101')), DecodeError, 'truncated');
  assert.throws(() => decodeBlockUndo(fromHex('0000')), DecodeError, 'trailing');

  const random = seeded(0x5eed0004);
  for (let i = 0; i < 200; i++) {
    const undo = Array.from({ length: random() % 6 }, () => Array.from({ length: 1 + (random() % 4) }, () => randomCoin(random)));
    assert.deepEqual(decodeBlockUndo(encodeBlockUndo(undo)), undo);
  }
});

test('block index record: fixed layout and seeded round trips', () => {
  const header = new Uint8Array(80).map((_, i) => i);
  const record: BlockIndexRecord = {
    header,
    height: 0x01020304,
    chainWork: 0x0102n,
    status: 0x8000001d,
    txCount: 7,
    chainTxCount: 2 ** 40 + 3,
    dataFile: -1,
    dataPos: 0xfffffff0,
    sequenceId: -5,
  };
  const bytes = encodeBlockIndexRecord(record);
  assert.equal(bytes.length, BLOCK_INDEX_RECORD_SIZE);
  assert.deepEqual(bytes.subarray(0, 80), header);
  assert.equal(toHex(bytes.subarray(80, 84)), '04030201', 'height LE');
  assert.equal(toHex(bytes.subarray(84, 116)), '00'.repeat(30) + '0102', 'chain work BE');
  assert.equal(toHex(bytes.subarray(132, 136)), 'ffffffff', 'no data file');
  assert.deepEqual(decodeBlockIndexRecord(bytes), record);

  const random = seeded(0x5eed0005);
  for (let i = 0; i < 500; i++) {
    const r: BlockIndexRecord = {
      header: randomBytes(random, 80),
      height: random(),
      chainWork: (randomU64(random) << 192n) | (randomU64(random) << 128n) | (randomU64(random) << 64n) | randomU64(random),
      status: random(),
      txCount: random(),
      chainTxCount: random() * 2 ** 21 + (random() % 2 ** 21),
      dataFile: (random() % 100_000) - 1,
      dataPos: random(),
      sequenceId: random() | 0,
    };
    assert.deepEqual(decodeBlockIndexRecord(encodeBlockIndexRecord(r)), r);
  }
  assert.throws(() => decodeBlockIndexRecord(bytes.subarray(1)), DecodeError);
  assert.throws(() => encodeBlockIndexRecord({ ...record, chainWork: 1n << 256n }), RangeError);
  assert.throws(() => encodeBlockIndexRecord({ ...record, dataFile: -2 }), RangeError);
});

test('small records: file info, txindex entry, mempool entry, meta values', () => {
  const info = { blocks: 3, size: 0x7ffffff, heightFirst: 10, heightLast: 12, timeFirst: 1_600_000_000, timeLast: 1_600_000_600 };
  assert.deepEqual(decodeBlockFileInfo(encodeBlockFileInfo(info)), info);
  const entry = { file: 4, pos: 1234, offset: 81, length: 250 };
  assert.deepEqual(decodeTxIndexEntry(encodeTxIndexEntry(entry)), entry);
  assert.throws(() => decodeTxIndexEntry(new Uint8Array(15)), DecodeError);

  const mempool = { tx: fromHex('0100000000'), fee: -3n, vsize: 61, time: 1_700_000_000, height: 800_000, sequence: 2 ** 40, unbroadcast: true, feeDelta: 0n };
  assert.deepEqual(decodeMempoolEntry(encodeMempoolEntry({ ...mempool, unbroadcast: false })), { ...mempool, unbroadcast: false });
  assert.deepEqual(decodeMempoolEntry(encodeMempoolEntry(mempool)), mempool);
  // A prioritised entry carries its delta; a negative one too.
  for (const feeDelta of [-(2n ** 63n), -1n, 5_000_000n]) {
    const prioritised = { ...mempool, feeDelta };
    assert.deepEqual(decodeMempoolEntry(encodeMempoolEntry(prioritised)), prioritised);
  }
  assert.equal(encodeMempoolEntry({ ...mempool, feeDelta: 1n }).length, encodeMempoolEntry(mempool).length + 8);
  const flaggedWithoutDelta = encodeMempoolEntry(mempool);
  flaggedWithoutDelta[32] = 2;
  assert.throws(() => decodeMempoolEntry(flaggedWithoutDelta), DecodeError, 'a delta flag with too few bytes');
  assert.throws(() => decodeMempoolEntry(new Uint8Array(33)), DecodeError, 'no transaction');
  // A `mempooldelta` value: the delta alone, over int64's whole range.
  for (const delta of [-(2n ** 63n), -1n, 1n, 2n ** 63n - 1n]) assert.equal(decodeFeeDelta(encodeFeeDelta(delta)), delta);
  assert.throws(() => encodeFeeDelta(2n ** 63n), RangeError);
  assert.throws(() => decodeFeeDelta(new Uint8Array(7)), DecodeError);

  assert.equal(u32Meta.decode(u32Meta.encode(0xdeadbeef)), 0xdeadbeef);
  assert.equal(u64Meta.decode(u64Meta.encode(2n ** 64n - 1n)), 2n ** 64n - 1n);
  assert.equal(flagMeta.decode(flagMeta.encode(true)), true);
  assert.throws(() => flagMeta.decode(Uint8Array.of(2)), DecodeError);
  assert.equal(textMeta.decode(textMeta.encode('regtest')), 'regtest');
  assert.throws(() => textMeta.decode(Uint8Array.of(0xff)), DecodeError);
  assert.throws(() => hashMeta.decode(new Uint8Array(31)), DecodeError);
  assert.throws(() => u32Meta.decode(new Uint8Array(5)), DecodeError);
  const stats = { usage: 4_945_928, rollingMinFeeRate: 2888.6046143, lastRollingFeeUpdate: 1_760_000_000, blockSinceLastRollingFeeBump: true };
  assert.deepEqual(mempoolStatsMeta.decode(mempoolStatsMeta.encode(stats)), stats);
  assert.throws(() => mempoolStatsMeta.decode(new Uint8Array(24)), DecodeError);
  const badFlag = mempoolStatsMeta.encode(stats);
  badFlag[24] = 2;
  assert.throws(() => mempoolStatsMeta.decode(badFlag), DecodeError);
});
