/**
 * -coinstatsindex against bitcoind v31.0 with -coinstatsindex on the same regtest chain:
 * gettxoutsetinfo (muhash and none) equals bitcoind's at every height, before and after a
 * reorg, and for the blocks the reorg disconnected (asked by hash); getindexinfo lists the
 * index; the refusals for a specific block are Core's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor, walletCaller, type WalletCaller } from './daemon-harness.js';
import { answerOf, copyChain } from './wallet-answers.js';

const reference = referenceBitcoind();

interface Rpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

async function synced(node: Rpc, height: number): Promise<void> {
  await waitFor(
    'coinstatsindex synced',
    async () => {
      const info = (await node.call('getindexinfo', ['coinstatsindex'])).coinstatsindex;
      return info?.synced && info.best_block_height === height ? true : undefined;
    },
    60_000,
  );
}

/** Every stats answer for the active chain's heights and for some blocks by hash. */
async function statsOf(node: Rpc, hashes: readonly string[]): Promise<unknown[]> {
  const tip = await node.call<number>('getblockcount');
  const out: unknown[] = [];
  for (let h = 0; h <= tip; h++) {
    out.push(await node.call('gettxoutsetinfo', ['muhash', h]));
    out.push(await node.call('gettxoutsetinfo', ['none', h]));
  }
  for (const hash of hashes) out.push(await node.call('gettxoutsetinfo', ['muhash', hash]));
  out.push(await node.call('gettxoutsetinfo', ['muhash']));
  out.push(await node.call('gettxoutsetinfo', ['none']));
  return out;
}

test('gettxoutsetinfo from -coinstatsindex equals bitcoind v31 at every height, through a reorg', { timeout: 300_000 }, async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-coinstatsindex', '-fallbackfee=0.0002']);
  const node = await Daemon.start({ args: ['-connect=0', '-coinstatsindex'] });
  try {
    await core.call('createwallet', ['w']);
    const w: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/w');
    const mine = async (n: number) => core.call('generatetoaddress', [n, await w('getnewaddress')]);
    await mine(105);
    // Blocks with payments of every kind, change, and an OP_RETURN output (unspendable script).
    for (let round = 0; round < 4; round++) {
      for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) await w('sendtoaddress', [await w('getnewaddress', ['', type]), 1 + round]);
      const data = await core.call('createrawtransaction', [[], [{ data: 'c0ffee' }, { [await w('getnewaddress')]: 0.5 }]]);
      const funded = await w('fundrawtransaction', [data]);
      await core.call('sendrawtransaction', [(await w('signrawtransactionwithwallet', [funded.hex])).hex]);
      await mine(1);
    }
    await copyChain(core, node);
    const height = await core.call<number>('getblockcount');
    await synced(core, height);
    await synced(node, height);
    assert.deepEqual(await node.call('getindexinfo'), await core.call('getindexinfo'));
    const before = await statsOf(node, []);
    assert.deepEqual(before, await statsOf(core, []));

    // A reorg: the last two blocks replaced by three others with other payments.
    const stale = [await core.call<string>('getblockhash', [height - 1]), await core.call<string>('getblockhash', [height])];
    await core.call('invalidateblock', [stale[0]]);
    await node.call('invalidateblock', [stale[0]]);
    await w('sendtoaddress', [await w('getnewaddress'), 7]);
    await mine(3);
    await copyChain(core, node);
    await synced(core, height + 1);
    await synced(node, height + 1);
    assert.deepEqual(await statsOf(node, stale), await statsOf(core, stale), 'after the reorg, the disconnected blocks by hash too');

    // Core's refusals for a specific block.
    const onNode = walletCaller(node);
    const onCore: WalletCaller = async (method, params = []) => core.call(method, params);
    for (const params of [['hash_serialized_3', 1], ['muhash', 1, false], ['muhash', height + 10], ['muhash', -1], ['none', '00'.repeat(32)]]) {
      assert.deepEqual(await answerOf(onNode, 'gettxoutsetinfo', params), await answerOf(onCore, 'gettxoutsetinfo', params), JSON.stringify(params));
    }
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});
