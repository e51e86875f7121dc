/**
 * Esplora's renderings that its clients parse: rust-bitcoin's script asm (electrs prints
 * it), electrs's scriptpubkey_type names, its fee histogram bins, and the script hash
 * /scripthash/ takes (SHA-256 of the script, digest order), on the examples electrs and
 * rust-bitcoin document.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { esploraAsm, esploraScriptType, feeHistogram } from '../../src/esplora/index.js';
import { fromHex, toHex } from '../../src/primitives/index.js';
import { decodeAddress } from '../../src/script/index.js';
import { scriptHashOf } from '../../src/storage/index.js';

test('script asm as rust-bitcoin prints it, malformed pushes included', () => {
  const cases: [string, string][] = [
    ['76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'OP_DUP OP_HASH160 OP_PUSHBYTES_20 62e907b15cbf27d5425399ebf6f0fb50ebb88f18 OP_EQUALVERIFY OP_CHECKSIG'],
    ['0014751e76e8199196d454941c45d1b3a323f1433bd6', 'OP_0 OP_PUSHBYTES_20 751e76e8199196d454941c45d1b3a323f1433bd6'],
    ['6a0401020304', 'OP_RETURN OP_PUSHBYTES_4 01020304'],
    ['5120' + '11'.repeat(32), `OP_PUSHNUM_1 OP_PUSHBYTES_32 ${'11'.repeat(32)}`],
    ['4f60b1b2ba bb ff'.replace(/ /g, ''), 'OP_PUSHNUM_NEG1 OP_PUSHNUM_16 OP_CLTV OP_CSV OP_CHECKSIGADD OP_RETURN_187 OP_INVALIDOPCODE'],
    ['4c03aabbcc4d0100dd4c00', 'OP_PUSHDATA1 aabbcc OP_PUSHDATA2 dd OP_PUSHDATA1'],
    ['764c', 'OP_DUP<unexpected end>'],
    ['1401020304', 'OP_PUSHBYTES_20 <push past end>'],
    ['', ''],
  ];
  for (const [script, asm] of cases) assert.equal(esploraAsm(fromHex(script)), asm, script);
});

test('scriptpubkey_type names, first match wins', () => {
  const cases: [string, string][] = [
    ['', 'empty'],
    ['6a0401020304', 'op_return'],
    ['21' + '02'.repeat(33) + 'ac', 'p2pk'],
    ['76a914' + '00'.repeat(20) + '88ac', 'p2pkh'],
    ['a914' + '00'.repeat(20) + '87', 'p2sh'],
    ['0014' + '00'.repeat(20), 'v0_p2wpkh'],
    ['0020' + '00'.repeat(32), 'v0_p2wsh'],
    ['5120' + '00'.repeat(32), 'v1_p2tr'],
    ['51024e73', 'unknown'],
    ['5121' + '02'.repeat(33) + '51ae', 'unknown'],
  ];
  for (const [script, type] of cases) assert.equal(esploraScriptType(fromHex(script)), type, script);
});

test('the fee histogram closes a bin past 50,000 vB at a new rate, lowest rate of the bin first', () => {
  const entries = [
    ...Array.from({ length: 30 }, () => ({ feeRate: 20, vsize: 2000 })),
    { feeRate: 10, vsize: 1000 },
    { feeRate: 5, vsize: 500 },
  ];
  assert.deepEqual(
    feeHistogram(entries).map((bin) => JSON.stringify(bin, (_k, v) => (typeof v === 'object' && v && 'value' in v ? v.value : v))),
    ['[20,60000]', '[5,1500]'],
  );
  assert.deepEqual(feeHistogram([]), []);
});

test('a script hash is SHA-256 of the script in digest order', () => {
  const decoded = decodeAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'main');
  assert.ok(decoded.ok);
  assert.equal(toHex(scriptHashOf(decoded.scriptPubKey)), '6191c3b590bfcfa0475e877c302da1e323497acf3b42c08d8fa28e364edf018b');
});
