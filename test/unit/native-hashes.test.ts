/**
 * The addon's hash entry points (src/primitives/native/hashes.c) against the JavaScript
 * paths (node:crypto, @noble/hashes, sha256-small) on the same inputs: a thread hashes
 * through one or the other, and txids, merkle roots and sighashes must not depend on which.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  blockMerkleRoot,
  blockWitnessMerkleRoot,
  computeMerkleRoot,
  fromHex,
  hash160,
  nativeHashesInUse,
  parseBlock,
  parseTransaction,
  serializeBlock,
  sha256,
  sha256d,
  sha256dOfPair,
  toHex,
  useNativeHashes,
  type Transaction,
} from '../../src/primitives/index.js';
import { readVectorJson, readVectorText } from '../support/vectors.js';
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

/** Every distinct transaction of Core's tx_valid.json and tx_invalid.json that parses (legacy and BIP144 forms). */
function vectorTransactions(): Transaction[] {
  const out: Transaction[] = [];
  const seen = new Set<string>();
  for (const file of ['tx_valid.json', 'tx_invalid.json']) {
    for (const row of readVectorJson<unknown[][]>(file)) {
      if (row.length < 2 || typeof row[1] !== 'string') continue;
      try {
        const tx = parseTransaction(fromHex(row[1]));
        // Some vectors repeat a transaction: a repeated neighbour would mark the tree mutated.
        if (!seen.has(tx.txidHex)) out.push(tx);
        seen.add(tx.txidHex);
      } catch {
        // Vectors that do not parse are not transactions to hash.
      }
    }
  }
  return out;
}

function blockHashes(bytes: Uint8Array): { txids: string[]; wtxids: string[]; root: string; mutated: boolean; witnessRoot: string; witnessMutated: boolean } {
  const block = parseBlock(bytes);
  const merkle = blockMerkleRoot(block);
  const witness = blockWitnessMerkleRoot(block);
  return {
    txids: block.transactions.map((tx) => toHex(tx.txid)),
    wtxids: block.transactions.map((tx) => toHex(tx.wtxid)),
    root: toHex(merkle.root),
    mutated: merkle.mutated,
    witnessRoot: toHex(witness.root),
    witnessMutated: witness.mutated,
  };
}

test('a block parsed with the one-call native transaction hashes has the txids, wtxids and roots JavaScript computes', () => {
  const transactions = vectorTransactions();
  const segwit = transactions.filter((tx) => tx.hasWitness).length;
  assert.ok(transactions.length > 100 && segwit > 20, `${transactions.length} transactions, ${segwit} with witnesses`);
  const header = parseBlock(fromHex(readVectorText('block277647.hex').trim())).header;
  const synthetic = serializeBlock({ header, transactions });
  // Inside a larger buffer, at an offset: the layout is relative to the buffer, not the block.
  const padded = new Uint8Array(synthetic.length + 11);
  padded.set(synthetic, 5);
  for (const bytes of [synthetic, padded.subarray(5, 5 + synthetic.length), fromHex(readVectorText('block277647.hex').trim())]) {
    const native = withHashes(true, () => blockHashes(bytes));
    const js = withHashes(false, () => blockHashes(bytes));
    assert.deepEqual(native, js);
  }
  // CVE-2012-2459: the last transactions repeated keep the root and mark the tree mutated.
  const odd = transactions.length % 2 === 1 ? transactions : transactions.slice(1);
  const duplicated = serializeBlock({ header, transactions: [...odd, odd[odd.length - 1]!] });
  const mutatedNative = withHashes(true, () => blockHashes(duplicated));
  assert.deepEqual(mutatedNative, withHashes(false, () => blockHashes(duplicated)));
  assert.equal(mutatedNative.mutated, true);
  assert.equal(mutatedNative.root, withHashes(false, () => blockHashes(serializeBlock({ header, transactions: odd }))).root);
  const native = withHashes(true, () => blockHashes(synthetic));
  assert.equal(native.mutated, false);
  assert.deepEqual(native.txids, transactions.map((tx) => toHex(tx.txid)));
  assert.ok(native.txids.some((txid, i) => txid !== native.wtxids[i]), 'witness transactions have their own wtxids');
});

test('txHashesInto refuses a layout that reaches outside the bytes, before hashing anything', () => {
  const hashes = loadNativeHashes();
  const bytes = new Uint8Array(new ArrayBuffer(100));
  const out = new Uint8Array(new ArrayBuffer(64));
  assert.throws(() => hashes.txHashesInto(out, bytes, Int32Array.of(0, -1, 101)), RangeError);
  assert.throws(() => hashes.txHashesInto(out, bytes, Int32Array.of(-1, -1, 50)), RangeError);
  assert.throws(() => hashes.txHashesInto(out, bytes, Int32Array.of(0, 97, 100)), RangeError);
  assert.throws(() => hashes.txHashesInto(out, bytes, Int32Array.of(0, 3, 100)), RangeError);
  assert.throws(() => hashes.txHashesInto(new Uint8Array(new ArrayBuffer(32)), bytes, Int32Array.of(0, -1, 100)), RangeError);
  assert.throws(() => hashes.txHashesInto(out, bytes, new Uint32Array(3) as unknown as Int32Array), TypeError);
  assert.ok(out.every((b) => b === 0));
  hashes.txHashesInto(out, bytes, Int32Array.of(0, -1, 100));
  assert.equal(toHex(out.subarray(0, 32)), toHex(withHashes(false, () => sha256d(bytes))));
  assert.equal(toHex(out.subarray(32)), toHex(out.subarray(0, 32)));
});
