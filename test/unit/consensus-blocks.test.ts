import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  blockWeight,
  checkBlock,
  checkBlockHeader,
  checkCoinbaseAmount,
  checkTransaction,
  checkTxInputs,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  getNextWorkRequired,
  isBlockMutated,
  selectParams,
  type BlockCheck,
  type ChainParams,
  type Coin,
  type IndexedHeader,
} from '../../src/consensus/index.js';
import {
  BlockHeader,
  computeMerkleRoot,
  fromHex,
  hashToHex,
  parseBlock,
  Transaction,
  type Block,
  type ParsedBlock,
  type TxIn,
} from '../../src/primitives/index.js';
import { readVectorJson, readVectorText } from '../support/vectors.js';
import { coinbaseTx, extend, indexHeader, mineBlock, withWitnessCommitment, type TestIndex } from './consensus-test-chain.js';

const main = selectParams('main');
const NOW = 2_000_000_000;

function expectFailure(check: BlockCheck, reason: string, mutated = false): void {
  assert.equal(check.ok, false, `expected ${reason}`);
  if (!check.ok) {
    assert.equal(check.reason, reason);
    assert.equal(check.mutated, mutated, `${reason}: mutated flag`);
  }
}

function expectOk(check: BlockCheck, what: string): void {
  assert.ok(check.ok, check.ok ? what : `${what}: ${check.reason} (${check.debug})`);
}

/** The block with its transactions replaced and the merkle root recomputed (header changes, so PoW no longer holds). */
function withTransactions(block: Block, transactions: readonly Transaction[]): Block {
  const h = block.header;
  const merkleRoot = computeMerkleRoot(transactions.map((tx) => tx.txid)).root;
  return { header: new BlockHeader({ version: h.version, prevHash: h.prevHash, merkleRoot, time: h.time, bits: h.bits, nonce: h.nonce }), transactions };
}

const mainnetBlocks: ParsedBlock[] = readVectorText('mainnet-blocks-0-255.hex')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => parseBlock(fromHex(l.trim())));

test('mainnet blocks 0-255 pass every header and block check', () => {
  let prev: TestIndex | undefined;
  for (const block of mainnetBlocks) {
    const height = prev ? prev.height + 1 : 0;
    expectOk(checkBlockHeader(block.header, main), `CheckBlockHeader ${height}`);
    expectOk(checkBlock(block, main), `CheckBlock ${height}`);
    if (prev) expectOk(contextualCheckBlockHeader(block.header, prev, main, NOW), `ContextualCheckBlockHeader ${height}`);
    expectOk(contextualCheckBlock(block, prev, main), `ContextualCheckBlock ${height}`);
    assert.equal(isBlockMutated(block, false), false);
    prev = indexHeader(block.header, prev);
  }
  assert.equal(prev!.hash && hashToHex(prev!.hash), '00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c');
});

const block277647 = parseBlock(fromHex(readVectorText('block277647.hex').trim()));

test('block 277,647 passes CheckBlock and, on a stand-in parent, ContextualCheckBlock', () => {
  expectOk(checkBlock(block277647, main), 'CheckBlock 277647');
  const parent: IndexedHeader = {
    hash: block277647.header.prevHash,
    height: 277646,
    version: 2,
    time: block277647.header.time - 600,
    bits: block277647.header.bits,
    prev: undefined,
    ancestor: () => undefined,
    medianTimePast: () => block277647.header.time - 3000,
  };
  expectOk(contextualCheckBlock(block277647, parent, main), 'ContextualCheckBlock 277647');
  // One height off, the BIP34 prefix no longer matches.
  expectFailure(contextualCheckBlock(block277647, { ...parent, height: 277645 }, main), 'bad-cb-height');
});

interface PrevoutEntry {
  tx: number;
  input: number;
  value: number;
  scriptPubKey: string;
  height: number;
  coinbase: boolean;
}

