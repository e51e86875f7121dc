/**
 * The Mining family against real regtest daemons: getblocktemplate (every field, fresh
 * and after mining, rule and mode errors, proposals, a block built from the template
 * and submitted, long polling), getmininginfo (fields, order, options) and
 * getnetworkhashps (against a hand computation from the block times), and mainnet's
 * not-connected refusal.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { coinbaseHeightPrefix, selectParams } from '../../src/consensus/index.js';
import { solveBlock } from '../../src/mining/index.js';
import {
  BlockHeader,
  blockMerkleRoot,
  concatBytes,
  fromHex,
  hexToHash,
  NULL_OUTPOINT,
  parseBlock,
  serializeBlock,
  toHex,
  Transaction,
  witnessCommitmentIndex,
  type Block,
} from '../../src/primitives/index.js';
import { formatDouble } from '../../src/rpc/index.js';
import { Daemon, freePort, waitFor } from './daemon-harness.js';

const REGTEST = selectParams('regtest');
const GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const GENESIS_TIME = 1296688602;
const OP_TRUE_DESC = 'raw(51)';
/** The commitment of a block holding only its coinbase (whose wtxid counts as zero). */
const EMPTY_BLOCK_COMMITMENT = '6a24aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf9';
const TARGET = '7fffff0000000000000000000000000000000000000000000000000000000000';
const TEMPLATE_KEYS = [
  'capabilities',
  'version',
  'rules',
  'vbavailable',
  'vbrequired',
  'previousblockhash',
  'transactions',
  'coinbaseaux',
  'coinbasevalue',
  'longpollid',
  'target',
  'mintime',
  'mutable',
  'noncerange',
  'sigoplimit',
  'sizelimit',
  'weightlimit',
  'curtime',
  'bits',
  'height',
  'default_witness_commitment',
];

interface Template {
  version: number;
  previousblockhash: string;
  coinbasevalue: number;
  longpollid: string;
  curtime: number;
  mintime: number;
  bits: string;
  height: number;
  default_witness_commitment: string;
  [key: string]: unknown;
}

async function result(d: Daemon, method: string, params: unknown = []): Promise<any> {
  const r = await d.rpc(method, params);
  assert.equal(r.json.error, null, `${method} failed: ${JSON.stringify(r.json.error)}`);
  return r.json.result;
}

async function rpcError(d: Daemon, method: string, params: unknown = []): Promise<{ code: number; message: string }> {
  const r = await d.rpc(method, params);
  assert.ok(r.json.error, `${method} ${JSON.stringify(params)} did not fail`);
  return r.json.error;
}

/** The raw JSON text of a result member (to see Core's number formatting). */
async function rawResult(d: Daemon, method: string, params: unknown = []): Promise<string> {
  const r = await d.rpc(method, params);
  const m = /^\{"result":(.*),"error":null,"id":1\}\n$/s.exec(r.body);
  assert.ok(m, r.body);
  return m[1]!;
}

const template = (d: Daemon, extra: Record<string, unknown> = {}): Promise<Template> => result(d, 'getblocktemplate', [{ rules: ['segwit'], ...extra }]);

function medianTimePast(times: readonly number[]): number {
  const last = [...times.slice(-11)].sort((a, b) => a - b);
  return last[Math.floor(last.length / 2)]!;
}

/** A block as a miner builds it from a template: BIP34 coinbase paying coinbasevalue (+ extra), the default commitment, solved. */
function blockFromTemplate(t: Template, options: { extraValue?: bigint; solve?: boolean } = {}): Block {
  const coinbase = new Transaction({
    version: 2,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: concatBytes(coinbaseHeightPrefix(t.height), Uint8Array.of(0x07)), sequence: 0xffffffff, witness: [new Uint8Array(32)] }],
    outputs: [
      { value: BigInt(t.coinbasevalue) + (options.extraValue ?? 0n), scriptPubKey: Uint8Array.of(0x51) },
      { value: 0n, scriptPubKey: fromHex(t.default_witness_commitment) },
    ],
    locktime: 0,
  });
  const unsolved = new BlockHeader({
    version: t.version,
    prevHash: hexToHash(t.previousblockhash),
    merkleRoot: new Uint8Array(32),
    time: t.curtime,
    bits: parseInt(t.bits, 16),
    nonce: 0,
  });
  const header = new BlockHeader({ ...unsolved, merkleRoot: blockMerkleRoot({ header: unsolved, transactions: [coinbase] }).root });
  const block = { header, transactions: [coinbase] };
  if (options.solve === false) return block;
  return solveBlock(block, REGTEST, { remaining: 1_000_000 })!;
}

