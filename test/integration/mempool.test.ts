/**
 * The mempool against a real regtest tsbtcd (-rest), over real HTTP: acceptance and
 * Core's rejections (codes and texts) through sendrawtransaction and testmempoolaccept,
 * a parent/child chain with a third transaction, REST mempool/info.json and
 * mempool/contents.json deep-equal to getmempoolinfo / getrawmempool on that non-empty
 * pool, gettxout / getrawtransaction / REST tx and getutxos seeing pool transactions,
 * full-RBF replacement, getblocktemplate and generatetoaddress confirming the pool, a
 * reorg (invalidateblock) putting the transactions back, and restarts (clean and SIGKILL)
 * reloading the pool from its table, or not with -persistmempool=0.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fromHex, hashToHex, hexToHash, parseBlock, toHex, Transaction } from '../../src/primitives/index.js';
import { restRequest } from '../support/rest-client.js';
import { TestWallet, type WalletCoin } from '../support/wallet.js';
import { Daemon } from './daemon-harness.js';

let d: Daemon;
const ARGS = ['-rest', '-rpcfrontends=1', '-par=1'];
/** Two views of the same keys: the second builds conflicting spends of coins the first spent. */
const wallet = new TestWallet(41);
const twin = new TestWallet(41);
const FEE = 10_000n;

async function mine(n: number): Promise<string[]> {
  const hashes = await d.call<string[]>('generatetoaddress', [n, wallet.address('p2wpkh')]);
  for (const hash of hashes) {
    const block = parseBlock(fromHex(await d.call<string>('getblock', [hash, 0])));
    const height = (await d.call<{ height: number }>('getblockheader', [hash])).height;
    wallet.processBlock(block, height);
    twin.processBlock(block, height);
  }
  return hashes;
}

async function height(): Promise<number> {
  return d.call<number>('getblockcount');
}

async function matureCoin(w: TestWallet = wallet): Promise<WalletCoin> {
  const coin = w.spendable((await height()) + 1).find((c) => c.coinbase);
  assert.ok(coin, 'a mature coinbase');
  return coin;
}

const hex = (tx: Transaction) => toHex(tx.toBytes());

async function rpcError(method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const r = await d.rpc(method, params);
  assert.ok(r.json.error, `${method} should fail, got ${JSON.stringify(r.json.result)}`);
  return r.json.error;
}

async function restJson(target: string): Promise<unknown> {
  const r = await restRequest(d.port, target);
  assert.equal(r.status, 200, `${target}: ${r.text}`);
  return JSON.parse(r.text);
}

/** REST and RPC agree on the pool, verbose, non-verbose and with the sequence. */
async function assertRestEqualsRpc(): Promise<void> {
  assert.deepEqual(await restJson('/rest/mempool/info.json'), await d.call('getmempoolinfo'));
  assert.deepEqual(await restJson('/rest/mempool/contents.json'), await d.call('getrawmempool', [true]));
  assert.deepEqual(await restJson('/rest/mempool/contents.json?verbose=true'), await d.call('getrawmempool', [true]));
  assert.deepEqual(await restJson('/rest/mempool/contents.json?verbose=false'), await d.call('getrawmempool', [false]));
  assert.deepEqual(await restJson('/rest/mempool/contents.json?verbose=false&mempool_sequence=true'), await d.call('getrawmempool', [false, true]));
}

let parent: Transaction;
let child: Transaction;
let single: Transaction;
let replaced: Transaction;

before(async () => {
  d = await Daemon.start({ args: ARGS });
  await mine(110);
});

after(async () => {
  await d?.cleanup();
});

