import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bip30CheckRequired,
  blockLockTimeFlags,
  blockScriptFlags,
  blockSubsidy,
  calculateSequenceLocks,
  checkTxInputs,
  COIN,
  coinbaseHeightPrefix,
  evaluateSequenceLocks,
  formatMoney,
  isBIP30Repeat,
  isBIP30Unspendable,
  isFinalTx,
  LOCKTIME_VERIFY_SEQUENCE,
  lockTimeCutoff,
  MAX_MONEY,
  selectParams,
  sequenceLocks,
  type Coin,
  type IndexedHeader,
} from '../../src/consensus/index.js';
import { hexToHash, toHex, Transaction, type TxIn } from '../../src/primitives/index.js';
import { VerifyFlags } from '../../src/script/index.js';
import { extend, TestIndex } from './consensus-test-chain.js';

const main = selectParams('main');
const regtest = selectParams('regtest');

test('block subsidy halves every interval and reaches zero', () => {
  assert.equal(blockSubsidy(0, main), 50n * COIN);
  assert.equal(blockSubsidy(209999, main), 50n * COIN);
  assert.equal(blockSubsidy(210000, main), 25n * COIN);
  assert.equal(blockSubsidy(420000, main), 1_250_000_000n);
  assert.equal(blockSubsidy(6929999, main), 1n);
  assert.equal(blockSubsidy(6930000, main), 0n);
  assert.equal(blockSubsidy(64 * 210000, main), 0n);
  assert.equal(blockSubsidy(149, regtest), 50n * COIN);
  assert.equal(blockSubsidy(150, regtest), 25n * COIN);
  let supply = 0n;
  for (let h = 0; h < 64 * 210000; h += 210000) supply += blockSubsidy(h, main) * 210000n;
  assert.equal(supply, 2_099_999_997_690_000n);
});

