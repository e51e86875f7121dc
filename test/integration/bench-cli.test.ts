/**
 * bin/tsbtcd-bench verify-block, run as a real process: mainnet block 277,647 against the
 * coins it spends, the mutations it must reject (each written to a temporary file), what a
 * prevouts file without heights leaves unchecked, a regtest block with segwit spends whose
 * signature is broken and the block re-mined, and usage errors.
 *
 * What is true of a mainnet block, and asserted as such: flipping a signature byte changes
 * the txid, so the block fails its merkle root (or, with the root recomputed, its proof of
 * work) before any script runs; the legacy sighash does not commit to amounts, so a raised
 * amount on a P2PKH input is invisible (more fees, a coinbase claiming less than allowed)
 * and a lowered one is caught only by value checks.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import type { PrevoutRecord } from '../../src/chain/index.js';
import { blockSubsidy, selectParams } from '../../src/consensus/index.js';
import { addWitnessCommitment, createCoinbase, solveBlock } from '../../src/mining/index.js';
import type { VerifyBlockReport } from '../../src/node/bench-cli.js';
import {
  blockMerkleRoot,
  BlockHeader,
  fromHex,
  hashToHex,
  parseBlock,
  serializeBlock,
  toHex,
  Transaction,
  type Block,
} from '../../src/primitives/index.js';
import { flipScriptSigSignature, withInput } from '../support/mutate.js';
import { signedSpend, spendKey } from '../support/spends.js';
import { readVectorJson, readVectorText, vectorPath } from '../support/vectors.js';

const BENCH = fileURLToPath(new URL('../../../bin/tsbtcd-bench', import.meta.url));
const BLOCK = vectorPath('block277647.hex');
const PREVOUTS = vectorPath('block277647-prevouts.json');
const INPUTS = 732;

/** A prevouts-file entry; the vector also says whether the coin was created in the same block. */
type Entry = PrevoutRecord & { sameBlock?: boolean };

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-bench-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function tempFile(name: string, content: string): string {
  const path = join(dir, `${fileCount++}-${name}`);
  writeFileSync(path, content);
  return path;
}

