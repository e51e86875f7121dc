/** BIP380 checksums: the BIP's vectors, Core's error texts and the character set. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addChecksum, checkChecksum, DescriptorError, descriptorChecksum, getDescriptorChecksum } from '../../src/script/index.js';

function checkError(text: string, requireChecksum = false): string {
  try {
    checkChecksum(text, requireChecksum);
  } catch (err) {
    assert.ok(err instanceof DescriptorError);
    return err.message;
  }
  assert.fail(`${text} passed`);
}

test('BIP380 checksum test vectors', () => {
  assert.equal(checkChecksum('raw(deadbeef)#89f8spxm', true).payload, 'raw(deadbeef)');
  assert.equal(checkChecksum('raw(deadbeef)', false).checksum, '89f8spxm');
  assert.equal(checkError('raw(deadbeef)', true), 'Missing checksum');
  assert.equal(checkError('raw(deadbeef)#'), 'Expected 8 character checksum, not 0 characters');
  assert.equal(checkError('raw(deadbeef)#89f8spxmx'), 'Expected 8 character checksum, not 9 characters');
  assert.equal(checkError('raw(deadbeef)#89f8spx'), 'Expected 8 character checksum, not 7 characters');
  assert.equal(checkError('raw(deedbeef)#89f8spxm'), `Provided checksum '89f8spxm' does not match computed checksum '${descriptorChecksum('raw(deedbeef)')}'`);
  assert.equal(checkError('raw(deedbeef)##9f8spxm'), "Multiple '#' symbols");
  assert.equal(checkError('raw(\u00dc)#00000000'), 'Invalid characters in payload');
});

test('rpc-results §0.7 check values', () => {
  assert.equal(addChecksum('raw()'), 'raw()#58lrscpx');
  assert.equal(addChecksum('raw(ac)'), 'raw(ac)#50dpv3k6');
  assert.equal(addChecksum('raw(6a)'), 'raw(6a)#4mhr9ur5');
  assert.equal(addChecksum('addr(bcrt1pfeesnyr2tx)'), 'addr(bcrt1pfeesnyr2tx)#swxgse0y');
  assert.equal(addChecksum('pk(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)'), 'pk(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)#gn28ywm7');
});

test('every character of the set is accepted, anything else is not', () => {
  const charset = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
  for (const c of charset) if (c !== '#') assert.equal(descriptorChecksum(c).length, 8, JSON.stringify(c));
  for (const c of ['\t', '\n', '\u0000', '\u007f', '\u00e9', '\u{1f600}']) assert.equal(descriptorChecksum(`raw(${c})`), '');
  // A single changed character always changes the checksum (BCH distance).
  assert.notEqual(descriptorChecksum('raw(deadbeef)'), descriptorChecksum('raw(deadbeeF)'));
});

test('checksum lengths count UTF-8 bytes, as Core does', () => {
  // Four two-byte characters: eight bytes, so the length passes and the comparison fails.
  assert.equal(checkError('raw(00)#\u00dc\u00dc\u00dc\u00dc'), `Provided checksum '\u00dc\u00dc\u00dc\u00dc' does not match computed checksum '${descriptorChecksum('raw(00)')}'`);
  assert.equal(checkError('raw(00)#\u00dc'), 'Expected 8 character checksum, not 2 characters');
});

test('getDescriptorChecksum gives "" where Core does', () => {
  assert.equal(getDescriptorChecksum('raw(deadbeef)'), '89f8spxm');
  assert.equal(getDescriptorChecksum('raw(deadbeef)#89f8spxm'), '89f8spxm');
  assert.equal(getDescriptorChecksum('raw(deadbeef)#00000000'), '');
  assert.equal(getDescriptorChecksum('a#b#c'), '');
});