function tx(inputs: Partial<TxIn>[], outputs: bigint[], version = 2, locktime = 0): Transaction {
  return new Transaction({
    version,
    inputs: inputs.map((i, n) => ({ prevout: { txid: new Uint8Array(32).fill(n + 1), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [], ...i })),
    outputs: outputs.map((value) => ({ value, scriptPubKey: Uint8Array.of(0x51) })),
    locktime,
  });
}

function coin(value: bigint, height = 100, coinbase = false): Coin {
  return { output: { value, scriptPubKey: Uint8Array.of(0x51) }, height, coinbase };
}

test('CheckTxInputs: missing coins, coinbase maturity, ranges, inputs below outputs, fee', () => {
  const spend = tx([{}, {}], [70n, 20n]);
  const ok = checkTxInputs(spend, [coin(60n), coin(40n)], 200);
  assert.deepEqual(ok, { ok: true, fee: 10n, valueIn: 100n });

  const missing = checkTxInputs(spend, [coin(60n), undefined], 200);
  assert.deepEqual(missing, { ok: false, result: 'missing-inputs', reason: 'bad-txns-inputs-missingorspent', debug: 'CheckTxInputs: inputs missing/spent' });

  const immature = checkTxInputs(spend, [coin(60n, 150, true), coin(40n)], 249);
  assert.deepEqual(immature, { ok: false, result: 'premature-spend', reason: 'bad-txns-premature-spend-of-coinbase', debug: 'tried to spend coinbase at depth 99' });
  assert.ok(checkTxInputs(spend, [coin(60n, 150, true), coin(40n)], 250).ok);

  const outOfRange = checkTxInputs(spend, [coin(MAX_MONEY), coin(1n)], 200);
  assert.equal(!outOfRange.ok && outOfRange.reason, 'bad-txns-inputvalues-outofrange');
  assert.equal(!checkTxInputs(spend, [coin(-1n), coin(200n)], 200).ok, true);

  const below = checkTxInputs(tx([{}], [COIN + 1n]), [coin(COIN)], 200);
  assert.deepEqual(below, { ok: false, result: 'consensus', reason: 'bad-txns-in-belowout', debug: 'value in (1.00) < value out (1.00000001)' });
});

test('FormatMoney trims to at least two decimals', () => {
  assert.equal(formatMoney(0n), '0.00');
  assert.equal(formatMoney(COIN), '1.00');
  assert.equal(formatMoney(1n), '0.00000001');
  assert.equal(formatMoney(123_450_000n), '1.2345');
  assert.equal(formatMoney(-50_000_000n), '-0.50');
  assert.equal(formatMoney(MAX_MONEY), '21000000.00');
});

test('IsFinalTx: height and time lock times, final sequences', () => {
  const byHeight = tx([{ sequence: 0 }], [1n], 2, 100);
  assert.equal(isFinalTx(byHeight, 100, 0), false);
  assert.equal(isFinalTx(byHeight, 101, 0), true);
  const byTime = tx([{ sequence: 0 }], [1n], 2, 600_000_000);
  assert.equal(isFinalTx(byTime, 1_000_000, 600_000_000), false);
  assert.equal(isFinalTx(byTime, 1_000_000, 600_000_001), true);
  // All-final sequences disable the lock time.
  assert.equal(isFinalTx(tx([{}], [1n], 2, 600_000_000), 0, 0), true);
  assert.equal(isFinalTx(tx([{ sequence: 0 }], [1n], 2, 0), 0, 0), true);
});

/** A regtest-like chain of `count` blocks, `spacing` seconds apart from time 1,000,000. */
function timedChain(count: number, spacing: number): TestIndex {
  return extend(undefined, count, (h) => ({ time: 1_000_000 + h * spacing, bits: 0x207fffff }));
}

test('BIP68 sequence locks by height and by time, and their opt-outs', () => {
  const parent = timedChain(101, 600); // heights 0..100; the new block is 101
  // Height lock of 10 blocks on a coin from block 91: first valid at 101.
  const heightLock = tx([{ sequence: 10 }], [1n]);
  assert.deepEqual(calculateSequenceLocks(heightLock, LOCKTIME_VERIFY_SEQUENCE, [91], parent), { minHeight: 100, minTime: -1 });
  assert.equal(sequenceLocks(heightLock, LOCKTIME_VERIFY_SEQUENCE, [91], parent), true);
  assert.equal(sequenceLocks(heightLock, LOCKTIME_VERIFY_SEQUENCE, [92], parent), false);
  // Not enforced without the flag, for version 1, or with the disable bit.
  assert.equal(sequenceLocks(heightLock, 0, [100], parent), true);
  assert.equal(sequenceLocks(tx([{ sequence: 10 }], [1n], 1), LOCKTIME_VERIFY_SEQUENCE, [100], parent), true);
  assert.equal(sequenceLocks(tx([{ sequence: 0x80000000 | 10 }], [1n]), LOCKTIME_VERIFY_SEQUENCE, [100], parent), true);
  // Version with the top bit set counts as >= 2 (unsigned since Core v28).
  assert.equal(sequenceLocks(tx([{ sequence: 10 }], [1n], 0xffffffff), LOCKTIME_VERIFY_SEQUENCE, [100], parent), false);

  // Time lock of 2 units (1024 s) on a coin from block 90: counted from the MTP of block 89.
  const timeLock = tx([{ sequence: 0x00400000 | 2 }], [1n]);
  const start = parent.ancestor(89)!.medianTimePast();
  assert.deepEqual(calculateSequenceLocks(timeLock, LOCKTIME_VERIFY_SEQUENCE, [90], parent), { minHeight: -1, minTime: start + 1024 - 1 });
  // The parent's MTP (block 95's time) is past that; a coin from block 100 (MTP of block 99 = block 94's time) is not.
  assert.equal(sequenceLocks(timeLock, LOCKTIME_VERIFY_SEQUENCE, [90], parent), true);
  assert.equal(sequenceLocks(timeLock, LOCKTIME_VERIFY_SEQUENCE, [100], parent), false);
  assert.equal(evaluateSequenceLocks(parent, { minHeight: -1, minTime: parent.medianTimePast() - 1 }), true);
  assert.equal(evaluateSequenceLocks(parent, { minHeight: -1, minTime: parent.medianTimePast() }), false);
  assert.throws(() => calculateSequenceLocks(timeLock, LOCKTIME_VERIFY_SEQUENCE, [], parent), RangeError);
});

test('script flags per block: defaults, exceptions and buried heights', () => {
  const at = (height: number, hashHex = 'ab'.repeat(32)): IndexedHeader => ({
    hash: hexToHash(hashHex),
    height,
    version: 4,
    time: 0,
    bits: 0x1d00ffff,
    prev: undefined,
    ancestor: () => undefined,
    medianTimePast: () => 0,
  });
  const base = VerifyFlags.P2SH | VerifyFlags.WITNESS | VerifyFlags.TAPROOT;
  assert.equal(blockScriptFlags(at(0), main), base);
  assert.equal(blockScriptFlags(at(170_060, '00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22'), main), VerifyFlags.NONE);
  assert.equal(
    blockScriptFlags(at(692_261, '0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad'), main),
    VerifyFlags.P2SH | VerifyFlags.WITNESS | VerifyFlags.DERSIG | VerifyFlags.CHECKLOCKTIMEVERIFY | VerifyFlags.CHECKSEQUENCEVERIFY | VerifyFlags.NULLDUMMY,
  );
  assert.equal(blockScriptFlags(at(363_724), main), base);
  assert.equal(blockScriptFlags(at(363_725), main), base | VerifyFlags.DERSIG);
  assert.equal(blockScriptFlags(at(481_824), main) & VerifyFlags.NULLDUMMY, VerifyFlags.NULLDUMMY);
  // Regtest: everything from height 1 (segwit from 0).
  assert.equal(blockScriptFlags(at(0), regtest), base | VerifyFlags.NULLDUMMY);
  assert.equal(blockScriptFlags(at(1), regtest), base | VerifyFlags.NULLDUMMY | VerifyFlags.DERSIG | VerifyFlags.CHECKLOCKTIMEVERIFY | VerifyFlags.CHECKSEQUENCEVERIFY);
  assert.equal(blockLockTimeFlags(at(1), regtest), LOCKTIME_VERIFY_SEQUENCE);
  assert.equal(blockLockTimeFlags(at(0), regtest), 0);
  const chain = timedChain(20, 600);
  assert.equal(lockTimeCutoff(chain, 5, regtest), chain.medianTimePast());
  assert.equal(lockTimeCutoff(chain, 5, main), 5);
});

test('BIP30: repeat and unspendable blocks, and where the check can be skipped', () => {
  const repeat = new TestIndex(hexToHash('00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec'), 1, 0, 0, undefined);
  assert.equal(isBIP30Repeat(repeat), false); // right hash, wrong height (0)
  assert.equal(isBIP30Unspendable(hexToHash('00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e'), 91722), true);
  assert.equal(isBIP30Unspendable(hexToHash('00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e'), 91723), false);
  // Regtest's BIP34 hash is null, so BIP30 is always checked there.
  assert.equal(bip30CheckRequired(timedChain(10, 600), regtest), true);
  // On mainnet, a chain through the known BIP34 block skips it until BIP34_IMPLIES_BIP30_LIMIT.
  const onChain = (bip34Hash: string, height: number): IndexedHeader => {
    const bip34Block = { hash: hexToHash(bip34Hash) } as IndexedHeader;
    const prev = { height: height - 1, ancestor: (h: number) => (h === 227931 ? bip34Block : undefined) } as IndexedHeader;
    return { hash: new Uint8Array(32), height, prev, ancestor: () => undefined } as unknown as IndexedHeader;
  };
  assert.equal(bip30CheckRequired(onChain(main.bip34Hash, 300000), main), false);
  assert.equal(bip30CheckRequired(onChain(main.bip34Hash, 1983702), main), true);
  assert.equal(bip30CheckRequired(onChain('11'.repeat(32), 300000), main), true);
});

test('BIP34 coinbase height prefix is CScript() << height', () => {
  assert.equal(toHex(coinbaseHeightPrefix(1)), '51');
  assert.equal(toHex(coinbaseHeightPrefix(16)), '60');
  assert.equal(toHex(coinbaseHeightPrefix(17)), '0111');
  assert.equal(toHex(coinbaseHeightPrefix(128)), '028000');
  assert.equal(toHex(coinbaseHeightPrefix(277647)), '038f3c04');
  assert.equal(toHex(coinbaseHeightPrefix(0)), '00');
});
