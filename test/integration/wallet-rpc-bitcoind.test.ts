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
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, tempDir, waitFor, walletCaller, type WalletCaller } from './daemon-harness.js';
import { answerOf, copyChain, errorOf, type NodeRpc } from './wallet-answers.js';

const reference = referenceBitcoind();
const TYPES = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const;

type Caller = WalletCaller;

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
    listaddressgroupings: await w('listaddressgroupings'),
    gethdkeys: await w('gethdkeys'),
    'gethdkeys active_only': await w('gethdkeys', [{ active_only: true }]),
    getaddressinfo: await sequentially(
      [
        ...new Set([
          ...(await w('listreceivedbyaddress', [0, true])).map((e: any) => e.address as string),
          ...(await w('listunspent', [0])).map((u: any) => u.address as string),
          'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
          'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
        ]),
      ].sort(),
      (address) => w('getaddressinfo', [address]),
    ),
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
    const theirHdKeys = await cw('gethdkeys', [{ private: true }]);
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
    assert.equal(JSON.stringify(await tw('gethdkeys', [{ private: true }])), JSON.stringify(theirHdKeys));
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

    // A reorg: bitcoind's payment confirms in a block both nodes take, then that block is
    // invalidated and reconsidered on both; the wallets agree at every step (times aside:
    // each node saw the payment at its own moment).
    const timeless = async (w: Caller) => ({
      balances: (await w('getbalances')).mine,
      coins: (await w('listunspent', [0])).sort(byOutpoint),
      history: (await w('listtransactions', ['*', 1000])).map(({ time: _t, timereceived: _r, blocktime: _b, ...rest }: any) => rest),
    });
    await cw('walletpassphrase', ['correct horse', 60]);
    const paid = await cw('sendtoaddress', ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 3]);
    await core.call('generatetoaddress', [1, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);
    // bitcoind's wallet hears of blocks and pool changes on its validation-interface queue,
    // after the RPC that caused them returned: its answers are read once the queue is drained.
    await core.call('syncwithvalidationinterfacequeue');
    await copyChain(core, node);
    assert.equal((await tw2('gettransaction', [paid])).confirmations, 1);
    assert.deepEqual(await timeless(tw2), await timeless(cw), 'confirmed');
    const tip = await core.call<string>('getbestblockhash');
    await core.call('invalidateblock', [tip]);
    await core.call('syncwithvalidationinterfacequeue');
    await node.call('invalidateblock', [tip]);
    assert.deepEqual(await node.call('getrawmempool'), await core.call('getrawmempool'));
    assert.deepEqual(await timeless(tw2), await timeless(cw), 'its block disconnected: back in the pool');
    await core.call('reconsiderblock', [tip]);
    await core.call('syncwithvalidationinterfacequeue');
    await node.call('reconsiderblock', [tip]);
    assert.deepEqual(await timeless(tw2), await timeless(cw), 'reconnected');
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

/** The checks every payment of ours must pass, whichever coins selection picked. */
async function checkPayment(w: Caller, node: NodeRpc, txid: string, feeRatePerVb: number, paid: Map<string, number>, label: string, lockTime?: number): Promise<void> {
  const wtx = await w('gettransaction', [txid, false, true]);
  const decoded = wtx.decoded;
  const fee = Math.round(-wtx.fee * 1e8);
  // The inputs cover the outputs and the fee exactly.
  let inputs = 0;
  for (const input of decoded.vin) {
    const parent = await w('gettransaction', [input.txid, false, true]);
    inputs += Math.round(parent.decoded.vout[input.vout].value * 1e8);
  }
  const outputs = decoded.vout.reduce((sum: number, out: any) => sum + Math.round(out.value * 1e8), 0);
  assert.equal(inputs, outputs + fee, `${label}: inputs = outputs + fee`);
  // The fee rate asked for, on the signed size (ECDSA signatures can come out a byte shorter than estimated).
  assert.ok(fee >= feeRatePerVb * decoded.vsize && fee <= feeRatePerVb * (decoded.vsize + decoded.vin.length), `${label}: fee ${fee} for ${decoded.vsize} vB at ${feeRatePerVb} sat/vB`);
  // Recipients get what was asked; at most one other output, ours and above dust: the change.
  const others = decoded.vout.filter((out: any) => paid.get(out.scriptPubKey.address) !== Math.round(out.value * 1e8));
  assert.ok(others.length <= 1, `${label}: one change output at most`);
  for (const change of others) {
    assert.equal(change.ischange, true, `${label}: the change is ours`);
    assert.ok(Math.round(change.value * 1e8) >= 546, `${label}: change above dust`);
  }
  for (const [address, amount] of paid) assert.ok(decoded.vout.some((o: any) => o.scriptPubKey.address === address && Math.round(o.value * 1e8) === amount), `${label}: ${address} paid ${amount}`);
  // Anti-fee-sniping: the locktime is the tip's height, or up to 99 blocks before it.
  const height = await node.call<number>('getblockcount');
  if (lockTime !== undefined) assert.equal(decoded.locktime, lockTime, `${label}: the given locktime`);
  else assert.ok(decoded.locktime <= height && decoded.locktime > height - 100, `${label}: locktime ${decoded.locktime} at height ${height}`);
  assert.ok(decoded.vin.every((i: any) => i.sequence === 0xfffffffd), `${label}: BIP125 sequences (-walletrbf)`);
}

test('the same script of wallet calls on both nodes: equal answers, and every payment keeps Core\'s fee, sufficiency and change rules', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  const node = await Daemon.start({ args: ['-connect=0', '-fallbackfee=0.0002'] });
  try {
    await core.call('createwallet', ['w']);
    const cw: Caller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/w');
    const mined = await cw('getnewaddress', ['mined', 'bech32m']);
    for (const type of TYPES) await core.call('generatetoaddress', [2, await cw('getnewaddress', ['', type])]);
    await core.call('generatetoaddress', [101, mined]);
    await core.call('unloadwallet', ['w']);
    await copyChain(core, node);
    cpSync(join(core.datadir, 'regtest', 'wallets', 'w'), join(node.netdir, 'wallets', 'w'), { recursive: true });
    await core.call('loadwallet', ['w']);
    await node.call('loadwallet', ['w']);
    const tw = walletCaller(node, 'w');
    const external = { bech32: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', legacy: 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn' };
    for (const [name, w] of [['bitcoind', cw], ['tsbtcd', tw]] as const) {
      const label = (s: string) => `${name}: ${s}`;
      const before = (await w('getbalances')).mine.trusted;
      const one = await w('sendtoaddress', [external.bech32, 1.25, 'a comment', 'someone', false, true, null, 'unset', null, 5]);
      await checkPayment(w, name === 'bitcoind' ? core : node, one, 5, new Map([[external.bech32, 125_000_000]]), label('sendtoaddress'));
      const sffo = await w('sendtoaddress', [external.legacy, 2, '', '', true, true, null, 'unset', null, 3]);
      const sffoTx = await w('gettransaction', [sffo, false, true]);
      const sffoFee = Math.round(-sffoTx.fee * 1e8);
      assert.ok(sffoTx.decoded.vout.some((o: any) => o.scriptPubKey.address === external.legacy && Math.round(o.value * 1e8) === 200_000_000 - sffoFee), label('the recipient paid the fee'));
      const many = await w('sendmany', ['', { [external.bech32]: 0.5, [external.legacy]: 0.25 }, null, 'many', [], true, null, 'unset', 7]);
      await checkPayment(w, name === 'bitcoind' ? core : node, many, 7, new Map([[external.bech32, 50_000_000], [external.legacy, 25_000_000]]), label('sendmany'));
      const fees = [one, sffo, many].map(async (txid) => Math.round(-(await w('gettransaction', [txid])).fee * 1e8));
      const spent = 125_000_000 + 200_000_000 + 75_000_000 + (await Promise.all(fees)).reduce((a, b) => a + b, 0) - Math.round(-sffoTx.fee * 1e8);
      assert.equal(Math.round((await w('getbalances')).mine.trusted * 1e8), Math.round(before * 1e8) - spent, label('the balance fell by what was paid'));
      const tx = await w('gettransaction', [one]);
      assert.equal(tx.comment, 'a comment', label('comment'));
      assert.equal(tx.to, 'someone', label('comment_to'));
      // fundrawtransaction, then signrawtransactionwithwallet and sendrawtransaction.
      const rpcNode: NodeRpc = name === 'bitcoind' ? core : node;
      const raw = await rpcNode.call<string>('createrawtransaction', [[], [{ [external.bech32]: 0.3 }]]);
      const funded = await w('fundrawtransaction', [raw, { fee_rate: 4, changePosition: 1 }]);
      assert.equal(funded.changepos, 1, label('change where asked'));
      const signed = await w('signrawtransactionwithwallet', [funded.hex]);
      assert.equal(signed.complete, true, label('signed'));
      const fundedTxid = await rpcNode.call<string>('sendrawtransaction', [signed.hex]);
      await checkPayment(w, rpcNode, fundedTxid, 4, new Map([[external.bech32, 30_000_000]]), label('fundrawtransaction'), 0);
      assert.equal(Math.round(-(await w('gettransaction', [fundedTxid])).fee * 1e8), Math.round(funded.fee * 1e8), label('the fee fundrawtransaction reported'));
      // walletcreatefundedpsbt, then walletprocesspsbt.
      const created = await w('walletcreatefundedpsbt', [[], [{ [external.legacy]: 0.2 }], 0, { fee_rate: 6 }]);
      const processed = await w('walletprocesspsbt', [created.psbt]);
      assert.equal(processed.complete, true, label('the PSBT signed'));
      const psbtTxid = await rpcNode.call<string>('sendrawtransaction', [processed.hex]);
      await checkPayment(w, rpcNode, psbtTxid, 6, new Map([[external.legacy, 20_000_000]]), label('walletcreatefundedpsbt'), 0);
      // bumpfee: the replacement pays the old rate plus the wallet's incremental 5 sat/vB, at least the
      // wallet's own rate (here -fallbackfee's 20 sat/vB), and both transactions are marked.
      const original = await w('sendtoaddress', [external.bech32, 0.4, '', '', false, true, null, 'unset', null, 2]);
      const bump = await w('bumpfee', [original]);
      assert.deepEqual(Object.keys(bump), ['txid', 'origfee', 'fee', 'errors'], label('bumpfee fields'));
      const oldTx = await w('gettransaction', [original, false, true]);
      assert.equal(bump.origfee, -oldTx.fee, label('origfee'));
      assert.equal(oldTx.replaced_by_txid, bump.txid, label('replaced_by_txid'));
      assert.equal((await w('gettransaction', [bump.txid])).replaces_txid, original, label('replaces_txid'));
      const pool = await rpcNode.call<string[]>('getrawmempool');
      assert.ok(pool.includes(bump.txid) && !pool.includes(original), label('the replacement took the original\'s place'));
      const oldRate = Math.floor((Math.round(bump.origfee * 1e8) * 1000) / oldTx.decoded.vsize) + 1 + 5000;
      await checkPayment(w, rpcNode, bump.txid, Math.max(oldRate, 20_000) / 1000, new Map([[external.bech32, 40_000_000]]), label('bumpfee'));
      assert.equal((await errorOf(() => w('bumpfee', [original])))?.message, `Cannot bump transaction ${original} which was already bumped by transaction ${bump.txid}`, label('bumped twice'));
      const psbtBump = await w('psbtbumpfee', [bump.txid, { fee_rate: 30 }]);
      assert.ok(typeof psbtBump.psbt === 'string' && Math.round(psbtBump.fee * 1e8) > Math.round(bump.fee * 1e8), label('psbtbumpfee'));
      // send: funded, signed and broadcast in one call; with psbt: the PSBT and the final transaction, not broadcast.
      const sent = await w('send', [{ [external.bech32]: 0.15 }, null, 'unset', 4]);
      assert.deepEqual(Object.keys(sent), ['txid', 'complete'], label('send fields'));
      // Without a locktime, send discourages fee sniping (bitcoind v31 does; fundrawtransaction keeps the transaction's 0).
      await checkPayment(w, rpcNode, sent.txid, 4, new Map([[external.bech32, 15_000_000]]), label('send'));
      const unsent = await w('send', [{ [external.legacy]: 0.05 }, null, 'unset', 4, { psbt: true }]);
      assert.deepEqual(Object.keys(unsent), ['psbt', 'txid', 'hex', 'complete'], label('send with psbt fields'));
      assert.ok(!(await rpcNode.call<string[]>('getrawmempool')).includes(unsent.txid), label('a PSBT is not broadcast'));
      // Too little: Core's text with FormatMoney's amounts.
      assert.match((await errorOf(() => w('psbtbumpfee', [bump.txid, { fee_rate: 20 }])))?.message ?? '', /^Insufficient total fee 0\.\d+, must be at least 0\.\d+ \(oldFee 0\.\d+ \+ incrementalFee 0\.\d+\)$/, label('too little'));
    }
    // importdescriptors: the same results, descriptors and addresses on both nodes; the
    // wallet's earlier payment to an imported address becomes its own.
    const body = 'wpkh(tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK/84h/1h/0h/0/*)';
    const desc = `${body}#${(await core.call<any>('getdescriptorinfo', [body])).checksum}`;
    const [imported1] = await core.call<string[]>('deriveaddresses', [desc, [1, 1]]);
    const importRequests = (time: unknown) => [
      { desc, timestamp: time, range: [0, 5], next_index: 2 },
      { desc: 'addr(mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn)', timestamp: time, label: 'watch' },
      { desc, timestamp: time, range: 3 },
      { desc: body, timestamp: time },
      { desc, timestamp: time, active: true },
      { desc: 'pkh(02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5)#0', timestamp: time },
    ];
    const importAnswers: Record<string, unknown>[] = [];
    for (const w of [cw, tw]) {
      await w('walletpassphrase', ['x', 1]).catch(() => undefined);
      await w('sendtoaddress', [imported1, 0.7]);
      const own = new Set((await w('listdescriptors')).descriptors.map((d: any) => d.desc));
      const results = await w('importdescriptors', [importRequests('now')]);
      const listed = (await w('listdescriptors')).descriptors.filter((d: any) => !own.has(d.desc));
      importAnswers.push({
        results,
        listed: listed.map((d: any) => ({ ...d, timestamp: undefined })),
        info: await w('getaddressinfo', [imported1]),
        received: (await w('listreceivedbyaddress', [0, false, false, imported1])).map((e: any) => ({ ...e, txids: e.txids.length })),
        missingTimestamp: await errorOf(() => w('importdescriptors', [[{ desc }]])),
      });
    }
    assert.deepEqual(importAnswers[1], importAnswers[0]);
    assert.equal(JSON.stringify(importAnswers[1]), JSON.stringify(importAnswers[0]));

    // sendall empties each wallet into one output at the rate asked.
    for (const [name, w, rpcNode] of [['bitcoind', cw, core], ['tsbtcd', tw, node]] as const) {
      // Only safe coins: the bumped replacement's change is not (it replaces another transaction).
      const coins = (await w('listunspent', [0])).filter((c: any) => c.safe);
      const all = await w('sendall', [[external.legacy], null, 'unset', 3]);
      assert.equal(all.complete, true, `${name}: sendall complete`);
      const tx = (await w('gettransaction', [all.txid, false, true])).decoded;
      assert.equal(tx.vin.length, coins.length, `${name}: every coin spent`);
      assert.equal(tx.vout.length, 1, `${name}: one output`);
      const fee = Math.round(-(await w('gettransaction', [all.txid])).fee * 1e8);
      assert.ok(fee >= 3 * tx.vsize && fee <= 3 * (tx.vsize + tx.vin.length), `${name}: sendall fee ${fee} for ${tx.vsize} vB`);
      assert.equal((await w('listunspent', [0])).filter((c: any) => c.safe).length, 0, `${name}: no safe coin left`);
      assert.ok((await rpcNode.call<string[]>('getrawmempool')).includes(all.txid), `${name}: broadcast`);
      // removeprunedfunds forgets it: gettransaction no longer knows it.
      assert.equal(await w('removeprunedfunds', [all.txid]), null, `${name}: removeprunedfunds`);
      assert.equal((await errorOf(() => w('gettransaction', [all.txid])))?.code, -5, `${name}: removed`);
    }

    const toUs = await core.call<string>('createrawtransaction', [[], [{ [mined]: 1.5 }]]);
    // Refusals: the same code and text on both nodes.
    const refusals: [string, unknown[]][] = [
      ['sendtoaddress', [external.bech32, 100_000]],
      ['sendtoaddress', ['nonsense', 1]],
      ['sendtoaddress', [external.bech32, 0.00000100]],
      ['sendtoaddress', [external.bech32, 1, '', '', false, true, 6, 'unset', null, 5]],
      ['sendtoaddress', [external.bech32, 1, '', '', false, true, null, 'fast']],
      ['sendtoaddress', [external.bech32, 1, '', '', false, true, 2000]],
      ['sendmany', ['x', { [external.bech32]: 1 }]],
      ['sendmany', ['', { [external.bech32]: 1 }, null, '', ['nowhere']]],
      ['sendtoaddress', [external.bech32, 1, '', '', false, true, null, 'unset', null, 0.5]],
      ['fundrawtransaction', ['00', {}]],
      ['fundrawtransaction', ['0200000000010000000000000000160014751e76e8199196d454941c45d1b3a323f1433bd600000000', { fee_rate: 2, feeRate: 0.0001 }]],
      ['fundrawtransaction', ['0200000000010000000000000000160014751e76e8199196d454941c45d1b3a323f1433bd600000000', { changePosition: 5 }]],
      ['fundrawtransaction', ['0200000000010000000000000000160014751e76e8199196d454941c45d1b3a323f1433bd600000000', { nonsense: 1 }]],
      ['fundrawtransaction', ['0200000000010000ca9a3b00000000160014751e76e8199196d454941c45d1b3a323f1433bd600000000', { fee_rate: 1 }]],
      ['walletcreatefundedpsbt', [[], [{ [external.bech32]: 1_000_000 }]]],
      ['bumpfee', ['00'.repeat(32)]],
      ['bumpfee', ['00'.repeat(32), { conf_target: 2, confTarget: 2 }]],
      ['bumpfee', ['00'.repeat(32), { fee_rate: 1, conf_target: 2 }]],
      ['send', [{ [external.bech32]: 0.1 }, null, 'unset', 4, { fee_rate: 4 }]],
      ['send', [{ [external.bech32]: 0.1 }, null, 'unset', null, { feeRate: 0.0001 }]],
      ['send', [{ [external.bech32]: 0.1 }, null, 'unset', null, { changeAddress: external.bech32 }]],
      ['sendall', [[{ [external.bech32]: 0.1 }]]],
      ['sendall', [[external.bech32], null, 'unset', 2, { send_max: true, inputs: [] }]],
      ['removeprunedfunds', ['00'.repeat(32)]],
      ['importprunedfunds', ['00', '00']],
      ['importprunedfunds', [toUs, '00']],
      ['importprunedfunds', [toUs, '00'.repeat(80) + '01000000' + '01' + '00'.repeat(32) + '00']],
      // migratewallet: a loaded wallet is a descriptor wallet already; the endpoint and the name must agree.
      ['migratewallet', []],
      ['migratewallet', ['another']],
    ];
    for (const [method, params] of refusals) {
      const theirs = await errorOf(() => cw(method, params));
      assert.ok(theirs, `bitcoind refuses ${method} ${JSON.stringify(params)}`);
      assert.deepEqual(await errorOf(() => tw(method, params)), theirs, `${method} ${JSON.stringify(params)}`);
      t.diagnostic(`${method}: ${theirs!.code} ${theirs!.message}`);
    }
    // migratewallet on the node's root: no such wallet; the wallet directory itself is no legacy wallet.
    for (const params of [['nowhere'], ['']]) {
      const theirs = await errorOf(() => core.call('migratewallet', params));
      assert.ok(theirs);
      assert.deepEqual(await errorOf(() => walletCaller(node)('migratewallet', params)), theirs, `migratewallet ${JSON.stringify(params)}`);
    }
    // simulaterawtransaction: a payment to the wallet's own address, with no inputs, changes its balance by its amount.
    const spendsMissing = await core.call<string>('createrawtransaction', [[{ txid: '11'.repeat(32), vout: 0 }], [{ [mined]: 1 }]]);
    for (const params of [[[toUs]], [[toUs, toUs]], [['00']], [[spendsMissing]]]) {
      assert.deepEqual(await answerOf(tw, 'simulaterawtransaction', params), await answerOf(cw, 'simulaterawtransaction', params), `simulaterawtransaction ${JSON.stringify(params).slice(0, 80)}`);
    }
    // createwalletdescriptor on a blank wallet given one active wpkh HD key: the same new descriptors and refusals.
    const internalBody = body.replace('/0/*)', '/1/*)');
    const internal84 = `${internalBody}#${(await core.call<any>('getdescriptorinfo', [internalBody])).checksum}`;
    const hdAnswers: unknown[] = [];
    for (const [nodeRpc, caller] of [[core, (m: string, p: unknown[] = []) => core.rpc.call(m, p, 30_000, '/wallet/hd')], [node, walletCaller(node, 'hd')]] as const) {
      await nodeRpc.call('createwallet', ['hd', false, true]);
      const before = await errorOf(() => caller('createwalletdescriptor', ['bech32m']));
      await caller('importdescriptors', [[{ desc, timestamp: 'now', active: true }, { desc: internal84, timestamp: 'now', active: true, internal: true }]]);
      hdAnswers.push({
        before,
        made: await caller('createwalletdescriptor', ['bech32m']),
        again: await errorOf(() => caller('createwalletdescriptor', ['bech32m'])),
        legacy: await caller('createwalletdescriptor', ['legacy', { internal: false }]),
        badKey: await errorOf(() => caller('createwalletdescriptor', ['bech32', { hdkey: 'nonsense' }])),
        listed: (await caller('listdescriptors')).descriptors.map((d: any) => ({ ...d, timestamp: undefined })),
        next: await caller('getnewaddress', ['', 'bech32m']),
      });
    }
    assert.equal(JSON.stringify(hdAnswers[1]), JSON.stringify(hdAnswers[0]));

    // setwalletflag and abortrescan: the same answers and refusals.
    for (const [method, params] of [
      ['setwalletflag', ['avoid_reuse']],
      ['setwalletflag', ['avoid_reuse']],
      ['setwalletflag', ['blank', false]],
      ['setwalletflag', ['nonsense']],
      ['setwalletflag', ['avoid_reuse', false]],
      ['abortrescan', []],
    ] as const) {
      assert.deepEqual(await answerOf(tw, method, [...params]), await answerOf(cw, method, [...params]), `${method} ${JSON.stringify(params)}`);
    }
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});

test('-walletnotify runs the command for each wallet transaction with %s %b %h and %w as bitcoind does', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const out = join(tempDir(), 'notified');
  const notify = (file: string) => `-walletnotify=echo %s %b %h %w >> ${file}`;
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', notify(`${out}.core`)]);
  const node = await Daemon.start({ args: ['-connect=0', notify(`${out}.ours`)] });
  try {
    const name = "it's a wallet";
    await core.call('createwallet', [name]);
    await core.call('unloadwallet', [name]);
    cpSync(join(core.datadir, 'regtest', 'wallets', name), join(node.netdir, 'wallets', name), { recursive: true });
    await core.call('loadwallet', [name]);
    await node.call('loadwallet', [name]);
    const address = await core.rpc.call('getnewaddress', [], 30_000, `/wallet/${encodeURIComponent(name)}`);
    await core.call('generatetoaddress', [3, address]);
    await copyChain(core, node);
    const lines = async (file: string) => {
      await waitFor(`${file}: three notifications`, () => (existsSync(file) && readFileSync(file, 'utf8').trim().split('\n').length >= 3 ? true : undefined));
      return readFileSync(file, 'utf8').trim().split('\n').sort();
    };
    const theirs = await lines(`${out}.core`);
    assert.deepEqual(await lines(`${out}.ours`), theirs);
    assert.match(theirs[0]!, new RegExp(`^[0-9a-f]{64} [0-9a-f]{64} [123] ${name}$`));
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});