test('a parent, its child and an unrelated transaction enter the pool', async () => {
  const coin = await matureCoin();
  parent = wallet.spend([coin], [{ value: coin.value - FEE, to: 'p2wpkh' }]);
  assert.equal(await d.call('sendrawtransaction', [hex(parent)]), parent.txidHex);
  const out = wallet.spendable((await height()) + 1).find((c) => hashToHex(c.outpoint.txid) === parent.txidHex)!;
  // The child pays more per vbyte than its parent: they form one chunk.
  child = wallet.spend([out], [{ value: out.value - 3n * FEE, to: 'p2tr-key' }]);
  assert.equal(await d.call('sendrawtransaction', [hex(child)]), child.txidHex);
  const other = await matureCoin();
  single = wallet.spend([other], [{ value: other.value - FEE, to: 'p2tr-key' }]);
  const accepted = await d.call<any[]>('testmempoolaccept', [[hex(single)]]);
  assert.deepEqual(accepted, [
    {
      txid: single.txidHex,
      wtxid: single.wtxidHex,
      allowed: true,
      vsize: single.vsize,
      fees: { base: 0.0001, 'effective-feerate': Number(((FEE * 1000n) / BigInt(single.vsize)).toString()) / 1e8, 'effective-includes': [single.wtxidHex] },
    },
  ]);
  assert.equal(await d.call('sendrawtransaction', [hex(single)]), single.txidHex);
  // Sending it again answers its txid (Core re-announces the pool's copy).
  assert.equal(await d.call('sendrawtransaction', [hex(single)]), single.txidHex);

  const txids = (await d.call<string[]>('getrawmempool')).sort();
  assert.deepEqual(txids, [parent.txidHex, child.txidHex, single.txidHex].sort());
  const tip = await height();
  const entry = await d.call<any>('getmempoolentry', [child.txidHex]);
  assert.deepEqual(Object.keys(entry), ['vsize', 'weight', 'time', 'height', 'descendantcount', 'descendantsize', 'ancestorcount', 'ancestorsize', 'wtxid', 'chunkweight', 'fees', 'depends', 'spentby', 'bip125-replaceable', 'unbroadcast']);
  assert.equal(entry.vsize, child.vsize);
  assert.equal(entry.weight, child.weight);
  assert.equal(entry.height, tip);
  assert.equal(entry.ancestorcount, 2);
  assert.equal(entry.ancestorsize, parent.vsize + child.vsize);
  assert.equal(entry.descendantcount, 1);
  assert.equal(entry.chunkweight, parent.weight + child.weight);
  assert.deepEqual(entry.fees, { base: 0.0003, modified: 0.0003, ancestor: 0.0004, descendant: 0.0003, chunk: 0.0004 });
  assert.deepEqual(entry.depends, [parent.txidHex]);
  assert.deepEqual(entry.spentby, []);
  assert.equal(entry['bip125-replaceable'], true);
  assert.equal(entry.unbroadcast, true);
  const parentEntry = await d.call<any>('getmempoolentry', [parent.txidHex]);
  assert.deepEqual(parentEntry.spentby, [child.txidHex]);
  assert.equal(parentEntry.descendantcount, 2);
  assert.deepEqual(await d.call('getmempoolancestors', [child.txidHex]), [parent.txidHex]);
  assert.deepEqual(await d.call('getmempooldescendants', [parent.txidHex]), [child.txidHex]);
  assert.deepEqual(Object.keys(await d.call('getmempooldescendants', [parent.txidHex, true])), [child.txidHex]);
  assert.deepEqual(await d.call('getmempoolancestors', [single.txidHex]), []);

  const info = await d.call<any>('getmempoolinfo');
  assert.equal(info.size, 3);
  assert.equal(info.bytes, parent.vsize + child.vsize + single.vsize);
  assert.equal(info.total_fee, 0.0005);
  assert.equal(info.unbroadcastcount, 3);
  assert.equal(info.loaded, true);
  const sequenced = await d.call<any>('getrawmempool', [false, true]);
  assert.equal(sequenced.mempool_sequence, 4, 'three additions after the fresh pool’s 1');
  await assertRestEqualsRpc();
});

test('pool transactions are visible to gettxout, getrawtransaction, REST tx and getutxos', async () => {
  // The parent's output is spent by the child: gone with include_mempool (and never in the UTXO set).
  assert.equal(await d.call('gettxout', [parent.txidHex, 0]), null);
  const out = await d.call<any>('gettxout', [child.txidHex, 0]);
  assert.equal(out.confirmations, 0);
  assert.equal(out.value, Number(child.outputs[0]!.value) / 1e8);
  assert.equal(out.coinbase, false);
  assert.equal(await d.call('gettxout', [child.txidHex, 0, false]), null);
  assert.equal(await d.call('getrawtransaction', [child.txidHex]), hex(child));
  const verbose = await d.call<any>('getrawtransaction', [child.txidHex, 1]);
  assert.equal(verbose.txid, child.txidHex);
  assert.equal(verbose.confirmations, undefined);
  const rest = await restRequest(d.port, `/rest/tx/${child.txidHex}.hex`);
  assert.equal(rest.text, `${hex(child)}\n`);
  const utxos = (await restJson(`/rest/getutxos/checkmempool/${child.txidHex}-0/${parent.txidHex}-0.json`)) as any;
  assert.equal(utxos.bitmap, '10');
  assert.equal(utxos.utxos[0].height, 2147483647);
});

