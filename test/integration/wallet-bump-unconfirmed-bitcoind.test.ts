/**
 * Spending unconfirmed coins whose parents pay less than the target rate, against bitcoind
 * v31.0 (Core's wallet_spend_unconfirmed.py idea): the spend also pays the parents' shortfall
 * (MiniMiner's bump fees), so parent and child together reach the rate. The same wallet on
 * both nodes, over the same chain and pool, pays the same fee for the same inputs: a preset
 * input (individual bump fee), two coins of one parent with sendall (the shared parent paid
 * once: the combined bump fee), and a parent already paying the rate (no bump).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, walletCaller, type WalletCaller } from './daemon-harness.js';
import { copyChain } from './wallet-answers.js';

const reference = referenceBitcoind();
const SAT = 100_000_000;

interface Rpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

/** A signed transaction's fee and vsize, its inputs looked up on the node. */
async function feeOf(node: Rpc, hex: string): Promise<{ fee: number; vsize: number }> {
  const tx = await node.call('decoderawtransaction', [hex]);
  let inputs = 0;
  for (const input of tx.vin) {
    const parent = await node.call('getrawtransaction', [input.txid, true]);
    inputs += Math.round(parent.vout[input.vout].value * SAT);
  }
  const outputs = tx.vout.reduce((s: number, o: { value: number }) => s + Math.round(o.value * SAT), 0);
  return { fee: inputs - outputs, vsize: tx.vsize };
}

test('spending unconfirmed low-fee coins pays their ancestry up to the rate, the same fee as bitcoind', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  const node = await Daemon.start({ args: ['-connect=0', '-fallbackfee=0.0002'] });
  try {
    await core.call('createwallet', ['w']);
    const cw: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/w');
    await core.call('generatetoaddress', [103, await cw('getnewaddress')]);
    await core.call('unloadwallet', ['w']);
    mkdirSync(join(node.netdir, 'wallets'), { recursive: true });
    cpSync(join(core.datadir, 'regtest', 'wallets', 'w'), join(node.netdir, 'wallets', 'w'), { recursive: true });
    await core.call('loadwallet', ['w']);
    await copyChain(core, node);
    await node.call('loadwallet', ['w']);
    const tw = walletCaller(node, 'w');
    const payee = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

    // Parents at 1 sat/vB paying ourselves, and one at 20 sat/vB, each from its own confirmed coin (no shared ancestry).
    const own = await cw('getnewaddress');
    const mature = (await cw('listunspent', [100])).map((u: any) => ({ txid: u.txid, vout: u.vout }));
    assert.equal(mature.length, 3);
    const from = (coin: unknown) => ({ inputs: [coin], add_inputs: false });
    const [cheap, second, rich] = [
      await cw('send', [{ [own]: 5 }, null, 'unset', 1, from(mature[0])]),
      await cw('send', [[{ [own]: 2 }, { [await cw('getnewaddress')]: 2 }], null, 'unset', 1, from(mature[1])]),
      await cw('send', [{ [own]: 3 }, null, 'unset', 20, from(mature[2])]),
    ];
    await copyChain(core, node);
    const voutPaying = async (txid: string, amount: number): Promise<number> =>
      (await core.call('getrawtransaction', [txid, true])).vout.findIndex((o: { value: number }) => o.value === amount);

    for (const [label, parent, amount, rate] of [
      ['1 sat/vB parent', cheap.txid, 5, 10],
      ['20 sat/vB parent, target 10: no bump', rich.txid, 3, 10],
    ] as const) {
      const vout = await voutPaying(parent, amount);
      // A fixed locktime: anti-fee-sniping picks an earlier height one time in ten, a different
      // digest whose signature may be a byte shorter (the fee, sized for 71 bytes, is the same).
      const options = { inputs: [{ txid: parent, vout }], add_inputs: false, add_to_wallet: false, change_position: 1, locktime: 103 };
      const [ours, theirs] = [await tw('send', [{ [payee]: 1 }, null, 'unset', rate, options]), await cw('send', [{ [payee]: 1 }, null, 'unset', rate, options])];
      const [a, b] = [await feeOf(node, ours.hex), await feeOf(core, theirs.hex)];
      assert.deepEqual(a, b, label);
      const parentEntry = await core.call('getmempoolentry', [parent]);
      const packageRate = ((a.fee + Math.round(parentEntry.fees.base * SAT)) / (a.vsize + parentEntry.vsize));
      if (label.startsWith('1 sat')) {
        assert.ok(a.fee > rate * a.vsize, `${label}: the child pays more than its own size asks`);
        assert.ok(packageRate >= rate, `${label}: the package reaches ${rate} sat/vB (${packageRate})`);
      } else {
        assert.ok(a.fee < rate * a.vsize + 10, `${label}: no bump`);
      }
    }
    // sendall of both coins of one 1 sat/vB parent: the parent's shortfall paid once.
    const coins = (await cw('listunspent', [0])).filter((u: any) => u.txid === second.txid);
    assert.equal(coins.length, 3, 'two payments and the change');
    const inputs = coins.map((u: any) => ({ txid: u.txid, vout: u.vout }));
    const options = { inputs, add_to_wallet: false, fee_rate: 10, locktime: 103 };
    const [ours, theirs] = [await tw('sendall', [[payee], null, 'unset', null, options]), await cw('sendall', [[payee], null, 'unset', null, options])];
    assert.deepEqual(await feeOf(node, ours.hex), await feeOf(core, theirs.hex), 'sendall');
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});
