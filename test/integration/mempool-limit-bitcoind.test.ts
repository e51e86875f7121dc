/**
 * The mempool's memory accounting and size limit against the reference bitcoind v31.0:
 * both nodes (regtest, not connected) get the same blocks (bitcoind mines them, tsbtcd
 * receives them through submitblock), the same mock time and the same raw transactions.
 * After every step getmempoolinfo must be equal — `usage` (Core's DynamicMemoryUsage)
 * and `mempoolminfee` included — and so must every acceptance or refusal. With a small
 * -maxmempool the pool trims the same chunks, the rolling minimum fee rises to the same
 * value, refuses what pays less with Core's reason, and decays alike over mock time
 * after blocks.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { concatBytes, fromHex, hash160, hashToHex, parseBlock, toHex, Transaction } from '../../src/primitives/index.js';
import { OP, pushData } from '../../src/script/index.js';
import { seededRandom, TestWallet, type WalletCoin, type WalletKind } from '../support/wallet.js';
import { decodeFeeFilter } from '../../src/net/index.js';
import { freePort, runToExit, tempDir, waitFor } from './daemon-harness.js';
import { TestPeer } from './p2p-test-peer.js';
import { cleanupsAfterTests, NODE_STARTERS, type NodeUnderTest } from './node-under-test.js';

const cleanups = cleanupsAfterTests();
const [, startTsbtcd] = NODE_STARTERS[0]!;
const [, startBitcoind] = NODE_STARTERS[1]!;
const skip = startBitcoind ? false : 'the reference bitcoind is missing (set BITCOIND)';

interface Pair {
  readonly ts: NodeUnderTest;
  readonly core: NodeUnderTest;
  readonly wallet: TestWallet;
  /** The same keys, shown the same blocks: it can spend again what `wallet` already spent (replacements). */
  readonly twin: TestWallet;
}

async function startPair(args: readonly string[], seed: number): Promise<Pair> {
  const [ts, core] = await Promise.all([startTsbtcd!({ args }), startBitcoind!({ args })]);
  cleanups.push(() => ts.stop(), () => core.stop());
  return { ts, core, wallet: new TestWallet(seed), twin: new TestWallet(seed) };
}

async function both<T>(pair: Pair, method: string, params: unknown[] = []): Promise<[T, T]> {
  return [await pair.ts.call<T>(method, params), await pair.core.call<T>(method, params)];
}

/** bitcoind mines; tsbtcd gets the same blocks; the wallet learns them. */
async function mine(pair: Pair, count: number, kind: WalletKind = 'p2wpkh'): Promise<void> {
  const hashes = await pair.core.call<string[]>('generatetoaddress', [count, pair.wallet.address(kind)]);
  await submitAll(pair, hashes);
}

/** A block of exactly these pool transactions (none: an empty block). */
async function mineWith(pair: Pair, txids: readonly string[]): Promise<void> {
  const { hash } = await pair.core.call<{ hash: string }>('generateblock', [pair.wallet.address('p2wpkh'), txids]);
  await submitAll(pair, [hash]);
}

async function submitAll(pair: Pair, hashes: readonly string[]): Promise<void> {
  for (const hash of hashes) {
    const hex = await pair.core.call<string>('getblock', [hash, 0]);
    assert.equal(await pair.ts.call('submitblock', [hex]), null);
    const height = (await pair.core.call<{ height: number }>('getblockheader', [hash])).height;
    const block = parseBlock(fromHex(hex));
    pair.wallet.processBlock(block, height);
    pair.twin.processBlock(block, height);
  }
  assert.equal(await pair.ts.call('getbestblockhash'), await pair.core.call('getbestblockhash'));
}

/** sendrawtransaction on both: the same txid, or the same error. */
async function send(pair: Pair, tx: Transaction): Promise<string> {
  const hex = toHex(tx.toBytes());
  const outcome = async (node: NodeUnderTest): Promise<string> => {
    try {
      return await node.call<string>('sendrawtransaction', [hex, 0]);
    } catch (err) {
      return `error ${(err as { code?: number }).code}: ${(err as Error).message.replace(/^sendrawtransaction: (error -?\d+: )?/, '')}`;
    }
  };
  const ts = await outcome(pair.ts);
  const core = await outcome(pair.core);
  assert.equal(ts, core, `sendrawtransaction of ${tx.txidHex}`);
  return core;
}

