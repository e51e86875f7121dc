/**
 * Loaded wallets answering RPCs, against bitcoind v31.0 on the same chain: a wallet bitcoind
 * made and used (every address type, labels, received and spent coins, a payment still in
 * the pool, a locked coin, then encrypted) loads in tsbtcd and answers getbalances,
 * listunspent, listtransactions, gettransaction, listlockunspent, getwalletinfo and
 * listdescriptors (private ones after walletpassphrase) as bitcoind did, and hands out the
 * next addresses bitcoind hands out; a wallet made and used here loads in bitcoind with the
 * same answers; two loaded wallets route by /wallet/<name> with Core's -19 on /.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon } from './daemon-harness.js';

const reference = referenceBitcoind();
const TYPES = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const;

type Caller = (method: string, params?: unknown[]) => Promise<any>;

function walletCaller(node: Daemon, name: string): Caller {
  return async (method, params = []) => {
    const r = await node.rpc(method, params, { path: `/wallet/${encodeURIComponent(name)}` });
    const json = r.json as { result?: unknown; error?: { code: number; message: string } | null };
    if (json.error) throw Object.assign(new Error(`${method}: ${json.error.code} ${json.error.message}`), { code: json.error.code });
    return json.result;
  };
}

interface NodeRpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

/** The blocks and pool of one node given to the other (submitblock, sendrawtransaction), so both stand on the same chain. */
async function copyChain(from: NodeRpc, to: NodeRpc): Promise<void> {
  const tip = await from.call<number>('getblockcount');
  for (let height = (await to.call<number>('getblockcount')) + 1; height <= tip; height++) {
    const hex = await from.call<string>('getblock', [await from.call<string>('getblockhash', [height]), 0]);
    assert.equal(await to.call('submitblock', [hex]), null);
  }
  assert.equal(await to.call('getbestblockhash'), await from.call('getbestblockhash'));
  for (const txid of await from.call<string[]>('getrawmempool')) {
    await to.call('sendrawtransaction', [await from.call<string>('getrawtransaction', [txid])]);
  }
}

const byOutpoint = (a: any, b: any): number => (a.txid === b.txid ? a.vout - b.vout : a.txid < b.txid ? -1 : 1);

/** One call after the other (bitcoind's work queue holds 16). */
async function sequentially<T, R>(items: readonly T[], call: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await call(item));
  return out;
}

/** listsinceblock's transactions come in bitcoind's hash-map order: compared sorted. */
function sortedSince(result: any): any {
  const key = (e: any) => `${e.txid}:${e.category}:${e.vout}`;
  return { ...result, transactions: [...result.transactions].sort((a: any, b: any) => (key(a) < key(b) ? -1 : 1)) };
}

const sortedTxids = (entries: any[]): any[] => entries.map((e) => ({ ...e, txids: [...e.txids].sort() }));

/** The answers compared between the two nodes. */
async function walletAnswers(w: Caller): Promise<Record<string, unknown>> {
  const txs = await w('listtransactions', ['*', 1000]);
  const txids = [...new Set(txs.map((e: any) => e.txid as string))].sort();
  const info = await w('getwalletinfo');
  delete info.scanning;
  return {
    getbalances: await w('getbalances'),
    getbalance: await w('getbalance'),
    listunspent: (await w('listunspent', [0])).sort(byOutpoint),
    listtransactions: txs,
    'listtransactions label': await w('listtransactions', ['lab-bech32', 5, 1]),
    gettransaction: await sequentially(txids, (txid) => w('gettransaction', [txid, false, true])),
    listlockunspent: (await w('listlockunspent')).sort(byOutpoint),
    listlabels: await w('listlabels'),
    getaddressesbylabel: await w('getaddressesbylabel', ['lab-legacy']),
    getwalletinfo: info,
    listdescriptors: await w('listdescriptors'),
    listsinceblock: sortedSince(await w('listsinceblock')),
    'listsinceblock 106': sortedSince(await w('listsinceblock', [await w('getblockhash', [106]), 3])),
    // The txids of an address come in bitcoind's hash-map order: compared sorted.
    listreceivedbyaddress: sortedTxids(await w('listreceivedbyaddress', [0, true])),
    'listreceivedbyaddress filtered': sortedTxids(await w('listreceivedbyaddress', [1, false, false, Object.keys(await w('getaddressesbylabel', ['lab-bech32']))[0]])),
    listreceivedbylabel: await w('listreceivedbylabel', [0, true, false, true]),
    getreceivedbylabel: await w('getreceivedbylabel', ['lab-bech32']),
  };
}

function assertSameAnswers(ours: Record<string, unknown>, theirs: Record<string, unknown>): void {
  for (const key of Object.keys(theirs)) {
    assert.deepEqual(ours[key], theirs[key], key);
    // Field order too: a client reading the JSON text sees bitcoind's.
    assert.equal(JSON.stringify(ours[key]), JSON.stringify(theirs[key]), key);
  }
}