test('block 277,647: CheckTxInputs on every transaction, fees and the coinbase limit', () => {
  const entries = readVectorJson<PrevoutEntry[]>('block277647-prevouts.json');
  const coins: Coin[][] = block277647.transactions.map(() => []);
  for (const e of entries) coins[e.tx]!.push({ output: { value: BigInt(e.value), scriptPubKey: fromHex(e.scriptPubKey) }, height: e.height, coinbase: e.coinbase });
  let fees = 0n;
  block277647.transactions.forEach((tx, i) => {
    if (i === 0) return;
    const result = checkTxInputs(tx, coins[i]!, 277647);
    assert.ok(result.ok, `tx ${i}`);
    if (result.ok) fees += result.fee;
  });
  assert.equal(fees, 4_737_355n);
  expectOk(checkCoinbaseAmount(block277647.transactions[0]!, fees, 277647, main), 'coinbase amount');
  const tooMuch = checkCoinbaseAmount(block277647.transactions[0]!, fees - 1n, 277647, main);
  expectFailure(tooMuch, 'bad-cb-amount');
  assert.equal(!tooMuch.ok && tooMuch.debug, 'coinbase pays too much (actual=2504737355 vs limit=2504737354)');
});

test('CVE-2012-2459: duplicating the last transactions keeps the root and is reported as mutated', () => {
  const txs = block277647.transactions;
  assert.equal(txs.length % 2, 1);
  const duplicated: Block = { header: block277647.header, transactions: [...txs, txs[txs.length - 1]!] };
  const result = checkBlock(duplicated, main);
  expectFailure(result, 'bad-txns-duplicate', true);
  assert.equal(!result.ok && result.debug, 'duplicate transaction');
  assert.equal(isBlockMutated(duplicated, false), true);
  const swapped: Block = { header: block277647.header, transactions: [txs[0]!, txs[2]!, txs[1]!, ...txs.slice(3)] };
  expectFailure(checkBlock(swapped, main), 'bad-txnmrklroot', true);
});

test('CheckTransaction finds a duplicated input at any place, in short input lists (compared pairwise) and long ones (keyed)', () => {
  const spend = mainnetBlocks[170]!.transactions[1]!;
  const input = (n: number, vout = 0) => ({ ...spend.inputs[0]!, prevout: { txid: Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : i)), vout } });
  const withInputs = (inputs: TxIn[]) => new Transaction({ version: 1, inputs, outputs: spend.outputs, locktime: 0 });
  let checked = 0;
  for (const count of [2, 3, 15, 16, 17, 40]) {
    const distinct = Array.from({ length: count }, (_, i) => input(i));
    assert.equal(checkTransaction(withInputs(distinct)), null, `${count} distinct inputs`);
    // Same txid, another output: not a duplicate.
    assert.equal(checkTransaction(withInputs([...distinct.slice(1), input(0, 1)])), null);
    for (const [at, copyOf] of [[count - 1, 0], [count - 1, count - 2], [1, 0], [Math.floor(count / 2), count - 1]] as const) {
      if (at === copyOf) continue;
      const inputs = [...distinct];
      inputs[at] = input(copyOf);
      assert.equal(checkTransaction(withInputs(inputs)), 'bad-txns-inputs-duplicate', `${count} inputs, ${at} repeats ${copyOf}`);
      checked++;
    }
  }
  assert.equal(checked, 23);
});