function bench(...args: string[]): Run {
  const run = spawnSync(BENCH, args, { encoding: 'utf8', timeout: 120_000 });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Runs verify-block and parses its single output line; `status` is the expected exit code. */
function verify(block: string, prevouts: string, status: number, ...extra: string[]): VerifyBlockReport {
  const run = bench('verify-block', '--block', block, '--prevouts', prevouts, ...extra);
  assert.equal(run.status, status, `exit code (stderr: ${run.stderr})`);
  assert.equal(run.stderr, '');
  const lines = run.stdout.split('\n');
  assert.equal(lines.length, 2, 'one line of JSON, newline-terminated');
  assert.equal(lines[1], '');
  const report = JSON.parse(lines[0]!) as VerifyBlockReport;
  assert.deepEqual(Object.keys(report).slice(0, 7), ['valid', 'error', 'inputs', 'seconds', 'inputsPerSecond', 'workers', 'signatureBackend']);
  assert.ok(report.seconds >= 0);
  return report;
}

function records(): Entry[] {
  return readVectorJson<Entry[]>('block277647-prevouts.json');
}

function prevoutsFile(name: string, list: readonly Entry[]): string {
  return tempFile(`${name}.json`, JSON.stringify(list));
}

const block277647 = () => parseBlock(fromHex(readVectorText('block277647.hex').trim()));

function valueOut(tx: Transaction): bigint {
  return tx.outputs.reduce((sum, out) => sum + out.value, 0n);
}

/** A single-input transaction spending a coin from an earlier block, and its entry. */
function singleInputTarget(): { record: Entry; at: number; tx: Transaction; fee: bigint } {
  const list = records();
  const block = block277647();
  for (let at = 0; at < list.length; at++) {
    const r = list[at]!;
    const tx = block.transactions[r.tx]!;
    const fee = BigInt(r.value) - valueOut(tx);
    if (tx.inputs.length === 1 && !r.sameBlock && fee > 0n) return { record: r, at, tx, fee };
  }
  throw new Error('no single-input transaction with a fee');
}

test(`block 277647 is valid: ${INPUTS} inputs, every script checked inline (--par 1)`, () => {
  const report = verify(BLOCK, PREVOUTS, 0, '--par', '1');
  assert.equal(report.valid, true);
  assert.equal(report.error, null);
  assert.equal(report.inputs, INPUTS);
  assert.equal(report.workers, 1);
  assert.ok(report.seconds > 0);
  assert.ok(Math.abs(report.inputsPerSecond - INPUTS / report.seconds) <= 0.1 + INPUTS / report.seconds / 1e4);
  // Every prevout has its height and coinbase flag: maturity is checked.
  for (const reason of report.skipped ?? []) assert.doesNotMatch(reason, /maturity/);
});

test('block 277647 is valid through a pool of 2 worker threads, with --chain main and --height given', () => {
  const report = verify(BLOCK, PREVOUTS, 0, '--par', '2', '--chain', 'main', '--height', '277647');
  assert.equal(report.valid, true);
  assert.equal(report.inputs, INPUTS);
  assert.equal(report.workers, 2);
});

test('verify-block says which signature backend it used: native by default, noble on request', () => {
  assert.equal(verify(BLOCK, PREVOUTS, 0, '--par', '2').signatureBackend, 'libsecp256k1 (native)');
  const noble = verify(BLOCK, PREVOUTS, 0, '--par', '2', '--sigbackend', 'noble');
  assert.equal(noble.signatureBackend, '@noble/secp256k1');
  assert.equal(noble.valid, true);
  assert.equal(noble.inputs, INPUTS);
});

test('a block file without a final newline, or with CRLF and spaces around the hex, reads the same', () => {
  const hex = readVectorText('block277647.hex').trim();
  for (const text of [hex, `  ${hex}\r\n\r\n`]) {
    const file = tempFile('block.hex', text);
    // A bogus --height keeps this cheap: the BIP34 height in the coinbase no longer matches,
    // so the block fails the contextual checks before any script runs.
    const report = verify(file, PREVOUTS, 1, '--par', '1', '--height', '630000');
    assert.equal(report.error, 'bad-cb-height');
  }
});

test('a flipped signature byte changes the txid: the block fails its merkle root, or with the root recomputed its proof of work', () => {
  const block = block277647();
  const target = records().find((r) => r.input > 0 && !r.sameBlock)!;
  const txs = block.transactions.slice();
  txs[target.tx] = withInput(txs[target.tx]!, target.input, (input) => ({ ...input, scriptSig: flipScriptSigSignature(input.scriptSig) }));
  const stale: Block = { header: block.header, transactions: txs };
  const report = verify(tempFile('flipped.hex', toHex(serializeBlock(stale))), PREVOUTS, 1, '--par', '1');
  assert.equal(report.valid, false);
  assert.equal(report.error, 'bad-txnmrklroot');

  const h = block.header;
  const header = new BlockHeader({ version: h.version, prevHash: h.prevHash, merkleRoot: blockMerkleRoot(stale).root, time: h.time, bits: h.bits, nonce: h.nonce });
  const remerkled = verify(tempFile('remerkled.hex', toHex(serializeBlock({ header, transactions: txs }))), PREVOUTS, 1, '--par', '1');
  assert.equal(remerkled.error, 'high-hash');
});

test('a spent script the signature does not commit to fails that input, named by tx and input', () => {
  // OP_NOP before the P2PKH script: the key hash still matches, but the legacy sighash covers
  // the whole scriptCode, so the signature no longer verifies (CHECKSIG leaves false).
  const list = records();
  const at = list.findIndex((r) => r.input > 0 && !r.sameBlock);
  const r = list[at]!;
  list[at] = { ...r, scriptPubKey: `61${r.scriptPubKey}` };
  for (const par of ['1', '2']) {
    const report = verify(BLOCK, prevoutsFile('nop-prefixed', list), 1, '--par', par);
    assert.equal(report.valid, false);
    assert.equal(report.error, `block-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element), tx ${r.tx} input ${r.input}`);
  }
});

test('a prevout amount lowered below the outputs: bad-txns-in-belowout', () => {
  const { record, at, tx } = singleInputTarget();
  const list = records();
  list[at] = { ...record, value: Number(valueOut(tx) - 1n) };
  const report = verify(BLOCK, prevoutsFile('below-out', list), 1, '--par', '1');
  assert.equal(report.valid, false);
  assert.equal(report.error, 'bad-txns-in-belowout');
});

test('a prevout amount lowered by 1 sat: fees fall short of what the coinbase claims (bad-cb-amount)', () => {
  const { record, at, fee } = singleInputTarget();
  assert.ok(fee > 1n);
  const list = records();
  list[at] = { ...record, value: Number(BigInt(record.value) - 1n) };
  const report = verify(BLOCK, prevoutsFile('one-sat-less', list), 1, '--par', '1');
  assert.equal(report.error, 'bad-cb-amount');
});

test('a prevout amount raised on a P2PKH input goes unnoticed (the legacy sighash does not commit to it); past MAX_MONEY it is out of range', () => {
  const { record, at } = singleInputTarget();
  const list = records();
  list[at] = { ...record, value: Number(BigInt(record.value) + 100_000_000n) };
  const raised = verify(BLOCK, prevoutsFile('raised', list), 0, '--par', '2');
  assert.equal(raised.valid, true);
  assert.equal(raised.inputs, INPUTS);

  list[at] = { ...record, value: '2100000000000001' };
  const huge = verify(BLOCK, prevoutsFile('past-max-money', list), 1, '--par', '1');
  assert.equal(huge.error, 'bad-txns-inputvalues-outofrange');
});

test('a prevout missing from the file, or naming another outpoint: bad-txns-inputs-missingorspent', () => {
  const list = records();
  const at = list.findIndex((r) => !r.sameBlock && r.tx > 5);
  const missing = verify(BLOCK, prevoutsFile('missing', list.filter((_, i) => i !== at)), 1, '--par', '1');
  assert.equal(missing.valid, false);
  assert.equal(missing.error, 'bad-txns-inputs-missingorspent');

  const r = list[at]!;
  list[at] = { ...r, vout: r.vout + 1 };
  const other = verify(BLOCK, prevoutsFile('other-outpoint', list), 1, '--par', '1');
  assert.equal(other.error, 'bad-txns-inputs-missingorspent');
});

test('prevouts with null or absent height and coinbase: valid, every script checked, maturity reported as skipped', () => {
  const list = records().map((r, i) => {
    if (i % 2 === 0) return { ...r, height: null, coinbase: null };
    const { height: _h, coinbase: _c, ...rest } = r;
    return rest;
  });
  const report = verify(BLOCK, prevoutsFile('no-heights', list), 0, '--par', '2');
  assert.equal(report.valid, true);
  assert.equal(report.inputs, INPUTS);
  assert.ok(report.skipped?.some((reason) => /maturity/.test(reason)), `skipped: ${JSON.stringify(report.skipped)}`);
});

// ------------------------------------------------------------------ regtest, segwit spends

const REGTEST = selectParams('regtest');
const HEIGHT = 200;

/** A solved regtest block at HEIGHT holding `txs` after a coinbase claiming subsidy + fees. */
function regtestBlock(txs: readonly Transaction[], fees: bigint): Block {
  const payout = spendKey('p2wpkh', 99).scriptPubKey;
  const coinbase = createCoinbase(HEIGHT, payout, blockSubsidy(HEIGHT, REGTEST) + fees);
  const draft: Block = {
    header: new BlockHeader({ version: 0x20000000, prevHash: new Uint8Array(32).fill(7), merkleRoot: new Uint8Array(32), time: 1_700_000_000, bits: 0x207fffff, nonce: 0 }),
    transactions: [coinbase, ...txs],
  };
  const transactions = addWitnessCommitment(draft);
  const h = draft.header;
  const header = new BlockHeader({ version: h.version, prevHash: h.prevHash, merkleRoot: blockMerkleRoot({ header: h, transactions }).root, time: h.time, bits: h.bits, nonce: 0 });
  const solved = solveBlock({ header, transactions }, REGTEST, { remaining: 1_000_000 });
  if (!solved) throw new Error('could not solve a regtest block');
  return solved;
}

function segwitFixture() {
  const spends = [
    signedSpend([spendKey('p2wpkh', 1), spendKey('p2tr', 2)], [150_000n, 250_000n], 1),
    signedSpend([spendKey('p2tr', 3), spendKey('p2wpkh', 4), spendKey('p2tr', 5)], [90_000n, 80_000n, 70_000n], 2),
  ];
  const list: Entry[] = spends.flatMap((spend, t) =>
    spend.tx.inputs.map((input, i) => ({
      tx: t + 1,
      input: i,
      txid: hashToHex(input.prevout.txid),
      vout: input.prevout.vout,
      value: Number(spend.spentOutputs[i]!.value),
      scriptPubKey: toHex(spend.spentOutputs[i]!.scriptPubKey),
      height: 50,
      coinbase: false,
    })),
  );
  const fees = spends.reduce((sum, s) => sum + s.spentOutputs.reduce((a, o) => a + o.value, 0n) - valueOut(s.tx), 0n);
  return { txs: spends.map((s) => s.tx), prevouts: prevoutsFile('segwit', list), fees, inputs: list.length };
}

test('regtest: a block of P2WPKH and P2TR key-path spends is valid with --chain regtest', () => {
  const { txs, prevouts, fees, inputs } = segwitFixture();
  const file = tempFile('segwit.hex', `${toHex(serializeBlock(regtestBlock(txs, fees)))}\n`);
  const report = verify(file, prevouts, 0, '--chain', 'regtest', '--par', '2');
  assert.equal(report.valid, true);
  assert.equal(report.inputs, inputs);
  // The same block under mainnet rules fails on its proof of work (regtest difficulty).
  assert.equal(verify(file, prevouts, 1, '--par', '1').error, 'high-hash');
});

test('regtest: a flipped signature byte, block re-committed and re-mined, fails that input by tx and input', () => {
  const { txs, prevouts, fees } = segwitFixture();
  const cases = [
    // P2WPKH (ECDSA): CHECKSIG leaves false; NULLFAIL is policy, not a block rule.
    { tx: 1, input: 0, error: 'Script evaluated without error but finished with a false/empty top stack element' },
    // P2TR key path (BIP340 Schnorr).
    { tx: 2, input: 2, error: 'Invalid Schnorr signature' },
  ];
  for (const c of cases) {
    const mutated = txs.slice();
    mutated[c.tx - 1] = withInput(txs[c.tx - 1]!, c.input, (input) => {
      const signature = input.witness[0]!.slice();
      signature[10] = signature[10]! ^ 0x01;
      return { ...input, witness: [signature, ...input.witness.slice(1)] };
    });
    const file = tempFile('segwit-flipped.hex', toHex(serializeBlock(regtestBlock(mutated, fees))));
    for (const par of ['1', '2']) {
      const report = verify(file, prevouts, 1, '--chain', 'regtest', '--par', par);
      assert.equal(report.valid, false);
      assert.equal(report.error, `block-script-verify-flag-failed (${c.error}), tx ${c.tx} input ${c.input}`);
    }
  }
});

test(
  'regtest: a block whose witness commitment does not match its witnesses is rejected (bad-witness-merkle-match)',
  () => {
    const { txs, prevouts, fees } = segwitFixture();
    const block = regtestBlock(txs, fees);
    // Another witness for input 0 of tx 1 (a valid-looking but different signature): the
    // txids, the merkle root and the proof of work stay, the commitment no longer holds.
    const transactions = block.transactions.slice();
    transactions[1] = withInput(transactions[1]!, 0, (input) => ({ ...input, witness: [input.witness[0]!.slice(0, -1), ...input.witness.slice(1)] }));
    const report = verify(tempFile('bad-commitment.hex', toHex(serializeBlock({ header: block.header, transactions }))), prevouts, 1, '--chain', 'regtest', '--par', '1');
    assert.equal(report.error, 'bad-witness-merkle-match');
  },
);

// ------------------------------------------------------------------ usage errors

function usageError(args: string[], message: RegExp): void {
  const run = bench(...args);
  assert.equal(run.status, 2, `exit code for ${args.join(' ')}`);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, message);
  assert.match(run.stderr, /Usage: tsbtcd-bench verify-block/);
}

