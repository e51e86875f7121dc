/**
 * Transaction objects (rpc-results.md §5–§7): decoderawtransaction's witness/legacy
 * heuristics, coinbase inputs, txinwitness omission, amounts with 8 decimals, unsigned
 * 32-bit fields, fee and prevout presence, and getrawtransaction's trailing fields.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Coin } from '../../src/consensus/index.js';
import { fromHex, NULL_OUTPOINT, Transaction, type TxIn, type TxOut } from '../../src/primitives/index.js';
import { RPC_DESERIALIZATION_ERROR, RpcError } from '../../src/rpc/errors.js';
import { writeJson } from '../../src/rpc/json.js';
import { decodeRawTransaction, decodeTxHex, rawTransactionJson, txToJson } from '../../src/rpc/format/index.js';

/** A segwit spend from the appendix (one P2WPKH input, two P2PKH outputs). */
const SEGWIT_TX =
  '02000000000101054ec8d2281fb60d589eba46346989a3f1ef7b9958ce6869b780d69ed183046e0000000000fdffffff02c21a1521010000001976a914ac3e41f4ce534080d3c48145536499116c7f9a3e88ac80d1f008000000001976a9148ed4b4e64dc4995f58db18ee3ff63f99c4963bd288ac0247304402204fc781e2c18e1d0fe8b5b75512ce7ca97898c0d40c493d199d8f4f3f364c396d0220482c3d13796db3d1e2325279b11b8ad3377a8a334d1ea830c5c2ae04be182802012103481f67d447046d7e38f601ac61f5c6d2069e3fc7800a4f39746e6b85e31121636e000000';
/** A legacy P2PKH spend from the appendix. */
const LEGACY_TX =
  '0200000001a24f1ecffdab63a0a310c3eeee8afbf24ea92ca88e123a6975f0c470df672e3c010000006a47304402205f302935be846c99f945d5d22e6d162982e09678ca323a881ba8f4a3d4f49eac02203c256cf7459bb4a9c7fe700995f619199af752e084824ad90a9cc0e0627dff850121028da506774964d522afd0a9948b962fb2bbaa8b9dd07bec09d6b8a654435b0dfbfdffffff0240787d010000000022512092c89000e7ec09e31feacaa3c4fd9bccbd9c505939339fef07485db07106fefcc24f730700000000225120e2b58973d26baf8fcdc2221c6cfe57577a2ebdce142d7778bd63b6c9c6e07b256f000000';
/** No inputs, one 1-BTC P2WPKH output: legacy only (the extended reading runs out of bytes). */
const ZERO_INPUT_TX = `02000000000100e1f50500000000160014${'00'.repeat(20)}00000000`;

/**
 * Bytes that parse both ways: as BIP144, one input with witness ["61"] and one output
 * whose script is OP_CHECKSIGADD (no valid opcode); as legacy, no input and one output
 * whose 47-byte script is all valid operations. `item` replaces the witness item.
 */
function ambiguous(item = '61'): string {
  return `02000000000101${'61'.repeat(7)}2f${'61'.repeat(24)}616161610061616161010000000000000000${'01ba0101'}${item}00000000`;
}

function rpcError(fn: () => unknown, code: number, message: string): void {
  assert.throws(fn, (err: unknown) => err instanceof RpcError && err.code === code && err.message === message);
}

function decoded(hex: string, isWitness?: boolean): any {
  return JSON.parse(writeJson(decodeRawTransaction(hex, 'regtest', isWitness)));
}

