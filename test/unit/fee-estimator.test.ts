import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BlockPolicyEstimator,
  bucketIndex,
  decodeFeeEstimates,
  defaultBuckets,
  emptyEstimationResult,
  encodeFeeEstimates,
  type FeeCalculation,
  type NewPoolTransaction,
} from '../../src/fees/index.js';

function poolTx(txid: string, satPerKvB: number, height: number, overrides: Partial<NewPoolTransaction> = {}): NewPoolTransaction {
  // 1,000 vbytes: the fee is the fee rate.
  return { txid, fee: BigInt(satPerKvB), vsize: 1000, height, limitsBypassed: false, submittedInPackage: false, chainstateIsCurrent: true, hasNoPoolParents: true, ...overrides };
}

function feeCalc(): FeeCalculation {
  return { est: emptyEstimationResult(), reason: 'None', desiredTarget: 0, returnedTarget: 0, bestHeight: 0 };
}

/** Blocks 2..blocks+1: each confirms the `perBlock` transactions per rate that entered at the height before. */
function steadyEstimator(rates: readonly number[], perBlock: number, blocks: number): BlockPolicyEstimator {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 1);
  for (let h = 1; h <= blocks; h++) {
    const txs = rates.flatMap((rate) => Array.from({ length: perBlock }, (_, i) => poolTx(`${h}-${rate}-${i}`, rate, h)));
    for (const tx of txs) est.processTransaction(tx);
    est.processBlock(txs, h + 1);
  }
  return est;
}

test('fee buckets: 100 sat/kvB up by 5% to 1e7, then 1e99; a rate files under the first bound at least it', () => {
  const buckets = defaultBuckets();
  assert.equal(buckets.length, 237);
  assert.deepEqual(buckets.slice(0, 3), [100, 105, 110.25]);
  assert.equal(buckets[235], 9538614.152175432);
  assert.equal(buckets[236], 1e99);
  assert.equal(bucketIndex(buckets, 0), 0);
  assert.equal(bucketIndex(buckets, 100), 0);
  assert.equal(bucketIndex(buckets, 101), 1);
  assert.equal(bucketIndex(buckets, 10000), 95);
  assert.equal(buckets[95], 10303.46764460949);
  assert.equal(bucketIndex(buckets, 2e7), 236);
});

test('a confirmation is counted once and then decays by each horizon’s rate per block', () => {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 10);
  const tx = poolTx('a', 10000, 10);
  est.processTransaction(tx);
  assert.equal(est.trackedCount, 1);
  est.processBlock([tx], 11);
  assert.equal(est.trackedCount, 0);
  let state = est.state();
  assert.equal(state.horizons.short.txCtAvg[95], 1);
  assert.equal(state.horizons.short.feeRateAvg[95], 10000);
  // Confirmed in 1 block: every period of every horizon counts it.
  assert.ok(state.horizons.long.confAvg.every((row) => row[95] === 1));
  est.processBlock([], 12);
  est.processBlock([], 13);
  state = est.state();
  assert.equal(state.horizons.short.txCtAvg[95], 1 * 0.962 * 0.962);
  assert.equal(state.horizons.medium.txCtAvg[95], 1 * 0.9952 * 0.9952);
  assert.equal(state.horizons.long.txCtAvg[95], 1 * 0.99931 * 0.99931);
  // The span written is the current one: first recorded at 11, best 13.
  assert.deepEqual([state.bestSeenHeight, state.historicalFirst, state.historicalBest], [13, 11, 13]);
});

test('only transactions Core counts are tracked: at the best height, current, parentless, not bypassed, not in a package', () => {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 5);
  est.processTransaction(poolTx('old-height', 1000, 4));
  est.processTransaction(poolTx('bypass', 1000, 5, { limitsBypassed: true }));
  est.processTransaction(poolTx('package', 1000, 5, { submittedInPackage: true }));
  est.processTransaction(poolTx('ibd', 1000, 5, { chainstateIsCurrent: false }));
  est.processTransaction(poolTx('child', 1000, 5, { hasNoPoolParents: false }));
  assert.equal(est.trackedCount, 0);
  est.processTransaction(poolTx('ok', 1000, 5));
  est.processTransaction(poolTx('ok', 1000, 5));
  assert.equal(est.trackedCount, 1);
  // A block at or below the best height is ignored.
  est.processBlock([poolTx('ok', 1000, 5)], 5);
  assert.equal(est.trackedCount, 1);
});