test('usage errors exit 2 with the fault on stderr and nothing on stdout', () => {
  const notJson = tempFile('not.json', '{"tx": 1');
  const notArray = tempFile('object.json', '{"tx": 1}');
  const badEntry = tempFile('bad-entry.json', JSON.stringify([{ ...records()[0], value: 1.5 }]));
  const notHex = tempFile('not-hex.hex', 'hello\n');
  const notBlock = tempFile('short.hex', '0100000000\n');
  usageError([], /no command given/);
  usageError(['verify'], /unknown command "verify"/);
  usageError(['verify-block', '--prevouts', PREVOUTS], /needs --block/);
  usageError(['verify-block', '--block', BLOCK], /needs --prevouts/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, '--par', '0'], /--par must be between 1 and/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, '--par', 'two'], /--par needs a whole number/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, '--height', '-1'], /--height/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, '--chain', 'testnet'], /unknown --chain "testnet"/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, '--sigbackend', 'openssl'], /unknown --sigbackend "openssl" \(one of native, noble\)/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, '--frobnicate'], /Unknown option '--frobnicate'/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', PREVOUTS, 'extra'], /unexpected argument "extra"/);
  usageError(['verify-block', '--block', join(dir, 'absent.hex'), '--prevouts', PREVOUTS], /cannot read the block file/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', join(dir, 'absent.json')], /cannot read the prevouts file/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', notJson], /is not JSON/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', notArray], /JSON array/);
  usageError(['verify-block', '--block', BLOCK, '--prevouts', badEntry], /entry 0 needs "value"/);
  usageError(['verify-block', '--block', notHex, '--prevouts', PREVOUTS], /not one hex string/);
  usageError(['verify-block', '--block', notBlock, '--prevouts', PREVOUTS], /does not hold a block/);
});

test('--help prints the usage and exits 0', () => {
  const run = bench('--help');
  assert.equal(run.status, 0);
  assert.match(run.stdout, /^Usage: tsbtcd-bench verify-block/);
  assert.match(run.stdout, /inputsPerSecond/);
});
