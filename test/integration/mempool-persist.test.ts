/**
 * prioritisetransaction / getprioritisedtransactions and mempool.dat (savemempool,
 * importmempool, -persistmempool, -persistmempoolv1), on tsbtcd and on the reference
 * bitcoind v31.0 with the same steps, and across the two: a file either one writes loads
 * into the other with the same pool, modified fees, prioritisations and unbroadcast set.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { ByteReader, fromHex, hexToHash, parseBlock, readTransaction, toHex, type Transaction } from '../../src/primitives/index.js';
import { TestWallet, type WalletCoin } from '../support/wallet.js';
import { cleanupsAfterTests } from './node-under-test.js';
import { bitcoindNode, tsbtcdNode, type RestartableNode } from './mempool-persist-nodes.js';

const reference = referenceBitcoind();
const cleanups = cleanupsAfterTests();
const STARTERS: [string, ((args?: string[]) => Promise<RestartableNode>) | undefined][] = [
  ['tsbtcd', (args) => tsbtcdNode(args)],
  ['bitcoind', 'path' in reference ? (args) => bitcoindNode(reference.path, args) : undefined],
];
const skipWithoutBitcoind = 'path' in reference ? false : reference.missing;
const SAT = 100_000_000;
const NOT_POOLED_A = '01' + '00'.repeat(31);
const NOT_POOLED_B = '00'.repeat(31) + '01';

async function start(starter: () => Promise<RestartableNode>): Promise<RestartableNode> {
  const node = await starter();
  cleanups.push(() => node.close());
  return node;
}

/** Mines `n` blocks to the wallet on `node` and tells the wallet (and `followers`, by submitblock) of them. */
async function mine(node: RestartableNode, wallet: TestWallet, n: number, followers: RestartableNode[] = []): Promise<void> {
  const hashes = await node.call<string[]>('generatetoaddress', [n, wallet.address('p2wpkh')]);
  for (const hash of hashes) {
    const hex = await node.call<string>('getblock', [hash, 0]);
    wallet.processBlock(parseBlock(fromHex(hex)), (await node.call<{ height: number }>('getblockheader', [hash])).height);
    for (const f of followers) assert.equal(await f.call('submitblock', [hex]), null);
  }
}

/** A spend of `coin` to the wallet paying `fee`. */
function spend(wallet: TestWallet, coin: WalletCoin, fee: bigint): Transaction {
  return wallet.spend([coin], [{ value: coin.value - fee, to: 'p2wpkh' }]);
}

async function send(node: RestartableNode, tx: Transaction): Promise<string> {
  return node.call<string>('sendrawtransaction', [toHex(tx.toBytes())]);
}

/** What the pool holds, as the RPCs show it: txids, each entry's fees, time and unbroadcast mark, the prioritisations. */
async function poolState(node: RestartableNode, withTimes = true) {
  const txids = (await node.call<string[]>('getrawmempool')).sort();
  const entries: Record<string, unknown> = {};
  for (const txid of txids) {
    const e = await node.call<{ fees: { base: number; modified: number }; time: number; unbroadcast: boolean }>('getmempoolentry', [txid]);
    entries[txid] = { base: e.fees.base, modified: e.fees.modified, unbroadcast: e.unbroadcast, ...(withTimes ? { time: e.time } : {}) };
  }
  const info = await node.call<{ unbroadcastcount: number; loaded: boolean }>('getmempoolinfo');
  return { txids, entries, prioritised: await node.call<Record<string, unknown>>('getprioritisedtransactions'), unbroadcast: info.unbroadcastcount, loaded: info.loaded };
}

async function templateTxids(node: RestartableNode): Promise<string[]> {
  const gbt = await node.call<{ transactions: { txid: string }[] }>('getblocktemplate', [{ rules: ['segwit'] }]);
  return gbt.transactions.map((t) => t.txid);
}

