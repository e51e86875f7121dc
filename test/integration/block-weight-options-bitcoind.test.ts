/**
 * -blockmaxweight and -blockreservedweight as the reference bitcoind v31.0 reads them: the
 * same start-up refusals (exit code and message), and the same templates from the same
 * pool when the maximum leaves room for only some of it, when the reserved weight eats
 * into it, and when a negative or too small maximum is clamped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { TestWallet } from '../support/wallet.js';
import { assertSameStartupRefusals } from './bitcoind-process.js';
import { cleanupsAfterTests, skipUnless } from './node-under-test.js';
import { referenceStarter, startPairedNodes } from './paired-nodes.js';

const cleanups = cleanupsAfterTests();
const reference = referenceBitcoind();
const skip = skipUnless(referenceStarter);

const INVALID: readonly string[][] = [
  ['-regtest', '-blockmaxweight=4000001'],
  ['-regtest', '-blockreservedweight=4000001'],
  ['-regtest', '-blockreservedweight=1999'],
  ['-regtest', '-blockreservedweight=abc'],
  // The block weights are checked before the mempool's options.
  ['-regtest', '-blockmaxweight=4000001', '-minrelaytxfee=abc'],
];

test('bad -blockmaxweight / -blockreservedweight stop start-up with bitcoind exit code and message', { skip, timeout: 300_000 }, async () => {
  await assertSameStartupRefusals((reference as { path: string }).path, INVALID);
});

test('the block weight options shape getblocktemplate and getmininginfo as in bitcoind', { skip, timeout: 300_000 }, async () => {
  for (const args of [['-blockmaxweight=10000'], ['-blockmaxweight=12000', '-blockreservedweight=9000'], ['-blockmaxweight=-5'], ['-blockmaxweight=100'], ['-blockreservedweight=3000000']]) {
    const pair = await startPairedNodes(args);
    cleanups.push(() => pair.stop());
    const wallet = new TestWallet(31);
    await pair.mine(wallet, 106);
    // Six independent spends at rising fees, about 450 weight units each.
    for (const [i, coin] of wallet.spendable(107).filter((c) => c.coinbase).slice(0, 6).entries()) {
      assert.equal(await pair.send(wallet.spend([coin], [{ value: coin.value - BigInt(1000 * (i + 1)), to: 'p2tr-key' }])), 'accepted');
    }
    const txids = (t: { transactions: { txid: string }[] }) => t.transactions.map((x) => x.txid);
    const [want, got] = await pair.both<{ transactions: { txid: string }[] }>('getblocktemplate', [{ rules: ['segwit'] }]);
    assert.deepEqual(txids(got), txids(want), args.join(' '));
    // 2,000 weight units past the reserved 8,000 hold some of the six, not all.
    if (args.join(' ') === '-blockmaxweight=10000') assert.ok(txids(want).length > 0 && txids(want).length < 6, `${txids(want).length} in the template`);
    const [wantInfo, gotInfo] = await pair.both<{ currentblockweight?: number; currentblocktx?: number }>('getmininginfo');
    assert.deepEqual([gotInfo.currentblockweight, gotInfo.currentblocktx], [wantInfo.currentblockweight, wantInfo.currentblocktx], args.join(' '));
    await pair.stop();
  }
});
