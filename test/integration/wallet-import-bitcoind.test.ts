/**
 * Imported descriptors in the wallet file, against bitcoind v31.0: the same importdescriptors
 * calls on both nodes (private keys with hardened paths, a hardened wildcard, an unranged
 * key, watch-only xpubs and a multisig) write the same descriptor cache records, byte for
 * byte, and a wallet imported into here loads in bitcoind with the same descriptors and next
 * addresses (bitcoind refuses a wallet whose descriptors it cannot expand from the cache).
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { toHex } from '../../src/primitives/index.js';
import { selectParams } from '../../src/consensus/index.js';
import { WalletDatabase, RECORD, splitRecordKey } from '../../src/wallet/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, walletCaller, type WalletCaller } from './daemon-harness.js';
import { answerOf } from './wallet-answers.js';

const reference = referenceBitcoind();

/** The descriptor cache records of a wallet (its directory), as hex key → hex value. */
function cacheRecords(directory: string): Map<string, string> {
  const db = WalletDatabase.open(directory, { messageStart: selectParams('regtest').messageStart });
  try {
    const out = new Map<string, string>();
    for (const [key, value] of db.entries()) {
      const type = splitRecordKey(key)?.type;
      if (type === RECORD.WALLETDESCRIPTORCACHE || type === RECORD.WALLETDESCRIPTORLHCACHE) out.set(toHex(key), toHex(value));
    }
    return out;
  } finally {
    db.close();
  }
}

test('importdescriptors writes the descriptor caches bitcoind writes, and the wallet loads in bitcoind', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  const node = await Daemon.start({ args: ['-connect=0'] });
  try {
    await core.call('createwallet', ['source']);
    const source = (await core.rpc.call<any>('listdescriptors', [true], 30_000, '/wallet/source')).descriptors as { desc: string }[];
    const tprv = /(tprv[1-9A-HJ-NP-Za-km-z]+)/.exec(source[0]!.desc)![1]!;
    const tpubs = (await core.rpc.call<any>('listdescriptors', [], 30_000, '/wallet/source')).descriptors.map((d: { desc: string }) => /(tpub[1-9A-HJ-NP-Za-km-z]+)/.exec(d.desc)![1]!);
    const withChecksum = async (desc: string): Promise<string> => `${desc}#${(await core.call('getdescriptorinfo', [desc])).checksum}`;
    const privateImports = [
      { desc: await withChecksum(`wpkh(${tprv}/84h/1h/7h/0/*)`), timestamp: 'now', active: true, internal: false, range: [0, 20] },
      { desc: await withChecksum(`tr(${tprv}/86h/1h/7h/1/*h)`), timestamp: 'now', active: true, internal: true, range: [0, 5] },
      { desc: await withChecksum(`pkh(${tprv}/44h/1h/7h/0/7)`), timestamp: 'now', label: 'single' },
      { desc: await withChecksum(`sh(wpkh(${tprv}/49h/1h/7h/0/*))`), timestamp: 'now', range: [2, 9] },
    ];
    const watchImports = [
      { desc: await withChecksum(`wpkh(${tpubs[0]}/0/*)`), timestamp: 'now', active: true, internal: false },
      { desc: await withChecksum(`wsh(multi(1,${tpubs[1]}/0/*,${tpubs[2]}/1/*))`), timestamp: 'now', range: [0, 10] },
      { desc: await withChecksum(`tr(${tpubs[3]}/5)`), timestamp: 'now' },
    ];
    for (const [name, imports, disablePrivateKeys] of [
      ['imported', privateImports, false],
      ['watching', watchImports, true],
    ] as const) {
      await core.call('createwallet', [name, disablePrivateKeys, true]);
      await node.call('createwallet', [name, disablePrivateKeys, true]);
      const cw: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, `/wallet/${name}`);
      const tw = walletCaller(node, name);
      assert.deepEqual(await answerOf(tw, 'importdescriptors', [imports]), await answerOf(cw, 'importdescriptors', [imports]), name);
      assert.equal(await tw('getnewaddress', ['', 'bech32']), await cw('getnewaddress', ['', 'bech32']));
      if (!disablePrivateKeys) assert.equal(await tw('getrawchangeaddress', ['bech32m']), await cw('getrawchangeaddress', ['bech32m']));
      await core.call('unloadwallet', [name]);
      await node.call('unloadwallet', [name]);
      const coreFile = join(core.datadir, 'regtest', 'wallets', name);
      const nodeFile = join(node.netdir, 'wallets', name);
      const [theirs, ours] = [cacheRecords(coreFile), cacheRecords(nodeFile)];
      assert.ok(theirs.size > 0, `${name}: bitcoind cached something`);
      assert.deepEqual(ours, theirs, `${name}: the same cache records`);
    }
    // The wallets made here load in bitcoind, with bitcoind's own wallets' descriptors and next addresses.
    for (const name of ['imported', 'watching']) {
      cpSync(join(node.netdir, 'wallets', name), join(core.datadir, 'regtest', 'wallets', `${name}-here`), { recursive: true });
      await core.call('loadwallet', [`${name}-here`]);
      await core.call('loadwallet', [name]);
      const fromUs: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, `/wallet/${name}-here`);
      const theirs: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, `/wallet/${name}`);
      const described = async (w: WalletCaller) => (await w('listdescriptors', [name === 'imported'])).descriptors.map(({ timestamp: _t, ...rest }: { timestamp: number }) => rest);
      assert.deepEqual(await described(fromUs), await described(theirs), name);
      assert.equal(await fromUs('getnewaddress', ['', 'bech32']), await theirs('getnewaddress', ['', 'bech32']), name);
    }
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});
