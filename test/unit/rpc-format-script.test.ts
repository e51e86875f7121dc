/**
 * Script objects (rpc-results.md §0.4–§0.8, §7): the scriptPubKey object's key order and
 * address rules, scriptSig sighash decoding, and every decodescript rule for p2sh and
 * segwit (the appendix samples are checked byte for byte in rpc-format-golden).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex, Transaction } from '../../src/primitives/index.js';
import { RPC_INVALID_PARAMETER, RpcError } from '../../src/rpc/errors.js';
import { writeJson } from '../../src/rpc/json.js';
import { decodeRawTransaction, decodeScriptHex, hasValidOps, scriptPubKeyJson, scriptSigJson } from '../../src/rpc/format/index.js';

const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const G_UNCOMPRESSED =
  '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const G2 = '02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5';
const SIG = '3006020101020101';

function decoded(hex: string): any {
  return JSON.parse(writeJson(decodeScriptHex(hex, 'regtest')));
}

test('scriptPubKey objects: asm, desc, hex, address?, type; no address for pubkey, multisig, nulldata, nonstandard', () => {
  const cases: [string, string, boolean][] = [
    [`21${G}ac`, 'pubkey', false],
    [`5121${G}21${G2}52ae`, 'multisig', false],
    ['6a04deadbeef', 'nulldata', false],
    ['ac', 'nonstandard', false],
    ['', 'nonstandard', false],
    [`76a914${'11'.repeat(20)}88ac`, 'pubkeyhash', true],
    [`a914${'11'.repeat(20)}87`, 'scripthash', true],
    [`0014${'11'.repeat(20)}`, 'witness_v0_keyhash', true],
    [`0020${'22'.repeat(32)}`, 'witness_v0_scripthash', true],
    [`5120${G.slice(2)}`, 'witness_v1_taproot', true],
    ['51024e73', 'anchor', true],
    [`5210${'33'.repeat(16)}`, 'witness_unknown', true],
  ];
  for (const [hex, type, hasAddress] of cases) {
    const json = scriptPubKeyJson(fromHex(hex), 'regtest');
    assert.deepEqual(Object.keys(json), hasAddress ? ['asm', 'desc', 'hex', 'address', 'type'] : ['asm', 'desc', 'hex', 'type'], hex);
    assert.equal(json.type, type, hex);
    assert.equal(json.hex, hex);
  }
  // The anchor's address on each network.
  assert.equal(scriptPubKeyJson(fromHex('51024e73'), 'main').address, 'bc1pfeessrawgf');
  assert.equal(scriptPubKeyJson(fromHex('51024e73'), 'test').address, 'tb1pfees9rn5nz');
  assert.equal(scriptPubKeyJson(fromHex('51024e73'), 'regtest').address, 'bcrt1pfeesnyr2tx');
  // scriptPubKey asm never decodes sighash types.
  assert.equal(scriptPubKeyJson(fromHex(`09${SIG}01`), 'main').asm, `${SIG}01`);
});

test('scriptSig asm decodes the six defined sighash types of strict DER signatures only', () => {
  // The appendix's cases: the same 8-byte DER signature pushed twice with each hash type byte.
  const names = { '01': '[ALL]', '02': '[NONE]', '03': '[SINGLE]', '81': '[ALL|ANYONECANPAY]', '82': '[NONE|ANYONECANPAY]', '83': '[SINGLE|ANYONECANPAY]' };
  for (const [type, name] of Object.entries(names)) {
    const script = fromHex(`09${SIG}${type}09${SIG}${type}`);
    assert.deepEqual(scriptSigJson(script), { asm: `${SIG}${name} ${SIG}${name}`, hex: toHex(script) });
  }
  for (const type of ['04', '00', '80']) {
    assert.equal(scriptSigJson(fromHex(`09${SIG}${type}09${SIG}${type}`)).asm, `${SIG}${type} ${SIG}${type}`);
  }
  // An unspendable scriptSig is never decoded.
  assert.equal(scriptSigJson(fromHex(`6a09${SIG}01`)).asm, `OP_RETURN ${SIG}01`);
  // Pushes of four bytes or less print as numbers, even when they look like a signature's tail.
  assert.equal(scriptSigJson(fromHex('0401020304')).asm, '67305985');
});

test('decoderawtransaction shows sighash-decoded scriptSigs; decodescript never does', () => {
  const scriptSig = fromHex(`09${SIG}0109${SIG}81`);
  const tx = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: new Uint8Array(32).fill(1), vout: 0 }, scriptSig, sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: 0n, scriptPubKey: fromHex('51') }],
    locktime: 0,
  });
  const json = JSON.parse(writeJson(decodeRawTransaction(toHex(tx.toBytes()), 'regtest')));
  assert.equal(json.vin[0].scriptSig.asm, `${SIG}[ALL] ${SIG}[ALL|ANYONECANPAY]`);
  assert.equal(decoded(toHex(scriptSig)).asm, `${SIG}01 ${SIG}81`);
});

test('decodescript: p2sh only for wrappable types', () => {
  const wrappable = [`21${G}ac`, `76a914${'11'.repeat(20)}88ac`, `5121${G}21${G2}52ae`, 'ac', '', `0014${'11'.repeat(20)}`, `0020${'22'.repeat(32)}`];
  for (const hex of wrappable) assert.equal(typeof decoded(hex).p2sh, 'string', hex);
  const never = [`a914${'11'.repeat(20)}87`, '6a04deadbeef', '6a', `5120${G.slice(2)}`, `5120${'ff'.repeat(32)}`, '51024e73', `5210${'33'.repeat(16)}`];
  for (const hex of never) {
    const json = decoded(hex);
    assert.equal('p2sh' in json || 'segwit' in json, false, hex);
  }
});

test('decodescript: no p2sh for invalid opcodes, oversized pushes, unspendable scripts, OP_CHECKSIGADD or OP_SUCCESSx', () => {
  const cases: [string, string][] = [
    ['ba', 'OP_CHECKSIGADD (above MAX_OPCODE)'],
    ['51ba', 'OP_CHECKSIGADD after a push'],
    ['ff', 'OP_INVALIDOPCODE'],
    ['4c', 'truncated push'],
    ['7e', 'OP_CAT: a valid opcode that is OP_SUCCESS in tapscript'],
    ['50', 'OP_RESERVED: OP_SUCCESS80'],
    ['6aac', 'OP_RETURN followed by a non-push (nonstandard, unspendable)'],
    [`4d0902${'00'.repeat(521)}`, 'a 521-byte push'],
  ];
  for (const [hex, why] of cases) {
    const json = decoded(hex);
    assert.equal(json.type, 'nonstandard', why);
    assert.equal('p2sh' in json, false, why);
  }
  // A 520-byte push is still fine.
  assert.equal(typeof decoded(`4d0802${'00'.repeat(520)}`).p2sh, 'string');
  assert.equal(typeof decoded('b9').p2sh, 'string', 'OP_NOP10 is the last valid opcode');
});

test('decodescript: segwit only for multisig/pubkey with compressed keys, nonstandard and pubkeyhash', () => {
  // P2PKH → P2WPKH of the same hash, desc addr().
  const pkh = decoded(`76a914${'11'.repeat(20)}88ac`);
  assert.equal(pkh.segwit.hex, `0014${'11'.repeat(20)}`);
  assert.deepEqual(Object.keys(pkh.segwit), ['asm', 'desc', 'hex', 'address', 'type', 'p2sh-segwit']);
  // P2PK with a compressed key → P2WPKH of the key's hash.
  assert.equal(decoded(`21${G}ac`).segwit.type, 'witness_v0_keyhash');
  // Uncompressed or hybrid keys cannot go into segwit, in P2PK or in multisig.
  assert.equal('segwit' in decoded(`41${G_UNCOMPRESSED}ac`), false);
  const mixed = decoded(`5141${G_UNCOMPRESSED}21${G2}52ae`);
  assert.equal(mixed.type, 'multisig');
  assert.equal(typeof mixed.p2sh, 'string');
  assert.equal('segwit' in mixed, false);
  // Multisig with compressed keys → P2WSH whose desc shows the script.
  assert.match(decoded(`5121${G}21${G2}52ae`).segwit.desc, /^wsh\(multi\(1,/);
  // Nonstandard → P2WSH with addr() (no miniscript for it).
  assert.match(decoded('ac').segwit.desc, /^addr\(bcrt1q/);
  // Witness programs get p2sh but no segwit.
  assert.equal('segwit' in decoded(`0014${'11'.repeat(20)}`), false);
  assert.equal('segwit' in decoded(`0020${'22'.repeat(32)}`), false);
});

test('decodescript: top level has no hex; empty input is the empty script; non-hex is -8', () => {
  const json = decoded(`76a914${'11'.repeat(20)}88ac`);
  assert.deepEqual(Object.keys(json), ['asm', 'desc', 'address', 'type', 'p2sh', 'segwit']);
  const empty = decoded('');
  assert.equal(empty.asm, '');
  assert.equal(empty.type, 'nonstandard');
  assert.equal(empty.desc, 'raw()#58lrscpx');
  for (const bad of ['zz', 'abc', '0g']) {
    assert.throws(
      () => decodeScriptHex(bad, 'regtest'),
      (err: unknown) => err instanceof RpcError && err.code === RPC_INVALID_PARAMETER && err.message === `argument must be hexadecimal string (not '${bad}')`,
    );
  }
  assert.equal(decoded('AC').asm, 'OP_CHECKSIG');
});

test('hasValidOps (Core CScript::HasValidOps)', () => {
  assert.equal(hasValidOps(new Uint8Array(0)), true);
  assert.equal(hasValidOps(fromHex('00b9')), true);
  assert.equal(hasValidOps(fromHex('ba')), false);
  assert.equal(hasValidOps(fromHex('0201')), false);
  assert.equal(hasValidOps(fromHex(`4d0902${'00'.repeat(521)}`)), false);
});
