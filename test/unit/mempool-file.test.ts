/**
 * mempool.dat's codec (Core's DumpMempool / LoadMempool serialization): a file bitcoind
 * v31.0 wrote decodes and re-encodes to the same bytes, both versions round-trip, and a
 * damaged file fails at the step where the damage is, with Core's end-of-file text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  encodeMempoolFile,
  MEMPOOL_DUMP_VERSION_OBFUSCATED,
  MEMPOOL_DUMP_VERSION_PLAIN,
  MempoolFileError,
  MempoolFileReader,
  type MempoolFileContent,
} from '../../src/mempool/index.js';
import { fromHex, hashToHex, hexToHash, toHex, Transaction } from '../../src/primitives/index.js';

/**
 * What bitcoind v31.0's savemempool wrote on regtest with an empty pool after
 * prioritisetransaction of ...01 by 17 and of ...ff and 01...00 by 3 (version 2, key
 * 53d0c90cd1fed212).
 */
const CORE_DUMP = fromHex(
  '02000000000000000853d0c90cd1fed212d0c90cd1fed21253d3c90cd1fed21253d0c90cd1fed21253d0c90cd1fed21253d0c90cd1fed212' +
    '53d1ca0cd1fed21253d0c80cd1fed21253d0c90cd1fed21253d0c90cd1fed21253d0c90cd1fed21253d0d80cd1fed21253d0360cd1fed212' +
    '53d0c90cd1fed21253d0c90cd1fed21253d0c90cd1fed21253d0ca0cd1fed21253d0c9',
);
const CORE_KEY = fromHex('53d0c90cd1fed212');
const TXID = (last: string) => '00'.repeat(31) + last;

function sampleTx(n: number, witness: boolean): Transaction {
  return new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: hexToHash(TXID('aa')), vout: n }, scriptSig: new Uint8Array(), sequence: 0xfffffffd, witness: witness ? [Uint8Array.of(n, 1, 2)] : [] }],
    outputs: [{ value: 50_000n + BigInt(n), scriptPubKey: fromHex('0014' + '11'.repeat(20)) }],
    locktime: 0,
  });
}

function readAll(bytes: Uint8Array) {
  const reader = MempoolFileReader.open(bytes)!;
  const txs = [];
  for (let i = 0n; i < reader.count; i++) txs.push(reader.nextTx());
  return { txs, deltas: reader.deltas(), unbroadcast: reader.unbroadcast() };
}

test('a mempool.dat bitcoind wrote decodes, and encodes back to the same bytes with its key', () => {
  const read = readAll(CORE_DUMP);
  assert.equal(read.txs.length, 0);
  assert.deepEqual(
    read.deltas.map((d) => [hashToHex(d.txid), d.delta]),
    [
      ['01' + '00'.repeat(31), 3n],
      [TXID('01'), 17n],
      [TXID('ff'), 3n],
    ],
  );
  assert.equal(read.unbroadcast.length, 0);
  assert.equal(toHex(encodeMempoolFile({ txs: [], deltas: read.deltas.reverse(), unbroadcast: [] }, CORE_KEY)), toHex(CORE_DUMP));
});

for (const key of [undefined, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)]) {
  test(`version ${key ? 2 : 1}: transactions (with and without witness), times, deltas and the unbroadcast set round-trip`, () => {
    const content: MempoolFileContent = {
      txs: [
        { tx: sampleTx(0, true), time: 1_700_000_000, feeDelta: -5_000n },
        { tx: sampleTx(1, false), time: 1_700_000_100, feeDelta: 0n },
      ],
      deltas: [{ txid: hexToHash(TXID('02')), delta: (1n << 63n) - 1n }],
      unbroadcast: [sampleTx(1, false).txid, sampleTx(0, true).txid],
    };
    const bytes = encodeMempoolFile(content, key);
    assert.equal(new DataView(bytes.buffer).getBigUint64(0, true), key ? MEMPOOL_DUMP_VERSION_OBFUSCATED : MEMPOOL_DUMP_VERSION_PLAIN);
    const read = readAll(bytes);
    assert.deepEqual(
      read.txs.map((t) => [toHex(t.tx.toBytes()), t.time, t.feeDelta]),
      content.txs.map((t) => [toHex(t.tx.toBytes()), t.time, t.feeDelta]),
    );
    assert.deepEqual(read.deltas.map((d) => [hashToHex(d.txid), d.delta]), [[TXID('02'), (1n << 63n) - 1n]]);
    // std::set order: the txids' internal bytes.
    const expected = content.unbroadcast.map(toHex).sort();
    assert.deepEqual(read.unbroadcast.map(toHex), expected);
    // Version 2 hides the transactions under the key; version 1 holds them plain.
    assert.equal(toHex(bytes).includes(toHex(sampleTx(0, true).toBytes())), key === undefined);
  });
}

test('every truncation fails with Core\'s end-of-file text; an unknown version is refused without one', () => {
  const bytes = encodeMempoolFile({ txs: [{ tx: sampleTx(3, true), time: 1, feeDelta: 2n }], deltas: [{ txid: hexToHash(TXID('05')), delta: 9n }], unbroadcast: [hexToHash(TXID('07'))] }, CORE_KEY);
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.throws(
      () => readAll(bytes.subarray(0, cut)),
      (err: unknown) => err instanceof MempoolFileError && err.message === 'AutoFile::read: end of file: iostream error',
      `cut at ${cut}`,
    );
  }
  assert.doesNotThrow(() => readAll(bytes));
  const v3 = bytes.slice();
  v3[0] = 3;
  assert.equal(MempoolFileReader.open(v3), undefined);
});
