/**
 * -txindex through the daemon, on what the shared BaseIndex gives it: a reorg
 * (invalidateblock, then a longer branch) leaves getrawtransaction finding every
 * transaction of the new branch in its new block and getindexinfo synced at the new tip,
 * while the entries of stale-only transactions stay, as Core keeps them; and a SIGKILL in
 * the middle of the background catch-up leaves a marker whose blocks are all indexed (and
 * none after it), from which the restarted node resumes and ends synced.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { hashToHex, hexToHash } from '../../src/primitives/index.js';
import { INDEXES_META, openIndexesEnv } from '../../src/storage/index.js';
import { FOREIGN_ADDRESS, mineWithSpends } from '../support/regtest-mining.js';
import { TestWallet } from '../support/wallet.js';
import { Daemon, runToExit, sleep, waitFor } from './daemon-harness.js';

const daemons: Daemon[] = [];
after(async () => {
  for (const d of daemons) await d.cleanup();
});

interface VerboseBlock {
  hash: string;
  height: number;
  tx: { txid: string; hex: string }[];
}

async function txindexInfo(d: Daemon): Promise<{ synced: boolean; best_block_height: number } | undefined> {
  return (await d.call('getindexinfo', ['txindex'])).txindex;
}

/** One JSON-RPC batch (one HTTP request) of the same method over many parameter lists. */
async function batch<T>(d: Daemon, method: string, paramLists: readonly unknown[][]): Promise<T[]> {
  const r = await d.post(JSON.stringify(paramLists.map((params, id) => ({ jsonrpc: '2.0', method, params, id }))));
  const replies = JSON.parse(r.body) as { id: number; result: T; error: unknown }[];
  assert.equal(replies.length, paramLists.length);
  return replies.sort((a, b) => a.id - b.id).map((reply) => {
    assert.equal(reply.error ?? null, null, `${method}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  });
}

test('a reorg: getrawtransaction finds the new branch’s transactions in their new blocks, getindexinfo is synced at the new tip', { timeout: 180_000 }, async () => {
  const d = await Daemon.start({ args: ['-txindex', '-rpcfrontends=2'] });
  daemons.push(d);
  // Past coinbase maturity, so the blocks that will go stale carry spends besides their coinbase.
  const mined = await mineWithSpends(d, new TestWallet(31), 0, 110, { seed: 31 });
  assert.deepEqual(await waitFor('the txindex to sync', async () => ((await txindexInfo(d))?.synced ? txindexInfo(d) : undefined)), { synced: true, best_block_height: 110 });

  const staleHashes = mined.hashes.slice(104); // heights 105..110
  const staleBlocks = await Promise.all(staleHashes.map((hash) => d.call<VerboseBlock>('getblock', [hash, 2])));
  const staleSpends = staleBlocks.flatMap((b) => b.tx.slice(1));
  assert.ok(staleSpends.length > 0, 'the stale blocks carry spends');

  await d.call('invalidateblock', [staleHashes[0]]);
  assert.equal(await d.call('getblockcount'), 104);
  // A longer branch: its first block takes the disconnected spends back from the mempool.
  const branch = await d.call<string[]>('generatetoaddress', [8, FOREIGN_ADDRESS]);
  assert.equal(await d.call('getblockcount'), 112);
  // Each connected block is indexed as it connects, after the index rewound to the fork: no wait.
  assert.deepEqual(await d.call('getindexinfo'), { txindex: { synced: true, best_block_height: 112 } });

  const branchBlocks = await Promise.all(branch.map((hash) => d.call<VerboseBlock>('getblock', [hash, 2])));
  const where = new Map<string, VerboseBlock>();
  for (const block of branchBlocks) {
    for (const tx of block.tx) {
      where.set(tx.txid, block);
      const found = await d.call('getrawtransaction', [tx.txid, 1]);
      assert.equal(found.blockhash, block.hash, `${tx.txid} at height ${block.height}`);
      assert.equal(found.confirmations, 112 - block.height + 1);
      assert.equal(found.hex, tx.hex);
    }
  }
  // The stale spends went back to the mempool; those still valid on the new branch were mined
  // there and their entries now name the new blocks. Those that spent coinbases now immature
  // at their new height were dropped, and keep the entry naming their stale block.
  const reMined = staleSpends.filter((tx) => where.has(tx.txid));
  assert.ok(reMined.length > 0, 'some stale spends were mined again');
  for (const tx of staleSpends) {
    const block = where.get(tx.txid) ?? staleBlocks.find((b) => b.tx.some((t) => t.txid === tx.txid))!;
    assert.equal((await d.call('getrawtransaction', [tx.txid, 1])).blockhash, block.hash);
  }
  // A transaction only the stale branch has (its first coinbase paid the test wallet): Core's
  // rewind removes no txindex entry, so it is still found, in its stale block.
  const staleCoinbase = staleBlocks[0]!.tx[0]!;
  assert.ok(!where.has(staleCoinbase.txid));
  const stale = await d.call('getrawtransaction', [staleCoinbase.txid, 1]);
  assert.equal(stale.blockhash, staleHashes[0]);
  // Core's TxToJSON for a block off the active chain: confirmations 0, no time or blocktime.
  assert.equal(stale.confirmations, 0);
  assert.equal(stale.time, undefined);
  assert.equal(stale.blocktime, undefined);
  assert.equal(stale.hex, staleCoinbase.hex);

  // The rewound, re-followed index survives a restart where it was.
  assert.equal((await d.stop()).code, 0);
  const restarted = await d.restart({ args: ['-txindex', '-rpcfrontends=2'] });
  daemons.push(restarted);
  assert.deepEqual(await waitFor('the txindex to sync', async () => ((await txindexInfo(restarted))?.synced ? txindexInfo(restarted) : undefined)), { synced: true, best_block_height: 112 });
  assert.match(restarted.debugLog(), /txindex is enabled at height 112\n/);
  assert.equal((await restarted.call('getrawtransaction', [branchBlocks[7]!.tx[0]!.txid, 1])).blockhash, branch[7]);

  // -reindex wipes the index (Core's f_wipe) and rebuilds it from the active chain: the
  // stale-only coinbase is gone, the new branch's transactions are found again.
  assert.equal((await restarted.stop()).code, 0);
  const reindexed = await restarted.restart({ args: ['-txindex', '-rpcfrontends=2', '-reindex'] });
  daemons.push(reindexed);
  assert.deepEqual(await waitFor('the rebuilt txindex to sync', async () => ((await txindexInfo(reindexed))?.synced ? txindexInfo(reindexed) : undefined)), { synced: true, best_block_height: 112 });
  const gone = await reindexed.rpc('getrawtransaction', [staleCoinbase.txid, 1]);
  assert.equal(gone.json.error?.code, -5, JSON.stringify(gone.json));
  assert.equal((await reindexed.call('getrawtransaction', [branchBlocks[7]!.tx[0]!.txid, 1])).blockhash, branch[7]);
  for (const tx of reMined) assert.ok((await reindexed.call('getrawtransaction', [tx.txid, 1])).confirmations >= 1, `${tx.txid} found after -reindex`);
});

test('SIGKILL in the middle of catch-up: all blocks up to the stored marker are indexed, none after it; the restart resumes and ends synced', { timeout: 300_000 }, async () => {
  const TIP = 2000;
  const first = await Daemon.start({ args: ['-rpcfrontends=1'] });
  daemons.push(first);
  for (let mined = 0; mined < TIP; mined += 500) await first.call('generatetoaddress', [500, FOREIGN_ADDRESS]);
  const hashes = await batch<string>(first, 'getblockhash', Array.from({ length: TIP }, (_, i) => [i + 1]));
  const coinbases = (await batch<{ tx: string[] }>(first, 'getblock', hashes.map((hash) => [hash, 1]))).map((b) => b.tx[0]!);
  assert.equal((await first.stop()).code, 0);

  // The txindex catches up ~2000 blocks in batches of 200 from start-up: kill it early on.
  const d = await first.restart({ args: ['-txindex', '-rpcfrontends=1'], waitReady: false });
  daemons.push(d);
  let seen = 0;
  for (const deadline = Date.now() + 60_000; seen === 0; await sleep(2)) {
    if (Date.now() > deadline) throw new Error('no catch-up progress seen');
    const info = await txindexInfo(d).catch(() => undefined); // not answering yet while it starts
    if (!info || info.best_block_height === 0) continue;
    assert.ok(!info.synced && info.best_block_height <= TIP / 2, `caught up too far to interrupt: ${JSON.stringify(info)}`);
    seen = info.best_block_height;
  }
  assert.equal((await d.kill()).signal, 'SIGKILL');

  // What the crash left on disk: the marker, at or past what was seen, short of the tip, and
  // exactly the blocks up to it indexed (entries and marker commit in one write).
  const env = openIndexesEnv(d.netdir, { readOnly: true });
  let marker: number;
  try {
    const best = env.withSnapshot((r) => r.meta(INDEXES_META.txindexBest));
    assert.ok(best, 'a marker was stored');
    marker = hashes.indexOf(hashToHex(best)) + 1;
    assert.ok(marker >= seen && marker < TIP, `marker at ${marker}, seen ${seen}`);
    coinbases.forEach((txid, i) => {
      const indexed = env.withSnapshot((r) => r.txIndexEntry(hexToHash(txid))) !== undefined;
      assert.equal(indexed, i + 1 <= marker, `coinbase of block ${i + 1} indexed: ${indexed}, marker ${marker}`);
    });
  } finally {
    await env.close();
  }

  const resumed = await d.restart({ args: ['-txindex', '-rpcfrontends=1'], waitReady: false });
  daemons.push(resumed);
  // It resumes from the marker: no report below it, then synced at the tip.
  const reports: number[] = [];
  await waitFor(
    'the txindex to sync after the crash',
    async () => {
      const info = await txindexInfo(resumed).catch(() => undefined);
      if (info && info.best_block_height > 0) reports.push(info.best_block_height);
      return info?.synced ? info : undefined;
    },
    60_000,
  );
  assert.ok(reports[0]! >= marker, `first report ${reports[0]} below the marker ${marker}`);
  assert.deepEqual(await resumed.call('getindexinfo'), { txindex: { synced: true, best_block_height: TIP } });
  assert.match(resumed.debugLog(), new RegExp(`txindex is enabled at height ${TIP}\\n`));
  for (const height of [1, marker, marker + 1, TIP]) {
    const found = await resumed.call('getrawtransaction', [coinbases[height - 1], 1]);
    assert.equal(found.blockhash, hashes[height - 1], `coinbase of block ${height}`);
    assert.equal(found.txid, coinbases[height - 1]);
  }
});

test('a stored best block the block index does not know stops start-up with Core’s error; -reindex rebuilds', { timeout: 120_000 }, async () => {
  const first = await Daemon.start({ args: ['-txindex', '-rpcfrontends=1'] });
  daemons.push(first);
  await first.call('generatetoaddress', [5, FOREIGN_ADDRESS]);
  await waitFor('the txindex to sync', async () => ((await txindexInfo(first))?.synced ? true : undefined), 30_000);
  assert.equal((await first.stop()).code, 0);

  // An index directory from another node: its marker names a block this node never saw.
  const env = openIndexesEnv(first.netdir);
  try {
    env.writeBatch((w) => w.putMeta(INDEXES_META.txindexBest, new Uint8Array(32).fill(0xab)));
  } finally {
    await env.close();
  }
  const refused = await runToExit(['-regtest', `-datadir=${first.datadir}`, '-printtoconsole=0', '-txindex']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'Error: txindex: best block of the index not found. Please rebuild the index.\n');

  const rebuilt = await first.restart({ args: ['-txindex', '-reindex', '-rpcfrontends=1'] });
  daemons.push(rebuilt);
  const info = await waitFor('the rebuilt txindex to sync', async () => ((await txindexInfo(rebuilt))?.synced ? txindexInfo(rebuilt) : undefined), 60_000);
  assert.deepEqual(info, { synced: true, best_block_height: 5 });
});
