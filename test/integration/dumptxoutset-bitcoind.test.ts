/**
 * dumptxoutset on tsbtcd and on the reference bitcoind over one regtest chain: "latest",
 * "rollback" to the chain's assumeutxo height (299), the rollback option by height and by hash,
 * and every refusal give the same answers (paths compared under each node's data
 * directory), the snapshot files are byte-identical, and after the rollbacks both nodes are
 * back at their tip with the same pool.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { rpcCall as call, withBareNodes, type Answer } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { TestWallet } from '../support/wallet.js';
import { mineToBoth, resultOf, sendToBoth } from './bare-node-chain.js';

const reference = referenceBitcoind();

test('dumptxoutset writes the same files and answers as bitcoind v31', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  await withBareNodes((reference as { path: string }).path, async (send, each) => {
    const wallet = new TestWallet(23);
    await mineToBoth(each, wallet, 115);
    // Spends of several kinds, confirmed, then more in the pool.
    for (let round = 0; round < 3; round++) {
      const coins = wallet.spendable(116 + round).slice(0, 4);
      for (const coin of coins) await sendToBoth(each, wallet.spend([coin], [{ value: 100_000n, to: 'p2tr-key' }, { value: 200_000n, to: 'p2wpkh' }, { value: coin.value - 320_000n, to: 'p2tr-leaf' }]));
      await mineToBoth(each, wallet, 3);
    }
    // Past the highest regtest assumeutxo height (299), where "rollback" goes.
    await mineToBoth(each, wallet, 176);
    const pooled = wallet.spend([wallet.spendable(126)[0]!], [{ value: 50_000n, to: 'p2wpkh' }, { value: wallet.spendable(126)[0]!.value - 60_000n, to: 'p2tr-key' }]);
    await sendToBoth(each, pooled);

    const netDirOf = async (node: 'tsbtcd' | 'bitcoind') => dirname(resultOf<{ logpath: string }>(await each[node](call('getrpcinfo', []))).logpath);
    const dirs = { tsbtcd: await netDirOf('tsbtcd'), bitcoind: await netDirOf('bitcoind') };
    const hashAt = async (height: number) => resultOf<string>(await each.bitcoind(call('getblockhash', [height])));
    const tipBefore = resultOf<string>(await each.bitcoind(call('getbestblockhash', [])));

    const requests: DiffRequest[] = [
      call('help', ['dumptxoutset']),
      call('dumptxoutset', ['latest.dat', 'latest']),
      call('dumptxoutset', ['latest.dat', 'latest']),
      call('dumptxoutset', ['rollback.dat', 'rollback']),
      call('dumptxoutset', { path: 'height.dat', options: { rollback: 57 } }),
      call('dumptxoutset', { path: 'hash.dat', type: 'rollback', options: { rollback: await hashAt(101) } }),
      call('dumptxoutset', { path: 'tip.dat', rollback: 300 }),
      call('dumptxoutset', { path: 'genesis.dat', rollback: 0 }),
      call('dumptxoutset', ['opt.dat', '', { rollback: 3 }]),
      call('dumptxoutset', ['other.dat', 'latest', { foo: 1 }]),
      call('dumptxoutset', ['x.dat']),
      call('dumptxoutset', ['x.dat', 'bogus']),
      call('dumptxoutset', ['x.dat', 'latest', { rollback: 5 }]),
      call('dumptxoutset', { path: 'x.dat', rollback: 500 }),
      call('dumptxoutset', { path: 'x.dat', rollback: -1 }),
      call('dumptxoutset', { path: 'x.dat', rollback: 3.5 }),
      call('dumptxoutset', { path: 'x.dat', rollback: null }),
      call('dumptxoutset', { path: 'x.dat', rollback: true }),
      call('dumptxoutset', { path: 'x.dat', rollback: '00'.repeat(32) }),
      call('dumptxoutset', { path: 'x.dat', rollback: 'zz' }),
      call('dumptxoutset', { path: 'latest.dat', rollback: 5 }),
      call('dumptxoutset', ['', 'latest']),
      call('dumptxoutset', ['/nonexistent/dir/x.dat', 'latest']),
      call('dumptxoutset', [5, 'latest']),
      call('dumptxoutset', []),
    ];
    const normalise = (answer: Answer, dir: string) => `${answer.status} ${answer.body.toString('utf8').replaceAll(dir, '<netdir>')}`;
    const different: string[] = [];
    for (const request of requests) {
      const [a, b] = await send(request);
      const [ours, theirs] = [normalise(a, dirs.tsbtcd), normalise(b, dirs.bitcoind)];
      if (ours !== theirs) different.push(`${request.label}\n  tsbtcd:   ${ours}\n  bitcoind: ${theirs}`);
    }
    assert.deepEqual(different, [], `${different.length} of ${requests.length} differ:\n${different.join('\n')}`);

    for (const file of ['latest.dat', 'rollback.dat', 'height.dat', 'hash.dat', 'tip.dat', 'genesis.dat', 'opt.dat', 'other.dat']) {
      const [ours, theirs] = [readFileSync(`${dirs.tsbtcd}/${file}`), readFileSync(`${dirs.bitcoind}/${file}`)];
      assert.ok(ours.equals(theirs), `${file}: ${ours.length} bytes from tsbtcd, ${theirs.length} from bitcoind`);
    }
    for (const node of ['tsbtcd', 'bitcoind'] as const) {
      assert.equal(resultOf(await each[node](call('getbestblockhash', []))), tipBefore, `${node} is back at its tip`);
      assert.equal(resultOf<{ networkactive: boolean }>(await each[node](call('getnetworkinfo', []))).networkactive, true, `${node} resumed its network`);
    }
    // The rollback to genesis disconnected the coinbase the pool's transaction spends: it leaves the pool, on both.
    const pools = { tsbtcd: resultOf(await each.tsbtcd(call('getrawmempool', []))), bitcoind: resultOf(await each.bitcoind(call('getrawmempool', []))) };
    assert.deepEqual(pools.bitcoind, []);
    assert.deepEqual(pools.tsbtcd, pools.bitcoind);
  });
});
