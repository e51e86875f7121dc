/**
 * getnetworkinfo (key order, services from the options, -uacomment, -onlynet,
 * -deprecatedrpc=warnings), getconnectioncount, getmemoryinfo, the hidden
 * syncwithvalidationinterfacequeue, and the Wallet family with no wallet loaded:
 * Core's -18 errors on `/` and `/wallet/<name>`, and the wallet-management calls.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/node/config.js';
import { nodeFacts } from '../../src/node/node-facts.js';
import { networkFacts, nodeRpcMethods, walletDir } from '../../src/node/node-rpc.js';
import { nodeServices } from '../../src/node/services.js';
import { DEFAULT_NODE_FACTS, formatSubVersion, networkMethods, nodeMethods, servicesNames, walletStubMethods } from '../../src/rpc/index.js';
import { caller } from './rpc-call-helper.js';
import { selectParams } from '../../src/consensus/index.js';
import { listWalletDatabases } from '../../src/wallet/index.js';

const NO_WALLET =
  'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)';

function config(...args: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsbtcd-netinfo-'));
  return { dir, config: loadConfig([`-datadir=${dir}`, '-regtest', ...args], {}) };
}

test('getnetworkinfo: Core’s keys in code order, defaults of an unpruned node without peers', async () => {
  const { config: c } = config();
  const rpc = caller(...networkMethods(networkFacts(c), DEFAULT_NODE_FACTS));
  const info = await rpc.result('getnetworkinfo');
  assert.deepEqual(Object.keys(info), [
    'version', 'subversion', 'protocolversion', 'localservices', 'localservicesnames', 'localrelay', 'timeoffset', 'networkactive',
    'connections', 'connections_in', 'connections_out', 'networks', 'relayfee', 'incrementalfee', 'localaddresses', 'warnings',
  ]);
  assert.equal(info.version, 310000);
  assert.match(info.subversion, /^\/tsbtcd:\d+\.\d+\.\d+\/$/);
  assert.equal(info.protocolversion, 70016);
  // Core says 0c09 (P2P_V2 too); tsbtcd does not offer BIP324, so it does not claim it.
  assert.equal(info.localservices, '0000000000000409');
  assert.deepEqual(info.localservicesnames, ['NETWORK', 'WITNESS', 'NETWORK_LIMITED']);
  assert.deepEqual([info.localrelay, info.timeoffset, info.networkactive, info.connections, info.connections_in, info.connections_out], [true, 0, true, 0, 0, 0]);
  assert.deepEqual(
    info.networks.map((n: any) => [n.name, n.limited, n.reachable]),
    [['ipv4', false, true], ['ipv6', false, true], ['onion', true, false], ['i2p', true, false], ['cjdns', true, false]],
  );
  assert.deepEqual(Object.keys(info.networks[0]), ['name', 'limited', 'reachable', 'proxy', 'proxy_randomize_credentials']);
  assert.deepEqual(info.localaddresses, []);
  assert.deepEqual(info.warnings, []);
  const text = await rpc.text('getnetworkinfo');
  assert.ok(text.includes('"relayfee":0.00000100,"incrementalfee":0.00000100'), text);
  assert.equal(await rpc.result('getconnectioncount'), 0);
});

test('getnetworkinfo follows -prune, -v2transport, -peerbloomfilters, -blocksonly, -onlynet, -uacomment, fees and -deprecatedrpc', async () => {
  const { config: c } = config(
    '-prune=550', '-v2transport=0', '-peerbloomfilters', '-blocksonly', '-onlynet=ipv6', '-uacomment=a', '-uacomment=b c',
    '-minrelaytxfee=0.00001', '-networkactive=0',
  );
  const facts = networkFacts(c);
  const info = await caller(...networkMethods(facts, DEFAULT_NODE_FACTS)).result('getnetworkinfo');
  assert.equal(info.localservices, '000000000000040c');
  assert.deepEqual(info.localservicesnames, ['BLOOM', 'WITNESS', 'NETWORK_LIMITED']);
  assert.equal(info.localrelay, false);
  assert.equal(info.networkactive, false);
  assert.deepEqual(info.networks.map((n: any) => n.reachable), [false, true, false, false, false]);
  assert.match(info.subversion, /^\/tsbtcd:[\d.]+\(a; b c\)\/$/);
  assert.equal(info.relayfee, 0.00001);
  const deprecated = config('-deprecatedrpc=warnings').config;
  const old = await caller(...networkMethods(networkFacts(deprecated), nodeFacts(deprecated, () => false))).result('getnetworkinfo');
  assert.equal(old.warnings, '');
  assert.equal(formatSubVersion('Satoshi', '31.0.0', []), '/Satoshi:31.0.0/');
  assert.deepEqual(servicesNames(0xc4dn | (1n << 40n)), ['NETWORK', 'BLOOM', 'WITNESS', 'COMPACT_FILTERS', 'NETWORK_LIMITED', 'P2P_V2', 'UNKNOWN[2^40]']);
});

test('getmemoryinfo modes and syncwithvalidationinterfacequeue', async () => {
  const rpc = caller(...nodeMethods());
  assert.deepEqual(await rpc.result('getmemoryinfo'), { locked: { used: 0, free: 0, total: 0, locked: 0, chunks_used: 0, chunks_free: 0 } });
  assert.deepEqual(await rpc.result('getmemoryinfo', ['stats']), await rpc.result('getmemoryinfo'));
  assert.deepEqual(await rpc.error('getmemoryinfo', ['mallocinfo']), { code: -8, message: 'mallocinfo mode not available' });
  assert.deepEqual(await rpc.error('getmemoryinfo', ['foo']), { code: -8, message: 'unknown mode foo' });
  assert.equal(await rpc.result('syncwithvalidationinterfacequeue'), null);
  assert.equal((await rpc.error('syncwithvalidationinterfacequeue', [1])).code, -1);
});

test('wallet methods with no wallet loaded: Core’s routing errors', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsbtcd-wallets-'));
  const rpc = caller(...walletStubMethods({ walletDir: () => dir, listWalletDatabases: () => listWalletDatabases(dir, selectParams('regtest').messageStart) }));
  for (const method of ['getbalance', 'getwalletinfo', 'getnewaddress', 'listunspent', 'getbalances', 'walletlock']) {
    assert.deepEqual(await rpc.error(method, []), { code: -18, message: NO_WALLET }, method);
    assert.deepEqual(await rpc.error(method, [], 'w1'), { code: -18, message: 'Requested wallet does not exist or is not loaded' }, method);
    assert.deepEqual(await rpc.error(method, [], ''), { code: -18, message: 'Requested wallet does not exist or is not loaded' }, method);
  }
  // Argument checks come first, as in Core.
  assert.equal((await rpc.error('getbalance', ['*', 'x'])).code, -3);
  assert.equal((await rpc.error('sendtoaddress', [])).code, -1);
  assert.deepEqual(await rpc.result('listwallets'), []);
  assert.deepEqual(await rpc.result('listwalletdir'), { wallets: [] });
  const missing = path.join(dir, 'nope');
  assert.deepEqual(await rpc.error('loadwallet', ['nope']), {
    code: -18,
    message: `Wallet file verification failed. Failed to load database path '${missing}'. Path does not exist.`,
  });
  assert.deepEqual(await rpc.error('unloadwallet', ['x']), { code: -18, message: 'Requested wallet does not exist or is not loaded' });
  assert.deepEqual(await rpc.error('unloadwallet', ['x'], 'y'), { code: -8, message: 'The RPC endpoint wallet and the wallet name parameter specify different wallets' });
  assert.deepEqual(await rpc.error('unloadwallet', [], 'y'), { code: -18, message: 'Requested wallet does not exist or is not loaded' });
  assert.deepEqual(await rpc.error('unloadwallet', []), { code: -3, message: 'JSON value of type null is not of expected type string' });
  assert.deepEqual(await rpc.error('migratewallet', []), { code: -8, message: 'Either the RPC endpoint wallet or the wallet name parameter must be provided' });
  assert.deepEqual(await rpc.error('migratewallet', ['a'], 'b'), { code: -8, message: 'The RPC endpoint wallet and the wallet name parameter specify different wallets' });
  assert.deepEqual(await rpc.error('createwallet', ['w', false, false, '', false, false]), {
    code: -4,
    message: 'descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.',
  });
  assert.equal((await rpc.error('createwallet', ['w'])).code, -4);
  assert.deepEqual(await rpc.error('restorewallet', ['w', path.join(dir, 'no-backup')]), { code: -8, message: 'Backup file does not exist' });
});

test('wallet methods come with the wallet service, which -disablewallet leaves out; walletdir as Core finds it', () => {
  const { dir, config: c } = config();
  const names = nodeRpcMethods(c, DEFAULT_NODE_FACTS).map((m) => m.name);
  assert.ok(names.includes('decodescript') && !names.includes('createwallet'));
  // The Network methods come with the P2P service.
  assert.ok(!names.includes('getnetworkinfo'));
  const serviceMethods = (cfg: typeof c) => nodeServices(cfg).flatMap((s) => (s.rpcMethods ?? []).map((m) => m.name));
  assert.ok(serviceMethods(c).includes('getbalance') && serviceMethods(c).includes('createwallet'));
  const disabled = serviceMethods(config('-disablewallet').config);
  assert.ok(!disabled.includes('getbalance') && !disabled.includes('createwallet'));
  const netdir = path.join(dir, 'regtest');
  assert.equal(walletDir(c), netdir);
  fs.mkdirSync(path.join(netdir, 'wallets'), { recursive: true });
  assert.equal(walletDir(c), path.join(netdir, 'wallets'));
});
