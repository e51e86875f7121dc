/**
 * The pool's DynamicMemoryUsage against what bitcoind v31.0 reported for the same pool
 * shapes (getmempoolinfo `usage`, observed on regtest): P2WPKH spends with one input and
 * one output each, whose usage differs only where txns_randomized's buffer grows, and
 * what is left once they are gone; and the worst chunk among equal feerates.
 * (test/integration/mempool-limit-bitcoind.test.ts compares many more shapes live.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adjustedWeight, chunkFeeRatePerKvB, TxMempool, virtualSize, worstChunk, type MempoolEntry } from '../../src/mempool/index.js';
import { BlockHeader, Transaction } from '../../src/primitives/index.js';
import { TestWallet, type WalletCoin, type WalletKind } from '../support/wallet.js';

const FEE = 10_000n;

function funded(count: number, kind: WalletKind = 'p2wpkh'): { wallet: TestWallet; coins: WalletCoin[] } {
  const wallet = new TestWallet(3);
  // A funding transaction the wallet learns from a block (its input is never looked at).
  const funding = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: new Uint8Array(32).fill(1), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }],
    outputs: Array.from({ length: count }, () => ({ value: 1_000_000n, scriptPubKey: wallet.scriptPubKey(kind) })),
    locktime: 0,
  });
  const header = new BlockHeader({ version: 4, prevHash: new Uint8Array(32), merkleRoot: new Uint8Array(32), time: 0, bits: 0x207fffff, nonce: 0 });
  wallet.processBlock({ header, transactions: [funding] }, 1);
  return { wallet, coins: wallet.spendable(2) };
}

function entryOf(pool: TxMempool, tx: Transaction, fee: bigint): MempoolEntry {
  return {
    tx,
    txid: tx.txidHex,
    fee,
    modifiedFee: fee,
    vsize: virtualSize(tx.weight, 0, 20),
    adjustedWeight: adjustedWeight(tx.weight, 0, 20),
    sigOpCost: 0,
    time: 0,
    height: 1,
    sequence: pool.sequence,
    spentOutputs: [],
    spendsCoinbase: false,
    unbroadcast: false,
    parents: pool.parentsOf(tx.inputs.map((i) => i.prevout)),
    children: new Set(),
  };
}

test('usage of single spends equals what bitcoind v31.0 reported for the same shapes, also once they left', () => {
  const { wallet, coins } = funded(8);
  const pool = new TxMempool();
  const usages: number[] = [];
  const add = (tx: Transaction): MempoolEntry => {
    const entry = entryOf(pool, tx, FEE);
    pool.add(entry);
    usages.push(pool.dynamicMemoryUsage());
    return entry;
  };
  for (let i = 0; i < 5; i++) add(wallet.spend([coins[i]!], [{ value: coins[i]!.value - FEE, to: 'p2wpkh' }]));
  // bitcoind: 1176, +1144, +1192, +1112, +1272 — the buffer of txns_randomized at capacity 1, 2, 4, 4, 8.
  assert.deepEqual(usages, [1176, 2320, 3512, 4624, 5896]);
  // Everything leaves: the buffer shrinks as it empties but keeps its last capacity (one element).
  for (const e of [...pool.entries()]) pool.remove(e);
  assert.equal(pool.dynamicMemoryUsage(), 64);
  // A prioritisation of a transaction not in the pool is one mapDeltas node.
  pool.prioritise('00'.repeat(32), 1000n);
  assert.equal(pool.dynamicMemoryUsage(), 64 + 96);
});

test('the worst chunk: lowest feerate, then the largest run of equal-feerate chunks in its cluster, then the highest txid', () => {
  // Key-path spends: one signature size, so equal fees are equal feerates.
  const { wallet, coins } = funded(4, 'p2tr-key');
  const pool = new TxMempool();
  const spend = (coin: WalletCoin, fee: bigint) => {
    const entry = entryOf(pool, wallet.spend([coin], [{ value: coin.value - fee, to: 'p2tr-key' }]), fee);
    pool.add(entry);
    return entry;
  };
  // The pool's own index of clusters by their last chunk agrees with a scan of every cluster.
  const worstOfPool = () => {
    const scanned = worstChunk(pool.clusters())!;
    assert.deepEqual(pool.worstCluster()!.lastChunk!.chunk, scanned.chunk);
    return scanned;
  };
  const changeOf = (e: MempoolEntry) => wallet.spendable(2).find((c) => c.outpoint.txid.every((x, j) => x === e.tx.txid[j]))!;
  const a = spend(coins[0]!, 2000n);
  const b = spend(coins[1]!, 2000n);
  const higher = Buffer.compare(Buffer.from(a.tx.txid), Buffer.from(b.tx.txid)) > 0 ? a : b;
  assert.deepEqual(worstOfPool().entries, [higher]);
  // A child at its parent's feerate is a second chunk: its run of equal chunks is longer.
  const child = spend(changeOf(a), 2000n);
  assert.equal(child.adjustedWeight, a.adjustedWeight);
  assert.deepEqual(worstOfPool().entries, [child]);
  // A lower feerate comes first whatever the runs; its removal sets the floor at the chunk's rate per virtual byte, rounded down.
  const low = spend(coins[2]!, 1999n);
  const worst = worstOfPool();
  assert.deepEqual(worst.entries, [low]);
  assert.equal(chunkFeeRatePerKvB(worst.chunk), (1999n * 1000n) / BigInt(Math.ceil(low.adjustedWeight / 4)));
});
