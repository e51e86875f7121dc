/**
 * writeJson, the serializer of every RPC and REST JSON body: UniValue's compact form
 * (raw amounts as written, bigints as integers, undefined members left out, non-finite
 * numbers as null, DEL escaped), built on JSON.stringify with marked raw numbers. Strings
 * that look like the marker must come out as the strings they are.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RawJsonNumber, writeJson } from '../../src/rpc/index.js';

test('raw amounts and bigints are written as numbers, anywhere in the value', () => {
  assert.equal(writeJson(new RawJsonNumber('0.00010000')), '0.00010000');
  assert.equal(writeJson(12345678901234567890n), '12345678901234567890');
  assert.equal(
    writeJson({ fee: new RawJsonNumber('0.00001000'), vout: [{ value: new RawJsonNumber('50.00000000'), n: 0 }], work: 2n ** 70n }),
    `{"fee":0.00001000,"vout":[{"value":50.00000000,"n":0}],"work":${(2n ** 70n).toString()}}`,
  );
  assert.equal(writeJson([new RawJsonNumber('-1.5e-8'), 3n, 'x']), '[-1.5e-8,3,"x"]');
});

test('UniValue details: undefined members dropped, holes and non-finite numbers null, key order kept', () => {
  assert.equal(writeJson(undefined), 'null');
  assert.equal(writeJson({ b: 1, a: undefined, c: [1, undefined, NaN, Infinity] }), '{"b":1,"c":[1,null,null,null]}');
  assert.equal(writeJson({ z: 1, a: 2 }), '{"z":1,"a":2}');
});

test('DEL is escaped in strings and keys, as UniValue writes it', () => {
  assert.equal(writeJson('a\x7fb'), '"a\\u007fb"');
  assert.equal(writeJson({ 'k\x7f': '\x7f' }), '{"k\\u007f":"\\u007f"}');
});

test('strings shaped like the raw-number marker stay strings', () => {
  for (const text of ['\u00000.5\u0000', '\u0000abc:1\u0000', '\\u0000', `\u0000${'0'.repeat(32)}:7\u0000`]) {
    assert.equal(writeJson(text), JSON.stringify(text));
    assert.equal(writeJson({ [text]: [text] }), `{${JSON.stringify(text)}:[${JSON.stringify(text)}]}`);
  }
  // A real raw number beside such a string: only the number is unwrapped.
  assert.equal(writeJson(['\u00001\u0000', new RawJsonNumber('1.00000000')]), `[${JSON.stringify('\u00001\u0000')},1.00000000]`);
});