test('CheckBlock: header work, coinbase placement, size, transaction checks, sigops', () => {
  const genesis = main.genesis;
  const easier = new BlockHeader({ ...genesis.header, bits: 0x1b00ffff });
  expectFailure(checkBlockHeader(easier, main), 'high-hash');
  expectFailure(checkBlock({ header: easier, transactions: genesis.transactions }, main), 'high-hash');

  const block170 = mainnetBlocks[170]!;
  const [cb, spend] = block170.transactions as [Transaction, Transaction];
  const noPow = { checkPow: false };
  expectFailure(checkBlock(withTransactions(block170, [spend]), main, noPow), 'bad-cb-missing');
  expectFailure(checkBlock(withTransactions(block170, [cb, spend, mainnetBlocks[9]!.transactions[0]!]), main, noPow), 'bad-cb-multiple');
  expectFailure(checkBlock(withTransactions(block170, []), main, noPow), 'bad-blk-length');

  const doubleSpend = new Transaction({ version: 1, inputs: [spend.inputs[0]!, spend.inputs[0]!], outputs: spend.outputs, locktime: 0 });
  const dup = checkBlock(withTransactions(block170, [cb, doubleSpend]), main, noPow);
  expectFailure(dup, 'bad-txns-inputs-duplicate');
  assert.equal(!dup.ok && dup.debug, `Transaction check failed (tx hash ${doubleSpend.txidHex}) `);

  const huge = new Transaction({ version: 1, inputs: cb.inputs, outputs: [{ value: 0n, scriptPubKey: new Uint8Array(1_000_000) }], locktime: 0 });
  expectFailure(checkBlock(withTransactions(block170, [huge]), main, noPow), 'bad-blk-length');

  // 20,001 OP_CHECKSIG: 80,004 legacy sigop cost.
  const sigops = new Transaction({ version: 1, inputs: cb.inputs, outputs: [{ value: 0n, scriptPubKey: new Uint8Array(20_001).fill(0xac) }], locktime: 0 });
  expectFailure(checkBlock(withTransactions(block170, [sigops]), main, noPow), 'bad-blk-sigops');
  const limit = new Transaction({ version: 1, inputs: cb.inputs, outputs: [{ value: 0n, scriptPubKey: new Uint8Array(20_000).fill(0xac) }], locktime: 0 });
  expectOk(checkBlock(withTransactions(block170, [limit]), main, noPow), 'exactly at the sigop limit');
});

/** A regtest chain of `count` empty blocks ten minutes apart (synthetic headers). */
function regtestChain(params: ChainParams, count: number): TestIndex {
  const genesis = indexHeader(params.genesis.header, undefined);
  return extend(genesis, count, (h) => ({ time: params.genesis.header.time + h * 600, bits: 0x207fffff }));
}

test('ContextualCheckBlockHeader: bits, time too old or too new, obsolete versions', () => {
  const params = selectParams('regtest');
  const prev = regtestChain(params, 20);
  const good = { version: 0x20000000, time: prev.time + 600, bits: 0x207fffff };
  expectOk(contextualCheckBlockHeader(good, prev, params, NOW), 'good header');
  expectFailure(contextualCheckBlockHeader({ ...good, bits: 0x1d00ffff }, prev, params, NOW), 'bad-diffbits');
  expectFailure(contextualCheckBlockHeader({ ...good, time: prev.medianTimePast() }, prev, params, NOW), 'time-too-old');
  expectOk(contextualCheckBlockHeader({ ...good, time: prev.medianTimePast() + 1 }, prev, params, NOW), 'one second after MTP');
  const future = contextualCheckBlockHeader({ ...good, time: NOW + 7201 }, prev, params, NOW);
  expectFailure(future, 'time-too-new');
  assert.equal(!future.ok && future.result, 'time-future');
  expectOk(contextualCheckBlockHeader({ ...good, time: NOW + 7200 }, prev, params, NOW), 'two hours ahead');
  const v1 = contextualCheckBlockHeader({ ...good, version: 1 }, prev, params, NOW);
  expectFailure(v1, 'bad-version(0x00000001)');
  assert.equal(!v1.ok && v1.debug, 'rejected nVersion=0x00000001 block');
  expectFailure(contextualCheckBlockHeader({ ...good, version: 3 }, prev, params, NOW), 'bad-version(0x00000003)');
  expectFailure(contextualCheckBlockHeader({ ...good, version: -1 }, prev, params, NOW), 'bad-version(0xffffffff)');
  // Before the buried heights old versions are fine (regtest with late activations).
  const late = selectParams('regtest', { testActivationHeights: { bip34: 100, dersig: 100, cltv: 100 } });
  expectOk(contextualCheckBlockHeader({ ...good, version: 1 }, regtestChain(late, 20), late, NOW), 'version 1 before BIP34');
});

