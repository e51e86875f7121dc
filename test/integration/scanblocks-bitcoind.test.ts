/**
 * scanblocks and getdescriptoractivity answered byte for byte as bitcoind v31.0 answers
 * them: a chain built on the reference bitcoind (coinbases to a TestWallet, spends of
 * them, a parent and child left in the pool) is replayed into tsbtcd, both with
 * -blockfilterindex, and both get the same requests — every action, option and error,
 * positional and named — then a concurrent status, start and abort while a long range
 * is being expanded, and on nodes without the index, Core's "Index is not enabled".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { fromHex, parseBlock, toHex, type Transaction } from '../../src/primitives/index.js';
import { rpcCall as call, withBareNodes, type Answer, type SendToBoth, type SendToEach } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { TestWallet } from '../support/wallet.js';
import { sleep } from './daemon-harness.js';

const reference = referenceBitcoind();
const skip = 'path' in reference ? false : reference.missing;
const FOREIGN = 'bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte';
const XPUB = 'tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B';

const resultOf = (answer: Answer): any => (JSON.parse(answer.body.toString('utf8')) as { result: unknown }).result;
const differs = (request: DiffRequest, a: Answer, b: Answer) => a.status !== b.status || a.contentType !== b.contentType || !a.body.equals(b.body);
const describe = (request: DiffRequest, a: Answer, b: Answer) => `${request.label}\n  tsbtcd:   ${a.status} ${a.body}\n  bitcoind: ${b.status} ${b.body}`;

/** The chain and pool both nodes hold, and what the requests refer to. */
interface Built {
  readonly hashes: string[];
  readonly wpkh: string;
  readonly tr: string;
}

/** Both block filter indexes catch up in the background: waits until they reach `height`. */
async function indexesSynced(each: SendToEach, height: number): Promise<void> {
  for (const node of [each.tsbtcd, each.bitcoind]) {
    for (let i = 0; i < 300; i++) {
      const info = resultOf(await node(call('getindexinfo', [])));
      if (info['basic block filter index']?.synced && info['basic block filter index'].best_block_height === height) break;
      await sleep(100);
    }
  }
}

async function buildChain(each: SendToEach): Promise<Built> {
  const wallet = new TestWallet(31);
  const core = async (method: string, params: unknown[]) => resultOf(await each.bitcoind(call(method, params)));
  const both = async (method: string, params: unknown[]) => {
    const [a, b] = [await each.tsbtcd(call(method, params)), await each.bitcoind(call(method, params))];
    assert.equal(a.body.toString(), b.body.toString(), `${method}: tsbtcd and bitcoind disagree`);
    return resultOf(b);
  };
  const mine = async (n: number, address: string) => {
    for (const hash of (await core('generatetoaddress', [n, address])) as string[]) {
      const hex = (await core('getblock', [hash, 0])) as string;
      assert.equal(resultOf(await each.tsbtcd(call('submitblock', [hex]))), null);
      wallet.processBlock(parseBlock(fromHex(hex)), (await core('getblockheader', [hash])).height);
    }
  };
  const send = (tx: Transaction) => both('sendrawtransaction', [toHex(tx.toBytes())]);
  await mine(3, wallet.address('p2wpkh'));
  await mine(101, wallet.address('p2tr-key'));
  const height = (await core('getblockcount', [])) as number;
  const [first, second] = wallet.spendable(height + 1).filter((c) => c.coinbase && c.height !== null && c.height <= 2);
  // A confirmed spend of a p2wpkh coinbase paying both kinds, and another to a foreign script.
  await send(wallet.spend([first!], [{ value: 20_0000_0000n, to: 'p2tr-key' }, { value: 29_9999_0000n, to: 'p2wpkh' }]));
  await mine(1, FOREIGN);
  await mine(2, FOREIGN);
  // A parent and child in the pool: the child's spend is found among the pool's outputs.
  const parent = wallet.spend([second!], [{ value: 49_9999_0000n, to: 'p2wpkh' }]);
  await send(parent);
  const [pooled] = wallet.spendable(Number.MAX_SAFE_INTEGER).filter((c) => c.outpoint.vout === 0 && toHex(c.outpoint.txid) === toHex(parent.txid));
  await send(wallet.spend([pooled!], [{ value: 49_9998_0000n, to: 'p2tr-key' }]));
  const tip = (await core('getblockcount', [])) as number;
  const hashes: string[] = [];
  for (let h = 0; h <= tip; h++) hashes.push((await core('getblockhash', [h])) as string);
  await indexesSynced(each, tip);
  return { hashes, wpkh: `raw(${toHex(wallet.scriptPubKey('p2wpkh'))})`, tr: `addr(${wallet.address('p2tr-key')})` };
}

