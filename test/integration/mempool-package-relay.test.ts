/**
 * Packages between tsbtcd and the reference bitcoind v31.0 over P2P, both ways: a parent
 * paying nothing and its child, accepted together by submitpackage on one node, are
 * announced to the other, which takes them as Core does — the parent refused alone on its
 * feerate, the child kept as an orphan, the parent fetched again and the pair accepted by
 * the one-parent-one-child package evaluation — so both end up in the second node's
 * mempool, which neither could enter alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BitcoindProcess } from './bitcoind-process.js';
import { waitFor } from './daemon-harness.js';
import { fromHex, parseBlock, toHex } from '../../src/primitives/index.js';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { TestWallet, type WalletCoin } from '../support/wallet.js';
import type { Transaction } from '../../src/primitives/index.js';
import { cleanupsAfterTests, startTsbtcd } from './node-under-test.js';

const cleanups = cleanupsAfterTests();
const reference = referenceBitcoind();

test('tsbtcd relays a package submitpackage accepted; bitcoind takes the pair by its package evaluation', { skip: 'path' in reference ? false : reference.missing }, async () => {
  const ts = await startTsbtcd({ args: ['-debug=mempool'] });
  cleanups.push(() => ts.stop());
  const wallet = await fundedWallet((m, p) => ts.call(m, p), 32);
  const core = await BitcoindProcess.start((reference as { path: string }).path, [`-connect=127.0.0.1:${ts.p2pPort}`, '-disablewallet']);
  cleanups.push(() => core.stop());
  await relayPackage(wallet, (m, p) => ts.call(m, p), (m, p) => core.call(m, p), 'bitcoind');
});

test('bitcoind relays a package submitpackage accepted; tsbtcd takes the pair by its package evaluation', { skip: 'path' in reference ? false : reference.missing }, async () => {
  const core = await BitcoindProcess.start((reference as { path: string }).path, ['-disablewallet']);
  cleanups.push(() => core.stop());
  const wallet = await fundedWallet((m, p) => core.call(m, p), 33);
  const ts = await startTsbtcd({ args: [`-connect=127.0.0.1:${core.p2pPort}`, '-debug=mempool', '-debug=mempoolrej'] });
  cleanups.push(() => ts.stop());
  const [parent] = await relayPackage(wallet, (m, p) => core.call(m, p), (m, p) => ts.call(m, p), 'tsbtcd');
  assert.match(ts.log(), new RegExp(`${parent.txidHex} \\(wtxid=${parent.wtxidHex}\\) from peer=\\d+ was not accepted: min relay fee not met`));
});

type Call = <T>(method: string, params?: unknown[]) => Promise<T>;

/** A wallet holding the coinbases of 101 blocks the node mines (one of them mature). */
async function fundedWallet(call: Call, seed: number): Promise<TestWallet> {
  const wallet = new TestWallet(seed);
  const hashes = await call<string[]>('generatetoaddress', [101, wallet.address('p2tr-key')]);
  for (const [i, hash] of hashes.entries()) wallet.processBlock(parseBlock(fromHex(await call<string>('getblock', [hash, 0]))), i + 1);
  return wallet;
}

/** Once `to` has the chain, a CPFP pair submitted to `from` as a package, awaited in `to`'s mempool. */
async function relayPackage(wallet: TestWallet, from: Call, to: Call, toName: string): Promise<[Transaction, Transaction]> {
  await waitFor(`${toName} synced`, async () => ((await to<number>('getblockcount')) === 101 ? true : undefined), 60_000);
  const [parent, child] = cpfpPair(wallet, wallet.spendable(102).find((c) => c.coinbase)!);
  const result = await from<{ package_msg: string }>('submitpackage', [[toHex(parent.toBytes()), toHex(child.toBytes())]]);
  assert.equal(result.package_msg, 'success');
  await waitFor(
    `both in ${toName}’s mempool`,
    async () => {
      const pool = await to<string[]>('getrawmempool');
      return pool.includes(parent.txidHex) && pool.includes(child.txidHex) ? true : undefined;
    },
    60_000,
  );
  return [parent, child];
}

/** A parent paying nothing and a child paying for both. */
function cpfpPair(wallet: TestWallet, coin: WalletCoin): [Transaction, Transaction] {
  const parent = wallet.spend([coin], [{ value: coin.value, to: 'p2tr-key' }]);
  const childCoin = wallet.spendable(1_000).find((c) => c.outpoint.txid === parent.txid)!;
  return [parent, wallet.spend([childCoin], [{ value: childCoin.value - 20_000n, to: 'p2tr-key' }])];
}