for (const [name, starter] of STARTERS) {
  test(`${name}: prioritisetransaction before and after entry, negative deltas, a sum of zero, mining order, cleared when mined; Core's argument errors`, { skip: starter ? false : skipWithoutBitcoind, timeout: 120_000 }, async () => {
    const node = await start(() => starter!());
    const wallet = new TestWallet(31);
    await mine(node, wallet, 103);
    const [c1, c2, c3] = wallet.spendable(104).filter((c) => c.coinbase);
    const a = spend(wallet, c1!, 10_000n);
    const b = spend(wallet, c2!, 20_000n);
    const c = spend(wallet, c3!, 15_000n);

    const zero = '00'.repeat(32);
    assert.deepEqual(await node.failure('prioritisetransaction', [zero, 1, 5]), { code: -8, message: 'Priority is no longer supported, dummy argument to prioritisetransaction must be 0.' });
    assert.deepEqual(await node.failure('prioritisetransaction', [zero, 1, 1.5]), { code: -1, message: 'JSON integer out of range' });
    assert.deepEqual(await node.failure('prioritisetransaction', ['zz', 0, 5]), { code: -8, message: "txid must be of length 64 (not 2, for 'zz')" });
    assert.deepEqual(await node.failure('prioritisetransaction', [zero, '0', 5]), {
      code: -3,
      message: 'Wrong type passed:\n{\n    "Position 2 (dummy)": "JSON value of type string is not of expected type number"\n}',
    });
    assert.deepEqual(await node.call('getprioritisedtransactions'), {});

    // Before entry: kept by txid, applied when the transaction arrives.
    assert.equal(await node.call('prioritisetransaction', [a.txidHex, null, 50_000]), true);
    assert.deepEqual(await node.call('getprioritisedtransactions'), { [a.txidHex]: { fee_delta: 50_000, in_mempool: false } });
    for (const tx of [a, b, c]) await send(node, tx);
    assert.deepEqual(await node.call('getprioritisedtransactions'), { [a.txidHex]: { fee_delta: 50_000, in_mempool: true, modified_fee: 60_000 } });
    const entryA = await node.call('getmempoolentry', [a.txidHex]);
    assert.deepEqual([entryA.fees.base, entryA.fees.modified], [10_000 / SAT, 60_000 / SAT]);

    // A negative delta down to a zero modified fee: below -blockmintxfee, out of the template.
    assert.equal(await node.call('prioritisetransaction', [b.txidHex, 0, -20_000]), true);
    assert.equal((await node.call('getmempoolentry', [b.txidHex])).fees.modified, 0);
    assert.deepEqual(await templateTxids(node), [a.txidHex, c.txidHex]);
    // Raised above the others: first in the template (once Core's 5-second template cache has expired).
    assert.equal(await node.call('prioritisetransaction', [b.txidHex, 0, 100_000]), true);
    await node.call('setmocktime', [Math.floor(Date.now() / 1000) + 10]);
    assert.deepEqual(await templateTxids(node), [b.txidHex, a.txidHex, c.txidHex]);

    // Summing to zero forgets the prioritisation; the modified fee is the base fee again.
    assert.equal(await node.call('prioritisetransaction', [a.txidHex, 0, -50_000]), true);
    assert.equal((await node.call('getmempoolentry', [a.txidHex])).fees.modified, 10_000 / SAT);
    // Not pooled: listed in Core's order (std::map of txids: internal byte order).
    await node.call('prioritisetransaction', [NOT_POOLED_B, 0, 7]);
    await node.call('prioritisetransaction', [NOT_POOLED_A, 0, -3]);
    const listed = await node.call<Record<string, unknown>>('getprioritisedtransactions');
    assert.deepEqual(Object.keys(listed), [NOT_POOLED_A, NOT_POOLED_B, b.txidHex].sort((x, y) => Buffer.compare(hexToHash(x), hexToHash(y))));
    assert.deepEqual(listed[b.txidHex], { fee_delta: 80_000, in_mempool: true, modified_fee: 100_000 });
    assert.deepEqual(listed[NOT_POOLED_A], { fee_delta: -3, in_mempool: false });

    // A block confirming b clears its prioritisation; the others stay.
    await mine(node, wallet, 1);
    assert.deepEqual(await node.call('getrawmempool'), []);
    assert.deepEqual(await node.call('getprioritisedtransactions'), { [NOT_POOLED_A]: { fee_delta: -3, in_mempool: false }, [NOT_POOLED_B]: { fee_delta: 7, in_mempool: false } });
  });

  test(`${name}: a pooled transaction with a dust output cannot be prioritised (one not pooled can)`, { skip: starter ? false : skipWithoutBitcoind, timeout: 120_000 }, async () => {
    // With no relay floor a zero-fee transaction may carry dust (Core's ephemeral dust).
    const node = await start(() => starter!(['-minrelaytxfee=0']));
    const wallet = new TestWallet(34);
    await mine(node, wallet, 101);
    const coin = wallet.spendable(102).find((c) => c.coinbase)!;
    const dusty = wallet.spend([coin], [
      { value: coin.value - 100n, to: 'p2wpkh' },
      { value: 100n, to: 'p2wpkh' },
    ]);
    assert.equal(await node.call('prioritisetransaction', [dusty.txidHex, 0, 1_000]), true);
    assert.equal(await node.call('prioritisetransaction', [dusty.txidHex, 0, -1_000]), true);
    await send(node, dusty);
    assert.deepEqual(await node.failure('prioritisetransaction', [dusty.txidHex, 0, 1_000]), { code: -8, message: 'Priority is not supported for transactions with dust outputs.' });
    assert.deepEqual(await node.call('getprioritisedtransactions'), {});
  });

  test(`${name}: prioritisations and the pool survive a clean restart${name === 'tsbtcd' ? ' and a kill -9' : ''}; savemempool and its file`, { skip: starter ? false : skipWithoutBitcoind, timeout: 180_000 }, async () => {
    const node = await start(() => starter!());
    const wallet = new TestWallet(32);
    await mine(node, wallet, 104);
    const coins = wallet.spendable(105).filter((c) => c.coinbase);
    const parent = spend(wallet, coins[0]!, 5_000n);
    await send(node, parent);
    const child = spend(wallet, wallet.spendable(105).find((c) => toHex(c.outpoint.txid) === toHex(parent.txid))!, 3_000n);
    await send(node, child);
    await send(node, spend(wallet, coins[1]!, 7_000n));
    await node.call('prioritisetransaction', [parent.txidHex, 0, 30_000]);
    await node.call('prioritisetransaction', [child.txidHex, 0, -1_000]);
    await node.call('prioritisetransaction', [NOT_POOLED_A, 0, 777]);
    const before = await poolState(node);
    assert.equal(before.txids.length, 3);
    assert.equal(Object.keys(before.prioritised).length, 3);

    const saved = await node.call<{ filename: string }>('savemempool');
    assert.equal(saved.filename, join(node.netdir, 'mempool.dat'));
    assert.equal(readFileSync(saved.filename)[0], 2, 'version 2 by default');

    await node.restart();
    assert.deepEqual(await poolState(node), before);
    if (node.name === 'tsbtcd') {
      // Changes after the last dump live in the tables: a crash loses none, and the node's own dump is not applied twice.
      await node.call('prioritisetransaction', [child.txidHex, 0, 250]);
      await node.call('prioritisetransaction', [NOT_POOLED_B, 0, 11]);
      const later = await poolState(node);
      await node.crashRestart();
      assert.deepEqual(await poolState(node), later);
      await node.restart();
      assert.deepEqual(await poolState(node), later);
      // -persistmempool=0: nothing loaded (and nothing written at its stop).
      await node.restart(['-persistmempool=0']);
      assert.deepEqual(await node.call('getrawmempool'), []);
      assert.deepEqual(await node.call('getprioritisedtransactions'), {});
    }
  });
}