function input(fields: Partial<TxIn> = {}): TxIn {
  return { prevout: { txid: new Uint8Array(32).fill(7), vout: 1 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [], ...fields };
}

function output(value: bigint, scriptHex = '51'): TxOut {
  return { value, scriptPubKey: fromHex(scriptHex) };
}

test('decoderawtransaction: segwit and legacy transactions, with and without iswitness', () => {
  const segwit = decoded(SEGWIT_TX);
  assert.equal(segwit.hash !== segwit.txid, true);
  assert.equal(segwit.vin[0].txinwitness.length, 2);
  assert.deepEqual(Object.keys(segwit), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout']);
  assert.deepEqual(decoded(SEGWIT_TX, true), segwit);
  // Read as legacy, the marker is an empty input list and the bytes do not fit.
  rpcError(() => decodeRawTransaction(SEGWIT_TX, 'regtest', false), RPC_DESERIALIZATION_ERROR, 'TX decode failed');

  const legacy = decoded(LEGACY_TX);
  assert.equal(legacy.hash, legacy.txid);
  assert.equal('txinwitness' in legacy.vin[0], false);
  assert.deepEqual(decoded(LEGACY_TX, true), legacy);
  assert.deepEqual(decoded(LEGACY_TX, false), legacy);
});

test('decoderawtransaction: a transaction without inputs is read as legacy', () => {
  const tx = decoded(ZERO_INPUT_TX);
  assert.deepEqual(tx.vin, []);
  assert.equal(tx.vout.length, 1);
  assert.equal(tx.vout[0].value, 1);
  assert.equal(writeJson(decodeRawTransaction(ZERO_INPUT_TX, 'regtest')).includes('"value":1.00000000'), true);
  rpcError(() => decodeRawTransaction(ZERO_INPUT_TX, 'regtest', true), RPC_DESERIALIZATION_ERROR, 'TX decode failed');
});

test('decoderawtransaction: when both readings parse, the one with sane scripts wins, else the extended one', () => {
  const saneLegacy = decodeTxHex(ambiguous())!;
  assert.equal(saneLegacy.inputs.length, 0);
  assert.equal(saneLegacy.outputs[0]!.scriptPubKey.length, 47);
  const forcedExtended = decodeTxHex(ambiguous(), false, true)!;
  assert.equal(forcedExtended.inputs.length, 1);
  assert.equal(forcedExtended.hasWitness, true);
  // With an invalid opcode in the legacy script too, neither is sane: the extended reading.
  const neither = decodeTxHex(ambiguous('ba'))!;
  assert.equal(neither.inputs.length, 1);
  assert.equal(neither.inputs[0]!.witness.length, 1);
});

test('decoderawtransaction: undecodable input is -22 TX decode failed', () => {
  for (const hex of ['00', '', 'zz', '0', `${LEGACY_TX}00`, LEGACY_TX.slice(0, -2)]) {
    rpcError(() => decodeRawTransaction(hex, 'regtest'), RPC_DESERIALIZATION_ERROR, 'TX decode failed');
  }
  // Upper-case hex is hex.
  assert.equal(decoded(LEGACY_TX.toUpperCase()).txid, decoded(LEGACY_TX).txid);
});

test('coinbase inputs: coinbase, txinwitness?, sequence — no txid, vout or scriptSig', () => {
  const legacyCoinbase = new Transaction({
    version: 1,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: fromHex('03a08601'), sequence: 0xffffffff, witness: [] }],
    outputs: [output(5_000_000_000n)],
    locktime: 0,
  });
  const json = txToJson(legacyCoinbase, { chain: 'main', includeHex: false });
  assert.equal(writeJson((json.vin as unknown[])[0]), '{"coinbase":"03a08601","sequence":4294967295}');
  const segwitCoinbase = new Transaction({ ...legacyCoinbase, inputs: [{ ...legacyCoinbase.inputs[0]!, witness: [new Uint8Array(32)] }] });
  assert.equal(
    writeJson((txToJson(segwitCoinbase, { chain: 'main' }).vin as unknown[])[0]),
    `{"coinbase":"03a08601","txinwitness":["${'00'.repeat(32)}"],"sequence":4294967295}`,
  );
  // Undo data is never shown for a coinbase (Core passes none).
  const coin: Coin = { output: output(1n), height: 1, coinbase: false };
  assert.equal('fee' in txToJson(legacyCoinbase, { chain: 'main', undo: [coin], prevouts: true }), false);
});

test('txinwitness only on inputs that have witness items; empty scriptSig prints asm ""', () => {
  const tx = new Transaction({
    version: 2,
    inputs: [input({ witness: [fromHex('aa'), new Uint8Array(0)] }), input({ scriptSig: fromHex('51') })],
    outputs: [output(1n)],
    locktime: 0,
  });
  const vin = JSON.parse(writeJson(txToJson(tx, { chain: 'main' }).vin));
  assert.deepEqual(vin[0], {
    txid: '07'.repeat(32),
    vout: 1,
    scriptSig: { asm: '', hex: '' },
    txinwitness: ['aa', ''],
    sequence: 4294967295,
  });
  assert.deepEqual(Object.keys(vin[1]), ['txid', 'vout', 'scriptSig', 'sequence']);
  assert.deepEqual(vin[1].scriptSig, { asm: '1', hex: '51' });
});