test('a transaction removed unconfirmed fails every whole period it waited', () => {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 100);
  est.processTransaction(poolTx('x', 5000, 100));
  for (let h = 101; h <= 103; h++) est.processBlock([], h);
  assert.equal(est.removeTx('x'), true);
  assert.equal(est.removeTx('x'), false);
  const b = bucketIndex(defaultBuckets(), 5000);
  const { short, medium, long } = est.state().horizons;
  assert.deepEqual(short.failAvg.map((row) => row[b]), [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(medium.failAvg.slice(0, 2).map((row) => row[b]), [1, 0]);
  assert.ok(long.failAvg.every((row) => row[b] === 0));
});

test('steady next-block confirmations give that fee rate at every usable target', () => {
  const est = steadyEstimator([10000], 10, 20);
  // First recorded at 2, best 21: half the span of 19 blocks is usable.
  assert.equal(est.maxUsableEstimate(), 9);
  for (const conservative of [false, true]) {
    const calc = feeCalc();
    assert.equal(est.estimateSmartFee(2, conservative, calc), 10000);
    assert.equal(calc.returnedTarget, 2);
    assert.equal(est.estimateSmartFee(1, conservative), 10000);
    const far = feeCalc();
    assert.equal(est.estimateSmartFee(144, conservative, far), 10000);
    assert.deepEqual([far.desiredTarget, far.returnedTarget, far.bestHeight], [144, 9, 21]);
  }
  const result = emptyEstimationResult();
  assert.equal(est.estimateRawFee(6, 0.95, 'short', result), 10000);
  assert.equal(result.pass.start, defaultBuckets()[94]);
  // The passing range runs from the top bucket down to the first with enough data.
  assert.equal(result.pass.end, 1e99);
  // The buckets below, without data, are reported as the failing range.
  assert.deepEqual([result.fail.start, result.fail.end], [0, defaultBuckets()[94]]);
  assert.equal(result.decay, 0.962);
  assert.equal(est.estimateRawFee(13, 0.95, 'short'), 0);
});

test('rates that stay in the pool fail their bucket: the estimate is the rate that confirms', () => {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 1);
  for (let h = 1; h <= 30; h++) {
    const fast = Array.from({ length: 5 }, (_, i) => poolTx(`f${h}-${i}`, 20000, h));
    const slow = Array.from({ length: 5 }, (_, i) => poolTx(`s${h}-${i}`, 1000, h));
    for (const tx of [...fast, ...slow]) est.processTransaction(tx);
    est.processBlock(fast, h + 1);
  }
  const calc = feeCalc();
  assert.equal(est.estimateSmartFee(3, false, calc), 20000);
  // Below the passing range nothing ever confirmed: the rest is the failing range, with the waiting transactions.
  assert.deepEqual([calc.est.fail.start, calc.est.fail.end], [0, defaultBuckets()[bucketIndex(defaultBuckets(), 20000) - 1]]);
  assert.ok(calc.est.fail.inMempool > 0);
  // Without data for a target at all: 0, returned target clamped to the usable span.
  const none = new BlockPolicyEstimator();
  const noneCalc = feeCalc();
  assert.equal(none.estimateSmartFee(6, false, noneCalc), 0);
  assert.equal(noneCalc.returnedTarget, 0);
  assert.equal(none.estimateSmartFee(0, false), 0);
  assert.equal(none.estimateSmartFee(1009, false), 0);
});

test('fee_estimates.dat: header and layout as Core writes them, and a round trip restores the estimates', () => {
  const est = steadyEstimator([3000, 10000, 50000], 4, 40);
  const bytes = encodeFeeEstimates(est.state());
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // v31: version 309900, then best seen height, historical first and best (no unused field).
  assert.equal(view.getInt32(0, true), 309900);
  assert.equal(view.getUint32(4, true), 41);
  assert.equal(view.getUint32(8, true), 2);
  assert.equal(view.getUint32(12, true), 41);
  assert.equal(bytes[16], 237);
  assert.equal(view.getFloat64(17, true), 100);
  // Header, buckets, then three horizons of (decay, scale, 2 vectors, 2 matrices).
  const vec = 1 + 237 * 8;
  const horizon = (periods: number) => 8 + 4 + 2 * vec + 2 * (1 + periods * vec);
  assert.equal(bytes.length, 16 + vec + horizon(24) + horizon(12) + horizon(42));
  const decoded = decodeFeeEstimates(bytes);
  assert.ok(!('oldVersion' in decoded));
  const loaded = new BlockPolicyEstimator();
  loaded.restore(decoded);
  assert.equal(loaded.bestHeight, 41);
  for (const target of [2, 3, 6, 12, 20]) {
    for (const conservative of [false, true]) assert.equal(loaded.estimateSmartFee(target, conservative), est.estimateSmartFee(target, conservative));
  }
  assert.deepEqual(encodeFeeEstimates(loaded.state()), bytes);
  const tooNew = bytes.slice();
  new DataView(tooNew.buffer).setInt32(0, 309901, true);
  assert.throws(() => decodeFeeEstimates(tooNew), /File version \(309901\) too high to be read\./);
  const old = bytes.slice();
  // A pre-v31 file (149900, with its extra field) is ignored with Core's warning.
  new DataView(old.buffer).setInt32(0, 149900, true);
  assert.deepEqual(decodeFeeEstimates(old), { oldVersion: 149900 });
});