test('BIP94 timewarp rule on retarget blocks (testnet4, regtest -test=bip94)', () => {
  const bip94 = selectParams('regtest', { enforceBip94: true });
  const prev = regtestChain(bip94, 143); // the next block, 144, starts a period
  const header = { version: 0x20000000, time: prev.time - 601, bits: 0x207fffff };
  expectFailure(contextualCheckBlockHeader(header, prev, bip94, NOW), 'time-timewarp-attack');
  expectOk(contextualCheckBlockHeader({ ...header, time: prev.time - 600 }, prev, bip94, NOW), 'exactly MAX_TIMEWARP earlier');
  expectOk(contextualCheckBlockHeader(header, prev, selectParams('regtest'), NOW), 'no BIP94 on plain regtest');
  // Off a boundary the rule does not apply.
  expectOk(contextualCheckBlockHeader(header, prev.prev!, bip94, NOW), 'mid-period block');

  const t4 = selectParams('testnet4');
  const t4prev = extend(indexHeader(t4.genesis.header, undefined), 2015, (h) => ({ time: t4.genesis.header.time + h * 600, bits: 0x1d00ffff }));
  const t4header = { version: 0x20000000, time: t4prev.time - 601, bits: getNextWorkRequired(t4prev, t4prev.time - 601, t4) };
  expectFailure(contextualCheckBlockHeader(t4header, t4prev, t4, NOW), 'time-timewarp-attack');
});

test('ContextualCheckBlock: finality with the BIP113 cutoff, BIP34 height, witness commitment, weight', () => {
  const params = selectParams('regtest');
  const prev = regtestChain(params, 20);
  const height = 21;
  const time = prev.time + 600;
  const mine = (txs: Transaction[]): Block => mineBlock(prev.hash, txs, { time, bits: 0x207fffff }, params);

  expectOk(contextualCheckBlock(mine(withWitnessCommitment([coinbaseTx(height, 50n)])), prev, params), 'coinbase with commitment');
  expectOk(contextualCheckBlock(mine([coinbaseTx(height, 50n)]), prev, params), 'no commitment, no witness');
  expectFailure(contextualCheckBlock(mine([coinbaseTx(height + 1, 50n)]), prev, params), 'bad-cb-height');

  // A time lock between the parent's MTP and the block's time: final by block time, not by MTP (CSV active).
  const locked = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: new Uint8Array(32).fill(1), vout: 0 }, scriptSig: Uint8Array.of(0x51), sequence: 0xfffffffe, witness: [] }],
    outputs: [{ value: 1n, scriptPubKey: Uint8Array.of(0x51) }],
    locktime: prev.medianTimePast(),
  });
  assert.ok(locked.locktime < time);
  const lockedBlock = mine([coinbaseTx(height, 50n), locked]);
  expectFailure(contextualCheckBlock(lockedBlock, prev, params), 'bad-txns-nonfinal');
  const noCsv = selectParams('regtest', { testActivationHeights: { csv: 1000 } });
  expectOk(contextualCheckBlock(lockedBlock, prev, noCsv), 'nLockTime against block time before CSV');

  // Witness data: committed correctly, wrongly, with a bad reserved value, or without a commitment.
  const spend = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: new Uint8Array(32).fill(2), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [Uint8Array.of(1, 2, 3)] }],
    outputs: [{ value: 1n, scriptPubKey: Uint8Array.of(0x51) }],
    locktime: 0,
  });
  const committed = withWitnessCommitment([coinbaseTx(height, 50n), spend]);
  expectOk(contextualCheckBlock(mine(committed), prev, params), 'committed witness');
  const other = new Transaction({ ...spend, inputs: [{ ...spend.inputs[0]!, witness: [Uint8Array.of(9)] }] });
  expectFailure(contextualCheckBlock(mine([committed[0]!, other]), prev, params), 'bad-witness-merkle-match', true);
  const shortReserved = new Transaction({ ...committed[0]!, inputs: [{ ...committed[0]!.inputs[0]!, witness: [new Uint8Array(31)] }] });
  expectFailure(contextualCheckBlock(mine([shortReserved, spend]), prev, params), 'bad-witness-nonce-size', true);
  expectFailure(contextualCheckBlock(mine([coinbaseTx(height, 50n), spend]), prev, params), 'unexpected-witness', true);
  const preSegwit = selectParams('regtest', { testActivationHeights: { segwit: 1000 } });
  expectFailure(contextualCheckBlock(mine(committed), prev, preSegwit), 'unexpected-witness', true);

  // Weight: a 4 MB witness stays under the stripped-size limit but not under the weight limit.
  const heavy = new Transaction({ ...spend, inputs: [{ ...spend.inputs[0]!, witness: [new Uint8Array(4_000_000)] }] });
  const heavyBlock = mine(withWitnessCommitment([coinbaseTx(height, 50n), heavy]));
  expectOk(checkBlock(heavyBlock, params), 'CheckBlock ignores witness size');
  assert.ok(blockWeight(heavyBlock) > 4_000_000);
  expectFailure(contextualCheckBlock(heavyBlock, prev, params), 'bad-blk-weight');
});