test('a wallet bitcoind made and used loads in tsbtcd with bitcoind\'s answers, and both hand out the same next addresses', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  const node = await Daemon.start({ args: ['-connect=0'] });
  try {
    await core.call('createwallet', ['w']);
    await core.call('createwallet', ['other']);
    const cw: Caller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/w');
    const other: Caller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/other');
    const addresses: Record<string, string> = {};
    for (const type of TYPES) addresses[type] = await cw('getnewaddress', [`lab-${type}`, type]);
    await core.call('generatetoaddress', [105, addresses.legacy]);
    // Received on every type, paid out to another wallet, change back.
    for (const type of TYPES) await cw('sendtoaddress', [addresses[type], 2.5]);
    await cw('sendtoaddress', [await other('getnewaddress'), 7]);
    await core.call('generatetoaddress', [1, await other('getnewaddress')]);
    await other('sendtoaddress', [addresses.bech32, 1.25]);
    await core.call('generatetoaddress', [1, await other('getnewaddress')]);
    // Left in the pool: a payment out and one in.
    await cw('sendtoaddress', [await other('getnewaddress'), 0.5]);
    await other('sendtoaddress', [addresses['p2sh-segwit'], 0.75]);
    const coins = (await cw('listunspent')).sort(byOutpoint);
    await cw('lockunspent', [false, [{ txid: coins[0].txid, vout: coins[0].vout }], true]);
    await cw('encryptwallet', ['correct horse']);
    const theirs = await walletAnswers(cw);
    await cw('walletpassphrase', ['correct horse', 60]);
    const theirPrivate = await cw('listdescriptors', [true]);
    const theirSignature = await cw('signmessage', [addresses.legacy, 'tsbtcd']);
    await core.call('unloadwallet', ['w']);

    await copyChain(core, node);
    cpSync(join(core.datadir, 'regtest', 'wallets', 'w'), join(node.netdir, 'wallets', 'w'), { recursive: true });
    assert.deepEqual(await node.call('loadwallet', ['w']), { name: 'w' });
    const tw = walletCaller(node, 'w');
    assertSameAnswers(await walletAnswers(tw), theirs);
    await assert.rejects(tw('listdescriptors', [true]), /-13 Error: Please enter the wallet passphrase with walletpassphrase first\./);
    await assert.rejects(tw('walletpassphrase', ['wrong horse', 60]), /-14 Error: The wallet passphrase entered was incorrect\./);
    await tw('walletpassphrase', ['correct horse', 60]);
    assert.deepEqual(await tw('listdescriptors', [true]), theirPrivate);
    // ECDSA signatures are deterministic (RFC 6979): the same key signs the same message the same way.
    assert.equal(await tw('signmessage', [addresses.legacy, 'tsbtcd']), theirSignature);
    await assert.rejects(tw('signmessage', [addresses.bech32, 'tsbtcd']), /-3 Address does not refer to key/);
    assert.deepEqual(await tw('rescanblockchain', [100]), { start_height: 100, stop_height: await node.call('getblockcount') });
    await tw('walletlock');
    assert.equal((await tw('getwalletinfo')).unlocked_until, 0);
    // A rescan changes nothing bitcoind's wallet did not already know.
    assertSameAnswers(await walletAnswers(tw), theirs);

    // The next addresses: the same on both nodes, of every type and for change.
    await node.call('unloadwallet', ['w']);
    await core.call('loadwallet', ['w']);
    cpSync(join(core.datadir, 'regtest', 'wallets', 'w'), join(node.netdir, 'wallets', 'w2'), { recursive: true });
    await core.call('unloadwallet', ['w']);
    await core.call('loadwallet', ['w']);
    await node.call('loadwallet', ['w2']);
    const tw2 = walletCaller(node, 'w2');
    for (const type of TYPES) {
      assert.equal(await tw2('getnewaddress', ['next', type]), await cw('getnewaddress', ['next', type]), type);
      assert.equal(await tw2('getrawchangeaddress', [type]), await cw('getrawchangeaddress', [type]), `change ${type}`);
    }
    assert.deepEqual(await tw2('getaddressesbylabel', ['next']), await cw('getaddressesbylabel', ['next']));
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});

test('a wallet made and used in tsbtcd loads in bitcoind with the same answers; two wallets route by /wallet/<name>', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const node = await Daemon.start({ args: ['-connect=0'] });
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  try {
    assert.deepEqual(await node.call('createwallet', ['made-here']), { name: 'made-here' });
    assert.deepEqual(await node.call('createwallet', ['second', false, false, '']), { name: 'second', warnings: ['Empty string given as passphrase, wallet will not be encrypted.'] });
    const r = await node.rpc('getwalletinfo', []);
    assert.deepEqual((r.json as any).error, {
      code: -19,
      message: 'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.',
    });
    assert.deepEqual(await node.call('listwallets'), ['made-here', 'second']);
    const tw = walletCaller(node, 'made-here');
    const addresses: Record<string, string> = {};
    for (const type of TYPES) addresses[type] = await tw('getnewaddress', [`lab-${type}`, type]);
    for (const type of TYPES) await node.call('generatetoaddress', [3, addresses[type]]);
    await node.call('generatetoaddress', [100, await walletCaller(node, 'second')('getnewaddress')]);
    await tw('setlabel', [addresses.bech32m, 'renamed']);
    const coins = (await tw('listunspent')).sort(byOutpoint);
    await tw('lockunspent', [false, [{ txid: coins[1].txid, vout: coins[1].vout }], true]);
    const ours = await walletAnswers(tw);
    assert.equal(ours.listunspent && (ours.listunspent as unknown[]).length, 11);
    await node.call('unloadwallet', ['made-here']);

    await copyChain(node, core);
    assert.equal(await core.call('getbestblockhash'), await node.call('getbestblockhash'));
    cpSync(join(node.netdir, 'wallets', 'made-here'), join(core.datadir, 'regtest', 'wallets', 'made-here'), { recursive: true });
    await core.call('loadwallet', ['made-here']);
    const cw: Caller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/made-here');
    const theirs = await walletAnswers(cw);
    // listtransactions' labels of the renamed address and the label filter hold on both sides.
    assertSameAnswers(ours, theirs);
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});
