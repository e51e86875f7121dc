/**
 * -txospenderindex (Core v31) on tsbtcd against bitcoind v31.0 over the same chain and pool:
 * gettxspendingprevout names the confirmed spender and its block (and the spending
 * transaction on request), answers from the pool first, follows a reorg (a spend whose
 * block is invalidated is the pool's again, and confirmed again after reconsiderblock),
 * getindexinfo lists the index in Core's place, and -prune refuses it with Core's message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { assertSameStartupRefusals, BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor } from './daemon-harness.js';
import { copyChain } from './wallet-answers.js';

const reference = referenceBitcoind();

interface Rpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

async function answer(node: Rpc, method: string, params: unknown[]): Promise<unknown> {
  try {
    return { result: await node.call(method, params) };
  } catch (err) {
    const e = err as { code?: number; message: string };
    return { error: { code: e.code, message: e.message.replace(/^[a-z]+: /, '') } };
  }
}

async function synced(node: Rpc): Promise<void> {
  await waitFor('the txospenderindex to sync', async () => ((await node.call('getindexinfo', ['txospenderindex'])).txospenderindex?.synced ? true : undefined), 20_000);
}

test('gettxspendingprevout with -txospenderindex answers as bitcoind v31.0, through a reorg', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-txospenderindex', '-txindex', '-coinstatsindex', '-fallbackfee=0.0002']);
  const node = await Daemon.start({ args: ['-connect=0', '-txospenderindex', '-txindex', '-coinstatsindex'] });
  try {
    await core.call('createwallet', ['w']);
    const address = await core.call<string>('getnewaddress');
    const blocks = await core.call<string[]>('generatetoaddress', [110, address]);
    const coinbaseOf = async (height: number) => (await core.call('getblock', [blocks[height - 1]])).tx[0] as string;
    const [spentCoinbase, unspentCoinbase] = [await coinbaseOf(1), await coinbaseOf(5)];
    // A confirmed spend of the first coinbase, then a pool spend of its output.
    const confirmed = await core.call('send', [{ [address]: 10 }, null, 'unset', 2, { inputs: [{ txid: spentCoinbase, vout: 0 }], add_inputs: false, change_position: 1 }]);
    const [block] = await core.call<string[]>('generatetoaddress', [1, address]);
    const pooled = await core.call('send', [{ [address]: 5 }, null, 'unset', 2, { inputs: [{ txid: confirmed.txid, vout: 0 }], add_inputs: false }]);
    await copyChain(core, node);
    await synced(core);
    await synced(node);

    const spentCoin = { txid: spentCoinbase, vout: 0 };
    const pooledCoin = { txid: confirmed.txid, vout: 0 };
    const unspentCoin = { txid: unspentCoinbase, vout: 0 };
    const queries: [string, unknown[]][] = [
      ['gettxspendingprevout', [[spentCoin]]],
      // The pool's answer comes first, whatever the order asked.
      ['gettxspendingprevout', [[spentCoin, pooledCoin, unspentCoin]]],
      ['gettxspendingprevout', [[unspentCoin, spentCoin, pooledCoin], { return_spending_tx: true }]],
      ['gettxspendingprevout', [[spentCoin, pooledCoin], { mempool_only: true }]],
      ['gettxspendingprevout', [[spentCoin], { mempool_only: false, return_spending_tx: false }]],
      ['gettxspendingprevout', [[{ txid: confirmed.txid, vout: 7 }]]],
      ['getindexinfo', []],
      ['getindexinfo', ['txospenderindex']],
    ];
    const both = async (label: string): Promise<void> => {
      for (const [method, params] of queries) {
        const [ours, theirs] = [await answer(node, method, params), await answer(core, method, params)];
        assert.deepEqual(ours, theirs, `${label}: ${method} ${JSON.stringify(params)}`);
      }
    };
    await both('confirmed and pooled spends');
    const first = ((await node.call('gettxspendingprevout', [[spentCoin]])) as Record<string, string>[])[0]!;
    assert.deepEqual([first.spendingtxid, first.blockhash], [confirmed.txid, block]);
    assert.equal(((await node.call('gettxspendingprevout', [[pooledCoin]])) as Record<string, string>[])[0]!.spendingtxid, pooled.txid);

    // The spend's block leaves the chain: the spend is the pool's again.
    for (const n of [core, node] as Rpc[]) await n.call('invalidateblock', [block]);
    await core.call('syncwithvalidationinterfacequeue');
    await synced(core);
    await synced(node);
    await both('after invalidateblock');
    const back = ((await node.call('gettxspendingprevout', [[spentCoin]])) as Record<string, string>[])[0]!;
    assert.deepEqual([back.spendingtxid, back.blockhash], [confirmed.txid, undefined]);
    for (const n of [core, node] as Rpc[]) await n.call('reconsiderblock', [block]);
    await synced(core);
    await synced(node);
    await both('after reconsiderblock');
  } finally {
    await node.cleanup();
    await core.stop();
  }
});

test('-txospenderindex with -prune stops start-up as bitcoind does', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  await assertSameStartupRefusals(reference.path, [['-regtest', '-prune=550', '-txospenderindex']]);
});
