import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashToHex, MuHash3072 } from '../../src/primitives/index.js';

/** Core's crypto_tests FromInt: a set of one 32-byte element whose first byte is i. */
function fromInt(i: number): MuHash3072 {
  const element = new Uint8Array(32);
  element[0] = i;
  return MuHash3072.of(element);
}

test('MuHash3072 matches Core’s crypto_tests vector', () => {
  const acc = fromInt(0).combine(fromInt(1)).subtract(fromInt(2));
  assert.equal(hashToHex(acc.finalize()), '10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863');
});

test('MuHash3072 is order-independent and removal undoes insertion', () => {
  const a = Uint8Array.of(1, 2, 3);
  const b = Uint8Array.of(4, 5);
  const c = Uint8Array.of(6);
  const x = new MuHash3072().insert(a).insert(b).insert(c).finalize();
  const y = new MuHash3072().insert(c).insert(a).insert(b).finalize();
  assert.deepEqual(x, y);
  const z = new MuHash3072().insert(a).insert(b).insert(c).remove(c).insert(c).finalize();
  assert.deepEqual(x, z);
  const restored = MuHash3072.deserialize(new MuHash3072().insert(a).insert(b).serialize()).insert(c).finalize();
  assert.deepEqual(x, restored);
  assert.notDeepEqual(new MuHash3072().insert(a).finalize(), x);
});
