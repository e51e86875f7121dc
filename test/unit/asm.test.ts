import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concatBytes, fromHex } from '../../src/primitives/index.js';
import { pushData, scriptToAsm } from '../../src/script/index.js';

const asm = (hex: string, decodeSighash = false): string => scriptToAsm(fromHex(hex), decodeSighash);

// The signature and key of Core's script_GetScriptAsm test.
const DER_SIG =
  '304502207fa7a6d1e0ee81132a269ad84e68d695483745cde8b541e3bf630749894e342a022100c1f7ab20e13e22fb95281a870f3dcf38d782e53023ee313d741ad0cfbc0c5090';
const PUBKEY = '03b0da749730dc9b4b1f4a14d6902877a92541f5368778853d9c4a0cb7802dcfb2';

function scriptSig(hashTypeHex: string): Uint8Array {
  return concatBytes(pushData(fromHex(DER_SIG + hashTypeHex)), pushData(fromHex(PUBKEY)));
}

test('P2PKH scriptSig: sighash decoding names defined hash types only', () => {
  const names: [string, string][] = [
    ['01', '[ALL]'],
    ['02', '[NONE]'],
    ['03', '[SINGLE]'],
    ['81', '[ALL|ANYONECANPAY]'],
    ['82', '[NONE|ANYONECANPAY]'],
    ['83', '[SINGLE|ANYONECANPAY]'],
  ];
  for (const [hashType, name] of names) {
    assert.equal(scriptToAsm(scriptSig(hashType), true), `${DER_SIG}${name} ${PUBKEY}`);
    assert.equal(scriptToAsm(scriptSig(hashType)), `${DER_SIG}${hashType} ${PUBKEY}`);
  }
  // 0x00 and 0x80 are not defined hash types, so the byte stays in the hex.
  assert.equal(scriptToAsm(scriptSig('00'), true), `${DER_SIG}00 ${PUBKEY}`);
  assert.equal(scriptToAsm(scriptSig('80'), true), `${DER_SIG}80 ${PUBKEY}`);
});

test('no sighash decoding inside unspendable scripts', () => {
  const script = concatBytes(Uint8Array.of(0x6a), pushData(fromHex(DER_SIG + '01')));
  assert.equal(scriptToAsm(script, true), `OP_RETURN ${DER_SIG}01`);
});

test('P2PKH scriptPubKey', () => {
  assert.equal(asm('76a914751e76e8199196d454941c45d1b3a323f1433bd688ac'), 'OP_DUP OP_HASH160 751e76e8199196d454941c45d1b3a323f1433bd6 OP_EQUALVERIFY OP_CHECKSIG');
});

test('pushes of up to four bytes print as script numbers', () => {
  assert.equal(asm('00'), '0');
  assert.equal(asm('4f'), '-1');
  assert.equal(asm('515a60'), '1 10 16');
  assert.equal(asm('0181'), '-1');
  assert.equal(asm('0180'), '0');
  assert.equal(asm('02e803'), '1000');
  assert.equal(asm('04ffffff7f'), '2147483647');
  assert.equal(asm('04ffffffff'), '-2147483647');
  // Non-minimal encodings still print their value; five bytes print as hex.
  assert.equal(asm('4c0111'), '17');
  assert.equal(asm('4c00'), '0');
  assert.equal(asm('050102030405'), '0102030405');
});

test('opcode names follow GetOpName', () => {
  assert.equal(asm('b1b2'), 'OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY');
  assert.equal(asm('b0b9ba'), 'OP_NOP1 OP_NOP10 OP_CHECKSIGADD');
  assert.equal(asm('bbff50'), 'OP_UNKNOWN OP_INVALIDOPCODE OP_RESERVED');
});

test('a truncated push prints [error] and ends the text', () => {
  assert.equal(asm('4c'), '[error]');
  assert.equal(asm('760201'), 'OP_DUP [error]');
  assert.equal(asm('4d0100'), '[error]');
  assert.equal(asm(''), '');
});