/** getmempoolinfo and the pool's txids must be equal on both; returns bitcoind's getmempoolinfo. */
async function comparePools(pair: Pair, label: string): Promise<Record<string, any>> {
  const [tsInfo, coreInfo] = await both<Record<string, any>>(pair, 'getmempoolinfo');
  assert.deepEqual(tsInfo, coreInfo, `getmempoolinfo differs ${label}`);
  const [tsPool, corePool] = await both<{ txids: string[]; mempool_sequence: number }>(pair, 'getrawmempool', [false, true]);
  assert.deepEqual([...tsPool.txids].sort(), [...corePool.txids].sort(), `pool contents differ ${label}`);
  assert.equal(tsPool.mempool_sequence, corePool.mempool_sequence, `mempool_sequence differs ${label}`);
  return coreInfo;
}

async function setMockTime(pair: Pair, time: number): Promise<void> {
  await both(pair, 'setmocktime', [time]);
}

/** An OP_RETURN output script carrying `bytes` bytes. */
function dataScript(bytes: number, fill: number): Uint8Array {
  const payload = new Uint8Array(bytes).fill(fill);
  const push = pushData(payload);
  const script = new Uint8Array(1 + push.length);
  script[0] = OP.OP_RETURN;
  script.set(push, 1);
  return script;
}

/** Roughly the virtual size of a spend (P2WPKH-sized inputs): enough to vary fee rates. */
function roughVsize(inputs: number, outputs: readonly { to: WalletKind | Uint8Array }[]): number {
  return 11 + 68 * inputs + 31 + outputs.reduce((a, o) => a + 9 + (typeof o.to === 'string' ? 34 : o.to.length), 0);
}

/** Spends `inputs` to `outputs` plus change to the wallet, paying about `satPerVb`. */
function payAtRate(wallet: TestWallet, inputs: WalletCoin[], outputs: { value: bigint; to: WalletKind | Uint8Array }[], satPerVb: number, changeKind: WalletKind = 'p2wpkh'): Transaction {
  const total = inputs.reduce((a, c) => a + c.value, 0n);
  const spent = outputs.reduce((a, o) => a + o.value, 0n);
  const fee = BigInt(Math.ceil(roughVsize(inputs.length, outputs) * satPerVb));
  return wallet.spend(inputs, [...outputs, { value: total - spent - fee, to: changeKind }]);
}

/** The wallet's coin created by `tx` (its change). */
function changeOf(wallet: TestWallet, tx: Transaction): WalletCoin {
  return wallet.spendable(Number.MAX_SAFE_INTEGER).find((c) => c.outpoint.txid.every((b, j) => b === tx.txid[j]))!;
}

/** Fee rates (sat/vB) the data-carrying transactions pay, plus up to half a sat/vB more. */
const RATES = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30];

/**
 * Offers both nodes `count` data-carrying transactions of 50-95 kB (every fourth a small
 * child of a pooled one), comparing the pools after each; returns what entered and the
 * step at which the minimum fee first rose.
 */
async function fillPool(pair: Pair, coins: WalletCoin[], rng: () => number, count: number): Promise<{ accepted: Transaction[]; children: Set<string>; trimmedAt: number | undefined }> {
  const accepted: Transaction[] = [];
  const children = new Set<string>();
  let trimmedAt: number | undefined;
  for (let i = 0; i < count && coins.length > 0; i++) {
    const pool = new Set(await pair.core.call<string[]>('getrawmempool'));
    const parents = accepted.filter((t) => pool.has(t.txidHex) && changeOf(pair.wallet, t));
    // Every fourth one spends the change of a pooled one: chains whose chunks differ from their transactions.
    const child = i % 4 === 3 && parents.length > 0;
    const input = child ? changeOf(pair.wallet, parents[Math.floor(rng() * parents.length)]!) : coins.pop()!;
    // A child stays small: with its parent it must fit one cluster (-limitclustersize).
    const size = child ? 500 + Math.floor(rng() * 4_000) : 50_000 + Math.floor(rng() * 45_000);
    const rate = RATES[Math.floor(rng() * RATES.length)]! + Math.floor(rng() * 50) / 100;
    const tx = payAtRate(pair.wallet, [input], [{ value: 0n, to: dataScript(size, i) }], rate);
    const result = await send(pair, tx);
    if (result === tx.txidHex) accepted.push(tx);
    if (child) children.add(tx.txidHex);
    const info = await comparePools(pair, `after big transaction ${i} (${result})`);
    assert.ok(info.usage <= info.maxmempool, `usage ${info.usage} within -maxmempool`);
    if (trimmedAt === undefined && info.mempoolminfee > info.minrelaytxfee) trimmedAt = i;
  }
  return { accepted, children, trimmedAt };
}

