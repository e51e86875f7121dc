/**
 * Real, unmodified RPC client libraries sending coins between two loaded wallets, each
 * wallet reached the way the library's users reach one:
 * - python-bitcoinlib (Debian's python3-bitcoinlib, run by /usr/bin/python3): a Proxy whose
 *   service_url ends in /wallet/<name>; getnewaddress, sendtoaddress, gettransaction,
 *   getbalance;
 * - the npm `bitcoin-core` client with its `wallet` option; getNewAddress, sendToAddress,
 *   getBalances, listUnspent.
 * With two wallets loaded, a wallet call on / is Core's -19; each payment confirms and
 * both wallets' balances are what the chain says.
 *
 * A missing python3-bitcoinlib fails this test (make test installs it); it never skips.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Daemon, walletCaller } from './daemon-harness.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../../../test/clients/bitcoinlib_wallet.py', import.meta.url));

interface BitcoinCoreClient {
  command<T = any>(method: string, ...params: unknown[]): Promise<T>;
}
type BitcoinCoreClientClass = new (options: { host: string; username: string; password: string; wallet?: string; timeout?: number }) => BitcoinCoreClient;

let d: Daemon;
let credentials: { username: string; password: string };

const wallet = (name: string) => walletCaller(d, name);

before(async () => {
  d = await Daemon.start({ args: ['-fallbackfee=0.0002'] });
  await d.call('createwallet', ['alice']);
  await d.call('createwallet', ['bob']);
  await d.call('generatetoaddress', [101, await wallet('alice')('getnewaddress')]);
  const cookie = d.cookie();
  const colon = cookie.indexOf(':');
  credentials = { username: cookie.slice(0, colon), password: cookie.slice(colon + 1) };
});
after(async () => {
  await d?.cleanup();
});

test('two wallets: a wallet call on / is -19, on /wallet/<name> it answers', async () => {
  const r = await d.rpc('getbalance', []);
  assert.deepEqual((r.json as any).error, {
    code: -19,
    message: 'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.',
  });
  assert.equal(await wallet('alice')('getbalance'), 50);
  assert.equal(await wallet('bob')('getbalance'), 0);
});

test('python-bitcoinlib: alice pays bob through Proxy(service_url=…/wallet/<name>)', async () => {
  try {
    await promisify(execFile)(PYTHON, ['-c', 'import bitcoin.rpc']);
  } catch (err) {
    assert.fail(`${PYTHON} cannot import python-bitcoinlib (apt-get install python3-bitcoinlib; make test installs it): ${(err as Error).message}`);
  }
  const base = `http://${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${d.port}`;
  const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, base, 'alice', 'bob', String(125_000_000)], { timeout: 60_000 });
  const out = JSON.parse(stdout);
  // The library's view is the node's.
  assert.equal(out.sender_tx_hex, (await wallet('alice')('gettransaction', [out.txid])).hex);
  assert.deepEqual(out.receiver_details, (await wallet('bob')('gettransaction', [out.txid])).details);
  assert.equal(out.receiver_details[0].address, out.address);
  assert.equal(out.receiver_details[0].amount, 1.25);
  // getbalance counts trusted coins only: a payment from someone else is untrusted until it confirms (Core's rule).
  assert.equal(out.receiver_balance, 0);
  assert.equal((await wallet('bob')('getbalances')).mine.untrusted_pending, 1.25);
  const fee = -(await wallet('alice')('gettransaction', [out.txid])).fee;
  assert.ok(fee > 0 && fee < 0.001, `fee ${fee}`);
  assert.equal(out.sender_balance, Math.round((50 - 1.25 - fee) * 1e8));
  assert.deepEqual(await d.call('getrawmempool'), [out.txid]);
});

test('npm bitcoin-core: bob pays alice back with the client\'s wallet option, and both balances follow the chain', async () => {
  const Client = createRequire(import.meta.url)('bitcoin-core') as BitcoinCoreClientClass;
  const client = (name: string) => new Client({ host: `http://127.0.0.1:${d.port}`, ...credentials, wallet: name, timeout: 30_000 });
  const alice = client('alice');
  const bob = client('bob');
  await d.call('generatetoaddress', [1, await wallet('alice')('getnewaddress')]);
  const address: string = await alice.command('getnewaddress', 'from bob');
  const txid: string = await bob.command('sendtoaddress', address, 0.5);
  assert.match(txid, /^[0-9a-f]{64}$/);
  await d.call('generatetoaddress', [1, await wallet('bob')('getnewaddress')]);
  const received = (await alice.command<any[]>('listunspent')).filter((u) => u.txid === txid);
  assert.equal(received.length, 1);
  assert.equal(received[0].address, address);
  assert.equal(received[0].label, 'from bob');
  assert.equal(received[0].amount, 0.5);
  const bobBalances = await bob.command<any>('getbalances');
  const fee = -(await wallet('bob')('gettransaction', [txid])).fee;
  // Bob: 1.25 in, 0.5 out and the fee; his coinbase (50 and his own fee) is immature.
  assert.equal(Math.round(bobBalances.mine.trusted * 1e8), Math.round((1.25 - 0.5 - fee) * 1e8));
  assert.equal(Math.round(bobBalances.mine.immature * 1e8), Math.round((50 + fee) * 1e8));
  const aliceBalances = await alice.command<any>('getbalances');
  assert.deepEqual(await wallet('alice')('getbalances'), JSON.parse(JSON.stringify(aliceBalances)));
  assert.equal(aliceBalances.mine.untrusted_pending, 0);
  const info = await alice.command<any>('getwalletinfo');
  assert.equal(info.walletname, 'alice');
});
