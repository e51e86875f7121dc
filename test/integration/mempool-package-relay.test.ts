/**
 * A package submitted to tsbtcd reaches its peers: a parent paying nothing and its child,
 * accepted together by submitpackage, are announced to a connected reference bitcoind
 * v31.0, which takes them as Core does (the child first, as an orphan, then the parent
 * fetched from tsbtcd and the pair accepted by its one-parent-one-child package
 * evaluation) — so both end up in bitcoind's mempool, which neither could enter alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BitcoindProcess } from './bitcoind-process.js';
import { waitFor } from './daemon-harness.js';
import { fromHex, parseBlock, toHex } from '../../src/primitives/index.js';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { TestWallet } from '../support/wallet.js';
import { cleanupsAfterTests, startTsbtcd } from './node-under-test.js';

const cleanups = cleanupsAfterTests();
const reference = referenceBitcoind();

test('tsbtcd relays a package submitpackage accepted; bitcoind takes the pair by its package evaluation', { skip: 'path' in reference ? false : reference.missing }, async () => {
  const ts = await startTsbtcd({ args: ['-debug=mempool'] });
  cleanups.push(() => ts.stop());
  const wallet = new TestWallet(32);
  const hashes = await ts.call<string[]>('generatetoaddress', [101, wallet.address('p2tr-key')]);
  for (const [i, hash] of hashes.entries()) wallet.processBlock(parseBlock(fromHex(await ts.call<string>('getblock', [hash, 0]))), i + 1);

  const core = await BitcoindProcess.start((reference as { path: string }).path, [`-connect=127.0.0.1:${ts.p2pPort}`, '-disablewallet']);
  cleanups.push(() => core.stop());
  await waitFor('bitcoind synced', async () => ((await core.call<number>('getblockcount')) === 101 ? true : undefined), 60_000);

  const coin = wallet.spendable(102).find((c) => c.coinbase)!;
  const parent = wallet.spend([coin], [{ value: coin.value, to: 'p2tr-key' }]);
  const childCoin = wallet.spendable(102).find((c) => c.outpoint.txid === parent.txid)!;
  const child = wallet.spend([childCoin], [{ value: childCoin.value - 20_000n, to: 'p2tr-key' }]);
  const result = await ts.call<{ package_msg: string }>('submitpackage', [[toHex(parent.toBytes()), toHex(child.toBytes())]]);
  assert.equal(result.package_msg, 'success');

  await waitFor(
    'both in bitcoind’s mempool',
    async () => {
      const pool = await core.call<string[]>('getrawmempool');
      return pool.includes(parent.txidHex) && pool.includes(child.txidHex) ? true : undefined;
    },
    60_000,
  );
});