test('getmempoolinfo (usage included) equals bitcoind v31.0’s across pools: singles, chains, many inputs and outputs, taproot, P2WPKH and non-witness inputs, data outputs, replacement, block removals and a reorg', { skip, timeout: 300_000 }, async () => {
  const pair = await startPair([], 31);
  const t0 = 1_760_000_000;
  await setMockTime(pair, t0);
  await mine(pair, 60);
  await mine(pair, 5, 'p2tr-key');
  await mine(pair, 5, 'p2tr-leaf');
  await mine(pair, 100);
  await comparePools(pair, 'empty');
  const height = await pair.core.call<number>('getblockcount');
  const coinbases = (kind: WalletKind) => pair.wallet.spendable(height + 1).filter((c) => c.coinbase && c.kind === kind);
  const w = coinbases('p2wpkh');
  const tr = coinbases('p2tr-key');
  const leaf = coinbases('p2tr-leaf');
  const rng = seededRandom(5);
  const rate = () => 1 + Math.floor(rng() * 40);
  const step = async (label: string, tx: Transaction): Promise<Transaction> => {
    const result = await send(pair, tx);
    assert.equal(result, tx.txidHex, `${label} accepted`);
    assert.ok((await comparePools(pair, `after ${label}`)).usage > 0);
    return tx;
  };

  const singles: string[] = [];
  for (let i = 0; i < 5; i++) singles.push((await step(`single ${i}`, payAtRate(pair.wallet, [w.pop()!], [], rate()))).txidHex);
  let tip = await step('chain 0', payAtRate(pair.wallet, [w.pop()!], [], rate()));
  for (let i = 1; i < 5; i++) tip = await step(`chain ${i}`, payAtRate(pair.wallet, [changeOf(pair.wallet, tip)], [], rate()));
  for (let n = 2; n <= 6; n++) await step(`${n} inputs`, payAtRate(pair.wallet, w.splice(-n), [], rate()));
  for (let n = 2; n <= 7; n++) await step(`${n} outputs`, payAtRate(pair.wallet, [w.pop()!], Array.from({ length: n }, () => ({ value: 100_000n, to: 'p2tr-key' as const })), rate()));
  await step('taproot key path', payAtRate(pair.wallet, tr.splice(-3), [{ value: 50_000n, to: 'p2tr-leaf' }], rate(), 'p2tr-key'));
  await step('taproot script path', payAtRate(pair.wallet, leaf.splice(-2), [], rate()));
  for (const size of [30, 35, 40, 75, 200, 1000]) await step(`data ${size}`, payAtRate(pair.wallet, [w.pop()!], [{ value: 0n, to: dataScript(size, size & 0xff) }], rate()));

  // Non-witness inputs: P2SH spends whose scriptSig holds the redeem script, one short enough to sit inline, one not.
  const redeemSmall = Uint8Array.of(OP.OP_1);
  const redeemLarge = concatBytes(pushData(new Uint8Array(40).fill(9)), Uint8Array.of(OP.OP_DROP, OP.OP_1));
  const p2sh = (redeem: Uint8Array) => concatBytes(Uint8Array.of(OP.OP_HASH160), pushData(hash160(redeem)), Uint8Array.of(OP.OP_EQUAL));
  const funding = await step('P2SH outputs', payAtRate(pair.wallet, [w.pop()!], [{ value: 1_000_000n, to: p2sh(redeemSmall) }, { value: 1_000_000n, to: p2sh(redeemLarge) }], rate()));
  const legacy = new Transaction({
    version: 2,
    inputs: [redeemSmall, redeemLarge].map((redeem, vout) => ({ prevout: { txid: funding.txid, vout }, scriptSig: pushData(redeem), sequence: 0xfffffffd, witness: [] })),
    outputs: [{ value: 1_990_000n, to: 'p2wpkh' as const }].map((o) => ({ value: o.value, scriptPubKey: pair.wallet.scriptPubKey(o.to) })),
    locktime: 0,
  });
  assert.equal(legacy.hasWitness, false);
  await step('non-witness spend of both', legacy);

  // A full-RBF replacement of a transaction with a child: both leave, the replacement enters.
  const coin = w.pop()!;
  const replaced = await step('to be replaced', payAtRate(pair.wallet, [coin], [], 2));
  await step('child of the replaced', payAtRate(pair.wallet, [changeOf(pair.wallet, replaced)], [], 3));
  const twinCoin = pair.twin.spendable(height + 1).find((c) => c.outpoint.txid.every((b, j) => b === coin.outpoint.txid[j]) && c.outpoint.vout === coin.outpoint.vout)!;
  await step('replacement', payAtRate(pair.twin, [twinCoin], [], 80));

  // A block takes the singles; then one takes the rest; then more arrive.
  await mineWith(pair, singles);
  await comparePools(pair, 'after a block took the singles');
  await mine(pair, 1);
  await comparePools(pair, 'after a block took the rest');
  for (let i = 0; i < 3; i++) await step(`single after blocks ${i}`, payAtRate(pair.wallet, [w.pop()!], [], rate()));

  // A reorg: the last two blocks' transactions come back (limits bypassed), then leave again.
  const [tipHash] = await both<string>(pair, 'getbestblockhash');
  const parentHash = await pair.core.call<string>('getblockhash', [(await pair.core.call<number>('getblockcount')) - 1]);
  await both(pair, 'invalidateblock', [parentHash]);
  await comparePools(pair, 'after two blocks were disconnected');
  await both(pair, 'reconsiderblock', [parentHash]);
  assert.equal(await pair.core.call('getbestblockhash'), tipHash);
  await comparePools(pair, 'after they were connected again');
});

