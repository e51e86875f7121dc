/**
 * The start-up reload under a smaller -maxmempool: Core's LoadMempool accepts each saved
 * transaction as a submission and limits the pool after each (MemPoolAccept::Finalize),
 * so a pool saved larger than the new limit comes back within it, with the rolling
 * minimum fee raised by what was trimmed; what the front-ends report (usage, the
 * minimum fee) comes from the same commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, parseBlock, toHex } from '../../src/primitives/index.js';
import { OP, pushData } from '../../src/script/index.js';
import { TestWallet } from '../support/wallet.js';
import { Daemon } from './daemon-harness.js';

test('a pool saved over a smaller -maxmempool is trimmed to it while reloading', { timeout: 300_000 }, async () => {
  let d = await Daemon.start({ args: ['-par=1', '-rest'] });
  try {
    const wallet = new TestWallet(52);
    const hashes = await d.call<string[]>('generatetoaddress', [180, wallet.address('p2wpkh')]);
    for (const hash of hashes) {
      const height = (await d.call<{ height: number }>('getblockheader', [hash])).height;
      wallet.processBlock(parseBlock(fromHex(await d.call<string>('getblock', [hash, 0]))), height);
    }
    const coins = wallet.spendable(181).filter((c) => c.coinbase);
    // 70 transactions carrying 20 kB each at rising fee rates: about 1.5 MB of usage.
    for (let i = 0; i < 70; i++) {
      const coin = coins[i]!;
      const data = pushData(new Uint8Array(20_000).fill(i));
      const script = new Uint8Array(1 + data.length);
      script[0] = OP.OP_RETURN;
      script.set(data, 1);
      const fee = BigInt(20_200 * (1 + i));
      const tx = wallet.spend([coin], [{ value: 0n, to: script }, { value: coin.value - fee, to: 'p2wpkh' }]);
      await d.call('sendrawtransaction', [toHex(tx.toBytes())]);
    }
    const before = await d.call<Record<string, any>>('getmempoolinfo');
    assert.equal(before.size, 70);
    assert.ok(before.usage > 1_000_000);
    assert.equal(before.mempoolminfee, before.minrelaytxfee);
    await d.stop();
    // 1 MB is the least 25 kvB clusters allow.
    d = await d.restart({ args: ['-par=1', '-rest', '-maxmempool=1', '-limitclustersize=25', '-debug=mempool'] });
    const after = await d.call<Record<string, any>>('getmempoolinfo');
    assert.equal(after.maxmempool, 1_000_000);
    assert.ok(after.usage <= 1_000_000, `usage ${after.usage} within the new limit`);
    assert.ok(after.size < 70 && after.size > 0);
    assert.ok(after.mempoolminfee > after.minrelaytxfee, 'trimming raised the minimum fee');
    assert.match(d.debugLog(), /Removed \d+ txn, rolling minimum fee bumped to/);
    // REST reads the same stored figures.
    const rest = await fetch(`http://127.0.0.1:${d.port}/rest/mempool/info.json`).then((r) => r.json());
    assert.deepEqual(rest, after);
  } finally {
    await d.cleanup();
  }
});
