/**
 * A real tsbtcd mines 2,000 regtest blocks whose transactions spend coinbases and earlier
 * outputs through segwit v0, taproot key path and taproot script path (one-leaf and
 * two-leaf trees), submitted with generateblock. The chain state must survive a clean
 * restart unchanged (tip, height, hash_serialized_3, muhash), and -reindex-chainstate of
 * the same data directory must rebuild exactly the same UTXO set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Daemon } from './daemon-harness.js';
import { mineWithSpends } from '../support/regtest-mining.js';
import { COINBASE_MATURITY, TestWallet } from '../support/wallet.js';

const BLOCKS = 2000;
const SEED = 2000;

/** Regtest's subsidy: 50 BTC halving every 150 blocks. */
function subsidy(height: number): bigint {
  const halvings = Math.floor(height / 150);
  return halvings >= 64 ? 0n : (50_0000_0000n >> BigInt(halvings));
}

interface ChainFacts {
  count: number;
  best: string;
  hashSerialized3: string;
  muhash: string;
  txouts: number;
  totalSats: bigint;
}

async function facts(d: Daemon): Promise<ChainFacts> {
  const serialized = await d.call('gettxoutsetinfo');
  const muhash = await d.call('gettxoutsetinfo', ['muhash']);
  return {
    count: await d.call<number>('getblockcount'),
    best: await d.call<string>('getbestblockhash'),
    hashSerialized3: serialized.hash_serialized_3,
    muhash: muhash.muhash,
    txouts: serialized.txouts,
    // Amounts are JSON numbers with 8 decimals; read them back exactly.
    totalSats: BigInt(Math.round(serialized.total_amount * 1e8)),
  };
}

test(`${BLOCKS} regtest blocks with segwit v0 and taproot spends: restart and -reindex-chainstate keep the tip and UTXO set hash`, { timeout: 600_000 }, async (t) => {
  let d = await Daemon.start({ args: ['-par=2'] });
  try {
    const wallet = new TestWallet(1);
    t.diagnostic(`transaction plan seed ${SEED}`);
    let started = Date.now();
    // About 1.8 inputs per block after maturity: every block there carries a transaction,
    // while the run stays within a few minutes on two cores (each input is verified twice:
    // generateblock's TestBlockValidity, then submitblock).
    const stats = await mineWithSpends(d, wallet, 0, BLOCKS, { seed: SEED, chainRate: 0.35, earlierRate: 0.25 });
    t.diagnostic(`mined ${stats.blocks} blocks, ${stats.transactions} transactions, inputs ${JSON.stringify(stats.inputs)} in ${Date.now() - started} ms`);

    assert.equal(stats.blocks, BLOCKS);
    // Every block after the first coinbases matured carries transactions, of every kind.
    for (let h = COINBASE_MATURITY + 1; h <= BLOCKS; h++) assert.ok(stats.blocksWithTransactions.includes(h), `block ${h} has no transaction`);
    for (const [kind, n] of Object.entries(stats.inputs)) assert.ok(n >= 100, `only ${n} ${kind} inputs spent`);
    assert.ok(stats.coinbaseSpends >= 1000, `${stats.coinbaseSpends} coinbase spends`);
    assert.ok(stats.inBlockChains >= 200, `${stats.inBlockChains} in-block chains`);

    const before = await facts(d);
    assert.equal(before.count, BLOCKS);
    assert.equal(before.best, stats.hashes.at(-1));
    // generateblock's coinbase claims no fees: the UTXO set holds every subsidy less every fee.
    let subsidies = 0n;
    let foreign = 0n;
    for (let h = 1; h <= BLOCKS; h++) {
      subsidies += subsidy(h);
      if (h % 4 === 3) foreign += subsidy(h);
    }
    assert.equal(before.totalSats, subsidies - stats.fees);
    assert.equal(wallet.balance() + foreign, before.totalSats, 'the wallet and the foreign coinbases hold the whole UTXO set');

    started = Date.now();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
    d = await d.restart({ args: ['-par=2'] });
    t.diagnostic(`clean stop and restart: ${Date.now() - started} ms`);
    assert.deepEqual(await facts(d), before);

    started = Date.now();
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
    d = await d.restart({ args: ['-par=2', '-reindex-chainstate'], readyTimeoutMs: 300_000 });
    t.diagnostic(`-reindex-chainstate: ${Date.now() - started} ms`);
    assert.deepEqual(await facts(d), before);
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
    assert.equal(d.stderr, '');
  } finally {
    await d.cleanup();
  }
});
