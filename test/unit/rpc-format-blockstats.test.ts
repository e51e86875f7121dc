/**
 * getblockstats (rpc-results.md §10): weighted fee-rate percentiles, truncated medians,
 * the stats selection with Core's ordering and errors, unspendable and genesis outputs in
 * the *_actual statistics, and the per-UTXO overhead that differs between v31.0 and the
 * master file in test/vectors/data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectParams } from '../../src/consensus/index.js';
import { BlockHeader, fromHex, NULL_OUTPOINT, Transaction, type Block, type TxOut } from '../../src/primitives/index.js';
import { RPC_INVALID_PARAMETER, RPC_TYPE_ERROR, RpcError } from '../../src/rpc/errors.js';
import { writeJson } from '../../src/rpc/json.js';
import {
  BLOCK_STAT_NAMES,
  computeBlockStats,
  parseStatNames,
  PER_UTXO_OVERHEAD,
  PER_UTXO_OVERHEAD_PACKED,
  percentilesByWeight,
  selectBlockStats,
  truncatedMedian,
} from '../../src/rpc/format/index.js';
import { loadStatsVectors, statsAt } from '../vectors/suites/getblockstats.js';

const regtest = selectParams('regtest');

function rpcError(fn: () => unknown, code: number, message: string): void {
  assert.throws(fn, (err: unknown) => err instanceof RpcError && err.code === code && err.message === message);
}

test('percentiles by weight (the cases of Core\'s rpc_tests)', () => {
  const halves: [number, number][] = [...Array.from({ length: 100 }, () => [1, 1] as [number, number]), ...Array.from({ length: 100 }, () => [2, 1] as [number, number])];
  assert.deepEqual(percentilesByWeight(halves, 200), [1, 1, 1, 2, 2]);
  assert.deepEqual(percentilesByWeight([[1, 9], [2, 16], [4, 50], [5, 10], [9, 15]], 100), [2, 2, 4, 4, 9]);
  assert.deepEqual(percentilesByWeight([[1, 9], [2, 11], [2, 5], [4, 50], [5, 10], [9, 15]], 100), [2, 2, 4, 4, 9]);
  assert.deepEqual(percentilesByWeight([[1, 100], [2, 1], [3, 1], [3, 1], [999999, 1]], 104), [1, 1, 1, 1, 1]);
  // Unsorted input is sorted first; marks never reached take the last fee rate; no transactions, all zero.
  assert.deepEqual(percentilesByWeight([[9, 15], [1, 9], [5, 10], [4, 50], [2, 16]], 100), [2, 2, 4, 4, 9]);
  assert.deepEqual(percentilesByWeight([[3, 1], [7, 1]], 100), [7, 7, 7, 7, 7]);
  assert.deepEqual(percentilesByWeight([], 0), [0, 0, 0, 0, 0]);
});

test('truncated median', () => {
  assert.equal(truncatedMedian([]), 0);
  assert.equal(truncatedMedian([5]), 5);
  assert.equal(truncatedMedian([1, 2]), 1);
  assert.equal(truncatedMedian([3, 1, 4, 2]), 2);
  assert.equal(truncatedMedian([10, 30, 20]), 20);
  assert.equal(truncatedMedian([2880, 43200, 19740, 19740]), 19740);
});

test('the stats selection: each name once, byte-lexicographic order, Core\'s errors', () => {
  const { chain } = loadStatsVectors();
  const all = statsAt(chain[103]!);
  assert.deepEqual(Object.keys(selectBlockStats(all, [])), [...BLOCK_STAT_NAMES]);
  assert.deepEqual(Object.keys(selectBlockStats(all, ['utxo_size_inc', 'utxo_increase_actual', 'txs', 'avgfee', 'txs'])), [
    'avgfee',
    'txs',
    'utxo_increase_actual',
    'utxo_size_inc',
  ]);
  assert.equal(writeJson(selectBlockStats(all, ['feerate_percentiles'])), '{"feerate_percentiles":[20,20,20,301,301]}');
  rpcError(() => selectBlockStats(all, ['minfee', 'nope']), RPC_INVALID_PARAMETER, "Invalid selected statistic 'nope'");
  // The first unknown name in sorted order is the one reported.
  rpcError(() => selectBlockStats(all, ['zzz', 'minfee', 'aaa']), RPC_INVALID_PARAMETER, "Invalid selected statistic 'aaa'");
  rpcError(() => selectBlockStats(all, ['__proto__']), RPC_INVALID_PARAMETER, "Invalid selected statistic '__proto__'");
  assert.deepEqual(parseStatNames(undefined), []);
  assert.deepEqual(parseStatNames(['a', 'b']), ['a', 'b']);
  rpcError(() => parseStatNames(['minfee', 3]), RPC_TYPE_ERROR, 'JSON value of type number is not of expected type string');
  rpcError(() => parseStatNames([null]), RPC_TYPE_ERROR, 'JSON value of type null is not of expected type string');
});

test('v31.0 counts 41 bytes per UTXO; the master vector file 40: only utxo_size_inc and utxo_size_inc_actual differ', () => {
  assert.equal(PER_UTXO_OVERHEAD, 41);
  assert.equal(PER_UTXO_OVERHEAD_PACKED, 40);
  const { chain, expected } = loadStatsVectors();
  for (const want of expected) {
    const entry = chain[want.height as number]!;
    const v31 = statsAt(entry);
    const packed = statsAt(entry, PER_UTXO_OVERHEAD_PACKED);
    for (const name of BLOCK_STAT_NAMES) {
      if (name === 'utxo_size_inc' || name === 'utxo_size_inc_actual') continue;
      assert.deepEqual(v31[name], packed[name], name);
    }
    // One byte per output counted minus one per spent coin.
    assert.equal(v31.utxo_size_inc - packed.utxo_size_inc, v31.utxo_increase);
    assert.equal(v31.utxo_size_inc_actual - packed.utxo_size_inc_actual, v31.utxo_increase_actual);
  }
  // Height 103 under v31.0: the values older Core's functional test asserted.
  const tip = statsAt(chain[103]!);
  assert.deepEqual([tip.utxo_increase, tip.utxo_size_inc, tip.utxo_increase_actual, tip.utxo_size_inc_actual], [6, 441, 4, 300]);
});

function coinbase(outputs: TxOut[]): Transaction {
  return new Transaction({ version: 1, inputs: [{ prevout: NULL_OUTPOINT, scriptSig: fromHex('0151'), sequence: 0xffffffff, witness: [] }], outputs, locktime: 0 });
}

function blockOf(transactions: Transaction[]): Block {
  return {
    header: new BlockHeader({ version: 4, prevHash: new Uint8Array(32).fill(9), merkleRoot: new Uint8Array(32), time: 1000, bits: 0x207fffff, nonce: 0 }),
    transactions,
  };
}

test('unspendable outputs (OP_RETURN, scripts over 10,000 bytes) count in utxo_size_inc but not in *_actual', () => {
  const big = new Uint8Array(10_001).fill(0x51);
  const block = blockOf([coinbase([{ value: 50n, scriptPubKey: fromHex('51') }, { value: 0n, scriptPubKey: fromHex('6a00') }, { value: 1n, scriptPubKey: big }])]);
  const stats = computeBlockStats({ block, undo: [], height: 5, medianTimePast: 999, params: regtest });
  // 8 + 1 + 1, 8 + 1 + 2 and 8 + 3 + 10001 bytes of outputs, 41 bytes each on top.
  assert.equal(stats.utxo_size_inc, 10 + 11 + 10012 + 3 * 41);
  assert.equal(stats.utxo_increase, 3);
  assert.equal(stats.utxo_size_inc_actual, 10 + 41);
  assert.equal(stats.utxo_increase_actual, 1);
  // The coinbase's outputs are not total_out; a block of only a coinbase has all zero fee statistics.
  assert.equal(stats.total_out, 0);
  assert.deepEqual([stats.avgfee, stats.minfee, stats.maxfee, stats.minfeerate, stats.mintxsize, stats.medianfee], [0, 0, 0, 0, 0, 0]);
  assert.equal(stats.mediantime, 999);
  assert.equal(stats.time, 1000);
});

test('fees, fee rates and segwit totals of non-coinbase transactions, from the undo data', () => {
  const spend = (value: bigint, witness: boolean) =>
    new Transaction({
      version: 2,
      inputs: [{ prevout: { txid: new Uint8Array(32).fill(1), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0, witness: witness ? [new Uint8Array(72)] : [] }],
      outputs: [{ value, scriptPubKey: fromHex('0014' + '22'.repeat(20)) }],
      locktime: 0,
    });
  const a = spend(9_000n, true);
  const b = spend(19_000n, false);
  // Each pays 1,000 sat.
  const coin = (value: bigint) => ({ output: { value, scriptPubKey: fromHex('0014' + '11'.repeat(20)) }, height: 1, coinbase: false });
  const block = blockOf([coinbase([{ value: 1n, scriptPubKey: fromHex('51') }]), a, b]);
  const stats = computeBlockStats({ block, undo: [[coin(10_000n)], [coin(20_000n)]], height: 300, medianTimePast: 0, params: regtest });
  assert.equal(stats.totalfee, 2000);
  assert.equal(stats.avgfee, 1000);
  // Equal fees: the witness makes the segwit one heavier, so it pays the lower rate.
  assert.equal(a.weight > b.weight, true);
  assert.equal(stats.maxfeerate, Math.floor((1000 * 4) / b.weight));
  assert.equal(stats.minfeerate, Math.floor((1000 * 4) / a.weight));
  // a (heavier, lower rate) holds more than half the weight: the 10/25/50 % marks fall in it.
  const [rateA, rateB] = [Math.floor(4000 / a.weight), Math.floor(4000 / b.weight)];
  assert.equal(a.weight / (a.weight + b.weight) > 0.5 && a.weight / (a.weight + b.weight) < 0.75, true);
  assert.deepEqual(stats.feerate_percentiles, [rateA, rateA, rateA, rateB, rateB]);
  assert.equal(stats.avgfeerate, Math.floor((2000 * 4) / (a.weight + b.weight)));
  assert.deepEqual([stats.swtxs, stats.swtotal_size, stats.swtotal_weight], [1, a.totalSize, a.weight]);
  assert.deepEqual([stats.total_size, stats.total_weight, stats.total_out], [a.totalSize + b.totalSize, a.weight + b.weight, 28_000]);
  assert.equal(stats.ins, 2);
  assert.equal(stats.outs, 3);
  // Regtest halves every 150 blocks: two halvings by height 300.
  assert.equal(stats.subsidy, 1_250_000_000);
  assert.throws(() => computeBlockStats({ block, undo: [], height: 300, medianTimePast: 0, params: regtest }), /undo data covers 0 transactions/);
});
