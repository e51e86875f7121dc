/**
 * The native point additions (libsecp256k1) give the bytes noble gives: BIP32 public children
 * of random parents (normal and at the edges of a range) and BIP341 output keys.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { deriveExtPubKey, extKeyFromSeed, neuterExtKey, tweakPublicKey, useNativeKeyTweaks } from '../../src/script/index.js';
import { loadNativeKeyTweaks } from '../../src/script/secp256k1-native.js';

test('native and noble point additions agree: 2,000 BIP32 public children and 2,000 taproot output keys', () => {
  const native = loadNativeKeyTweaks();
  let compared = 0;
  try {
    for (let i = 0; i < 100; i++) {
      const parent = neuterExtKey(extKeyFromSeed(randomBytes(32))!);
      for (const child of [0, 1, 2 ** 31 - 1, ...Array.from({ length: 17 }, () => randomBytes(4).readUInt32BE() >>> 1)]) {
        useNativeKeyTweaks(null);
        const slow = deriveExtPubKey(parent, child);
        useNativeKeyTweaks(native);
        assert.deepEqual(deriveExtPubKey(parent, child), slow);
        compared++;
      }
      // Hardened children need the private key either way.
      assert.equal(deriveExtPubKey(parent, 2 ** 31), null);
    }
    for (let i = 0; i < 2000; i++) {
      const internal = neuterExtKey(extKeyFromSeed(randomBytes(32))!).publicKey.subarray(1);
      const tweak = randomBytes(32);
      useNativeKeyTweaks(null);
      const slow = tweakPublicKey(internal, tweak);
      useNativeKeyTweaks(native);
      assert.deepEqual(tweakPublicKey(internal, tweak), slow);
    }
    // Not an x coordinate on the curve (x = 5 has no point): both refuse.
    const offCurve = new Uint8Array(32);
    offCurve[31] = 5;
    assert.equal(tweakPublicKey(offCurve, new Uint8Array(32)), null);
  } finally {
    useNativeKeyTweaks(null);
  }
  assert.equal(compared, 2000);
});
