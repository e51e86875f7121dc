/**
 * The pure parts of the mining RPCs: %.16g doubles, arith_uint256::getdouble, the
 * network hash rate estimate, minimum block time and UpdateTime, BIP9 rules for
 * getblocktemplate, template transaction entries, longpollid and -blockmintxfee parsing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blockProof, selectParams, VersionBitsCache } from '../../src/consensus/index.js';
import {
  gbtVersionBits,
  minimumBlockTime,
  networkHashPerSecond,
  uint256ToDouble,
  updateBlockTime,
  UnsupportedRuleError,
  type WorkedBlock,
} from '../../src/mining/index.js';
import { parseMoney } from '../../src/node/money.js';
import { NULL_OUTPOINT, Transaction } from '../../src/primitives/index.js';
import {
  atoiCounter,
  DEFAULT_NODE_FACTS,
  formatDouble,
  gbtTransactionEntries,
  parseLongPollId,
  RpcError,
  warningsJson,
} from '../../src/rpc/index.js';
import { extend } from './consensus-test-chain.js';

describe('formatDouble (%.16g)', () => {
  test('prints what printf("%.16g") prints', () => {
    const cases: [number, string][] = [
      [1, '1'],
      [0, '0'],
      [100, '100'],
      [2.5, '2.5'],
      [-1.5, '-1.5'],
      [1 / 3, '0.3333333333333333'],
      [0.001126515290698186, '0.001126515290698186'],
      [4.656542373906925e-10, '4.656542373906925e-10'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1234567890123456, '1234567890123456'],
      [1e16, '1e+16'],
      [123456789012345678, '1.234567890123457e+17'],
      [9.999999999999999e22, '9.999999999999999e+22'],
      [1e100, '1e+100'],
      [0.1 + 0.2, '0.3'],
    ];
    for (const [value, text] of cases) assert.equal(formatDouble(value), text, String(value));
  });
});

describe('network hash rate', () => {
  test('uint256ToDouble rounds word by word as arith_uint256::getdouble', () => {
    assert.equal(uint256ToDouble(0n), 0);
    assert.equal(uint256ToDouble(2n), 2);
    // 2^64 + 2^63 + 2500: the middle sum rounds to ...+2048, then the tie rounds to even.
    const value = (1n << 64n) + (1n << 63n) + 2500n;
    assert.equal(uint256ToDouble(value), 27670116110564327424);
    assert.equal(Number(value), 27670116110564331520);
  });

  function chainWithTimes(times: number[]): WorkedBlock {
    let prev: WorkedBlock | undefined;
    times.forEach((time, height) => {
      prev = { height, time, chainWork: (prev?.chainWork ?? 0n) + blockProof(0x207fffff), prev };
    });
    return prev!;
  }

  test('work over the time spread of the window; genesis and equal times give 0', () => {
    const times = [1000, 1600, 2100, 2900, 3000, 3700];
    const tip = chainWithTimes(times);
    const work = blockProof(0x207fffff);
    assert.equal(networkHashPerSecond(tip, 120, 144), Number(work * 5n) / (3700 - 1000));
    assert.equal(networkHashPerSecond(tip, 2, 144), Number(work * 2n) / (3700 - 2900));
    assert.equal(networkHashPerSecond(tip, -1, 144), Number(work * 5n) / (3700 - 1000));
    // -1 at a retarget boundary's first block (height 4, interval 4): one block back.
    assert.equal(networkHashPerSecond(tip.prev!, -1, 4), Number(work) / (3000 - 2900));
    // Height 3 with interval 4 is the period's last block: four back, clamped to the three there are.
    assert.equal(networkHashPerSecond(tip.prev!.prev!, -1, 4), Number(work * 3n) / (2900 - 1000));
    assert.equal(networkHashPerSecond(chainWithTimes([1000]), 120, 144), 0);
    assert.equal(networkHashPerSecond(chainWithTimes([1000, 1000, 1000]), 120, 144), 0);
    // Out-of-order times: the spread is max - min, not last - first.
    assert.equal(networkHashPerSecond(chainWithTimes([1000, 5000, 3000]), 120, 144), Number(work * 2n) / 4000);
  });
});

describe('block time', () => {
  const regtest = selectParams('regtest');

  test('median-time-past + 1, and at a retarget boundary no earlier than parent - 600', () => {
    const tip = extend(undefined, 10, (h) => ({ time: 1000 + h * 10, bits: 0x207fffff }));
    assert.equal(minimumBlockTime(tip, 144), tip.medianTimePast() + 1);
    // Height 143's child is at a boundary (144 % 144 = 0); its parent is far ahead of MTP.
    const boundary = extend(undefined, 144, (h) => ({ time: h === 143 ? 100_000 : 1000 + h, bits: 0x207fffff }));
    assert.equal(boundary.height, 143);
    assert.equal(minimumBlockTime(boundary, 144), 100_000 - 600);
    assert.equal(minimumBlockTime(boundary, 1000), boundary.medianTimePast() + 1);
  });

  test('UpdateTime moves forward to max(minimum, now), never back', () => {
    const tip = extend(undefined, 3, (h) => ({ time: 1000 + h, bits: 0x207fffff }));
    const min = minimumBlockTime(tip, 144);
    assert.deepEqual(updateBlockTime(tip, regtest, 5000, { time: 0, bits: 0x207fffff }), { time: 5000, bits: 0x207fffff });
    assert.deepEqual(updateBlockTime(tip, regtest, 0, { time: 0, bits: 0x207fffff }).time, min);
    assert.equal(updateBlockTime(tip, regtest, 4000, { time: 5000, bits: 0x207fffff }).time, 5000);
  });

  test('on min-difficulty chains the bits follow the time', () => {
    const testnet = selectParams('test');
    const tip = extend(undefined, 3, (h) => ({ time: 1000 + h * 600, bits: 0x1c0fffff }));
    assert.equal(updateBlockTime(tip, testnet, tip.time + 600, { time: 0, bits: 0 }).bits, 0x1c0fffff);
    assert.equal(updateBlockTime(tip, testnet, tip.time + 1201, { time: 0, bits: 0 }).bits, testnet.powLimitBits);
  });
});

describe('getblocktemplate rules', () => {
  test('fresh regtest: csv, !segwit and the always-active taproot; nothing offered', () => {
    const regtest = selectParams('regtest');
    const tip = extend(undefined, 1, () => ({ time: 1000, bits: 0x207fffff }));
    const vb = gbtVersionBits(tip, regtest, new VersionBitsCache(), 0x20000000, new Set(['segwit']), true);
    assert.deepEqual(vb, { version: 0x20000000, rules: ['csv', '!segwit', 'taproot'], vbavailable: {} });
    const pre = gbtVersionBits(tip, regtest, new VersionBitsCache(), 0x20000000, new Set(), false);
    assert.deepEqual(pre.rules, ['csv', 'taproot']);
  });

  test('a started deployment is offered with its bit; a locked-in one sets it', () => {
    const regtest = selectParams('regtest');
    const started = extend(undefined, 144, (h) => ({ time: 1000 + h, bits: 0x207fffff }));
    const cache = new VersionBitsCache();
    assert.equal(cache.state(started, regtest, 'testdummy'), 'started');
    const vb = gbtVersionBits(started, regtest, cache, 0x20000000 | (1 << 28), new Set(['segwit']), true);
    assert.deepEqual(vb.vbavailable, { testdummy: 28 });
    assert.equal(vb.version, 0x30000000);
    // A whole period signalling bit 28 locks it in for the next.
    const lockedIn = extend(started, 144, (h) => ({ time: 1000 + h, bits: 0x207fffff, version: 0x30000000 }));
    const cache2 = new VersionBitsCache();
    assert.equal(cache2.state(lockedIn, regtest, 'testdummy'), 'locked_in');
    const locked = gbtVersionBits(lockedIn, regtest, cache2, 0x20000000, new Set(['segwit']), true);
    assert.deepEqual(locked.vbavailable, { testdummy: 28 });
    assert.equal(locked.version, 0x30000000);
  });

  test('signet adds !signet after !segwit', () => {
    const signet = selectParams('signet');
    const tip = extend(undefined, 1, () => ({ time: 1000, bits: signet.powLimitBits }));
    assert.deepEqual(gbtVersionBits(tip, signet, new VersionBitsCache(), 0x20000000, new Set(['segwit', 'signet']), true).rules, [
      'csv',
      '!segwit',
      '!signet',
      'taproot',
    ]);
  });

  test('the unsupported-rule error carries Core text', () => {
    assert.equal(new UnsupportedRuleError('foo').message, "Support for 'foo' rule requires explicit client support");
  });
});

describe('template transaction entries', () => {
  test('hex, ids, 1-based depends on earlier template transactions, fee, sigops (pre-segwit in legacy units), weight', () => {
    const coinbase = new Transaction({
      version: 2,
      inputs: [{ prevout: NULL_OUTPOINT, scriptSig: Uint8Array.of(0x51, 0x00), sequence: 0xffffffff, witness: [] }],
      outputs: [{ value: 1n, scriptPubKey: Uint8Array.of(0x51) }],
      locktime: 0,
    });
    const spend = (txid: Uint8Array, tag: number) =>
      new Transaction({
        version: 2,
        inputs: [{ prevout: { txid, vout: 0 }, scriptSig: Uint8Array.of(tag), sequence: 0xffffffff, witness: [] }],
        outputs: [{ value: 1n, scriptPubKey: Uint8Array.of(0x51) }],
        locktime: 0,
      });
    const a = spend(new Uint8Array(32).fill(7), 1);
    const b = spend(a.txid, 2);
    const c = spend(coinbase.txid, 3);
    const entries = gbtTransactionEntries(
      coinbase,
      [
        { tx: a, fee: 100n, sigopsCost: 4 },
        { tx: b, fee: 200n, sigopsCost: 8 },
        { tx: c, fee: 0n, sigopsCost: 0 },
      ],
      false,
    ) as { depends: number[]; sigops: number; txid: string; hash: string; weight: number; fee: bigint }[];
    assert.deepEqual(Object.keys(entries[0]!), ['data', 'txid', 'hash', 'depends', 'fee', 'sigops', 'weight']);
    assert.deepEqual(entries.map((e) => e.depends), [[], [1], [0]]);
    assert.deepEqual(entries.map((e) => e.sigops), [1, 2, 0]);
    assert.equal(entries[1]!.txid, b.txidHex);
    assert.equal(entries[1]!.weight, b.weight);
    assert.equal(entries[1]!.fee, 200n);
  });
});

describe('longpollid, -blockmintxfee, warnings', () => {
  test('the counter part reads as Core\'s atoi, narrowed to 32 bits', () => {
    assert.equal(atoiCounter(''), 0);
    assert.equal(atoiCounter('17'), 17);
    assert.equal(atoiCounter(' +5x'), 5);
    assert.equal(atoiCounter('+-5'), 0);
    assert.equal(atoiCounter('abc'), 0);
    assert.equal(atoiCounter('-1'), 4294967295);
    assert.equal(atoiCounter('4294967297'), 1);
    assert.equal(atoiCounter('99999999999999999999'), 4294967295);
  });

  test('parseLongPollId: hash then counter; a non-string watches the current state', () => {
    const tip = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
    assert.deepEqual(parseLongPollId(`${tip}42`, 'x', 0), { tip, transactionsUpdated: 42 });
    assert.deepEqual(parseLongPollId(true, tip, 3), { tip, transactionsUpdated: 3 });
    assert.throws(() => parseLongPollId('abc', tip, 0), (e: RpcError) => e.code === -8 && e.message === "longpollid must be of length 64 (not 3, for 'abc')");
    assert.throws(() => parseLongPollId('z'.repeat(70), tip, 0), (e: RpcError) => e.message === `longpollid must be hexadecimal string (not '${'z'.repeat(64)}')`);
  });

  test('parseMoney as Core\'s ParseMoney', () => {
    assert.equal(parseMoney('0.00001'), 1000n);
    assert.equal(parseMoney(' 1.5 '), 150_000_000n);
    assert.equal(parseMoney('1.'), 100_000_000n);
    assert.equal(parseMoney('.5'), 50_000_000n);
    assert.equal(parseMoney('0'), 0n);
    assert.equal(parseMoney(''), undefined);
    assert.equal(parseMoney('1.123456789'), undefined);
    assert.equal(parseMoney('-1'), undefined);
    assert.equal(parseMoney('1e3'), undefined);
    assert.equal(parseMoney('21000001'), undefined);
  });

  test('warnings: an array, or the latest as a string with -deprecatedrpc=warnings', () => {
    assert.deepEqual(warningsJson(DEFAULT_NODE_FACTS), []);
    const facts = { ...DEFAULT_NODE_FACTS, warnings: () => ['a', 'b'] };
    assert.deepEqual(warningsJson(facts), ['a', 'b']);
    assert.equal(warningsJson({ ...facts, deprecatedRpc: (n: string) => n === 'warnings' }), 'b');
    assert.equal(warningsJson({ ...DEFAULT_NODE_FACTS, deprecatedRpc: () => true }), '');
  });
});
