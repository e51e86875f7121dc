import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  blockProof,
  blockProofEquivalentTime,
  calculateNextWorkRequired,
  checkProofOfWork,
  compactToTarget,
  decodeCompact,
  deriveTarget,
  getDifficulty,
  getNextWorkRequired,
  permittedDifficultyTransition,
  selectParams,
  targetToCompact,
  uint256Hex,
  type ChainParams,
} from '../../src/consensus/index.js';
import { fromHex, parseBlock } from '../../src/primitives/index.js';
import { readVectorText } from '../support/vectors.js';
import { extend, indexHeader, syntheticChild, type TestIndex } from './consensus-test-chain.js';

const main = selectParams('main');

test('compact encoding round trips as Core (arith_uint256 SetCompact/GetCompact vectors)', () => {
  const zeroes = [0, 0x00123456, 0x01003456, 0x02000056, 0x03000000, 0x04000000, 0x00923456, 0x01803456, 0x02800056, 0x03800000, 0x04800000];
  for (const bits of zeroes) {
    const d = decodeCompact(bits);
    assert.equal(d.target, 0n, bits.toString(16));
    assert.equal(d.negative, false);
    assert.equal(d.overflow, false);
    assert.equal(targetToCompact(d.target), 0);
  }
  const cases: [number, bigint, number, boolean][] = [
    [0x01123456, 0x12n, 0x01120000, false],
    [0x01fedcba, 0x7en, 0x01fe0000, true],
    [0x02123456, 0x1234n, 0x02123400, false],
    [0x03123456, 0x123456n, 0x03123456, false],
    [0x04123456, 0x12345600n, 0x04123456, false],
    [0x04923456, 0x12345600n, 0x04923456, true],
    [0x05009234, 0x92340000n, 0x05009234, false],
    [0x20123456, 0x123456n << 232n, 0x20123456, false],
  ];
  for (const [bits, target, compact, negative] of cases) {
    const d = decodeCompact(bits);
    assert.equal(d.target, target, bits.toString(16));
    assert.equal(d.negative, negative, bits.toString(16));
    assert.equal(d.overflow, false);
    assert.equal(targetToCompact(target, negative), compact, bits.toString(16));
  }
  assert.equal(decodeCompact(0xff123456).overflow, true);
  assert.equal(targetToCompact(main.powLimit), 0x1d00ffff);
  assert.equal(uint256Hex(compactToTarget(0x207fffff)), '7fffff' + '0'.repeat(58));
});

test('deriveTarget rejects negative, zero, overflowing and above-limit targets', () => {
  assert.equal(deriveTarget(0x1d00ffff, main.powLimit), 0xffffn << 208n);
  assert.equal(deriveTarget(0x1d80ffff, main.powLimit), undefined);
  assert.equal(deriveTarget(0x1d000000, main.powLimit), undefined);
  assert.equal(deriveTarget(0xff123456, main.powLimit), undefined);
  assert.equal(deriveTarget(0x1d010000, main.powLimit), undefined);
  assert.equal(checkProofOfWork(main.genesisHash, 0x1d00ffff, main), true);
  // The genesis hash (about 2^213) misses a target of about 2^208.
  assert.equal(checkProofOfWork(main.genesisHash, 0x1b00ffff, main), false);
});

/** A two-block stand-in for a retarget: `last` at `height` with a parent chain reaching the period start. */
function retargetFrom(height: number, lastTime: number, bits: number, firstTime: number, params: ChainParams): TestIndex {
  const start = height - (params.difficultyAdjustmentInterval - 1);
  return extend(undefined, height + 1, (h) => ({ time: h === height ? lastTime : h === start ? firstTime : firstTime + h - start, bits }));
}

test('retarget arithmetic (Core pow_tests vectors), clamped to x4 and /4, capped at powLimit', () => {
  // get_next_work: block 32255 with the period starting at block 30240.
  const last = syntheticChild(undefined, { time: 1262152739, bits: 0x1d00ffff });
  assert.equal(calculateNextWorkRequired(last, 1261130161, main), 0x1d00d86a);
  // get_next_work_pow_limit: the first period was slow; the target stays at the limit.
  assert.equal(calculateNextWorkRequired(syntheticChild(undefined, { time: 1233061996, bits: 0x1d00ffff }), 1231006505, main), 0x1d00ffff);
  // get_next_work_lower_limit_actual: too fast, clamped to a quarter of the timespan.
  assert.equal(calculateNextWorkRequired(syntheticChild(undefined, { time: 1279297671, bits: 0x1c05a3f4 }), 1279008237, main), 0x1c0168fd);
  // get_next_work_upper_limit_actual: too slow, clamped to four timespans.
  assert.equal(calculateNextWorkRequired(syntheticChild(undefined, { time: 1269211443, bits: 0x1c387f6f }), 1263163443, main), 0x1d00e1fd);

  // Through getNextWorkRequired on a synthetic mainnet period: only the boundary changes bits.
  const fast = retargetFrom(2015, 1_000_000 + 100, 0x1c05a3f4, 1_000_000, main);
  assert.equal(getNextWorkRequired(fast, fast.time + 600, main), 0x1c0168fd);
  assert.equal(getNextWorkRequired(fast.prev!, fast.time, main), 0x1c05a3f4);
});