function scanblocksRequests({ hashes, wpkh, tr }: Built): DiffRequest[] {
  const tip = hashes.length - 1;
  return [
    call('help', ['scanblocks']),
    call('scanblocks', ['start', [wpkh]]),
    call('scanblocks', ['start', [tr]]),
    call('scanblocks', ['start', [wpkh, tr, `addr(${FOREIGN})`]]),
    call('scanblocks', ['start', [wpkh], 2, 104]),
    call('scanblocks', ['start', [wpkh], tip, tip]),
    call('scanblocks', ['start', [wpkh], 0, 0]),
    call('scanblocks', ['start', []]),
    call('scanblocks', ['start', [wpkh], 0, tip, 'basic', { filter_false_positives: true }]),
    call('scanblocks', ['start', [tr, `combo(${XPUB}/*)`], 100, tip, 'basic', { filter_false_positives: false }]),
    call('scanblocks', ['start', [{ desc: `combo(${XPUB}/1/*)`, range: [5, 20] }, { desc: wpkh }], null, null, null, null]),
    call('scanblocks', ['start', [wpkh], 0, tip, 'basic', { bogus: 1 }]),
    call('scanblocks', ['start', [wpkh], 0, tip, 'basic', {}]),
    call('scanblocks', ['start', [wpkh], 0, tip, 'basic', { filter_false_positives: 1 }]),
    call('scanblocks', ['start', [wpkh], 0, tip, 'basic', { filter_false_positives: null }]),
    call('scanblocks', ['start', [wpkh], -1]),
    call('scanblocks', ['start', [wpkh], tip + 1]),
    call('scanblocks', ['start', [wpkh], 5, 4]),
    call('scanblocks', ['start', [wpkh], 0, tip + 1]),
    call('scanblocks', ['start', [wpkh], 0, -1]),
    call('scanblocks', ['start', [wpkh], 1.5]),
    call('scanblocks', ['start', [wpkh], 99999999999]),
    call('scanblocks', ['start', [wpkh], 0, 3, 'extended']),
    call('scanblocks', ['start', ['bad('], 0, 3, 'extended']),
    call('scanblocks', ['start', [wpkh], 0, tip + 1, 'basic', { filter_false_positives: 1 }]),
    call('scanblocks', ['start']),
    call('scanblocks', ['start', null, tip + 1]),
    call('scanblocks', ['start', 'x']),
    call('scanblocks', ['start', [5]]),
    call('scanblocks', ['start', ['bad(']]),
    call('scanblocks', ['start', [{ range: 5 }]]),
    call('scanblocks', ['start', [{ desc: `combo(${XPUB}/*)`, range: -1 }]]),
    call('scanblocks', ['start', [wpkh], '1']),
    call('scanblocks', ['start', [wpkh], 0, 3, 5]),
    call('scanblocks', ['start', [wpkh], 0, 3, 'basic', 5]),
    call('scanblocks', ['start', [wpkh], 0, 3, 'basic', {}, 7]),
    call('scanblocks', ['status']),
    call('scanblocks', ['abort']),
    call('scanblocks', ['bogus']),
    call('scanblocks', []),
    call('scanblocks', [5]),
    call('scanblocks', ['status', 'x', 'y']),
    call('scanblocks', { action: 'start', scanobjects: [wpkh], filter_false_positives: true, start_height: 2 }),
    call('scanblocks', { action: 'start', scanobjects: [tr], stop_height: 3 }),
    call('scanblocks', { action: 'start', scanobjects: [wpkh], options: { filter_false_positives: true } }),
    call('scanblocks', { action: 'start', scanobjects: [wpkh], filtertype: 'basic', start_height: tip }),
    call('scanblocks', { action: 'start', scanobjects: [wpkh], bogus: true }),
    call('scanblocks', { action: 'status' }),
    call('scanblocks', { scanobjects: [wpkh] }),
  ];
}

