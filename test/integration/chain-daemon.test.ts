/**
 * The chainstate through real tsbtcd processes and JSON-RPC: -loadblock of mainnet blocks
 * 0–255; reorganisations between competing branches given with submitblock and
 * submitheader, with Core's submitblock answers and getchaintips statuses; an invalid
 * block and its descendants; -stopatheight; and block times under setmocktime.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { selectParams } from '../../src/consensus/index.js';
import { addWitnessCommitment, createCoinbase, solveBlock } from '../../src/mining/index.js';
import { BlockHeader, blockMerkleRoot, fromHex, parseBlock, serializeBlock, toHex, Transaction, type Block } from '../../src/primitives/index.js';
import { Daemon, frameBlocks, isConnectionError, MESSAGE_START, tempDir, waitFor } from './daemon-harness.js';
import { vectorPath } from '../support/vectors.js';
import { TestWallet } from '../support/wallet.js';

const REGTEST = selectParams('regtest');
/** Regtest's genesis block time (Core's chainparams). */
const REGTEST_GENESIS_TIME = 1296688602;

const walletA = new TestWallet(11);
const walletB = new TestWallet(12);
const ADDRESS_A = walletA.address('p2wpkh');
const ADDRESS_B = walletB.address('p2tr-key');

interface Mined {
  hash: string;
  hex: string;
  block: Block;
}

/** generateblock with submit=false: the block on `node`'s tip, not yet submitted anywhere. */
async function template(node: Daemon, address: string): Promise<Mined> {
  const { hash, hex } = await node.call<{ hash: string; hex: string }>('generateblock', [address, [], false]);
  return { hash, hex, block: parseBlock(fromHex(hex)) };
}

/** A block mined on `node` (generateblock submit=false, then submitblock), returned with its bytes for other nodes. */
async function mine(node: Daemon, address: string): Promise<Mined> {
  const made = await template(node, address);
  assert.equal(await node.call('submitblock', [made.hex]), null);
  return made;
}

const hexOf = (block: Block): string => toHex(serializeBlock(block));
const headerHex = (block: Block): string => toHex(block.header.toBytes());

/** Whether a header meets its own compact target. */
function meetsTarget(header: BlockHeader): boolean {
  const exponent = header.bits >>> 24;
  const target = BigInt(header.bits & 0x007fffff) << BigInt(8 * (exponent - 3));
  return BigInt(`0x${header.hashHex}`) <= target;
}

/** The block with its header changed by `change`, and the nonce moved until the proof of work is `valid` (or not). */
function regrind(block: Block, change: Partial<ConstructorParameters<typeof BlockHeader>[0]>, valid: boolean): Block {
  const base = { ...block.header, ...change };
  for (let nonce = 0; nonce < 1_000_000; nonce++) {
    const header = new BlockHeader({ version: base.version, prevHash: base.prevHash, merkleRoot: base.merkleRoot, time: base.time, bits: base.bits, nonce });
    if (meetsTarget(header) === valid) return { header, transactions: block.transactions };
  }
  throw new Error('no nonce found');
}

/** A block built in the test on any parent (not only a node's tip), paying `value` to `script`. */
function blockOn(prev: BlockHeader, height: number, value: bigint, script: Uint8Array): Block {
  const coinbase = createCoinbase(height, script, value);
  const draft = new BlockHeader({ version: 0x20000000, prevHash: prev.hash, merkleRoot: new Uint8Array(32), time: prev.time + 1, bits: prev.bits, nonce: 0 });
  const txs = addWitnessCommitment({ header: draft, transactions: [coinbase] });
  const header = new BlockHeader({ ...draft, merkleRoot: blockMerkleRoot({ header: draft, transactions: txs }).root });
  return solveBlock({ header, transactions: txs }, REGTEST, { remaining: 1_000_000 })!;
}

/** Regtest's subsidy at a height below the first halving. */
const SUBSIDY = 50_0000_0000n;

interface Tip {
  height: number;
  hash: string;
  branchlen: number;
  status: string;
}

const byHeightThenHash = (tips: Tip[]): Tip[] => [...tips].sort((p, q) => q.height - p.height || (p.hash < q.hash ? -1 : 1));