test('mempool.dat moves between bitcoind and tsbtcd both ways (versions 1 and 2, every import option), and a truncated file loses nothing', { skip: skipWithoutBitcoind, timeout: 600_000 }, async () => {
  const core = await start(() => bitcoindNode((reference as { path: string }).path));
  const ts = await start(() => tsbtcdNode());
  for (const method of ['prioritisetransaction', 'getprioritisedtransactions', 'savemempool', 'importmempool']) {
    assert.equal(await ts.call('help', [method]), await core.call('help', [method]), `help ${method}`);
  }
  // In initial block download (a fresh regtest chain) importmempool refuses, whatever the file.
  for (const node of [core, ts]) {
    assert.deepEqual(await node.failure('importmempool', ['/nonexistent.dat']), { code: -10, message: 'Can only import the mempool after the block download and sync is done.' });
  }
  const wallet = new TestWallet(33);
  await mine(core, wallet, 110, [ts]);
  for (const node of [core, ts]) {
    assert.deepEqual(await node.failure('importmempool', ['/nonexistent.dat', { use_current_time: 1 }]), { code: -3, message: 'JSON value of type number is not of expected type bool' });
  }
  const coins = wallet.spendable(111).filter((c) => c.coinbase);

  // A pool on bitcoind: a parent with a child and a grandchild, independent ones, prioritisations in and out of it.
  const parent = spend(wallet, coins[0]!, 4_000n);
  const childCoin = () => wallet.spendable(111).filter((c) => c.height === null).at(-1)!;
  const txs = [parent];
  txs.push(spend(wallet, childCoin(), 3_000n));
  txs.push(spend(wallet, childCoin(), 9_000n));
  for (let i = 1; i <= 4; i++) txs.push(spend(wallet, coins[i]!, BigInt(2_000 + 1_500 * i)));
  const late = spend(wallet, coins[5]!, 6_000n);
  await core.call('prioritisetransaction', [late.txidHex, 0, 12_345]);
  for (const tx of [...txs, late]) await send(core, tx);
  await core.call('prioritisetransaction', [txs[1]!.txidHex, 0, 40_000]);
  await core.call('prioritisetransaction', [txs[3]!.txidHex, 0, -2_000]);
  await core.call('prioritisetransaction', [NOT_POOLED_A, 0, 4_242]);
  await core.call('prioritisetransaction', [NOT_POOLED_B, 0, -17]);
  const coreState = await poolState(core);
  assert.equal(coreState.txids.length, 8);
  assert.equal(coreState.unbroadcast, 8);

  const files = join(ts.netdir, '..');
  const coreV2 = join(files, 'core-v2.dat');
  copyFileSync((await core.call<{ filename: string }>('savemempool')).filename, coreV2);
  // bitcoind reloads its own file at start: the same pool, prioritisations and unbroadcast set.
  await core.restart(['-persistmempoolv1']);
  assert.deepEqual(await poolState(core), coreState);
  const coreV1 = join(files, 'core-v1.dat');
  copyFileSync((await core.call<{ filename: string }>('savemempool')).filename, coreV1);
  assert.deepEqual([readFileSync(coreV2)[0], readFileSync(coreV1)[0]], [2, 1]);

  const withoutDeltas = (state: typeof coreState) =>
    Object.fromEntries(Object.entries(state.entries).map(([txid, e]) => [txid, { ...(e as object), modified: (e as { base: number }).base }]));
  const cases: [string, string, Record<string, boolean> | undefined][] = [
    ['v2, default options', coreV2, undefined],
    ['v2, deltas only', coreV2, { apply_fee_delta_priority: true }],
    ['v2, unbroadcast set only', coreV2, { apply_unbroadcast_set: true }],
    ['v2, everything with file times', coreV2, { use_current_time: false, apply_fee_delta_priority: true, apply_unbroadcast_set: true }],
    ['v1, everything with file times', coreV1, { use_current_time: false, apply_fee_delta_priority: true, apply_unbroadcast_set: true }],
  ];
  for (const [label, file, options] of cases) {
    await ts.restart(['-persistmempool=0']);
    assert.deepEqual(await ts.call('getrawmempool'), [], label);
    assert.deepEqual(await ts.call('importmempool', options ? [file, options] : [file]), {}, label);
    const fileTimes = options?.['use_current_time'] === false;
    const got = await poolState(ts, fileTimes);
    const want = await poolState(core, fileTimes);
    assert.deepEqual(got.txids, want.txids, label);
    const deltas = options?.['apply_fee_delta_priority'] === true;
    const unbroadcast = options?.['apply_unbroadcast_set'] === true;
    const wantEntries = deltas ? want.entries : withoutDeltas(want);
    for (const [txid, e] of Object.entries(wantEntries)) assert.deepEqual(got.entries[txid], { ...(e as object), unbroadcast }, `${label}: ${txid}`);
    assert.deepEqual(got.prioritised, deltas ? want.prioritised : {}, label);
    assert.equal(got.unbroadcast, unbroadcast ? want.unbroadcast : 0, label);
    assert.match(ts.log(), /Imported mempool transactions from file: 8 succeeded, 0 failed, 0 expired, 0 already there, (8|0) waiting for initial broadcast/);
  }
  // A second import of the same file: everything already there, deltas added again (as Core).
  await ts.call('importmempool', [coreV1, { apply_fee_delta_priority: true }]);
  assert.match(ts.log(), /Imported mempool transactions from file: 0 succeeded, 0 failed, 0 expired, 8 already there, 0 waiting for initial broadcast/);
  assert.equal((await ts.call('getprioritisedtransactions'))[NOT_POOLED_A].fee_delta, 2 * 4_242);
  for (const [txid, { fee_delta }] of Object.entries(coreState.prioritised as Record<string, { fee_delta: number }>)) await ts.call('prioritisetransaction', [txid, 0, -fee_delta]);
  assert.deepEqual(await poolState(ts), await poolState(core));

  // tsbtcd's files into bitcoind: the same state there.
  await ts.call('prioritisetransaction', [txs[5]!.txidHex, 0, 900]);
  await ts.call('prioritisetransaction', ['00'.repeat(30) + 'beef', 0, 5]);
  const tsState = await poolState(ts);
  const tsV2 = join(files, 'ts-v2.dat');
  const savedTs = await ts.call<{ filename: string }>('savemempool');
  assert.equal(savedTs.filename, join(ts.netdir, 'mempool.dat'));
  copyFileSync(savedTs.filename, tsV2);
  // The pool survives a restart with -persistmempool (tables, then its own file not applied again).
  await ts.restart(['-persistmempoolv1']);
  assert.deepEqual(await poolState(ts), tsState);
  const tsV1 = join(files, 'ts-v1.dat');
  copyFileSync((await ts.call<{ filename: string }>('savemempool')).filename, tsV1);
  assert.deepEqual([readFileSync(tsV2)[0], readFileSync(tsV1)[0]], [2, 1]);
  for (const file of [tsV2, tsV1]) {
    await core.restart(['-persistmempool=0']);
    assert.deepEqual(await core.call('importmempool', [file, { use_current_time: false, apply_fee_delta_priority: true, apply_unbroadcast_set: true }]), {});
    assert.deepEqual(await poolState(core), tsState, file);
  }

  // bitcoind's file dropped into tsbtcd's data directory loads at start-up (file times, deltas, unbroadcast set).
  await ts.restart(['-persistmempool=0']);
  await ts.restart([], () => copyFileSync(coreV2, join(ts.netdir, 'mempool.dat')));
  assert.deepEqual(await poolState(ts), coreState);

  // A truncated file: Core's error, Core's log line, and what was read before the cut stays — on both.
  const plain = readFileSync(coreV1);
  const first = readTransaction(new ByteReader(plain, 16));
  // Cut inside the second transaction: the first is read and offered.
  const truncated = join(files, 'truncated.dat');
  writeFileSync(truncated, plain.subarray(0, 16 + first.toBytes().length + 16 + 10));
  const truncatedState: unknown[] = [];
  for (const node of [core, ts]) {
    await node.restart(['-persistmempool=0']);
    assert.deepEqual(await node.failure('importmempool', [truncated, { apply_fee_delta_priority: true }]), { code: -1, message: 'Unable to import mempool file, see debug.log for details.' });
    assert.match(node.log(), /Failed to deserialize mempool data on file: AutoFile::read: end of file: iostream error\. Continuing anyway\./);
    truncatedState.push(await poolState(node, false));
  }
  assert.deepEqual(truncatedState[1], truncatedState[0]);
  assert.deepEqual((truncatedState[0] as { txids: string[] }).txids, [first.txidHex]);
  assert.deepEqual(await ts.failure('importmempool', [join(files, 'missing.dat')]), { code: -1, message: 'Unable to import mempool file, see debug.log for details.' });

  // At tsbtcd's start-up a damaged mempool.dat is reported and the tables' pool stays whole.
  await ts.restart();
  const whole = await poolState(ts);
  assert.equal(whole.txids.length, 8);
  const deserializeFailures = () => (ts.log().match(/Failed to deserialize mempool data on file: AutoFile::read: end of file: iostream error\. Continuing anyway\./g) ?? []).length;
  const failuresBefore = deserializeFailures();
  await ts.restart([], () => writeFileSync(join(ts.netdir, 'mempool.dat'), readFileSync(coreV2).subarray(0, 30)));
  assert.equal(deserializeFailures(), failuresBefore + 1);
  assert.deepEqual(await poolState(ts), whole);
});
