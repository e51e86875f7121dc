/**
 * Crash safety of a wallet: ten times, a burst of sendtoaddress calls is cut by SIGKILL at
 * a random moment; the node restarts with the wallet, which offers its unconfirmed
 * transactions to the mempool again, and a block confirms them. Each time the wallet must
 * equal a rescan of the chain: a backup taken before any burst, restored under another
 * name, finds its way to the same balances, coins and transactions from the blocks alone.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Daemon, sleep, walletCaller, type WalletCaller } from './daemon-harness.js';

const ROUNDS = 10;
const BURST = 12;
const ARGS = ['-fallbackfee=0.0002', '-wallet=w'];

type Caller = WalletCaller;

const outpoints = (coins: any[]): string[] => coins.map((c) => `${c.txid}:${c.vout}:${c.amount}`).sort();

/** What a rescan of the chain must give again: balances, coins, and the transactions with their confirmations. */
async function walletState(w: Caller): Promise<unknown> {
  const txs = await w('listtransactions', ['*', 100_000]);
  return {
    balances: (await w('getbalances')).mine,
    coins: outpoints(await w('listunspent', [0])),
    transactions: [...new Set(txs.map((t: any) => `${t.txid}:${t.confirmations}`))].sort(),
  };
}

test(`SIGKILL during sendtoaddress bursts, ${ROUNDS} times: each restart shows a wallet equal to a rescan of the chain`, async (t) => {
  let node = await Daemon.start({ args: ['-fallbackfee=0.0002'] });
  try {
    await node.call('createwallet', ['w']);
    const w0 = walletCaller(node, 'w');
    await node.call('generatetoaddress', [120, await w0('getnewaddress')]);
    const backup = join(node.datadir, 'before-the-bursts.dat');
    await w0('backupwallet', [backup]);
    let sent = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const w = walletCaller(node, 'w');
      const targets = await Promise.all(['legacy', 'p2sh-segwit', 'bech32', 'bech32m'].map((type) => w('getnewaddress', ['', type])));
      let stop = false;
      const burst = (async () => {
        for (let i = 0; i < BURST && !stop; i++) {
          try {
            await w('sendtoaddress', [targets[i % targets.length], (0.1 + round / 100 + i / 1000).toFixed(8)]);
            sent++;
          } catch {
            return; // the node is gone
          }
        }
      })();
      await sleep(50 + Math.floor(Math.random() * 400));
      await node.kill();
      stop = true;
      await burst;
      node = await node.restart({ args: ARGS });
      const crashed = walletCaller(node, 'w');
      // The wallet's unconfirmed transactions were offered to the pool again at load: one block confirms them all.
      await node.call('generatetoaddress', [1, await crashed('getnewaddress')]);
      assert.deepEqual(await node.call('getrawmempool'), [], `round ${round}: every wallet transaction confirmed`);
      const name = `rescan-${round}`;
      await node.call('restorewallet', [name, backup]);
      const rescanned = walletCaller(node, name);
      assert.deepEqual(await walletState(crashed), await walletState(rescanned), `round ${round}: the wallet equals a rescan of the chain`);
      await node.call('unloadwallet', [name]);
    }
    assert.ok(sent > 0, 'some payments were made before the kills');
    t.diagnostic(`${sent} payments answered before ${ROUNDS} kills; the wallet equalled a rescan after each restart`);
  } finally {
    await node.stop().catch(() => undefined);
    node.cleanup();
  }
});