const blockHex = (b: Block) => toHex(serializeBlock(b));

describe('mining RPCs on a regtest node', () => {
  let d: Daemon;
  /** Block times by height, as mined under mocktime (index 0 = genesis). */
  const times: number[] = [GENESIS_TIME];
  const T0 = 1_700_000_000;

  before(async () => {
    d = await Daemon.start();
  });
  after(async () => {
    await d?.cleanup();
  });

  test('getmininginfo on a fresh node: Core order, no assembled-block fields yet, Core number texts', async () => {
    const info = await result(d, 'getmininginfo');
    assert.deepEqual(Object.keys(info), ['blocks', 'bits', 'difficulty', 'target', 'networkhashps', 'pooledtx', 'blockmintxfee', 'chain', 'next', 'warnings']);
    assert.deepEqual(info, {
      blocks: 0,
      bits: '207fffff',
      difficulty: 4.656542373906925e-10,
      target: TARGET,
      networkhashps: 0,
      pooledtx: 0,
      blockmintxfee: 1e-8,
      chain: 'regtest',
      next: { height: 1, bits: '207fffff', difficulty: 4.656542373906925e-10, target: TARGET },
      warnings: [],
    });
    const raw = await rawResult(d, 'getmininginfo');
    assert.match(raw, /"difficulty":4\.656542373906925e-10,/);
    assert.match(raw, /"networkhashps":0,"pooledtx":0,"blockmintxfee":0\.00000001,/);
    assert.equal(await result(d, 'getnetworkhashps'), 0);
  });

  test('getblocktemplate on a fresh node: every field in Core order', async () => {
    await result(d, 'setmocktime', [T0]);
    const t = await template(d);
    assert.deepEqual(Object.keys(t), TEMPLATE_KEYS);
    assert.deepEqual(t, {
      capabilities: ['proposal'],
      version: 0x20000000,
      rules: ['csv', '!segwit', 'taproot'],
      vbavailable: {},
      vbrequired: 0,
      previousblockhash: GENESIS,
      transactions: [],
      coinbaseaux: {},
      coinbasevalue: 5000000000,
      longpollid: `${GENESIS}0`,
      target: TARGET,
      mintime: GENESIS_TIME + 1,
      mutable: ['time', 'transactions', 'prevblock'],
      noncerange: '00000000ffffffff',
      sigoplimit: 80000,
      sizelimit: 4000000,
      weightlimit: 4000000,
      curtime: T0,
      bits: '207fffff',
      height: 1,
      default_witness_commitment: EMPTY_BLOCK_COMMITMENT,
    });
    // The template was assembled: getmininginfo now reports it (reserved weight only, no transactions).
    const info = await result(d, 'getmininginfo');
    assert.deepEqual(Object.keys(info).slice(0, 4), ['blocks', 'currentblockweight', 'currentblocktx', 'bits']);
    assert.equal(info.currentblockweight, 8000);
    assert.equal(info.currentblocktx, 0);
  });

  test('getblocktemplate errors: codes and texts as Core', async () => {
    const missing = await rpcError(d, 'getblocktemplate');
    assert.equal(missing.code, -1);
    assert.ok(missing.message.startsWith('getblocktemplate {"mode":"str","capabilities":["str",...],"rules":["segwit","str",...],"longpollid":"str","data":"hex"}\n'));
    assert.deepEqual(await rpcError(d, 'getblocktemplate', ['x']), {
      code: -3,
      message: 'Wrong type passed:\n{\n    "Position 1 (template_request)": "JSON value of type string is not of expected type object"\n}',
    });
    const segwit = { code: -8, message: 'getblocktemplate must be called with the segwit rule set (call with {"rules": ["segwit"]})' };
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{}]), segwit);
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ rules: [] }]), segwit);
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ rules: 'segwit' }]), segwit);
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ mode: 'template', rules: ['csv'] }]), segwit);
    const invalidMode = { code: -8, message: 'Invalid mode' };
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ mode: 'foo', rules: ['segwit'] }]), invalidMode);
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ mode: 5, rules: ['segwit'] }]), invalidMode);
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ rules: ['segwit', 1] }]), {
      code: -3,
      message: 'JSON value of type number is not of expected type string',
    });
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ mode: 'proposal' }]), { code: -3, message: 'Missing data String key for proposal' });
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ mode: 'proposal', data: 'zz' }]), { code: -22, message: 'Block decode failed' });
    assert.deepEqual(await rpcError(d, 'getblocktemplate', [{ rules: ['segwit'], longpollid: 'abc' }]), {
      code: -8,
      message: "longpollid must be of length 64 (not 3, for 'abc')",
    });
    // Named parameters and unknown keys inside the request are accepted as Core does.
    const named = await result(d, 'getblocktemplate', { template_request: { rules: ['segwit'], foo: 1, capabilities: ['longpoll'] } });
    assert.equal(named.height, 1);
  });

  test('after mining under mocktime: height, tip, mintime = MTP + 1, curtime, subsidy; getmininginfo and getnetworkhashps by hand', async () => {
    for (let h = 1; h <= 10; h++) {
      const time = T0 + h * 600 + ((h * 37) % 101);
      await result(d, 'setmocktime', [time]);
      await result(d, 'generatetodescriptor', [1, OP_TRUE_DESC]);
      times.push(time);
    }
    const tip = await result(d, 'getbestblockhash');
    const now = times[10]! + 100;
    await result(d, 'setmocktime', [now]);
    const t = await template(d);
    assert.equal(t.height, 11);
    assert.equal(t.previousblockhash, tip);
    assert.equal(t.mintime, medianTimePast(times) + 1);
    assert.equal(t.curtime, now);
    assert.equal(t.coinbasevalue, 5000000000);
    assert.equal(t.longpollid, `${tip}0`);
    assert.equal(t.bits, '207fffff');
    assert.equal(t.target, TARGET);
    assert.equal(t.default_witness_commitment, EMPTY_BLOCK_COMMITMENT);

    // Every regtest block adds 2^256 / (target + 1) = 2 to the chain work.
    const rate = (blocks: number, from: number, to: number) => formatDouble((2 * blocks) / (times[to]! - times[from]!));
    assert.equal(await rawResult(d, 'getnetworkhashps'), rate(10, 0, 10));
    assert.equal(await rawResult(d, 'getnetworkhashps', [-1]), rate(10, 0, 10));
    assert.equal(await rawResult(d, 'getnetworkhashps', [5]), rate(5, 5, 10));
    assert.equal(await rawResult(d, 'getnetworkhashps', [3, 7]), rate(3, 4, 7));
    assert.equal(await rawResult(d, 'getnetworkhashps', { height: 2 }), rate(2, 0, 2));
    assert.equal(await rawResult(d, 'getnetworkhashps', [120, 0]), '0');
    const info = await result(d, 'getmininginfo');
    assert.equal(info.blocks, 10);
    assert.equal(info.networkhashps, await result(d, 'getnetworkhashps'));
    assert.deepEqual(info.next, { height: 11, bits: '207fffff', difficulty: 4.656542373906925e-10, target: TARGET });
  });

  test('getnetworkhashps errors', async () => {
    const nblocks = { code: -8, message: 'Invalid nblocks. Must be a positive number or -1.' };
    assert.deepEqual(await rpcError(d, 'getnetworkhashps', [0]), nblocks);
    assert.deepEqual(await rpcError(d, 'getnetworkhashps', [-2]), nblocks);
    const height = { code: -8, message: 'Block does not exist at specified height' };
    assert.deepEqual(await rpcError(d, 'getnetworkhashps', [120, 11]), height);
    assert.deepEqual(await rpcError(d, 'getnetworkhashps', [120, -2]), height);
    assert.deepEqual(await rpcError(d, 'getnetworkhashps', [1.5]), { code: -1, message: 'JSON integer out of range' });
    assert.deepEqual(await rpcError(d, 'getnetworkhashps', [4294967296]), { code: -1, message: 'JSON integer out of range' });
    assert.equal((await rpcError(d, 'getnetworkhashps', ['x'])).code, -3);
  });

  test('default_witness_commitment is what the node commits in its own block', async () => {
    const t = await template(d);
    const generated = await result(d, 'generateblock', [OP_TRUE_DESC, [], false]);
    const block = parseBlock(fromHex(generated.hex));
    const index = witnessCommitmentIndex(block);
    assert.ok(index > 0);
    assert.equal(toHex(block.transactions[0]!.outputs[index]!.scriptPubKey), t.default_witness_commitment);
  });

  test('proposal mode: valid → null, mutated → reason, known → duplicate, off-tip → inconclusive-not-best-prevblk', async () => {
    const t = await template(d);
    const good = blockFromTemplate(t, { solve: false });
    const propose = (block: Block) => result(d, 'getblocktemplate', [{ mode: 'proposal', data: blockHex(block) }]);
    assert.equal(await propose(good), null);
    const badRoot = { header: new BlockHeader({ ...good.header, merkleRoot: new Uint8Array(32).fill(1) }), transactions: good.transactions };
    assert.equal(await propose(badRoot), 'bad-txnmrklroot');
    assert.equal(await propose(blockFromTemplate(t, { solve: false, extraValue: 1n })), 'bad-cb-amount');

    // Submitted and connected: a duplicate; then a block on the old tip is no longer on the best chain.
    const solved = blockFromTemplate(t);
    assert.equal(await result(d, 'submitblock', [blockHex(solved)]), null);
    assert.equal(await propose(solved), 'duplicate');
    const stale = blockFromTemplate({ ...t, curtime: t.curtime + 1 }, { solve: false });
    assert.equal(await propose(stale), 'inconclusive-not-best-prevblk');

    // A block that failed validation is remembered as invalid.
    const next = await template(d);
    const invalid = blockFromTemplate(next, { extraValue: 1n });
    assert.equal(await result(d, 'submitblock', [blockHex(invalid)]), 'bad-cb-amount');
    assert.equal(await propose(invalid), 'duplicate-invalid');
  });

  test('a block built from the template and submitted becomes the tip', async () => {
    const before = await result(d, 'getblockcount');
    const t = await template(d);
    const block = blockFromTemplate(t);
    assert.equal(await result(d, 'submitblock', [blockHex(block)]), null);
    assert.equal(await result(d, 'getbestblockhash'), block.header.hashHex);
    assert.equal(await result(d, 'getblockcount'), before + 1);
    const after = await template(d);
    assert.equal(after.previousblockhash, block.header.hashHex);
    assert.equal(after.height, t.height + 1);
  });

  test('long polling: a stale longpollid answers at once; the current one waits for the next block', async () => {
    const t = await template(d);
    const oldTip = (await result(d, 'getblockhash', [1])) as string;
    const stale = await template(d, { longpollid: `${oldTip}0` });
    assert.equal(stale.previousblockhash, t.previousblockhash);

    const started = Date.now();
    let settled = false;
    const waiting = template(d, { longpollid: t.longpollid }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(settled, false, 'the long poll returned before the tip changed');
    const [mined] = (await result(d, 'generatetodescriptor', [1, OP_TRUE_DESC])) as string[];
    const fresh = await waiting;
    assert.ok(Date.now() - started >= 500);
    assert.equal(fresh.previousblockhash, mined);
    assert.equal(fresh.longpollid, `${mined}0`);
    // A non-string longpollid watches the current tip: it too waits for a block.
    let settled2 = false;
    const waiting2 = template(d, { longpollid: true }).finally(() => (settled2 = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled2, false);
    const [mined2] = (await result(d, 'generatetodescriptor', [1, OP_TRUE_DESC])) as string[];
    assert.equal((await waiting2).previousblockhash, mined2);
  });
});

