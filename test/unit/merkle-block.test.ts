/**
 * BIP37 merkle blocks (Core's CPartialMerkleTree): build, serialize, read back and extract
 * for many tree sizes and match patterns (as Core's pmt_tests), the CVE-2012-2459 and
 * leftover-data rejections, the single-transaction trick of rpc_txoutproof.py, and the
 * stream errors verifytxoutproof reports.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockHeader, computeMerkleRoot, sha256d, toHex } from '../../src/primitives/index.js';
import {
  buildMerkleBlock,
  buildPartialMerkleTree,
  extractMatches,
  MerkleBlockReadError,
  parseMerkleBlock,
  serializeMerkleBlock,
} from '../../src/primitives/merkle-block.js';

function txids(n: number, seed = 0): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => sha256d(Uint8Array.of(seed, i & 0xff, i >> 8)));
}

function header(merkleRoot: Uint8Array): BlockHeader {
  return new BlockHeader({ version: 0x20000000, prevHash: new Uint8Array(32), merkleRoot, time: 1296688602, bits: 0x207fffff, nonce: 7 });
}

/** A deterministic pseudo-random match pattern. */
function pattern(n: number, every: number, offset: number): boolean[] {
  return Array.from({ length: n }, (_, i) => (i * 7 + offset) % every === 0);
}

test('partial merkle trees round-trip and commit to the block’s merkle root (pmt_tests sizes)', () => {
  for (const n of [1, 4, 7, 17, 56, 100, 127, 256, 312, 513, 1000, 4095]) {
    const ids = txids(n, n & 0xff);
    const root = computeMerkleRoot(ids).root;
    const position = new Map(ids.map((id, i) => [toHex(id), i]));
    for (const every of [1, 2, 3, 7, 50, 100000]) {
      const matches = pattern(n, every, n % 5);
      const block = buildMerkleBlock(header(root), ids, (id) => matches[position.get(toHex(id))!]!);
      const bytes = serializeMerkleBlock(block);
      const read = parseMerkleBlock(bytes);
      assert.deepEqual(serializeMerkleBlock(read), bytes);
      assert.equal(read.tree.bits.length % 8, 0);
      const extracted = extractMatches(read.tree);
      assert.ok(extracted.root, `n=${n} every=${every}`);
      assert.equal(toHex(extracted.root!), toHex(root));
      const want = matches.flatMap((m, i) => (m ? [i] : []));
      assert.deepEqual(extracted.indexes, want);
      assert.deepEqual(extracted.matches.map(toHex), want.map((i) => toHex(ids[i]!)));
      // A tree with fewer bits than it needs, or unused hashes, is rejected.
      if (read.tree.hashes.length > 1) {
        assert.equal(extractMatches({ ...read.tree, hashes: read.tree.hashes.slice(0, -1) }).root, null);
        assert.equal(extractMatches({ ...read.tree, hashes: [...read.tree.hashes, new Uint8Array(32)] }).root, null);
      }
    }
  }
});

test('a serialization Core would write: header, count, hashes, LSB-first flag bytes', () => {
  const ids = txids(3);
  const tree = buildPartialMerkleTree(ids, [false, true, false]);
  // Root (parent of a match), left pair (parent), leaf 0 (hash), leaf 1 (match), right subtree (hash).
  assert.deepEqual(tree.bits, [true, true, false, true, false]);
  assert.equal(tree.hashes.length, 3);
  const block = { header: header(computeMerkleRoot(ids).root), tree };
  const hex = toHex(serializeMerkleBlock(block));
  assert.equal(hex.slice(160, 168), '03000000');
  assert.equal(hex.slice(168, 170), '03');
  assert.equal(hex.slice(170 + 3 * 64), '010b');
});

test('CVE-2012-2459: duplicated right subtrees do not verify', () => {
  // [a, b, c, c] has the root of [a, b, c]: an explicit right child equal to its left sibling is refused.
  const ids = txids(3);
  const mutated = [...ids, ids[2]!];
  assert.equal(toHex(computeMerkleRoot(mutated).root), toHex(computeMerkleRoot(ids).root));
  const tree = buildPartialMerkleTree(mutated, mutated.map(() => true));
  assert.equal(extractMatches(tree).root, null);
});

test('rpc_txoutproof.py’s tweak: a proof passed off as a one-transaction block still extracts', () => {
  const ids = txids(5);
  const root = computeMerkleRoot(ids).root;
  const tweaked = { transactions: 1, hashes: [root], bits: [true, false, false, false, false, false, false, false] };
  const extracted = extractMatches(tweaked);
  assert.equal(toHex(extracted.root!), toHex(root));
  assert.equal(extracted.matches.length, 1);
  // verifytxoutproof then rejects it because the block has 5 transactions, not 1.
  assert.equal(extractMatches({ ...tweaked, transactions: 0 }).root, null);
  assert.equal(extractMatches({ ...tweaked, transactions: 16667 }).root, null);
});

test('read errors carry the what() of Core’s stream exceptions', () => {
  const ids = txids(2);
  const bytes = serializeMerkleBlock(buildMerkleBlock(header(computeMerkleRoot(ids).root), ids, () => true));
  const message = (b: Uint8Array) => {
    try {
      parseMerkleBlock(b);
    } catch (err) {
      assert.ok(err instanceof MerkleBlockReadError);
      return err.message;
    }
    return 'parsed';
  };
  assert.equal(message(Uint8Array.of(0)), 'DataStream::read(): end of data');
  assert.equal(message(bytes.subarray(0, bytes.length - 1)), 'DataStream::read(): end of data');
  assert.equal(message(new Uint8Array([...bytes.subarray(0, 84), 0xfd, 0x01, 0x00])), 'non-canonical ReadCompactSize()');
  assert.equal(message(new Uint8Array([...bytes.subarray(0, 84), 0xfe, 0x01, 0x00, 0x00, 0x02])), 'ReadCompactSize(): size too large');
  // Trailing bytes after the merkle block are ignored, as `ssMB >> merkleBlock` leaves them.
  assert.equal(message(new Uint8Array([...bytes, 0xaa])), 'parsed');
});
