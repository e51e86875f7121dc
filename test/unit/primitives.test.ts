import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  blockMerkleRoot,
  ByteReader,
  ByteWriter,
  computeMerkleRoot,
  DecodeError,
  fromHex,
  hashToHex,
  parseBlock,
  parseTransaction,
  readTransaction,
  serializeTransaction,
  sha256d,
  sha256dOfPair,
  toHex,
  Transaction,
} from '../../src/primitives/index.js';
import { vectorPath } from '../support/vectors.js';

const mainnetBlocks = readFileSync(vectorPath('mainnet-blocks-0-255.hex'), 'utf8').trim().split('\n');

test('genesis block parses, hashes and has its merkle root', () => {
  const genesis = parseBlock(fromHex(mainnetBlocks[0]!));
  assert.equal(genesis.header.hashHex, '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
  assert.equal(genesis.transactions.length, 1);
  assert.equal(genesis.transactions[0]!.txidHex, '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b');
  assert.ok(genesis.transactions[0]!.isCoinbase());
  const { root, mutated } = blockMerkleRoot(genesis);
  assert.equal(toHex(root), toHex(genesis.header.merkleRoot));
  assert.equal(mutated, false);
  assert.equal(genesis.size, 285);
});

test('block 170 holds the first bitcoin transaction', () => {
  const block = parseBlock(fromHex(mainnetBlocks[170]!));
  assert.equal(block.transactions[1]!.txidHex, 'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16');
  assert.equal(block.txOffsets[0], 81);
});

test('segwit transaction: txid, wtxid, sizes, weight and round trip', () => {
  // BIP143's native P2WPKH example, signed.
  const hex =
    '01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000';
  const bytes = fromHex(hex);
  const tx = parseTransaction(bytes);
  assert.equal(tx.hasWitness, true);
  assert.equal(toHex(tx.toBytes()), hex);
  assert.equal(tx.totalSize, bytes.length);
  assert.equal(tx.weight, tx.baseSize * 3 + tx.totalSize);
  assert.equal(tx.vsize, Math.ceil(tx.weight / 4));
  assert.equal(hashToHex(sha256d(bytes)), tx.wtxidHex);
  assert.notEqual(tx.txidHex, tx.wtxidHex);
  assert.equal(tx.locktime, 17);
  assert.equal(tx.outputs[0]!.value, 112340000n);
});

test('a parsed transaction hashes the bytes it came from exactly as one serialized afresh', () => {
  // Mainnet blocks (legacy transactions) and the segwit example above, each parsed inside a
  // larger buffer so its bytes are a view at an offset, as in a block.
  const segwit = fromHex(
    '01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000',
  );
  const parsed = [parseBlock(fromHex(mainnetBlocks[170]!)).transactions[1]!, parseBlock(fromHex(mainnetBlocks[0]!)).transactions[0]!];
  const padded = new Uint8Array(segwit.length + 7);
  padded.set(segwit, 3);
  const reader = new ByteReader(padded, 3);
  parsed.push(readTransaction(reader));
  assert.equal(reader.offset, 3 + segwit.length);
  for (const tx of parsed) {
    const fresh = new Transaction({ version: tx.version, inputs: tx.inputs, outputs: tx.outputs, locktime: tx.locktime });
    // Hashes and sizes first: they are computed without materializing the witness-free bytes.
    assert.equal(tx.txidHex, fresh.txidHex);
    assert.equal(tx.wtxidHex, fresh.wtxidHex);
    assert.equal(tx.weight, fresh.weight);
    assert.equal(tx.baseSize, fresh.baseSize);
    assert.equal(toHex(tx.toBytesNoWitness()), toHex(serializeTransaction(tx, false)));
    assert.equal(toHex(tx.toBytes()), toHex(serializeTransaction(tx, true)));
  }
  assert.equal(parsed[2]!.hasWitness, true);
});

test('SHA-256d and merkle nodes agree with OpenSSL at every length around the block boundaries', () => {
  const opensslD = (data: Uint8Array) => createHash('sha256').update(createHash('sha256').update(data).digest()).digest('hex');
  for (let length = 0; length <= 300; length++) {
    const data = Uint8Array.from({ length }, (_, i) => (i * 167 + length * 13) & 0xff);
    assert.equal(toHex(sha256d(data)), opensslD(data), `length ${length}`);
  }
  for (let i = 0; i < 50; i++) {
    const left = Uint8Array.from({ length: 32 }, (_, j) => (i * 31 + j * 7) & 0xff);
    const right = Uint8Array.from({ length: 32 }, (_, j) => (i * 11 + j * 255) & 0xff);
    const pair = new Uint8Array(64);
    pair.set(left, 0);
    pair.set(right, 32);
    assert.equal(toHex(sha256dOfPair(left, right)), opensslD(pair));
  }
  // A hash that is a view at an odd offset of a larger buffer, as txids inside blocks are.
  const backing = Uint8Array.from({ length: 97 }, (_, i) => (i * 89) & 0xff);
  const [l, r] = [backing.subarray(1, 33), backing.subarray(33, 65)];
  assert.equal(toHex(sha256dOfPair(l, r)), opensslD(backing.subarray(1, 65)));
});

test('transaction decoding rejects what Core rejects', () => {
  // Witness marker with every witness empty: "Superfluous witness record".
  const superfluous = '0100000000010100000000000000000000000000000000000000000000000000000000000000000000000000ffffffff0100000000000000000000000000';
  assert.throws(() => parseTransaction(fromHex(superfluous)), (e: unknown) => e instanceof DecodeError && /Superfluous/.test(e.message));
  // Unknown flag byte.
  assert.throws(() => parseTransaction(fromHex('010000000002' + '00'.repeat(10))), DecodeError);
  // Trailing data.
  const genesisCoinbase = parseBlock(fromHex(mainnetBlocks[0]!)).transactions[0]!.toBytes();
  assert.throws(() => parseTransaction(new Uint8Array([...genesisCoinbase, 0])), DecodeError);
  // Truncation at every length.
  for (let n = 0; n < genesisCoinbase.length; n++) {
    assert.throws(() => parseTransaction(genesisCoinbase.subarray(0, n)), DecodeError);
  }
});

test('CompactSize: canonical encodings round trip, non-canonical ones are rejected', () => {
  for (const n of [0, 1, 0xfc, 0xfd, 0xffff, 0x10000, 0x2000000]) {
    const bytes = new ByteWriter().compactSize(n).finish();
    assert.equal(new ByteReader(bytes).compactSize(), n);
  }
  assert.throws(() => new ByteReader(fromHex('fdfc00')).compactSize(), DecodeError);
  assert.throws(() => new ByteReader(fromHex('feffff0000')).compactSize(), DecodeError);
  assert.throws(() => new ByteReader(fromHex('ffffffffff00000000')).compactSize(), DecodeError);
  assert.throws(() => new ByteReader(fromHex('fe01000002')).compactSize(), DecodeError); // above MAX_SIZE
});

test('merkle root flags the duplicate-subtree mutation (CVE-2012-2459)', () => {
  const leaves = [1, 2, 3].map((i) => sha256d(Uint8Array.of(i)));
  const honest = computeMerkleRoot(leaves);
  const duplicated = computeMerkleRoot([...leaves, leaves[2]!]);
  assert.equal(toHex(honest.root), toHex(duplicated.root));
  assert.equal(honest.mutated, false);
  assert.equal(duplicated.mutated, true);
  assert.equal(computeMerkleRoot([leaves[0]!]).root, leaves[0]);
});