describe('mining RPCs with options', () => {
  let d: Daemon;
  before(async () => {
    d = await Daemon.start({ args: ['-deprecatedrpc=warnings', '-blockmintxfee=0.0001'] });
  });
  after(async () => {
    await d?.cleanup();
  });

  test('-deprecatedrpc=warnings gives a string; -blockmintxfee shows as BTC/kvB', async () => {
    const info = await result(d, 'getmininginfo');
    assert.equal(info.warnings, '');
    assert.match(await rawResult(d, 'getmininginfo'), /"blockmintxfee":0\.00010000,"chain":"regtest",/);
    const help = await result(d, 'help', ['getmininginfo']);
    assert.match(help, /"warnings" : "str"\s+\(string\) any network and blockchain warnings \(DEPRECATED\)/);
  });
  test('stop during a long poll: the poll answers -9 "Shutting down" and the node exits cleanly', async () => {
    const t = await template(d);
    const waiting = d.rpc('getblocktemplate', [{ rules: ['segwit'], longpollid: t.longpollid }]);
    await new Promise((r) => setTimeout(r, 300));
    await result(d, 'stop');
    assert.deepEqual((await waiting).json.error, { code: -9, message: 'Shutting down' });
    assert.deepEqual(await d.exited, { code: 0, signal: null });
  });
});

