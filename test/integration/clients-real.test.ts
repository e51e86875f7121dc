/**
 * Real, unmodified RPC client libraries against a real daemon, configured the way their
 * users configure them for bitcoind:
 * - python-bitcoinlib (Debian's python3-bitcoinlib, run by /usr/bin/python3):
 *   bitcoin.rpc.Proxy(btc_conf_file=<datadir>/bitcoin.conf) finds rpcport in the conf
 *   file and the cookie in <datadir>/regtest/.cookie; getblock parses the block hex into
 *   a CBlock (segwit transactions included);
 * - the npm `bitcoin-core` client, with the cookie's user name and password.
 * Both call getblockchaininfo, getblock and getblockstats on a block with signed segwit v0
 * and taproot spends, and must get what the node answers any other caller.
 *
 * A missing python3-bitcoinlib fails this test (make test installs it); it never skips.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { fromHex, parseBlock } from '../../src/primitives/index.js';
import { mineWithSpends } from '../support/regtest-mining.js';
import { TestWallet } from '../support/wallet.js';
import { Daemon, freePort } from './daemon-harness.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../../../test/clients/bitcoinlib_client.py', import.meta.url));
/** Past coinbase maturity, so the last blocks carry signed spends. */
const BLOCKS = 104;
const SEED = 4;

/** The part of the bitcoin-core client (CommonJS, no usable type declarations) this test calls. */
interface BitcoinCoreClient {
  command<T = any>(method: string, ...params: unknown[]): Promise<T>;
  getBlockchainInfo<T = any>(): Promise<T>;
  getBlock<T = any>(hash: string, verbosity?: number): Promise<T>;
  getBlockStats<T = any>(hashOrHeight: string | number, stats?: string[]): Promise<T>;
}
type BitcoinCoreClientClass = new (options: { host: string; username: string; password: string; timeout?: number }) => BitcoinCoreClient;

let d: Daemon;
/** A block with transactions besides the coinbase. */
let height: number;
let hash: string;

before(async () => {
  const port = await freePort();
  // What an operator's bitcoin.conf says; the daemon reads it and so does python-bitcoinlib.
  d = await Daemon.start({ bare: true, port, conf: `regtest=1\nprinttoconsole=0\n[regtest]\nrpcport=${port}\n` });
  const stats = await mineWithSpends(d, new TestWallet(SEED), 0, BLOCKS, { seed: SEED });
  height = stats.blocksWithTransactions.at(-1)!;
  hash = stats.hashes[height - 1]!;
});
after(async () => {
  await d?.cleanup();
});

test('python-bitcoinlib: Proxy from bitcoin.conf and the cookie; getblockchaininfo, getblock (CBlock), getblockstats', async () => {
  try {
    await promisify(execFile)(PYTHON, ['-c', 'import bitcoin.rpc']);
  } catch (err) {
    assert.fail(`${PYTHON} cannot import python-bitcoinlib (apt-get install python3-bitcoinlib; make test installs it): ${(err as Error).message}`);
  }
  const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, path.join(d.datadir, 'bitcoin.conf'), String(height)], { timeout: 60_000 });
  const out = JSON.parse(stdout);

  assert.deepEqual(out.blockchaininfo, await d.call('getblockchaininfo'));
  assert.equal(out.blockchaininfo.chain, 'regtest');
  assert.equal(out.blockcount, BLOCKS);
  assert.equal(out.bestblockhash, await d.call('getbestblockhash'));
  assert.equal(out.blockhash, hash);

  // The CBlock python-bitcoinlib built from our hex: same hash, transactions, bytes.
  const verbose = await d.call('getblock', [hash, 1]);
  assert.equal(out.block.hash, hash);
  assert.equal(out.block.prev, verbose.previousblockhash);
  assert.equal(out.block.merkle_ok, true);
  assert.deepEqual(out.block.txids, verbose.tx);
  assert.ok(out.block.txids.length > 1, 'the block has transactions besides the coinbase');
  assert.equal(out.block.hex, await d.call('getblock', [hash, 0]));
  assert.equal(out.missing_block_error, 'Proxy.getblock(): Block not found (-5)');

  assert.deepEqual(out.blockstats, await d.call('getblockstats', [height]));
  assert.equal(out.blockstats.height, height);
  assert.equal(out.blockstats.txs, verbose.nTx);
});

test('npm bitcoin-core: getBlockchainInfo, getBlock at verbosity 0, 1 and 2, getBlockStats, with the cookie’s credentials', async () => {
  const Client = createRequire(import.meta.url)('bitcoin-core') as BitcoinCoreClientClass;
  const cookie = d.cookie();
  const colon = cookie.indexOf(':');
  const client = new Client({ host: `http://127.0.0.1:${d.port}`, username: cookie.slice(0, colon), password: cookie.slice(colon + 1), timeout: 30_000 });

  const info = await client.getBlockchainInfo();
  sameValues(info, await d.call('getblockchaininfo'), 'getblockchaininfo');
  assert.equal(info.blocks, BLOCKS);
  sameValues(await client.command('getblockchaininfo'), await d.call('getblockchaininfo'), 'command(getblockchaininfo)');

  const raw: string = await client.getBlock(hash, 0);
  assert.equal(parseBlock(fromHex(raw)).header.hashHex, hash);
  for (const verbosity of [1, 2]) {
    const block = await client.getBlock(hash, verbosity);
    sameValues(block, await d.call('getblock', [hash, verbosity]), `getblock verbosity ${verbosity}`);
    assert.equal(block.hash, hash);
  }

  const stats = await client.getBlockStats(height);
  sameValues(stats, await d.call('getblockstats', [height]), 'getblockstats');
  assert.equal(stats.height, height);
  sameValues(await client.getBlockStats(hash, ['txs', 'totalfee']), await d.call('getblockstats', [hash, ['txs', 'totalfee']]), 'getblockstats with stats');

  // Core's errors reach the client's RpcError.
  await assert.rejects(client.getBlock('00'.repeat(32)), (err: Error & { code?: number }) => err.code === -5 && err.message === 'Block not found');
});

/**
 * The client's values equal the node's: the client parses JSON with json-bigint
 * ({storeAsString: true}), which keeps numbers with more than 15 characters (such as
 * 4.656542373906925e-10) as strings; those must equal the number as a string.
 */
function sameValues(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'number' && typeof actual === 'string') {
    assert.equal(Number(actual), expected, `${where}: ${actual} ≠ ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${where}: array length`);
    expected.forEach((e, i) => sameValues((actual as unknown[])[i], e, `${where}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${where}: not an object`);
    assert.deepEqual(Object.keys(actual), Object.keys(expected), `${where}: keys`);
    for (const [k, e] of Object.entries(expected)) sameValues((actual as Record<string, unknown>)[k], e, `${where}.${k}`);
  } else {
    assert.equal(actual, expected, where);
  }
}