test('with -maxmempool=5 the pool trims the same chunks as bitcoind v31.0, the minimum fee rises to the same value, refuses with Core’s reason, and decays alike after blocks', { skip, timeout: 600_000 }, async () => {
  const pair = await startPair(['-maxmempool=5', '-debug=mempool'], 32);
  let now = 1_760_000_000;
  await setMockTime(pair, now);
  await mine(pair, 90);
  await mine(pair, 100);
  const height = await pair.core.call<number>('getblockcount');
  const coins = pair.wallet.spendable(height + 1).filter((c) => c.coinbase && c.kind === 'p2wpkh');
  // Two small spends kept aside, paying 1.2 and 0.3 sat/vB: they probe the minimum fee as it decays.
  const probeHigh = payAtRate(pair.wallet, [coins.pop()!], [], 1.2);
  const probeLow = payAtRate(pair.wallet, [coins.pop()!], [], 0.3);
  const spare = coins.shift()!;
  const { trimmedAt } = await fillPool(pair, coins, seededRandom(17), 120);
  assert.ok(trimmedAt !== undefined, 'the pool filled and trimmed');
  const full = await comparePools(pair, 'full');
  assert.ok(full.mempoolminfee > 0.00001, `the minimum fee rose (${full.mempoolminfee})`);
  const bumps = (node: NodeUnderTest) => node.log().match(/Removed \d+ txn, rolling minimum fee bumped to [0-9.]+ BTC\/kvB/g) ?? [];
  assert.ok(bumps(pair.core).length > 0);
  assert.deepEqual(bumps(pair.ts), bumps(pair.core));

  // A peer hears the minimum fee in a feefilter (BIP133), rounded to a nearby bucket as Core rounds it.
  const minFeeSats = Math.round(full.mempoolminfee * 1e8);
  for (const node of [pair.ts, pair.core]) {
    const peer = await TestPeer.connect(node.p2pPort, height);
    try {
      const frame = await waitFor(`${node.name}: feefilter`, () => peer.received.find((f) => f.command === 'feefilter'), 30_000);
      const filter = Number(decodeFeeFilter(frame.payload));
      assert.ok(filter >= minFeeSats / 1.1 - 1 && filter <= minFeeSats * 1.1 + 1, `${node.name}: feefilter ${filter} near the minimum fee ${minFeeSats}`);
    } finally {
      peer.close();
    }
  }

  // Below the minimum fee: refused with Core's reason and amounts, on both.
  assert.match(await send(pair, probeHigh), /^error -26: mempool min fee not met, \d+ < \d+$/);
  // Just above it but the worst chunk once in: accepted, then trimmed at once — "mempool full".
  const justAbove = payAtRate(pair.wallet, [spare], [{ value: 0n, to: dataScript(90_000, 0xee) }], full.mempoolminfee * 1e5 * 1.01);
  assert.equal(await send(pair, justAbove), 'error -26: mempool full');
  const bumped = await comparePools(pair, 'after a newcomer was trimmed');
  assert.ok(bumped.mempoolminfee > full.mempoolminfee, 'its eviction raised the minimum fee');

  /** At `time`: both probes offered (each GetMinFee decays the fee on both nodes alike), then the pools compared. */
  const at = async (time: number, label: string): Promise<Record<string, any>> => {
    now = time;
    await setMockTime(pair, now);
    await send(pair, probeHigh);
    await send(pair, probeLow);
    return comparePools(pair, label);
  };
  // No decay before a block has connected.
  const before = await at(now + 7200, 'two hours later, no block yet');
  assert.equal(before.mempoolminfee, bumped.mempoolminfee);
  await mineWith(pair, []);
  const block = now;
  const seen = [before.mempoolminfee];
  for (const hours of [0.001, 0.01, 1, 6, 12, 18, 24, 36, 48]) seen.push((await at(block + Math.round(hours * 3600), `${hours} h after an empty block`)).mempoolminfee);
  assert.ok(seen.at(-1)! < seen[0]!, `the minimum fee decayed: ${seen.join(' → ')}`);
  // A full block empties most of the pool: below a quarter of -maxmempool the fee halves every 3 hours.
  await mine(pair, 1);
  await comparePools(pair, 'after a full block');
  const second = now;
  for (const hours of [1, 3, 6, 12, 24, 48, 96]) seen.push((await at(second + hours * 3600, `${hours} h after a full block`)).mempoolminfee);
  assert.equal(seen.at(-1), full.minrelaytxfee, `back to -minrelaytxfee: ${seen.join(' → ')}`);
});