/** A daemon on another chain (no -regtest), its cookie under `subdir`, ready for calls. */
async function startBare(chainArgs: readonly string[], subdir: string): Promise<{ d: Daemon; call: (m: string, p?: unknown) => Promise<any> }> {
  const port = await freePort();
  const d = await Daemon.start({ bare: true, port, args: [...chainArgs, `-rpcport=${port}`, '-printtoconsole=0'], waitReady: false });
  const cookiePath = path.join(d.datadir, subdir, '.cookie');
  const cookie = await waitFor('the cookie', () => (fs.existsSync(cookiePath) ? fs.readFileSync(cookiePath, 'utf8') : undefined));
  const call = async (m: string, p: unknown = []) => (await d.rpc(m, p, { auth: cookie })).json;
  await waitFor('the end of warm-up', async () => ((await call('getblockcount'))?.error?.code === -28 ? undefined : true));
  return { d, call };
}

describe('getblocktemplate on mainnet', () => {
  let node: Awaited<ReturnType<typeof startBare>>;
  before(async () => {
    node = await startBare([], '');
  });
  after(async () => {
    await node?.d.cleanup();
  });

  test('without peers: -9 "<product> is not connected!" before any rule check', async () => {
    assert.deepEqual((await node.call('getblocktemplate', [{}])).error, { code: -9, message: 'tsbtcd is not connected!' });
    // Proposals are not refused: they are checked before the connection test.
    assert.deepEqual((await node.call('getblocktemplate', [{ mode: 'proposal', data: 'zz' }])).error, { code: -22, message: 'Block decode failed' });
  });
});

