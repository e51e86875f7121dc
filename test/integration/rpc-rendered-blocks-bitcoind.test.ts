/**
 * Answers RPC renders once per block and keeps (rendered-blocks.ts) stay bitcoind's as the
 * chain moves around the block: getblock 1–3, getblockstats and getrawtransaction 1–2 (by
 * txindex and in the named block) are asked about one block of mixed spends several times each, while the block is the tip,
 * buried under a new block (confirmations, nextblockhash), after that block is invalidated,
 * and after the block itself leaves the active chain (confirmations -1, 0 and no time).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestWallet, WALLET_KINDS } from '../support/wallet.js';
import { cleanupsAfterTests, skipUnless } from './node-under-test.js';
import { referenceStarter, startPairedNodes } from './paired-nodes.js';

const cleanups = cleanupsAfterTests();

test('kept renderings of a block follow the chain as bitcoind answers', { skip: skipUnless(referenceStarter), timeout: 300_000 }, async () => {
  const pair = await startPairedNodes(['-txindex']);
  cleanups.push(() => pair.stop());
  const wallet = new TestWallet(31);
  await pair.mine(wallet, 110);
  const height = await pair.reference.call<number>('getblockcount');
  const txids: string[] = [];
  for (const [i, coin] of wallet.spendable(height + 1).slice(0, 8).entries()) {
    const each = (coin.value - 10_000n) / 3n;
    const tx = wallet.spend([coin], [0, 1, 2].map((j) => ({ value: each, to: WALLET_KINDS[(i + j) % WALLET_KINDS.length]! })));
    assert.equal(await pair.send(tx), 'accepted');
    txids.push(tx.txidHex);
  }
  await pair.mine(wallet, 1);
  const [block] = await pair.both<string>('getbestblockhash');
  const ask = async (when: string) => {
    const calls: [string, unknown[]][] = [
      ...[1, 2, 3].map((v): [string, unknown[]] => ['getblock', [block, v]]),
      ['getblockstats', [block]],
      ['getblockstats', [block, ['avgfee', 'height', 'txs']]],
      ...txids.slice(0, 3).flatMap((txid): [string, unknown[]][] => [['getrawtransaction', [txid, 1]], ['getrawtransaction', [txid, 2]], ['getrawtransaction', [txid, 1, block]], ['getrawtransaction', [txid, 2, block]]]),
    ];
    for (let round = 0; round < 2; round++) {
      for (const [method, params] of calls) {
        const [expected, actual] = await pair.both(method, params);
        assert.deepEqual(actual, expected, `${when}, round ${round}: ${method} ${JSON.stringify(params)}`);
      }
    }
  };
  await ask('at the tip');
  await pair.mine(wallet, 1);
  await ask('under a new block');
  const [tip] = await pair.both<string>('getbestblockhash');
  await pair.both('invalidateblock', [tip]);
  await ask('the block above invalidated');
  await pair.both('invalidateblock', [block]);
  await ask('off the active chain');
  await pair.both('reconsiderblock', [block]);
  await ask('reconsidered');
});
