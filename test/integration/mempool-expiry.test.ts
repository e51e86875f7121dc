/**
 * -mempoolexpiry as Core's LimitMempoolSize applies it, on tsbtcd and on the reference
 * bitcoind v31.0 with the same steps: each acceptance first expires every transaction
 * that entered more than the expiry ago, with its descendants; one that entered exactly
 * the expiry ago stays. The node's clock is moved with setmocktime.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, parseBlock, toHex, type Transaction } from '../../src/primitives/index.js';
import { TestWallet } from '../support/wallet.js';
import { cleanupsAfterTests, NODE_STARTERS, skipUnless, type NodeUnderTest } from './node-under-test.js';

const cleanups = cleanupsAfterTests();
const EXPIRY_HOURS = 1;
const FEE = 10_000n;

/** Mines `n` blocks to the wallet and tells it of them. */
async function mine(node: NodeUnderTest, wallet: TestWallet, n: number): Promise<void> {
  const hashes = await node.call<string[]>('generatetoaddress', [n, wallet.address('p2wpkh')]);
  for (const hash of hashes) {
    const block = parseBlock(fromHex(await node.call<string>('getblock', [hash, 0])));
    wallet.processBlock(block, (await node.call<{ height: number }>('getblockheader', [hash])).height);
  }
}

for (const [name, start] of NODE_STARTERS) {
  test(`${name}: transactions older than -mempoolexpiry leave with their descendants at the next acceptance; one exactly that old stays`, { skip: skipUnless(start) }, async () => {
    const node = await start!({ args: [`-mempoolexpiry=${EXPIRY_HOURS}`, '-debug=mempool'] });
    cleanups.push(() => node.stop());
    const wallet = new TestWallet(7);
    await mine(node, wallet, 105);
    const height = await node.call<number>('getblockcount');
    const coins = wallet.spendable(height + 1).filter((c) => c.coinbase);
    assert.ok(coins.length >= 5);
    /** A spend of `coin` back to the wallet, sent at the node's current (mock) time. */
    const send = async (tx: Transaction): Promise<string> => node.call<string>('sendrawtransaction', [toHex(tx.toBytes())]);
    const spend = (coin: (typeof coins)[number]) => wallet.spend([coin], [{ value: coin.value - FEE, to: 'p2wpkh' }]);

    const t0 = Math.floor(Date.now() / 1000);
    await node.call('setmocktime', [t0]);
    const parent = spend(coins[0]!);
    const parentId = await send(parent);
    const childCoin = wallet.spendable(height + 1).find((c) => c.outpoint.txid === parent.txid)!;
    const childId = await send(spend(childCoin));
    await node.call('setmocktime', [t0 + 1800]);
    const laterId = await send(spend(coins[1]!));

    // Exactly the expiry later: Core expires what entered before now - expiry, and these entered at it.
    await node.call('setmocktime', [t0 + EXPIRY_HOURS * 3600]);
    const atId = await send(spend(coins[2]!));
    assert.deepEqual((await node.call<string[]>('getrawmempool')).sort(), [parentId, childId, laterId, atId].sort());

    // One second more: the next acceptance expires the parent, and its child with it.
    await node.call('setmocktime', [t0 + EXPIRY_HOURS * 3600 + 1]);
    const afterId = await send(spend(coins[3]!));
    assert.deepEqual((await node.call<string[]>('getrawmempool')).sort(), [laterId, atId, afterId].sort());
    assert.match(node.log(), /Expired 2 transactions from the memory pool/);
    assert.equal((await node.call<{ size: number }>('getmempoolinfo')).size, 3);
  });
}