function activityRequests({ hashes, wpkh, tr }: Built): DiffRequest[] {
  const tip = hashes.length - 1;
  const [h0, h1, h3, h104, h105, hTip] = [hashes[0]!, hashes[1]!, hashes[3]!, hashes[104]!, hashes[105]!, hashes[tip]!];
  return [
    call('help', ['getdescriptoractivity']),
    call('getdescriptoractivity', [[h105, h1, h3], [wpkh, tr]]),
    call('getdescriptoractivity', [[h105, h1, h105, h3], [wpkh], false]),
    call('getdescriptoractivity', [[h105], [tr], true]),
    call('getdescriptoractivity', [[hTip, h104], [wpkh, tr, `addr(${FOREIGN})`]]),
    call('getdescriptoractivity', [[], [wpkh, tr]]),
    call('getdescriptoractivity', [[], []]),
    call('getdescriptoractivity', [[h0], ['raw(51)']]),
    call('getdescriptoractivity', [[h105], [{ desc: `combo(${XPUB}/*)`, range: 3 }, wpkh]]),
    call('getdescriptoractivity', { blockhashes: [h105], scanobjects: [wpkh], include_mempool: false }),
    call('getdescriptoractivity', { scanobjects: [wpkh], blockhashes: [h3, h1] }),
    call('getdescriptoractivity', { scanobjects: [wpkh] }),
    call('getdescriptoractivity', [[h1]]),
    call('getdescriptoractivity', []),
    call('getdescriptoractivity', [null, [wpkh]]),
    call('getdescriptoractivity', [[h1], null]),
    call('getdescriptoractivity', [[h1], [wpkh], null]),
    call('getdescriptoractivity', [[h1], [wpkh], 5]),
    call('getdescriptoractivity', [[h1], [wpkh], true, 1]),
    call('getdescriptoractivity', ['x', 'y']),
    call('getdescriptoractivity', [['00'], [wpkh]]),
    call('getdescriptoractivity', [['zz'], ['bad(']]),
    call('getdescriptoractivity', [['00'.repeat(31) + '01'], [wpkh]]),
    call('getdescriptoractivity', [[h1, '00'.repeat(32)], [wpkh]]),
    call('getdescriptoractivity', [[5], [wpkh]]),
    call('getdescriptoractivity', [[h1], ['bad(']]),
    call('getdescriptoractivity', [[h1], [5]]),
    call('getdescriptoractivity', [[h1], [{ range: 2 }]]),
  ];
}

/** Sends every request to both, noting where they differ; returns bitcoind's results. */
async function compare(send: SendToBoth, requests: readonly DiffRequest[], different: string[]): Promise<any[]> {
  const results: any[] = [];
  for (const request of requests) {
    const [a, b] = await send(request);
    if (differs(request, a, b)) different.push(describe(request, a, b));
    results.push(resultOf(b));
  }
  return results;
}

/**
 * On one node: a start whose scan object spans a long range, and while it expands, the
 * first status that sees it, a second start and an abort (which Core ignores until the
 * expansion is done); then the first start's answer.
 */
async function concurrentScan(node: SendToEach['tsbtcd']): Promise<string[]> {
  const long = call('scanblocks', ['start', [{ desc: `combo(${XPUB}/7/*)`, range: [0, 60000] }], 0, 0]);
  const first = node(long);
  let status: Answer | undefined;
  for (let i = 0; i < 400 && !status; i++) {
    const answer = await node(call('scanblocks', ['status']));
    if (resultOf(answer) !== null) status = answer;
    else await sleep(5);
  }
  const again = await node(long);
  const abort = await node(call('scanblocks', ['abort']));
  return [String(status?.body), String(again.body), String(abort.body), String((await first).body), String((await node(call('scanblocks', ['status']))).body)];
}

