/**
 * BIP152 in src/net: SipHash-2-4 against the reference vectors (key 00..0f, messages
 * 00..(n-1)), short IDs by their definition, and the compact block messages' round trips
 * and malformations, on mainnet block 277,647.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeBlockTransactions,
  decodeBlockTransactionsRequest,
  decodeCompactBlock,
  encodeBlockTransactions,
  encodeBlockTransactionsRequest,
  encodeCompactBlock,
  shortIdKey,
  shortTxId,
} from '../../src/net/index.js';
import { ByteWriter, DecodeError, fromHex, parseBlock, sha256, sipHash24, sipKey, sipKeyFromBytes } from '../../src/primitives/index.js';
import { readVectorText } from '../support/vectors.js';

const K0 = 0x0706050403020100n;
const K1 = 0x0f0e0d0c0b0a0908n;
/** The SipHash-2-4 paper's 64-bit vectors for messages of 0, 1, 8, 15 and 16 bytes. */
const VECTORS: [number, bigint][] = [
  [0, 0x726fdb47dd0e0e31n],
  [1, 0x74f839c593dc67fdn],
  [8, 0x93f5f5799a932462n],
  [15, 0xa129ca6149be45e5n],
  [16, 0x3f2acc7f57c29bdbn],
];

const block = parseBlock(fromHex(readVectorText('block277647.hex').trim()));

test('SipHash-2-4 (the primitives\' implementation, which short IDs use) matches the reference vectors', () => {
  for (const [length, expected] of VECTORS) {
    assert.equal(sipHash24(sipKey(K0, K1), Uint8Array.from({ length }, (_, i) => i)), expected, `${length} bytes`);
  }
});

test('short IDs: SipHash of the wtxid under SHA-256(header ‖ nonce), 48 bits', () => {
  const nonce = 0x0102030405060708n;
  const key = shortIdKey(block.header, nonce);
  const digest = sha256(new ByteWriter().bytes(block.header.toBytes()).u64(nonce).finish());
  const view = new DataView(digest.buffer, digest.byteOffset);
  assert.deepEqual(key, sipKey(view.getBigUint64(0, true), view.getBigUint64(8, true)));
  assert.deepEqual(key, sipKeyFromBytes(digest));
  const ids = block.transactions.map((tx) => shortTxId(key, tx.wtxid));
  assert.ok(ids.every((id) => id >= 0n && id < 1n << 48n));
  assert.equal(new Set(ids).size, ids.length, 'no two transactions of the block share a short ID');
});

test('cmpctblock, getblocktxn and blocktxn round trip on block 277,647', () => {
  const nonce = 42n;
  const key = shortIdKey(block.header, nonce);
  const txs = block.transactions;
  const compact = { header: block.header, nonce, shortIds: txs.slice(1).map((tx) => shortTxId(key, tx.wtxid)), prefilled: [{ index: 0, tx: txs[0]! }] };
  const decoded = decodeCompactBlock(encodeCompactBlock(compact));
  assert.equal(decoded.header.hashHex, block.header.hashHex);
  assert.equal(decoded.nonce, nonce);
  assert.deepEqual(decoded.shortIds, compact.shortIds);
  assert.deepEqual(decoded.prefilled.map((p) => [p.index, p.tx.txidHex]), [[0, txs[0]!.txidHex]]);

  const request = { blockHash: block.header.hash, indexes: [1, 2, 5, 100, txs.length - 1] };
  assert.deepEqual(decodeBlockTransactionsRequest(encodeBlockTransactionsRequest(request)), request);
  const answer = { blockHash: block.header.hash, transactions: request.indexes.map((i) => txs[i]!) };
  assert.deepEqual(decodeBlockTransactions(encodeBlockTransactions(answer)).transactions.map((tx) => tx.wtxidHex), answer.transactions.map((tx) => tx.wtxidHex));
});

test('malformed compact block messages are DecodeErrors: overflowing indexes, counts beyond the payload, trailing bytes', () => {
  const overflow = new ByteWriter().bytes(new Uint8Array(32)).compactSize(2).compactSize(0xffff).compactSize(0).finish();
  assert.throws(() => decodeBlockTransactionsRequest(overflow), DecodeError);
  const tooMany = new ByteWriter().bytes(new Uint8Array(32)).compactSize(1000).finish();
  assert.throws(() => decodeBlockTransactionsRequest(tooMany), DecodeError);
  const ids = new ByteWriter().bytes(block.header.toBytes()).u64(0n).compactSize(100).bytes(new Uint8Array(12)).finish();
  assert.throws(() => decodeCompactBlock(ids), DecodeError);
  const good = encodeCompactBlock({ header: block.header, nonce: 1n, shortIds: [1n, 2n], prefilled: [{ index: 0, tx: block.transactions[0]! }] });
  assert.throws(() => decodeCompactBlock(new Uint8Array([...good, 0])), DecodeError);
  assert.throws(() => encodeBlockTransactionsRequest({ blockHash: new Uint8Array(32), indexes: [3, 3] }), RangeError);
});
