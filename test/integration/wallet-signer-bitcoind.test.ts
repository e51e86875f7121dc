/**
 * External signer wallets (-signer) against bitcoind v31.0, both driving the same mock
 * hardware wallet (mock-hardware-signer.ts: HWI's command line, keys of a bitcoind wallet):
 * createwallet with external_signer takes the device's descriptors, walletdisplayaddress
 * shows addresses on it, and send, sendall, walletprocesspsbt and bumpfee have it sign; the
 * refusals (keys not disabled, sendtoaddress, an address not ours, a device that errors) are
 * bitcoind's, and a signer wallet made here loads in bitcoind.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, tempDir, walletCaller, type WalletCaller } from './daemon-harness.js';
import type { MockDevice } from './mock-hardware-signer.js';
import { answerOf, copyChain } from './wallet-answers.js';

const reference = referenceBitcoind();
const MOCK = join(dirname(fileURLToPath(import.meta.url)), 'mock-hardware-signer.js');
const TYPES = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const;

/** What both nodes must answer alike about the signer wallet (timestamps and birth time are the second it was made). */
async function signerWalletAnswers(w: WalletCaller): Promise<Record<string, unknown>> {
  const info = await w('getwalletinfo');
  delete info.birthtime;
  delete info.scanning;
  delete info.lastprocessedblock;
  const descriptors = await w('listdescriptors');
  return {
    getwalletinfo: info,
    listdescriptors: descriptors.descriptors.map(({ timestamp: _t, ...rest }: { timestamp: number }) => rest),
    getbalances: { ...(await w('getbalances')), lastprocessedblock: undefined },
  };
}