test('-loadblock of mainnet blocks 0–255 with -assumevalid=0 reaches height 255, the right best block and chainwork', { timeout: 180_000 }, async (t) => {
  const dir = tempDir();
  let d: Daemon | undefined;
  try {
    const lines = fs.readFileSync(vectorPath('mainnet-blocks-0-255.hex'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 256);
    const file = path.join(dir, 'bootstrap.dat');
    fs.writeFileSync(file, frameBlocks(MESSAGE_START.main, lines.map((l) => fromHex(l))));
    const started = Date.now();
    d = await Daemon.start({ chain: 'main', args: ['-assumevalid=0', `-loadblock=${file}`, '-par=2'] });
    const node = d;
    // The import runs in the background once start-up is done, as Core's import thread.
    await waitFor('the import of 256 blocks', async () => ((await node.call<number>('getblockcount')) === 255 ? true : undefined), 120_000);
    t.diagnostic(`imported 256 mainnet blocks in ${Date.now() - started} ms`);
    assert.equal(await d.call('getbestblockhash'), '00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c');
    assert.equal(await d.call('getblockhash', [0]), '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
    assert.deepEqual(await d.call('getchaintips'), [{ height: 255, hash: '00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c', branchlen: 0, status: 'active' }]);
    assert.match(d.debugLog(), /Loaded 255 blocks from external file/);
    // 256 blocks at difficulty 1, each worth 2^256 / (target + 1) = 0x100010001.
    const info = await d.call('getblockchaininfo');
    assert.equal(info.chain, 'main');
    assert.equal(info.blocks, 255);
    assert.equal(info.chainwork, (256n * 0x100010001n).toString(16).padStart(64, '0'));
    // The mainnet network folder is the data directory itself.
    assert.ok(fs.existsSync(path.join(d.netdir, 'blocks', 'blk00000.dat')));
    assert.deepEqual(await d.stop(), { code: 0, signal: null });
    assert.equal(d.stderr, '');
  } finally {
    await d?.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('competing branches through submitblock and submitheader: Core’s answers, chain tips, reorgs, invalid blocks and descendants', { timeout: 300_000 }, async (t) => {
  let a = await Daemon.start({ args: ['-par=2'] });
  let b: Daemon | undefined;
  try {
    b = await Daemon.start({ args: ['-par=2'] });
    // A shared history of 10 blocks, mined on A and given to B.
    for (let i = 0; i < 10; i++) assert.equal(await b.call('submitblock', [(await mine(a, ADDRESS_A)).hex]), null);
    assert.equal(await b.call('getbestblockhash'), await a.call('getbestblockhash'));
    const fork = await a.call<string>('getbestblockhash');

    // Branch A (3 blocks) on A, branch B (5 blocks) on B, from the same fork point.
    const branchA: Mined[] = [];
    for (let i = 0; i < 3; i++) branchA.push(await mine(a, ADDRESS_A));
    const branchB: Mined[] = [];
    for (let i = 0; i < 5; i++) branchB.push(await mine(b, ADDRESS_B));
    const [a1, , a3] = branchA as [Mined, Mined, Mined];
    const [b1, b2, b3, b4, b5] = branchB as [Mined, Mined, Mined, Mined, Mined];
    assert.notEqual(a1.hash, b1.hash);

    const tips = async (): Promise<Tip[]> => a.call<Tip[]>('getchaintips');
    assert.equal(await a.call('submitblock', [a3.hex]), 'duplicate');
    assert.equal(await a.call('submitblock', [a1.hex]), 'duplicate');

    // Less work than the tip: stored, never validated ("inconclusive", valid-headers).
    assert.equal(await a.call('submitblock', [b1.hex]), 'inconclusive');
    assert.deepEqual(await tips(), [
      { height: 13, hash: a3.hash, branchlen: 0, status: 'active' },
      { height: 11, hash: b1.hash, branchlen: 1, status: 'valid-headers' },
    ]);
    assert.equal(await a.call('submitblock', [b2.hex]), 'inconclusive');
    // Equal work: the first seen tip stays.
    assert.equal(await a.call('submitblock', [b3.hex]), 'inconclusive');
    assert.equal(await a.call('getbestblockhash'), a3.hash);
    // Core lists tips of equal height in no defined order (its set compares pointers after height).
    assert.deepEqual(byHeightThenHash(await tips()), byHeightThenHash([
      { height: 13, hash: a3.hash, branchlen: 0, status: 'active' },
      { height: 13, hash: b3.hash, branchlen: 3, status: 'valid-headers' },
    ]));

    // More work: reorganise to branch B; branch A becomes a fully validated fork.
    assert.equal(await a.call('submitblock', [b4.hex]), null);
    assert.equal(await a.call('getbestblockhash'), b4.hash);
    assert.equal(await a.call('getblockcount'), 14);
    assert.equal(await a.call('getblockhash', [11]), b1.hash);
    assert.deepEqual(await tips(), [
      { height: 14, hash: b4.hash, branchlen: 0, status: 'active' },
      { height: 13, hash: a3.hash, branchlen: 3, status: 'valid-fork' },
    ]);

    // A header alone is headers-only; its block then extends the chain.
    assert.equal(await a.call('submitheader', [headerHex(b5.block)]), null);
    assert.deepEqual(await tips(), [
      { height: 15, hash: b5.hash, branchlen: 1, status: 'headers-only' },
      { height: 14, hash: b4.hash, branchlen: 0, status: 'active' },
      { height: 13, hash: a3.hash, branchlen: 3, status: 'valid-fork' },
    ]);
    assert.equal(await a.call('submitblock', [b5.hex]), null);
    assert.equal(await a.call('getbestblockhash'), b5.hash);
    assert.equal(await a.call('submitblock', [b5.hex]), 'duplicate');

    // invalidateblock in the active chain: back to branch A (equal work, seen first), branch B invalid.
    await a.call('invalidateblock', [b4.hash]);
    assert.equal(await a.call('getbestblockhash'), a3.hash);
    assert.deepEqual(await tips(), [
      { height: 15, hash: b5.hash, branchlen: 5, status: 'invalid' },
      { height: 13, hash: a3.hash, branchlen: 0, status: 'active' },
    ]);
    assert.equal(await a.call('submitblock', [b5.hex]), 'duplicate-invalid');
    await a.call('reconsiderblock', [b4.hash]);
    assert.equal(await a.call('getbestblockhash'), b5.hash);
    assert.deepEqual(await tips(), [
      { height: 15, hash: b5.hash, branchlen: 0, status: 'active' },
      { height: 13, hash: a3.hash, branchlen: 3, status: 'valid-fork' },
    ]);

    // A block whose parent A has never seen.
    const c1 = await mine(b, ADDRESS_B);
    const c2 = await template(b, ADDRESS_B);
    assert.equal(await a.call('submitblock', [c2.hex]), 'prev-blk-not-found');
    const unknownParent = await a.rpc('submitheader', [headerHex(c2.block)]);
    assert.deepEqual(unknownParent.json.error, { code: -25, message: `Must submit previous header (${c1.hash}) first` });

    // Broken proof of work, then a changed merkle root with valid proof of work.
    const next = await template(a, ADDRESS_A);
    assert.equal(await a.call('submitblock', [hexOf(regrind(next.block, {}, false))]), 'high-hash');
    const rootChanged = next.block.header.merkleRoot.slice();
    rootChanged[0]! ^= 1;
    assert.equal(await a.call('submitblock', [hexOf(regrind(next.block, { merkleRoot: rootChanged }, true))]), 'bad-txnmrklroot');
    // A mutated block says nothing about the real one: it still connects.
    assert.equal(await a.call('submitblock', [next.hex]), null);
    const tip = next.block.header;

    // An invalid block (its coinbase claims one satoshi too many) whose descendants arrive first.
    const greedy = await template(a, ADDRESS_A);
    const coinbase = greedy.block.transactions[0]!;
    assert.equal(coinbase.outputs[0]!.value, SUBSIDY);
    const paid = { ...coinbase, outputs: [{ ...coinbase.outputs[0]!, value: SUBSIDY + 1n }, ...coinbase.outputs.slice(1)] };
    const greedyTxs = [new Transaction(paid), ...greedy.block.transactions.slice(1)];
    const x = regrind({ header: greedy.block.header, transactions: greedyTxs }, { merkleRoot: blockMerkleRoot({ header: greedy.block.header, transactions: greedyTxs }).root }, true);
    const x1 = blockOn(x.header, 18, SUBSIDY, walletA.scriptPubKey('p2tr-leaf'));
    const x2 = blockOn(x1.header, 19, SUBSIDY, walletA.scriptPubKey('p2tr-leaf'));
    for (const block of [x, x1, x2]) assert.equal(await a.call('submitheader', [headerHex(block)]), null);
    assert.deepEqual((await tips())[0], { height: 19, hash: x2.header.hashHex, branchlen: 3, status: 'headers-only' });
    assert.equal(await a.call('submitblock', [hexOf(x2)]), 'inconclusive');
    assert.equal(await a.call('submitblock', [hexOf(x1)]), 'inconclusive');
    assert.equal(await a.call('submitblock', [hexOf(x)]), 'bad-cb-amount');
    assert.equal(await a.call('getbestblockhash'), tip.hashHex);
    const afterInvalid: Tip[] = [
      { height: 19, hash: x2.header.hashHex, branchlen: 3, status: 'invalid' },
      { height: 16, hash: tip.hashHex, branchlen: 0, status: 'active' },
      { height: 13, hash: a3.hash, branchlen: 3, status: 'valid-fork' },
    ];
    // c2's parent c1 is unknown to A, so c2 left no trace in A's tree.
    assert.deepEqual(await tips(), afterInvalid);
    for (const block of [x, x1, x2]) assert.equal(await a.call('submitblock', [hexOf(block)]), 'duplicate-invalid');
    // Another child of the invalid block: refused as a block and as a header.
    const sibling = blockOn(x.header, 18, SUBSIDY, walletB.scriptPubKey('p2wpkh'));
    assert.equal(await a.call('submitblock', [hexOf(sibling)]), 'bad-prevblk');
    assert.deepEqual((await a.rpc('submitheader', [headerHex(sibling)])).json.error, { code: -25, message: 'bad-prevblk' });

    // The verdicts are part of the block index: a restart keeps them.
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
    a = await a.restart({ args: ['-par=2'] });
    assert.deepEqual(await tips(), afterInvalid);
    assert.equal(await a.call('submitblock', [hexOf(x1)]), 'duplicate-invalid');
    t.diagnostic(`fork at ${fork}; tips after restart ${JSON.stringify(afterInvalid.map((tp) => tp.status))}`);
    assert.equal(a.stderr, '');
  } finally {
    await a.cleanup();
    await b?.cleanup();
  }
});

test('-stopatheight: the node stops by itself, with exit code 0, once block N is connected', { timeout: 120_000 }, async () => {
  let d = await Daemon.start({ args: ['-stopatheight=5'] });
  try {
    let hashes: string[] | undefined;
    try {
      hashes = await d.call<string[]>('generatetoaddress', [10, ADDRESS_A]);
    } catch (err) {
      // The reply may lose the race with the shutdown; the exit and the stored chain tell.
      if (!isConnectionError(err) && !/HTTP 503/.test((err as Error).message)) throw err;
    }
    if (hashes !== undefined) assert.equal(hashes.length, 5, 'generation stops at the stop height (Core checks its interrupt between blocks)');
    assert.deepEqual(await d.waitExit(30_000), { code: 0, signal: null });
    assert.equal(d.stderr, '');
    assert.ok(!fs.existsSync(d.cookiePath), 'a clean stop removes the cookie');
    d = await d.restart();
    assert.equal(await d.call('getblockcount'), 5);
    if (hashes) assert.equal(await d.call('getbestblockhash'), hashes[4]);
  } finally {
    await d.cleanup();
  }
});

test('setmocktime: generated block times are max(median-time-past + 1, mocktime); the future limit follows the mock clock', { timeout: 120_000 }, async () => {
  const d = await Daemon.start();
  try {
    const times = [REGTEST_GENESIS_TIME];
    const medianTimePast = (): number => {
      const last = times.slice(-11).sort((p, q) => p - q);
      return last[Math.floor(last.length / 2)]!;
    };
    const mineAt = async (mocktime: number, blocks: number): Promise<void> => {
      assert.equal(await d.call('setmocktime', [mocktime]), null);
      for (let i = 0; i < blocks; i++) {
        const made = await mine(d, ADDRESS_A);
        const expected = Math.max(medianTimePast() + 1, mocktime);
        assert.equal(made.block.header.time, expected, `block ${times.length} under mocktime ${mocktime}`);
        times.push(made.block.header.time);
      }
    };
    const T = 2_000_000_000;
    // All at one mocktime: median-time-past soon passes it, so times climb by one.
    await mineAt(T, 14);
    assert.ok(times.at(-1)! > T);
    // A clock behind median-time-past (by less than the two hours a block may be ahead): max() takes median-time-past + 1.
    await mineAt(T - 3000, 3);
    assert.ok(times.at(-1)! > T - 3000);
    // A clock far ahead: the block takes the clock's time.
    await mineAt(T + 50_000, 2);
    assert.equal(times.at(-1), T + 50_000);
    // Blocks may be at most two hours ahead of the node's (mocked) clock.
    const ahead = await template(d, ADDRESS_A);
    assert.equal(await d.call('submitblock', [hexOf(regrind(ahead.block, { time: T + 50_000 + 7201 }, true))]), 'time-too-new');
    assert.equal(await d.call('submitblock', [hexOf(regrind(ahead.block, { time: T + 50_000 + 7200 }, true))]), null);
    assert.deepEqual((await d.rpc('setmocktime', [-1])).json.error, { code: -8, message: 'Mocktime must be in the range [0, 9223372036], not -1.' });
    assert.equal(await d.call('getblockcount'), 20);
  } finally {
    await d.cleanup();
  }
});
