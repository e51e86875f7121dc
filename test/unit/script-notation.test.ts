import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/primitives/index.js';
import { parseTestScript, ScriptParseError } from '../../src/script/index.js';

const hexOf = (text: string): string => toHex(parseTestScript(text));

test('decimals become OP_n or minimal CScriptNum pushes', () => {
  assert.equal(hexOf('0 -1 1 16'), '004f5160');
  assert.equal(hexOf('17 -17 1000 -0'), '011101910' + '2e80300');
  assert.equal(hexOf('4294967295 -4294967295'), '05ffffffff0005ffffffff80');
  assert.equal(hexOf('007'), '57');
});

test('0x tokens are raw bytes, quoted text is pushed', () => {
  assert.equal(hexOf('0x4c01ff'), '4c01ff');
  assert.equal(hexOf("'abc' ''"), '0361626300');
  assert.equal(hexOf("'" + 'a'.repeat(80) + "'"), '4c50' + '61'.repeat(80));
});

test('opcode names with or without OP_, separated by any of space, tab, newline', () => {
  assert.equal(hexOf('DUP OP_HASH160\t0x14 0x' + '00'.repeat(20) + '\nEQUALVERIFY  CHECKSIG'), '76a914' + '00'.repeat(20) + '88ac');
  assert.equal(hexOf('CHECKLOCKTIMEVERIFY CHECKSEQUENCEVERIFY NOP1 NOP10 RESERVED'), 'b1b2b0b950');
});

test('what Core rejects is rejected', () => {
  // Core's name table has no NOP2/NOP3 aliases, no push or small-number opcodes, no CHECKSIGADD.
  for (const bad of ['NOP2', 'OP_1', 'OP_0', 'PUSHDATA1', 'CHECKSIGADD', '0x', '0xabc', '-', 'dup', '4294967296', '-4294967296']) {
    assert.throws(() => parseTestScript(bad), ScriptParseError, bad);
  }
});

test('empty text is the empty script', () => {
  assert.equal(parseTestScript('  \t').length, 0);
});
