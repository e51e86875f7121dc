import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/primitives/index.js';
import { parseTestScript, scriptType, solve } from '../../src/script/index.js';

const COMPRESSED = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const UNCOMPRESSED =
  '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const HASH20 = '751e76e8199196d454941c45d1b3a323f1433bd6';
const HASH32 = '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262';

const typeOf = (hex: string): string => scriptType(fromHex(hex));
const typeOfNotation = (text: string): string => scriptType(parseTestScript(text));

test('pay-to-pubkey needs a key whose size matches its header byte', () => {
  const solved = solve(fromHex(`21${COMPRESSED}ac`));
  assert.equal(solved.type, 'pubkey');
  assert.equal(solved.type === 'pubkey' && toHex(solved.pubkey), COMPRESSED);
  assert.equal(typeOf(`41${UNCOMPRESSED}ac`), 'pubkey');
  // A 33-byte push with the uncompressed header, or a 65-byte one with a compressed header.
  assert.equal(typeOf(`2104${COMPRESSED.slice(2)}ac`), 'nonstandard');
  assert.equal(typeOf(`4102${UNCOMPRESSED.slice(2)}ac`), 'nonstandard');
  // Hybrid keys (0x06/0x07) have a valid size.
  assert.equal(typeOf(`4106${UNCOMPRESSED.slice(2)}ac`), 'pubkey');
});

test('hash templates', () => {
  const p2pkh = solve(fromHex(`76a914${HASH20}88ac`));
  assert.equal(p2pkh.type, 'pubkeyhash');
  assert.equal(p2pkh.type === 'pubkeyhash' && toHex(p2pkh.hash), HASH20);
  const p2sh = solve(fromHex(`a914${HASH20}87`));
  assert.equal(p2sh.type === 'scripthash' && toHex(p2sh.hash), HASH20);
  // A P2PKH with a non-minimal push of the hash matches nothing.
  assert.equal(typeOf(`76a94c14${HASH20}88ac`), 'nonstandard');
});

test('witness programs', () => {
  assert.equal(typeOf(`0014${HASH20}`), 'witness_v0_keyhash');
  assert.equal(typeOf(`0020${HASH32}`), 'witness_v0_scripthash');
  assert.equal(typeOf(`5120${HASH32}`), 'witness_v1_taproot');
  assert.equal(typeOf('51024e73'), 'anchor');
  // Version 0 with another program size is nonstandard; other versions are "unknown".
  assert.equal(typeOf(`0015${HASH20}00`), 'nonstandard');
  const unknown = solve(fromHex('6002751e'));
  assert.deepEqual(unknown.type === 'witness_unknown' && [unknown.version, toHex(unknown.program)], [16, '751e']);
  assert.equal(typeOf(`5114${HASH20}`), 'witness_unknown');
  assert.equal(typeOf('51024e74'), 'witness_unknown');
  // A 41-byte program is no witness program at all.
  assert.equal(typeOf(`5229${HASH32}${HASH20.slice(0, 18)}`), 'nonstandard');
});

test('nulldata: OP_RETURN followed by pushes only, any size', () => {
  assert.equal(typeOf('6a'), 'nulldata');
  assert.equal(typeOf('6a0474657374'), 'nulldata');
  assert.equal(typeOf(`6a4d1027${'00'.repeat(10000)}`), 'nulldata');
  assert.equal(typeOf('6a5160'), 'nulldata');
  assert.equal(typeOf('6a76'), 'nonstandard');
  assert.equal(typeOf('6a4c'), 'nonstandard');
});

test('multisig', () => {
  const solved = solve(parseTestScript(`1 0x21 0x${COMPRESSED} 0x41 0x${UNCOMPRESSED} 2 CHECKMULTISIG`));
  assert.equal(solved.type, 'multisig');
  if (solved.type === 'multisig') {
    assert.equal(solved.required, 1);
    assert.deepEqual(solved.pubkeys.map(toHex), [COMPRESSED, UNCOMPRESSED]);
  }
  const key = `0x21 0x${COMPRESSED}`;
  // m may not exceed n, n must equal the number of keys, and m must be at least 1.
  assert.equal(typeOfNotation(`3 ${key} ${key} 2 CHECKMULTISIG`), 'nonstandard');
  assert.equal(typeOfNotation(`1 ${key} ${key} 3 CHECKMULTISIG`), 'nonstandard');
  assert.equal(typeOfNotation(`0 ${key} 1 CHECKMULTISIG`), 'nonstandard');
  assert.equal(typeOfNotation(`1 ${key} 1 CHECKMULTISIG 0`), 'nonstandard');
  assert.equal(typeOfNotation(`1 ${key} 0x01 0x01 CHECKMULTISIG`), 'nonstandard');

  // 17..20 keys: the count is a minimal push of a script number.
  const keys = (n: number): string => Array.from({ length: n }, () => key).join(' ');
  assert.equal(typeOfNotation(`1 ${keys(17)} 17 CHECKMULTISIG`), 'multisig');
  assert.equal(typeOfNotation(`20 ${keys(20)} 20 CHECKMULTISIG`), 'multisig');
  assert.equal(typeOfNotation(`1 ${keys(21)} 21 CHECKMULTISIG`), 'nonstandard');
  assert.equal(typeOfNotation(`1 ${keys(17)} 0x4c 0x01 0x11 CHECKMULTISIG`), 'nonstandard');
  assert.equal(typeOfNotation(`1 ${keys(17)} 0x02 0x1100 CHECKMULTISIG`), 'nonstandard');
});

test('anything else is nonstandard', () => {
  assert.equal(typeOf(''), 'nonstandard');
  assert.equal(typeOf('ae'), 'nonstandard');
  assert.equal(typeOfNotation('DUP HASH160'), 'nonstandard');
});
