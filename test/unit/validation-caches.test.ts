/**
 * The stores behind Core's caches: HashEntrySet's bounds and eviction order, a shared table
 * seen from another thread, and the caching signature checker (a hit costs no
 * verification, only valid signatures are stored, and an entry never answers for another
 * digest, key or signature).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import * as noble from '@noble/secp256k1';
import { HASH_ENTRY_SALT_BYTES, HashEntrySet, HashEntrySetFormatError, sha256 } from '../../src/primitives/index.js';
import { Transaction } from '../../src/primitives/index.js';
import {
  PrecomputedTransactionData,
  SIGHASH_ALL,
  SignatureCache,
  SignatureCheckCounters,
  SigVersion,
  TransactionSignatureChecker,
  witnessV0SignatureHash,
} from '../../src/script/index.js';
import { derEncode, secretFromSeed } from '../support/spends.js';

const salt = new Uint8Array(HASH_ENTRY_SALT_BYTES).fill(7);
const entry = (n: number): Uint8Array => sha256(Uint8Array.of(n & 0xff, n >> 8, n >> 16));

test('a set keeps what was added, never more than its capacity, and refuses a foreign buffer', () => {
  const set = HashEntrySet.create(64 * 1024, salt, false);
  assert.ok(set.byteLength <= 64 * 1024);
  for (let i = 0; i < 100; i++) set.add(entry(i));
  for (let i = 0; i < 100; i++) assert.equal(set.has(entry(i), false), true, `entry ${i}`);
  assert.equal(set.has(entry(100), false), false);
  assert.equal(set.count(), 100);

  const tiny = HashEntrySet.create(0, salt, false);
  assert.equal(tiny.capacity, 4, 'a zero budget still gives one bucket, as CuckooCache keeps a minimum');
  for (let i = 0; i < 1000; i++) tiny.add(entry(i));
  assert.equal(tiny.count(), 4);
  assert.throws(() => new HashEntrySet(new ArrayBuffer(200)), HashEntrySetFormatError);
});

test('a full bucket overwrites a collectable entry before a live one', () => {
  const set = HashEntrySet.create(0, salt, false);
  for (let i = 0; i < 4; i++) set.add(entry(i));
  assert.equal(set.has(entry(2), true), true, 'a hit that marks collectable still finds the entry');
  assert.equal(set.has(entry(2), false), true);
  set.add(entry(99));
  assert.equal(set.has(entry(99), false), true);
  assert.equal(set.has(entry(2), false), false, 'the collectable entry made room');
  for (const i of [0, 1, 3]) assert.equal(set.has(entry(i), false), true, `live entry ${i} kept`);
});

test('a shared set is one table for every thread', async () => {
  const set = HashEntrySet.create(1 << 20, salt, true);
  set.add(entry(1));
  // The worker attaches through the compiled module, as the verify workers do.
  const moduleUrl = new URL('../../src/primitives/index.js', import.meta.url).href;
  const worker = new Worker(
    `import(${JSON.stringify(moduleUrl)}).then(({ HashEntrySet, sha256 }) => {
       const { parentPort, workerData } = require('node:worker_threads');
       const set = new HashEntrySet(workerData);
       const seen = set.has(sha256(Uint8Array.of(1, 0, 0)), false);
       set.add(sha256(Uint8Array.of(2, 0, 0)));
       parentPort.postMessage(seen);
     });`,
    { eval: true, workerData: set.buffer },
  );
  const seen = await new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.equal(seen, true, 'the worker sees the entry added here');
  assert.equal(set.has(entry(2), false), true, 'this thread sees the entry the worker added');
});

test('the caching checker verifies once, stores only valid signatures, and never answers for another message', () => {
  const secret = secretFromSeed(5);
  const publicKey = noble.getPublicKey(secret, true);
  const input = { prevout: { txid: new Uint8Array(32), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] };
  const tx = new Transaction({ version: 2, inputs: [input], outputs: [{ value: 1n, scriptPubKey: Uint8Array.of(0x51) }], locktime: 0 });
  const scriptCode = Uint8Array.of(0x51);
  const cache = SignatureCache.create(1 << 16);
  const checker = (amount: bigint, store: boolean, counters: SignatureCheckCounters) =>
    new TransactionSignatureChecker(tx, 0, amount, undefined, { cache: { cache, store }, counters });
  const digest = witnessV0SignatureHash(scriptCode, tx, 0, SIGHASH_ALL, 1000n, new PrecomputedTransactionData(tx));
  const sig = Uint8Array.from([...derEncode(noble.sign(digest, secret, { prehash: false, lowS: true })), SIGHASH_ALL]);

  const storing = new SignatureCheckCounters();
  assert.equal(checker(1000n, true, storing).checkEcdsaSignature(sig, publicKey, scriptCode, SigVersion.WITNESS_V0), true);
  assert.deepEqual({ ...storing }, { verified: 1, cacheHits: 0 });
  const reading = new SignatureCheckCounters();
  assert.equal(checker(1000n, false, reading).checkEcdsaSignature(sig, publicKey, scriptCode, SigVersion.WITNESS_V0), true);
  assert.deepEqual({ ...reading }, { verified: 0, cacheHits: 1 }, 'the second check is a cache hit');

  // The same signature over another amount is another digest: no hit, it fails, and it is not stored.
  const other = new SignatureCheckCounters();
  for (let i = 0; i < 2; i++) assert.equal(checker(999n, true, other).checkEcdsaSignature(sig, publicKey, scriptCode, SigVersion.WITNESS_V0), false);
  assert.deepEqual({ ...other }, { verified: 2, cacheHits: 0 }, 'an invalid signature is never stored');
  // Another key with the cached signature and digest: not the same entry either.
  const otherKey = noble.getPublicKey(secretFromSeed(6), true);
  const wrongKey = new SignatureCheckCounters();
  assert.equal(checker(1000n, false, wrongKey).checkEcdsaSignature(sig, otherKey, scriptCode, SigVersion.WITNESS_V0), false);
  assert.deepEqual({ ...wrongKey }, { verified: 1, cacheHits: 0 });
});