test('permittedDifficultyTransition allows exactly the clamped range at a boundary', () => {
  assert.ok(permittedDifficultyTransition(main, 68544, 0x1c05a3f4, 0x1c0168fd));
  assert.ok(!permittedDifficultyTransition(main, 68544, 0x1c05a3f4, 0x1c0168fc));
  assert.ok(permittedDifficultyTransition(main, 46368, 0x1c387f6f, 0x1d00e1fd));
  assert.ok(!permittedDifficultyTransition(main, 46368, 0x1c387f6f, 0x1d00e1fe));
  assert.ok(permittedDifficultyTransition(main, 100, 0x1c387f6f, 0x1c387f6f));
  assert.ok(!permittedDifficultyTransition(main, 100, 0x1c387f6f, 0x1c387f6e));
  assert.ok(permittedDifficultyTransition(selectParams('test'), 100, 0x1c387f6f, 0x1d00ffff));
});

test('testnet: the 20-minute rule and the walk back over minimum-difficulty blocks', () => {
  const params = selectParams('test');
  const real = 0x1c0fffff;
  // Heights 0..2016 at real difficulty, then two minimum-difficulty blocks.
  let tip = extend(undefined, 2017, (h) => ({ time: 1_000_000 + h * 600, bits: real }));
  assert.equal(getNextWorkRequired(tip, tip.time + 1201, params), params.powLimitBits);
  assert.equal(getNextWorkRequired(tip, tip.time + 1200, params), real);
  tip = syntheticChild(tip, { time: tip.time + 1300, bits: params.powLimitBits });
  tip = syntheticChild(tip, { time: tip.time + 1300, bits: params.powLimitBits });
  // A prompt block after them must carry the last real bits, not the limit.
  assert.equal(getNextWorkRequired(tip, tip.time + 60, params), real);
  // The walk stops at the period's first block even when that block is at the limit.
  let t = extend(undefined, 2016, (h) => ({ time: 1_000_000 + h * 600, bits: real }));
  t = syntheticChild(t, { time: t.time + 1300, bits: params.powLimitBits }); // height 2016, period start
  t = syntheticChild(t, { time: t.time + 1300, bits: params.powLimitBits });
  assert.equal(getNextWorkRequired(t, t.time + 60, params), params.powLimitBits);
});

test('BIP94 (testnet4): retarget from the first block of the period, and min-difficulty tails do not lower it', () => {
  const t4 = selectParams('testnet4');
  const real = 0x1c0fffff;
  // A period whose last block is a minimum-difficulty block.
  const tip = extend(undefined, 2016, (h) => ({ time: 1_000_000 + h * 600, bits: h === 2015 ? t4.powLimitBits : real }));
  const first = tip.ancestor(0)!;
  const expected = calculateNextWorkRequired(syntheticChild(undefined, { time: tip.time, bits: real }), first.time, main);
  assert.equal(getNextWorkRequired(tip, tip.time + 600, t4), expected);
  // testnet3 rules scale the last block's (minimum) difficulty instead.
  const fromLast = calculateNextWorkRequired(syntheticChild(undefined, { time: tip.time, bits: t4.powLimitBits }), first.time, main);
  assert.notEqual(fromLast, expected);
  assert.equal(getNextWorkRequired(tip, tip.time + 600, selectParams('test')), fromLast);
});

test('regtest never retargets', () => {
  const regtest = selectParams('regtest');
  const tip = extend(undefined, 144, (h) => ({ time: 1_296_688_602 + h, bits: 0x207fffff }));
  assert.equal(getNextWorkRequired(tip, tip.time + 1, regtest), 0x207fffff);
});

test('mainnet headers 0-255: required bits, proof of work and chain work', () => {
  const lines = readVectorText('mainnet-blocks-0-255.hex').split('\n').filter((l) => l.trim() !== '');
  let tip: TestIndex | undefined;
  let work = 0n;
  for (const line of lines) {
    const header = parseBlock(fromHex(line.trim())).header;
    if (tip) assert.equal(getNextWorkRequired(tip, header.time, main), header.bits, `height ${tip.height + 1}`);
    assert.ok(checkProofOfWork(header.hash, header.bits, main));
    work += blockProof(header.bits);
    tip = indexHeader(header, tip);
  }
  assert.equal(tip!.height, 255);
  assert.equal(blockProof(0x1d00ffff), 0x100010001n);
  assert.equal(work, 256n * 0x100010001n);
  assert.equal(uint256Hex(work), '0'.repeat(53) + '10001000100');
});

test('block proof and proof-equivalent time', () => {
  assert.equal(blockProof(0x207fffff), 2n);
  assert.equal(blockProof(0x1e0377ae), 0x49d414n);
  assert.equal(blockProof(0x1d80ffff), 0n);
  const perBlock = blockProof(0x1d00ffff);
  assert.equal(blockProofEquivalentTime(perBlock * 10n, 0n, 0x1d00ffff, main), 6000n);
  assert.equal(blockProofEquivalentTime(0n, perBlock * 10n, 0x1d00ffff, main), -6000n);
  assert.equal(blockProofEquivalentTime(1n << 200n, 0n, 0x1d00ffff, main), (1n << 63n) - 1n);
});

test('difficulty of each genesis block, printed as Core prints it (%.16g)', () => {
  assert.equal(getDifficulty(selectParams('main').genesis.header.bits), 1);
  assert.equal(getDifficulty(selectParams('testnet4').genesis.header.bits), 1);
  assert.equal(getDifficulty(selectParams('signet').genesis.header.bits).toPrecision(16), '0.001126515290698186');
  assert.equal(getDifficulty(selectParams('regtest').genesis.header.bits).toPrecision(16), '4.656542373906925e-10');
  assert.equal(getDifficulty(0x1d00d86a).toPrecision(16), '1.182899534312841');
});