test('an external signer wallet on both nodes: same descriptors, addresses and refusals, and the device signs send, sendall, walletprocesspsbt and bumpfee', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const dir = tempDir();
  const deviceFile = join(dir, 'device.json');
  const signer = `${process.execPath} ${MOCK} ${deviceFile}`;
  const args = ['-connect=0', '-fallbackfee=0.0002', `-signer=${signer}`];
  const core = await BitcoindProcess.start(reference.path, args);
  const node = await Daemon.start({ args });
  try {
    await core.call('createwallet', ['keys']);
    const keys: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/keys');
    const secret = (await keys('listdescriptors', [true])).descriptors as { desc: string }[];
    const pub = (await keys('listdescriptors')).descriptors as { desc: string; internal: boolean }[];
    const device: MockDevice = {
      fingerprint: /\[([0-9a-f]{8})/.exec(pub[0]!.desc)![1]!,
      receive: pub.filter((d) => !d.internal).map((d) => d.desc),
      internal: pub.filter((d) => d.internal).map((d) => d.desc),
      privateDescriptors: secret.map((d) => d.desc),
      rpcPort: core.rpc.port,
      cookieFile: core.rpc.cookieFile,
      log: join(dir, 'calls.log'),
    };
    const setDevice = (change: Partial<MockDevice> = {}) => writeFileSync(deviceFile, JSON.stringify({ ...device, ...change }));
    setDevice();
    await core.call('createwallet', ['miner']);
    const miner: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/miner');
    await core.call('generatetoaddress', [101, await miner('getnewaddress')]);
    await copyChain(core, node);

    const onCore: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/');
    const onNode = walletCaller(node);
    const same = async (method: string, params: unknown[], label = method): Promise<any> => {
      const theirs = await answerOf(onCore, method, params);
      assert.deepEqual(await answerOf(onNode, method, params), theirs, label);
      return theirs;
    };
    await same('enumeratesigners', []);
    await same('createwallet', ['hw-keys', false, false, '', false, true, null, true], 'private keys not disabled');
    await same('createwallet', ['hww', true, false, '', false, true, null, true]);
    await core.call('unloadwallet', ['keys']);
    await core.call('unloadwallet', ['miner']);
    const cw: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/hww');
    const tw = walletCaller(node, 'hww');
    const both = async (method: string, params: unknown[] = []): Promise<any> => {
      const theirs = await answerOf(cw, method, params);
      assert.deepEqual(await answerOf(tw, method, params), theirs, `${method} ${JSON.stringify(params)}`);
      return theirs;
    };
    assert.deepEqual(await signerWalletAnswers(tw), await signerWalletAnswers(cw));
    const addresses: string[] = [];
    for (const type of TYPES) addresses.push((await both('getnewaddress', ['', type])).result);
    addresses.push((await both('getrawchangeaddress', ['bech32m'])).result);
    for (const address of addresses) await both('walletdisplayaddress', [address]);
    await both('walletdisplayaddress', ['not-an-address']);
    await both('walletdisplayaddress', ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);

    // Funded from bitcoind's miner (loaded again for it), on the same chain.
    await core.call('loadwallet', ['miner']);
    for (const address of addresses.slice(0, 4)) await miner('sendtoaddress', [address, 3]);
    await core.call('generatetoaddress', [1, await miner('getnewaddress')]);
    await copyChain(core, node);
    assert.deepEqual(await signerWalletAnswers(tw), await signerWalletAnswers(cw));
    const payee = await miner('getnewaddress');
    await both('sendtoaddress', [payee, 1]);

    // send without broadcasting: both devices sign completely; each node's pool would take it.
    for (const [w, rpc] of [[cw, onCore], [tw, onNode]] as const) {
      const sent = await w('send', [{ [payee]: 1 }, null, 'unset', 5, { add_to_wallet: false }]);
      assert.equal(sent.complete, true);
      const [accepted] = await rpc('testmempoolaccept', [[sent.hex]]);
      assert.equal(accepted.allowed, true, JSON.stringify(accepted));
      // walletcreatefundedpsbt, then walletprocesspsbt has the device sign it.
      const funded = await w('walletcreatefundedpsbt', [[], [{ [payee]: 0.5 }], 0, { fee_rate: 3 }]);
      const processed = await w('walletprocesspsbt', [funded.psbt]);
      assert.equal(processed.complete, true);
      assert.equal((await rpc('testmempoolaccept', [[processed.hex]]))[0].allowed, true);
    }
    // Without derivation paths the device is not asked: the same refusal on both.
    const bare = await cw('walletcreatefundedpsbt', [[], [{ [payee]: 0.5 }], 0, { fee_rate: 3 }, false]);
    await both('walletprocesspsbt', [bare.psbt, true, 'ALL', false]);
    // A device that answers an error.
    setDevice({ failWith: 'device locked' });
    const funded = await cw('walletcreatefundedpsbt', [[], [{ [payee]: 0.5 }], 0, { fee_rate: 3 }]);
    await both('walletprocesspsbt', [funded.psbt]);
    await both('walletdisplayaddress', [addresses[0]]);
    setDevice();

    // send and bumpfee on tsbtcd, broadcast: the device signs both, the bump replaces the payment.
    const sent = await tw('send', [{ [payee]: 1.5 }, null, 'unset', 2]);
    assert.equal(sent.complete, true);
    assert.ok((await node.call<string[]>('getrawmempool')).includes(sent.txid));
    const bumped = await tw('bumpfee', [sent.txid, { fee_rate: 10 }]);
    const pool = await node.call<string[]>('getrawmempool');
    assert.ok(pool.includes(bumped.txid) && !pool.includes(sent.txid), 'the bump replaced the payment');
    // sendall to one address, unbroadcast.
    const all = await tw('sendall', [[payee], null, 'unset', 2, { add_to_wallet: false }]);
    assert.equal(all.complete, true);
    assert.equal((await node.call<any[]>('testmempoolaccept', [[all.hex]]))[0].allowed, true);
    const calls = readFileSync(device.log, 'utf8');
    assert.match(calls, /--stdin --fingerprint [0-9a-f]{8} --chain regtest/);

    // A signer wallet made here loads in bitcoind with the same descriptors and flags.
    await core.call('generatetoaddress', [1, await miner('getnewaddress')]);
    await node.call('unloadwallet', ['hww']);
    cpSync(join(node.netdir, 'wallets', 'hww'), join(core.datadir, 'regtest', 'wallets', 'hww-made-here'), { recursive: true });
    await core.call('loadwallet', ['hww-made-here']);
    const fromUs: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/hww-made-here');
    const ours = await signerWalletAnswers(fromUs);
    const theirs = await signerWalletAnswers(cw);
    assert.deepEqual((ours.getwalletinfo as any).flags, (theirs.getwalletinfo as any).flags);
    // The descriptors (not how far each was used: the nodes spent differently).
    const roles = (answers: Record<string, unknown>) => (answers.listdescriptors as any[]).map(({ desc, active, internal }) => ({ desc, active, internal }));
    assert.deepEqual(roles(ours), roles(theirs));
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
