/**
 * The addon's hash entry points (src/primitives/native/hashes.c) against the JavaScript
 * paths (node:crypto, @noble/hashes, sha256-small) on the same inputs: a thread hashes
 * through one or the other, and txids, merkle roots and sighashes must not depend on which.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { computeMerkleRoot, hash160, sha256, sha256d, sha256dOfPair, toHex, useNativeHashes, nativeHashesInUse } from '../../src/primitives/index.js';
import { loadNativeHashes } from '../../src/script/index.js';

type Hashes = { sha256: string; sha256d: string; hash160: string };

function withHashes<T>(native: boolean, run: () => T): T {
  const before = nativeHashesInUse();
  useNativeHashes(native ? loadNativeHashes() : null);
  try {
    return run();
  } finally {
    useNativeHashes(before ? loadNativeHashes() : null);
  }
}

test('SHA-256, SHA-256d and HASH160 agree between the addon and JavaScript on 0 to 300 bytes, on and off the heap', () => {
  let compared = 0;
  for (let length = 0; length <= 300; length++) {
    // An ArrayBuffer of its own is off the V8 heap; a short literal-sized array is on it.
    const inputs = [new Uint8Array(randomBytes(length)), new Uint8Array(new ArrayBuffer(length + 7), 7).fill(length & 0xff)];
    for (const input of inputs) {
      const of = (native: boolean): Hashes => withHashes(native, () => ({ sha256: toHex(sha256(input)), sha256d: toHex(sha256d(input)), hash160: toHex(hash160(input)) }));
      assert.deepEqual(of(true), of(false), `length ${length}`);
      compared++;
    }
  }
  assert.equal(compared, 602);
});

test('merkle roots and the mutation flag agree between the one-call native tree and the JavaScript one', () => {
  for (let count = 1; count <= 70; count++) {
    const leaves = Array.from({ length: count }, () => new Uint8Array(randomBytes(32)));
    // Duplicating the last leaf of an odd list is CVE-2012-2459's mutation; so is any equal adjacent pair.
    const variants = [leaves, count % 2 === 1 ? [...leaves, leaves[count - 1]!] : leaves, count > 3 ? [leaves[0]!, leaves[0]!, ...leaves.slice(2)] : leaves];
    for (const list of variants) {
      const native = withHashes(true, () => computeMerkleRoot(list));
      const js = withHashes(false, () => computeMerkleRoot(list));
      assert.equal(toHex(native.root), toHex(js.root), `${list.length} leaves`);
      assert.equal(native.mutated, js.mutated, `${list.length} leaves`);
      assert.equal(toHex(native.root), toHex(withHashes(false, () => manualRoot(list))));
    }
  }
  assert.equal(withHashes(true, () => computeMerkleRoot([new Uint8Array(32), new Uint8Array(32)])).mutated, true);
});

/** The tree by hand from sha256dOfPair, as the definition reads. */
function manualRoot(leaves: readonly Uint8Array[]): Uint8Array {
  let level = [...leaves];
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256dOfPair(level[i]!, level[i + 1]!));
    level = next;
  }
  return level[0]!;
}
