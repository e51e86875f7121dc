/**
 * REST in the node states that change its answers: warming up (503 with the init
 * message; blockpart checks its query first), -rest off (404, empty body), a pruned node
 * (-prune=1 -fastprune, pruneblockchain: "not available (pruned data)", "undo not
 * available", chaininfo = getblockchaininfo with the prune fields), an unreadable block
 * file (500 "I/O error reading"), -txindex off (a confirmed transaction is simply "not
 * found") and -blockfilterindex off ("Index is not enabled").
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Daemon } from './daemon-harness.js';
import { rawResult, restRequest, type RestResponse } from '../support/rest-client.js';

const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';
const GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

function assertError(r: RestResponse, status: number, message: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.headers['content-type'], 'text/plain');
  assert.equal(r.text, `${message}\r\n`);
}

test('while warming up every endpoint answers 503 with the init message; blockpart checks offset and size first', async () => {
  const d = await Daemon.start({ args: ['-rest', '-testwarmupms=4000'], waitReady: false });
  try {
    await d.waitCookie();
    const busy = 'Service temporarily unavailable: Test warm-up delay…';
    const get = (t: string) => restRequest(d.port, t);
    const targets = [
      '/rest/chaininfo.json',
      `/rest/block/${GENESIS}.hex`,
      `/rest/block/notxdetails/${GENESIS}.json`,
      `/rest/headers/${GENESIS}.bin`,
      '/rest/blockhashbyheight/0.hex',
      `/rest/spenttxouts/${GENESIS}.hex`,
      `/rest/tx/${GENESIS}.hex`,
      '/rest/mempool/info.json',
      '/rest/mempool/contents.json',
      '/rest/deploymentinfo.json',
      '/rest/getutxos.json',
      `/rest/blockfilter/basic/${GENESIS}.json`,
      `/rest/blockfilterheaders/basic/${GENESIS}.json`,
      `/rest/blockpart/${GENESIS}.bin?offset=0&size=1`,
      // Even invalid requests: warm-up is the first check.
      '/rest/tx/abc.json',
      '/rest/chaininfo.hex',
    ];
    for (const t of targets) {
      const r = await get(t);
      assert.equal(r.status, 503, t);
      assert.equal(r.headers['content-type'], 'text/plain', t);
      assert.equal(r.body.toString('utf8'), `${busy}\r\n`, t);
    }
    assertError(await get(`/rest/blockpart/${GENESIS}.bin`), 400, 'Block part offset missing or invalid');
    assertError(await get(`/rest/blockpart/${GENESIS}.bin?offset=0`), 400, 'Block part size missing or invalid');
    assert.equal((await get('/rest/foo')).status, 404);
    await d.waitReady();
    assert.equal((await get('/rest/chaininfo.json')).status, 200);
  } finally {
    await d.cleanup();
  }
});

test('-rest off: every REST path is 404 with an empty body', async () => {
  const d = await Daemon.start();
  try {
    for (const t of ['/rest/chaininfo.json', `/rest/block/${GENESIS}.hex`, '/rest/mempool/info.json']) {
      const r = await restRequest(d.port, t);
      assert.equal(r.status, 404, t);
      assert.equal(r.body.length, 0);
      assert.equal(r.headers['content-type'], 'text/html; charset=ISO-8859-1');
    }
  } finally {
    await d.cleanup();
  }
});

test('pruned blocks (-prune=1 -fastprune, pruneblockchain) and -txindex off', { timeout: 180_000 }, async () => {
  // One front-end: the block served before pruning is kept by the process asked after it.
  const d = await Daemon.start({ args: ['-rest', '-prune=1', '-fastprune', '-rpcfrontends=1'] });
  try {
    const get = (t: string) => restRequest(d.port, t);
    for (let done = 0; done < 700; done += 100) await d.call('generatetoaddress', [100, ADDRESS]);
    // Served (and so kept by the front-end's recent blocks) before it is pruned.
    assert.equal((await get(`/rest/block/${await d.call<string>('getblockhash', [1])}.bin`)).status, 200);
    const pruned = await d.call<number>('pruneblockchain', [300]);
    assert.ok(pruned > 0, `pruned up to ${pruned}`);
    const gone = await d.call<string>('getblockhash', [1]);
    const kept = await d.call<string>('getblockhash', [650]);
    assertError(await get(`/rest/block/${gone}.bin`), 404, `${gone} not available (pruned data)`);
    assertError(await get(`/rest/block/${gone}.json`), 404, `${gone} not available (pruned data)`);
    assertError(await get(`/rest/block/notxdetails/${gone}.hex`), 404, `${gone} not available (pruned data)`);
    assertError(await get(`/rest/blockpart/${gone}.bin?offset=0&size=80`), 404, `${gone} not available (pruned data)`);
    assertError(await get(`/rest/spenttxouts/${gone}.json`), 404, `${gone} undo not available`);
    // Headers stay; the genesis block's spent outputs need no undo data.
    assert.equal((await get(`/rest/headers/${gone}.bin?count=3`)).body.length, 240);
    assert.equal((await get(`/rest/spenttxouts/${GENESIS}.hex`)).text, '0100\n');
    assert.equal((await get(`/rest/block/${kept}.hex`)).status, 200);
    assert.equal((await get(`/rest/spenttxouts/${kept}.hex`)).text, '0100\n');
    // A block file that cannot be read (moved away under the node): Core v31's 500.
    const tip = await d.call<string>('getbestblockhash');
    const blocksDir = path.join(d.netdir, 'blocks');
    const newest = path.join(blocksDir, fs.readdirSync(blocksDir).filter((f) => /^blk\d{5}\.dat$/.test(f)).sort().at(-1)!);
    fs.renameSync(newest, `${newest}.moved`);
    try {
      assertError(await get(`/rest/block/${tip}.bin`), 500, `I/O error reading ${tip}`);
      assertError(await get(`/rest/block/notxdetails/${tip}.json`), 500, `I/O error reading ${tip}`);
      assertError(await get(`/rest/blockpart/${tip}.hex?offset=0&size=80`), 500, `I/O error reading ${tip}`);
    } finally {
      fs.renameSync(`${newest}.moved`, newest);
    }
    assert.equal((await get(`/rest/block/${tip}.bin`)).status, 200);
    // chaininfo carries the prune fields exactly as getblockchaininfo.
    const info = await get('/rest/chaininfo.json');
    assert.equal(info.text, `${rawResult((await d.post('{"method":"getblockchaininfo","params":[],"id":1}')).body)}\n`);
    const parsed = JSON.parse(info.text);
    assert.equal(parsed.pruned, true);
    assert.equal(parsed.automatic_pruning, false);
    assert.equal(parsed.pruneheight, pruned + 1);
    // -txindex off: a confirmed transaction is "not found" (Core has no separate error).
    const coinbase = (await d.call('getblock', [kept, 1])).tx[0];
    const r = await get(`/rest/tx/${coinbase}.json`);
    assertError(r, 404, `${coinbase} not found`);
    // -blockfilterindex off: Core's answer once the path, hash and type are valid.
    assertError(await get(`/rest/blockfilter/basic/${kept}.json`), 400, 'Index is not enabled for filtertype basic');
    assertError(await get(`/rest/blockfilterheaders/basic/${kept}.json`), 400, 'Index is not enabled for filtertype basic');
    assertError(await get(`/rest/blockfilterheaders/basic/5/${kept}.bin`), 400, 'Index is not enabled for filtertype basic');
    assertError(await get(`/rest/blockfilter/extended/${kept}.json`), 400, 'Unknown filtertype extended');
  } finally {
    await d.cleanup();
  }
});