// The first default-signet blocks, as in Core's feature_signet.py (height 1 and a later one).
const SIGNET_HEX = [
  '00000020f61eee3b63a380a477a063af32b2bbc97c9ff9f01f2c4225e973988108000000f575c83235984e7dc4afc1f30944c170462e84437ab6f2d52e16878a79e4678bd1914d5fae77031eccf4070001010000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff025151feffffff0200f2052a010000001600149243f727dd5343293eb83174324019ec16c2630f0000000000000000776a24aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf94c4fecc7daa2490047304402205e423a8754336ca99dbe16509b877ef1bf98d008836c725005b3c787c41ebe46022047246e4467ad7cc7f1ad98662afcaf14c115e0095a227c7b05c5182591c23e7e01000120000000000000000000000000000000000000000000000000000000000000000000000000',
  '00000020a868e8514be5e46dabd6a122132f423f36a43b716a40c394e2a8d063e1010000f4c6c717e99d800c699c25a2006a75a0c5c09f432a936f385e6fce139cdbd1a5e9964d5fae77031e7d026e0001010000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff025a51feffffff0200f2052a01000000160014aaa671c82b138e3b8f510cd801e5f2bd0aa305940000000000000000776a24aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf94c4fecc7daa24900473044022042309f4c3c7a1a2ac8c24f890f962df1c0086cec10be0868087cfc427520cb2702201dafee8911c269b7e786e242045bb57cef3f5b0f177010c6159abae42f646cc501000120000000000000000000000000000000000000000000000000000000000000000000000000',
];
const SIGNET_BLOCKS = SIGNET_HEX.map((hex) => parseBlock(fromHex(hex)));

test('signet: real block solutions verify against the default challenge only', () => {
  const signet = selectParams('signet');
  for (const block of SIGNET_BLOCKS) expectOk(checkBlock(block, signet), `signet block ${block.header.hashHex}`);
  const genesis = indexHeader(signet.genesis.header, undefined);
  expectOk(contextualCheckBlockHeader(SIGNET_BLOCKS[0]!.header, genesis, signet, NOW), 'signet block 1 header');
  expectOk(contextualCheckBlock(SIGNET_BLOCKS[0]!, genesis, signet), 'signet block 1');
  expectOk(checkBlock(signet.genesis, signet), 'signet genesis needs no solution');

  // Core's 2-of-2 variant of the same keys rejects the 1-of-2 solution.
  const twoOfTwo = selectParams('signet', {
    signetChallenge: fromHex('522103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae'),
  });
  const rejected = checkBlock(SIGNET_BLOCKS[0]!, twoOfTwo);
  expectFailure(rejected, 'bad-signet-blksig');
  assert.equal(!rejected.ok && rejected.debug, 'signet block signature validation failure');
  // A tampered signature fails; skipping proof of work skips the solution too.
  // A tampered signature fails the solution; the commitment output changed, so the merkle root fails too.
  const tampered = parseBlock(fromHex(SIGNET_HEX[0]!.replace('5e423a8754336ca9', '5e423a8754336caa')));
  expectFailure(checkBlock(tampered, signet), 'bad-signet-blksig');
  expectFailure(checkBlock(tampered, signet, { checkPow: false }), 'bad-txnmrklroot', true);
  // OP_TRUE needs no solution at all, but the block must still carry a witness commitment.
  const opTrue = selectParams('signet', { signetChallenge: Uint8Array.of(0x51) });
  expectOk(checkBlock(SIGNET_BLOCKS[0]!, opTrue), 'OP_TRUE challenge');
});
