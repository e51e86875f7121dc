/**
 * -maxuploadtarget accounting against Core's numbers: the unit suffixes of ParseByteUnits,
 * 24-hour cycles that start with the first byte sent, the historical-block buffer of one
 * block per remaining 10 minutes, and the fully reached target.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseByteUnits, UploadTarget } from '../../src/net/index.js';

test('parseByteUnits: default MiB, lowercase 1000-based, uppercase 1024-based, garbage refused', () => {
  assert.equal(parseByteUnits('10'), 10 * 1024 * 1024);
  assert.equal(parseByteUnits('10k'), 10_000);
  assert.equal(parseByteUnits('10K'), 10 * 1024);
  assert.equal(parseByteUnits('2g'), 2_000_000_000);
  assert.equal(parseByteUnits('1T'), 1024 ** 4);
  assert.equal(parseByteUnits('0'), 0);
  for (const bad of ['', '-1', '1.5', '10x', 'M']) assert.equal(parseByteUnits(bad), undefined, bad);
});

test('UploadTarget: cycles, the historical buffer and the reached target as Core computes them', () => {
  let now = 1_000_000;
  const none = new UploadTarget(0, () => now);
  none.recordSent(1e9);
  assert.deepEqual([none.reached(false), none.reached(true), none.bytesLeft(), none.timeLeftInCycle()], [false, false, 0, 0]);

  const limit = 200 * 1024 * 1024;
  const u = new UploadTarget(limit, () => now);
  // Before any byte: a whole cycle ahead, and a buffer of 144 blocks (576 MB) exceeds the target.
  assert.equal(u.timeLeftInCycle(), 86_400);
  assert.equal(u.reached(true), true);
  assert.equal(u.reached(false), false);
  u.recordSent(1000);
  assert.equal(u.bytesLeft(), limit - 1000);
  // Late in the cycle the buffer shrinks: 10 minutes left keeps one block.
  now += 86_400 - 600;
  assert.equal(u.timeLeftInCycle(), 600);
  assert.equal(u.reached(true), false);
  u.recordSent(limit - 4_000_000);
  assert.equal(u.reached(true), true);
  assert.equal(u.reached(false), false);
  u.recordSent(4_000_000);
  assert.equal(u.reached(false), true);
  assert.equal(u.bytesLeft(), 0);
  // The next byte after the cycle's end starts a new one.
  now += 601;
  u.recordSent(10);
  assert.equal(u.bytesLeft(), limit - 10);
  assert.equal(u.timeLeftInCycle(), 86_400);
});