test('rejections carry Core’s codes and messages', async () => {
  const tip = await height();
  // Missing inputs: -25 from sendrawtransaction, "missing-inputs" from testmempoolaccept.
  const orphan = new Transaction({ version: 2, locktime: 0, inputs: [{ prevout: { txid: hexToHash('11'.repeat(32)), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }], outputs: [{ value: 50_000n, scriptPubKey: wallet.scriptPubKey('p2wpkh') }] });
  assert.deepEqual(await rpcError('sendrawtransaction', [hex(orphan)]), { code: -25, message: 'bad-txns-inputs-missingorspent' });
  assert.deepEqual(await d.call('testmempoolaccept', [[hex(orphan)]]), [{ txid: orphan.txidHex, wtxid: orphan.wtxidHex, allowed: false, 'reject-reason': 'missing-inputs' }]);
  // Already in the pool.
  const again = await d.call<any[]>('testmempoolaccept', [[hex(parent)]]);
  assert.equal(again[0]['reject-reason'], 'txn-already-in-mempool');
  // No fee: below the 100 sat/kvB floor.
  const free = await matureCoin();
  const zeroFee = twin.spend([twin.spendable(tip + 1).find((c) => hashToHex(c.outpoint.txid) === hashToHex(free.outpoint.txid))!], [{ value: free.value, to: 'p2wpkh' }]);
  const minFee = Math.ceil((100 * zeroFee.vsize) / 1000);
  assert.deepEqual(await rpcError('sendrawtransaction', [hex(zeroFee)]), { code: -26, message: `min relay fee not met, 0 < ${minFee}` });
  // A fee above maxfeerate (0.10 BTC/kvB by default).
  const greedy = twin.spend([twin.spendable(tip + 1).find((c) => c.coinbase && hashToHex(c.outpoint.txid) !== hashToHex(free.outpoint.txid))!], [{ value: 100_000n, to: 'p2wpkh' }]);
  assert.deepEqual(await rpcError('sendrawtransaction', [hex(greedy)]), { code: -25, message: 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)' });
  const tested = await d.call<any[]>('testmempoolaccept', [[hex(greedy)]]);
  assert.deepEqual(tested[0], { txid: greedy.txidHex, wtxid: greedy.wtxidHex, allowed: false, 'reject-reason': 'max-fee-exceeded' });
  // One dust output in a transaction paying a fee.
  const dustCoin = wallet.spendable(tip + 1).find((c) => c.coinbase && hashToHex(c.outpoint.txid) !== hashToHex(free.outpoint.txid) && c.outpoint.txid !== greedy.inputs[0]!.prevout.txid)!;
  const dusty = wallet.spend([dustCoin], [{ value: 100n, to: 'p2wpkh' }, { value: dustCoin.value - 100n - FEE, to: 'p2wpkh' }]);
  assert.deepEqual(await rpcError('sendrawtransaction', [hex(dusty)]), { code: -26, message: 'dust, tx with dust output must be 0-fee' });
  // A broken signature.
  const witness = dusty.inputs[0]!.witness.map((item) => item.slice());
  witness[0]![10]! ^= 1;
  const forged = new Transaction({ ...dusty, inputs: [{ ...dusty.inputs[0]!, witness }], outputs: [{ value: dustCoin.value - FEE, scriptPubKey: wallet.scriptPubKey('p2wpkh') }] });
  const bad = await rpcError('sendrawtransaction', [hex(forged)]);
  assert.equal(bad.code, -26);
  assert.match(bad.message, /^mempool-script-verify-flag-failed \(.+\), input 0 of [0-9a-f]{64} \(wtxid [0-9a-f]{64}\), spending [0-9a-f]{64}:0$/);
  // Spending an immature coinbase.
  const young = wallet.spendable(tip + 200).find((c) => c.coinbase && c.height === tip)!;
  const immature = new Transaction({ version: 2, locktime: 0, inputs: [{ prevout: young.outpoint, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }], outputs: [{ value: young.value - FEE, scriptPubKey: wallet.scriptPubKey('p2wpkh') }] });
  const premature = await rpcError('sendrawtransaction', [hex(immature)]);
  assert.deepEqual(premature, { code: -26, message: `bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth ${tip + 1 - young.height!}` });
  // Undecodable, and a burn above maxburnamount.
  assert.deepEqual(await rpcError('sendrawtransaction', ['00']), { code: -22, message: 'TX decode failed. Make sure the tx has at least one input.' });
  assert.deepEqual(await rpcError('getmempoolentry', [orphan.txidHex]), { code: -5, message: 'Transaction not in mempool' });
  assert.deepEqual(await rpcError('getrawmempool', [true, true]), { code: -8, message: 'Verbose results cannot contain mempool sequence values.' });
});

test('a conflicting transaction replaces what it pays more than (full RBF), else is refused', async () => {
  const spent = single.inputs[0]!.prevout;
  const coin = twin.spendable((await height()) + 1).find((c) => hashToHex(c.outpoint.txid) === hashToHex(spent.txid) && c.outpoint.vout === spent.vout)!;
  // The twin still holds the coin the pool's transaction spends: it builds a better-paying conflict.
  replaced = single;
  const better = twin.spend([coin], [{ value: coin.value - 3n * FEE, to: 'p2wpkh' }]);
  assert.equal(await d.call('sendrawtransaction', [hex(better)]), better.txidHex);
  const pool = await d.call<string[]>('getrawmempool');
  assert.ok(pool.includes(better.txidHex));
  assert.ok(!pool.includes(replaced.txidHex), 'the replaced transaction left the pool');
  const refused = await rpcError('sendrawtransaction', [hex(replaced)]);
  assert.equal(refused.code, -26);
  assert.equal(refused.message, `insufficient fee, rejecting replacement ${replaced.txidHex}, less fees than conflicting txs; 0.0001 < 0.0003`);
  single = better;
  await assertRestEqualsRpc();
});

test('getblocktemplate and generatetoaddress take the pool; a reorg puts it back', async () => {
  const template = await d.call<any>('getblocktemplate', [{ rules: ['segwit'] }]);
  const templated = template.transactions.map((t: any) => t.txid);
  assert.deepEqual([...templated].sort(), [parent.txidHex, child.txidHex, single.txidHex].sort());
  assert.ok(templated.indexOf(parent.txidHex) < templated.indexOf(child.txidHex), 'parent before child');
  const childEntry = template.transactions.find((t: any) => t.txid === child.txidHex);
  assert.deepEqual(childEntry.depends, [templated.indexOf(parent.txidHex) + 1]);
  assert.equal(childEntry.fee, 30_000);

  const before = await d.call<string[]>('getrawmempool');
  const [hash] = await mine(1);
  const block = await d.call<any>('getblock', [hash, 1]);
  for (const txid of before) assert.ok(block.tx.includes(txid), `${txid} confirmed`);
  assert.ok(block.tx.indexOf(parent.txidHex) < block.tx.indexOf(child.txidHex));
  assert.deepEqual(await d.call('getrawmempool'), []);
  assert.equal((await d.call<any>('getmempoolinfo')).size, 0);
  assert.equal((await d.call<any>('gettxout', [child.txidHex, 0])).confirmations, 1);
  assert.deepEqual(await rpcError('sendrawtransaction', [hex(child)]), { code: -27, message: 'Transaction outputs already in utxo set' });
  await assertRestEqualsRpc();

  // Disconnecting the block offers its transactions back (MaybeUpdateMempoolForReorg).
  await d.call('invalidateblock', [hash]);
  assert.deepEqual((await d.call<string[]>('getrawmempool')).sort(), [...before].sort());
  const back = await d.call<any>('getmempoolentry', [child.txidHex]);
  assert.deepEqual(back.depends, [parent.txidHex]);
  assert.equal(back.unbroadcast, false, 're-added transactions were not submitted locally');
  await assertRestEqualsRpc();
  await d.call('reconsiderblock', [hash]);
  assert.deepEqual(await d.call('getrawmempool'), []);
  await d.call('invalidateblock', [hash]);
  assert.equal((await d.call<string[]>('getrawmempool')).length, 3);
});

test('the pool survives a clean restart and a crash, and -persistmempool=0 starts empty', async () => {
  const verbose = await d.call<Record<string, any>>('getrawmempool', [true]);
  assert.equal(Object.keys(verbose).length, 3);
  await d.stop();
  d = await d.restart({ args: ARGS });
  assert.deepEqual(Object.keys(await d.call('getrawmempool', [true])).sort(), Object.keys(verbose).sort());
  const reloaded = await d.call<Record<string, any>>('getrawmempool', [true]);
  for (const [txid, entry] of Object.entries(verbose)) {
    assert.equal(reloaded[txid].time, entry.time);
    assert.equal(reloaded[txid].wtxid, entry.wtxid);
    assert.deepEqual(reloaded[txid].depends, entry.depends);
  }
  await assertRestEqualsRpc();
  // A transaction acknowledged just before SIGKILL is in the pool after the restart.
  const coin = await matureCoin();
  const last = wallet.spend([coin], [{ value: coin.value - FEE, to: 'p2wpkh' }]);
  await d.call('sendrawtransaction', [hex(last)]);
  await d.kill();
  d = await d.restart({ args: ARGS });
  assert.ok((await d.call<string[]>('getrawmempool')).includes(last.txidHex));
  assert.equal((await d.call<any>('getmempoolentry', [last.txidHex])).unbroadcast, true);
  await d.stop();
  d = await d.restart({ args: [...ARGS, '-persistmempool=0'] });
  assert.deepEqual(await d.call('getrawmempool'), []);
  assert.deepEqual(await restJson('/rest/mempool/contents.json'), {});
});