test('the mempool’s size and fee options at start-up as bitcoind v31.0 reads them: -maxmempool below 40 clusters of -limitclustersize and fee rates that are not amounts are refused with Core’s messages', { skip, timeout: 180_000 }, async () => {
  const refused = [
    ['-maxmempool=4'],
    ['-maxmempool=-1'],
    ['-maxmempool=7', '-limitclustersize=200'],
    ['-incrementalrelayfee=abc'],
    ['-incrementalrelayfee=-1'],
    ['-minrelaytxfee=0.1.2'],
    ['-dustrelayfee=x'],
  ];
  for (const args of refused) {
    const outcomes = [];
    for (const run of [(a: string[]) => runToExit(a), (a: string[]) => runBitcoindToExit(a)]) {
      const dir = tempDir();
      try {
        const r = await run(['-regtest', `-datadir=${dir}`, '-printtoconsole=0', '-connect=0', `-port=${await freePort()}`, `-rpcport=${await freePort()}`, ...args]);
        outcomes.push({ code: r.code, stderr: r.stderr });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    assert.deepEqual(outcomes[0], outcomes[1], args.join(' '));
    assert.equal(outcomes[1]!.code, 1);
  }
  // Accepted: -maxmempool=0 (every newcomer trimmed at once), and -incrementalrelayfee alone raising -minrelaytxfee.
  for (const args of [['-maxmempool=0'], ['-incrementalrelayfee=0.00002']]) {
    const pair = await startPair(args, 35);
    await setMockTime(pair, 1_760_000_000);
    await mine(pair, 101);
    await comparePools(pair, args.join(' '));
    const coin = pair.wallet.spendable(102).find((c) => c.coinbase)!;
    const outcome = await send(pair, payAtRate(pair.wallet, [coin], [], 5));
    if (args[0] === '-maxmempool=0') assert.equal(outcome, 'error -26: mempool full');
    await comparePools(pair, `${args.join(' ')}, after a submission`);
  }
});

function runBitcoindToExit(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn((referenceBitcoind() as { path: string }).path, ['-disablewallet', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code) => resolve({ code, stderr }));
  });
}