test('amounts print with exactly 8 decimals, also zero, negative and extreme values', () => {
  const values: [bigint, string][] = [
    [0n, '0.00000000'],
    [1n, '0.00000001'],
    [5_000_000_000n, '50.00000000'],
    [2_100_000_000_000_000n, '21000000.00000000'],
    [-1n, '-0.00000001'],
    [-9223372036854775808n, '-92233720368.54775808'],
    [9223372036854775807n, '92233720368.54775807'],
  ];
  const tx = new Transaction({ version: 1, inputs: [input()], outputs: values.map(([v]) => output(v)), locktime: 0 });
  const text = writeJson(txToJson(tx, { chain: 'main' }));
  values.forEach(([, printed], n) => assert.equal(text.includes(`{"value":${printed},"n":${n},`), true, printed));
});

test('version, locktime, sequence and vout print as unsigned 32-bit numbers', () => {
  const tx = new Transaction({
    version: 0xffffffff,
    inputs: [input({ prevout: { txid: new Uint8Array(32), vout: 0xfffffffe }, sequence: 0x80000000 })],
    outputs: [output(0n)],
    locktime: 0xffffffff,
  });
  const json = JSON.parse(writeJson(txToJson(tx, { chain: 'main' })));
  assert.equal(json.version, 4294967295);
  assert.equal(json.locktime, 4294967295);
  assert.equal(json.vin[0].vout, 4294967294);
  assert.equal(json.vin[0].sequence, 2147483648);
});

test('fee after vout with undo data; prevout objects only when asked; blockhash (REST) before hex', () => {
  const spent: Coin = { output: output(10_000n, '0014' + '11'.repeat(20)), height: 5, coinbase: false };
  const tx = new Transaction({ version: 2, inputs: [input()], outputs: [output(9_000n)], locktime: 0 });
  const plain = txToJson(tx, { chain: 'regtest' });
  assert.deepEqual(Object.keys(plain), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'hex']);
  const withFee = txToJson(tx, { chain: 'regtest', undo: [spent], blockhash: 'ab'.repeat(32) });
  assert.deepEqual(Object.keys(withFee), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'fee', 'blockhash', 'hex']);
  assert.equal(writeJson(withFee.fee), '0.00001000');
  assert.equal('prevout' in (withFee.vin as any[])[0], false);
  const withPrevout = txToJson(tx, { chain: 'regtest', undo: [spent], prevouts: true });
  assert.equal(
    writeJson((withPrevout.vin as any[])[0].prevout),
    '{"generated":false,"height":5,"value":0.00010000,"scriptPubKey":{"asm":"0 1111111111111111111111111111111111111111","desc":"addr(bcrt1qzyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3lgth6c)#r4xeeasu","hex":"00141111111111111111111111111111111111111111","address":"bcrt1qzyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3lgth6c","type":"witness_v0_keyhash"}}',
  );
  assert.deepEqual(Object.keys((withPrevout.vin as any[])[0]), ['txid', 'vout', 'scriptSig', 'prevout', 'sequence']);
  assert.throws(() => txToJson(tx, { chain: 'regtest', undo: [] }), /undo data has 0 coins for 1 inputs/);
});

test('getrawtransaction: in_active_chain first; block fields by what is known of the block', () => {
  const tx = new Transaction({ version: 2, inputs: [input()], outputs: [output(1n)], locktime: 0 });
  const hash = 'cd'.repeat(32);
  const keys = (options: Parameters<typeof rawTransactionJson>[1]) => Object.keys(rawTransactionJson(tx, options));
  const body = ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'hex'];
  assert.deepEqual(keys({ chain: 'main' }), body);
  assert.deepEqual(keys({ chain: 'main', inActiveChain: true, block: { hash, index: { confirmations: 3, time: 7 } } }), [
    'in_active_chain',
    ...body,
    'blockhash',
    'confirmations',
    'time',
    'blocktime',
  ]);
  const offChain = rawTransactionJson(tx, { chain: 'main', inActiveChain: false, block: { hash, index: { confirmations: 0 } } });
  assert.deepEqual(Object.keys(offChain), ['in_active_chain', ...body, 'blockhash', 'confirmations']);
  assert.equal(offChain.confirmations, 0);
  assert.deepEqual(keys({ chain: 'main', block: { hash } }), [...body, 'blockhash']);
});