test('scanblocks and getdescriptoractivity are answered byte for byte as bitcoind v31 answers them', { skip, timeout: 600_000 }, async () => {
  await withBareNodes(
    (reference as { path: string }).path,
    async (send, each) => {
      const built = await buildChain(each);
      const different: string[] = [];
      const scans = await compare(send, scanblocksRequests(built), different);
      const activities = await compare(send, activityRequests(built), different);
      // The chain is what the requests need: coinbases and a spend found, the pool's activity too.
      const { hashes } = built;
      assert.deepEqual(scans[1].relevant_blocks, [hashes[1], hashes[2], hashes[3], hashes[105]]);
      assert.equal(scans[2].relevant_blocks.length, 102);
      const kinds = (activities[1].activity as { type: string; height?: number }[]).map((e) => `${e.type}@${e.height ?? 'pool'}`);
      assert.deepEqual(kinds, ['receive@1', 'receive@3', 'spend@105', 'receive@105', 'receive@105', 'spend@pool', 'receive@pool', 'spend@pool', 'receive@pool']);
      // A block off the active chain.
      const tipHash = built.hashes[built.hashes.length - 1]!;
      await send(call('invalidateblock', [tipHash]));
      await compare(send, [call('getdescriptoractivity', [[built.hashes[1], tipHash], [built.wpkh]]), call('scanblocks', ['start', [built.wpkh], 0, built.hashes.length - 1])], different);
      await send(call('reconsiderblock', [tipHash]));
      assert.deepEqual(different, [], different.join('\n'));

      const [ts, core] = [await concurrentScan(each.tsbtcd), await concurrentScan(each.bitcoind)];
      assert.deepEqual(ts, core);
      assert.match(core[0]!, /"progress"/);
      assert.match(core[1]!, /Scan already in progress/);
    },
    ['-blockfilterindex=1'],
  );
});

test('without -blockfilterindex, scanblocks start answers as bitcoind v31 does', { skip, timeout: 120_000 }, async () => {
  await withBareNodes((reference as { path: string }).path, async (send) => {
    const different: string[] = [];
    await compare(
      send,
      [
        call('scanblocks', ['start', ['raw(51)']]),
        call('scanblocks', ['start', ['raw(51)'], 0, 0, 'extended']),
        call('scanblocks', ['start', ['raw(51)'], 0, 0, 'basic', { filter_false_positives: 'yes' }]),
        call('scanblocks', ['start', ['raw(51)'], 5]),
        call('scanblocks', ['status']),
        call('getdescriptoractivity', [[], ['raw(51)']]),
      ],
      different,
    );
    assert.deepEqual(different, [], different.join('\n'));
  });
});

test('on pruned nodes, getdescriptoractivity and scanblocks filter_false_positives of a pruned block answer as bitcoind v31 does', { skip, timeout: 300_000 }, async () => {
  await withBareNodes(
    (reference as { path: string }).path,
    async (send, each) => {
      const core = async (method: string, params: unknown[]) => resultOf(await each.bitcoind(call(method, params)));
      // 64 KiB block files (-fastprune): the first ones hold only blocks below the 288 kept.
      const hashes = (await core('generatetoaddress', [700, FOREIGN])) as string[];
      for (const hash of hashes) assert.equal(resultOf(await each.tsbtcd(call('submitblock', [await core('getblock', [hash, 0])]))), null);
      await indexesSynced(each, 700);
      const different: string[] = [];
      const results = await compare(send, [call('pruneblockchain', [400])], different);
      assert.ok(results[0] > 0, `pruned up to ${results[0]}`);
      await compare(
        send,
        [
          call('getdescriptoractivity', [[hashes[0]], [`addr(${FOREIGN})`]]),
          call('getdescriptoractivity', [[hashes[699], hashes[0]], [`addr(${FOREIGN})`], false]),
          call('getdescriptoractivity', [[hashes[699]], [`addr(${FOREIGN})`], false]),
          call('scanblocks', ['start', [`addr(${FOREIGN})`]]),
          call('scanblocks', ['start', [`addr(${FOREIGN})`], 690]),
          call('scanblocks', ['start', [`addr(${FOREIGN})`], 690, 699, 'basic', { filter_false_positives: true }]),
          call('scanblocks', ['start', [`addr(${FOREIGN})`], 0, 699, 'basic', { filter_false_positives: true }]),
        ],
        different,
      );
      assert.deepEqual(different, [], different.join('\n'));
      const pruned = await each.bitcoind(call('getdescriptoractivity', [[hashes[0]], [`addr(${FOREIGN})`]]));
      assert.match(String(pruned.body), /"code":-1,"message":"Block not available \(pruned data\)"/);
      const rechecked = await each.bitcoind(call('scanblocks', ['start', [`addr(${FOREIGN})`], 0, 699, 'basic', { filter_false_positives: true }]));
      assert.match(String(rechecked.body), /"code":-1,"message":"Block not available \(pruned data\)"/);
    },
    ['-prune=1', '-fastprune', '-blockfilterindex=1'],
  );
});