test('with -maxmempool=5 and every chunk at the same feerate, tsbtcd evicts what bitcoind v31.0 evicts: the largest run of equal-feerate chunks in a cluster first, then the highest txid', { skip, timeout: 600_000 }, async () => {
  const pair = await startPair(['-maxmempool=5'], 33);
  await setMockTime(pair, 1_760_000_000);
  await mine(pair, 80, 'p2tr-key');
  await mine(pair, 100);
  const height = await pair.core.call<number>('getblockcount');
  const coins = pair.wallet.spendable(height + 1).filter((c) => c.coinbase && c.kind === 'p2tr-key');
  /** Pays exactly 2 sat per weight unit: a key-path spend's signature has one size, so a draft with a dummy one weighs the same. */
  const atTwoPerWu = (coin: WalletCoin, data: number, fill: number): Transaction => {
    const outputs = [
      { value: 0n, scriptPubKey: dataScript(data, fill) },
      { value: coin.value, scriptPubKey: pair.wallet.scriptPubKey('p2tr-key') },
    ];
    const draft = new Transaction({ version: 2, inputs: [{ prevout: coin.outpoint, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [new Uint8Array(64)] }], outputs, locktime: 0 });
    return pair.wallet.spend([coin], [{ value: 0n, to: outputs[0]!.scriptPubKey }, { value: coin.value - 2n * BigInt(draft.weight), to: 'p2tr-key' }]);
  };
  let last: Transaction | undefined;
  for (let i = 0; i < 95 && coins.length > 0; i++) {
    // Every fifth spends the previous one's change (in the pool or not): chains of equal-feerate chunks.
    const input = i % 5 === 4 && last ? changeOf(pair.wallet, last) : coins.pop()!;
    // Sizes repeat (runs of equal chunks tie up to the txid) and vary (they do not).
    const tx = atTwoPerWu(input, i % 5 === 4 ? 2_000 : i % 2 === 0 ? 90_000 : 60_000 + ((i * 7919) % 30_000), i);
    await send(pair, tx);
    last = tx;
    await comparePools(pair, `after equal-feerate transaction ${i}`);
  }
  const info = await comparePools(pair, 'full');
  assert.ok(info.mempoolminfee > info.minrelaytxfee, 'the pool trimmed');
});

test('with -maxmempool=5, transactions a reorg brings back are trimmed as bitcoind v31.0 trims them', { skip, timeout: 600_000 }, async () => {
  const pair = await startPair(['-maxmempool=5', '-debug=mempool'], 34);
  await setMockTime(pair, 1_760_000_000);
  await mine(pair, 100);
  await mine(pair, 100);
  const height = await pair.core.call<number>('getblockcount');
  const coins = pair.wallet.spendable(height + 1).filter((c) => c.coinbase && c.kind === 'p2wpkh');
  const rng = seededRandom(23);
  const first = await fillPool(pair, coins, rng, 60);
  // A block takes the ten best-paying pooled transactions without pool parents; the pool fills up again.
  const pool = new Set(await pair.core.call<string[]>('getrawmempool'));
  const roots = first.accepted.filter((t) => pool.has(t.txidHex) && !first.children.has(t.txidHex) && ![...t.inputs].some((i) => pool.has(hashToHex(i.prevout.txid))));
  const taken = roots.slice(-10).map((t) => t.txidHex);
  await mineWith(pair, taken);
  const block = await pair.core.call<string>('getbestblockhash');
  await comparePools(pair, 'after the block');
  await fillPool(pair, coins, rng, 25);
  await comparePools(pair, 'refilled');
  // The block is disconnected: its transactions come back with limits bypassed, then the pool is trimmed.
  await both(pair, 'invalidateblock', [block]);
  const after = await comparePools(pair, 'after the reorg');
  assert.ok(after.usage <= after.maxmempool);
  const bumps = (node: NodeUnderTest) => node.log().match(/Removed \d+ txn, rolling minimum fee bumped to [0-9.]+ BTC\/kvB/g) ?? [];
  assert.deepEqual(bumps(pair.ts), bumps(pair.core));
  await both(pair, 'reconsiderblock', [block]);
  await comparePools(pair, 'after the block came back');
});