describe('getblocktemplate and getmininginfo on signet', () => {
  let node: Awaited<ReturnType<typeof startBare>>;
  const challenge = toHex(selectParams('signet').signetChallenge!);
  before(async () => {
    node = await startBare(['-signet'], 'signet');
  });
  after(async () => {
    await node?.d.cleanup();
  });

  test('the signet rule is required; the template carries !signet and the challenge', async () => {
    assert.deepEqual((await node.call('getblocktemplate', [{ rules: ['segwit'] }])).error, {
      code: -8,
      message: 'getblocktemplate must be called with the signet rule set (call with {"rules": ["segwit", "signet"]})',
    });
    const t = (await node.call('getblocktemplate', [{ rules: ['segwit', 'signet'] }])).result;
    assert.deepEqual(Object.keys(t), [...TEMPLATE_KEYS.slice(0, -1), 'signet_challenge', 'default_witness_commitment']);
    assert.deepEqual(t.rules, ['csv', '!segwit', '!signet', 'taproot']);
    assert.equal(t.signet_challenge, challenge);
    assert.equal(t.bits, '1e0377ae');
    assert.equal(t.target, '00000377ae000000000000000000000000000000000000000000000000000000');
    assert.equal(t.mintime, 1598918401);
    assert.equal(t.previousblockhash, '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6');
    const info = (await node.call('getmininginfo')).result;
    assert.deepEqual(Object.keys(info).slice(-4), ['chain', 'next', 'signet_challenge', 'warnings']);
    assert.equal(info.chain, 'signet');
    assert.equal(info.signet_challenge, challenge);
    assert.equal(info.difficulty, 0.001126515290698186);
  });
});
