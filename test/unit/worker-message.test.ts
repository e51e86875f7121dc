import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TxOut } from '../../src/primitives/index.js';
import { ALL_INPUTS, decodeTask, decodeTaskMessage, encodedTaskSize, encodeTask, STORE_SIGNATURES, TASK_MAGIC, TaskMessageError, type TaskItem } from '../../workers/message.js';

function filled(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);
}

function spent(count: number, scriptLength: (i: number) => number): TxOut[] {
  return Array.from({ length: count }, (_, i) => ({ value: BigInt(i) * 100_000_007n, scriptPubKey: filled(scriptLength(i), i) }));
}

/** Decoded items hold views and plain arrays; compare them field by field as plain data. */
function plain(items: readonly TaskItem[]): unknown {
  return items.map((item) => ({
    txIndex: item.txIndex,
    flags: item.flags,
    txBytes: Array.from(item.txBytes),
    spentOutputs: item.spentOutputs.map((o) => ({ value: o.value, script: Array.from(o.scriptPubKey) })),
    inputs: item.inputs === null ? null : Array.from(item.inputs),
  }));
}

function roundTrip(items: TaskItem[]): TaskItem[] {
  const buffer = encodeTask(items);
  assert.equal(buffer.byteLength, encodedTaskSize(items), 'the buffer is exactly the encoded size');
  const decoded = decodeTask(buffer);
  assert.deepEqual(plain(decoded), plain(items));
  return decoded;
}

test('a task with several transactions, whole and partial input sets, round-trips', () => {
  roundTrip([
    { txIndex: 0, flags: 0, txBytes: filled(10, 1), spentOutputs: [], inputs: null },
    { txIndex: 7, flags: 0x1ffff, txBytes: filled(250, 2), spentOutputs: spent(3, () => 25), inputs: null },
    { txIndex: 8, flags: 0xffffffff, txBytes: filled(400, 3), spentOutputs: spent(5, (i) => i * 10), inputs: [1, 3, 4] },
    { txIndex: 0xfffffffe, flags: 1, txBytes: new Uint8Array(0), spentOutputs: spent(1, () => 0), inputs: [] },
  ]);
});

test('extreme amounts survive as signed 64-bit values', () => {
  const outputs: TxOut[] = [-1n, 0n, 2_100_000_000_000_000n, (1n << 63n) - 1n, -(1n << 63n)].map((value) => ({
    value,
    scriptPubKey: Uint8Array.of(0x51),
  }));
  roundTrip([{ txIndex: 1, flags: 1, txBytes: filled(60, 4), spentOutputs: outputs, inputs: null }]);
});

test('big scripts and transactions round-trip byte for byte', () => {
  const decoded = roundTrip([
    {
      txIndex: 2,
      flags: 0x20e01,
      txBytes: filled(1_000_000, 5),
      spentOutputs: [
        { value: 1n, scriptPubKey: filled(10_000, 6) },
        { value: 2n, scriptPubKey: filled(100_000, 7) },
        { value: 3n, scriptPubKey: filled(0x10000 + 3, 8) },
      ],
      inputs: [0, 2],
    },
  ]);
  assert.equal(decoded[0]!.spentOutputs[1]!.scriptPubKey.length, 100_000);
});

test('many inputs across many transactions round-trip', () => {
  const items: TaskItem[] = Array.from({ length: 40 }, (_, t) => ({
    txIndex: t * 3,
    flags: t,
    txBytes: filled(100 + t, t),
    spentOutputs: spent(t === 39 ? 3000 : 25, (i) => (i % 7) * 9),
    inputs: t % 2 === 0 ? null : Array.from({ length: 12 }, (_, i) => i * 2),
  }));
  const decoded = roundTrip(items);
  assert.equal(decoded[39]!.spentOutputs.length, 3000);
});

test('decoded bytes are views into the transferred buffer, not copies', () => {
  const buffer = encodeTask([{ txIndex: 0, flags: 0, txBytes: filled(32, 9), spentOutputs: spent(2, () => 22), inputs: null }]);
  const [item] = decodeTask(buffer);
  assert.equal(item!.txBytes.buffer, buffer);
  assert.equal(item!.spentOutputs[1]!.scriptPubKey.buffer, buffer);
});

test('the header is the magic, the options, then the item count, little-endian', () => {
  const buffer = encodeTask([{ txIndex: 5, flags: 3, txBytes: Uint8Array.of(0xaa), spentOutputs: [], inputs: null }], { storeSignatures: true });
  const view = new DataView(buffer);
  assert.equal(view.getUint32(0, true), TASK_MAGIC);
  assert.equal(view.getUint32(4, true), STORE_SIGNATURES);
  assert.equal(view.getUint32(8, true), 1);
  assert.equal(view.getUint32(12, true), 5);
  assert.equal(view.getUint32(16, true), 3);
  assert.equal(view.getUint32(buffer.byteLength - 4, true), ALL_INPUTS);
});

test('malformed buffers are refused with TaskMessageError', () => {
  const good = encodeTask([{ txIndex: 0, flags: 1, txBytes: filled(80, 1), spentOutputs: spent(2, () => 25), inputs: [0, 1] }]);
  const badMagic = good.slice(0);
  new DataView(badMagic).setUint32(0, 0x12345678, true);
  assert.throws(() => decodeTask(badMagic), TaskMessageError);
  assert.throws(() => decodeTask(good.slice(0, good.byteLength - 1)), TaskMessageError);
  const trailing = new Uint8Array(good.byteLength + 1);
  trailing.set(new Uint8Array(good));
  assert.throws(() => decodeTask(trailing.buffer), TaskMessageError);
  const hugeCount = good.slice(0);
  new DataView(hugeCount).setUint32(12 + 12 + 80, 0x7fffffff, true);
  assert.throws(() => decodeTask(hugeCount), TaskMessageError);
  const unknownOption = good.slice(0);
  new DataView(unknownOption).setUint32(4, 2, true);
  assert.throws(() => decodeTask(unknownOption), TaskMessageError);
});

test('the store-signatures option travels in the header', () => {
  const items: TaskItem[] = [{ txIndex: 3, flags: 1, txBytes: filled(40, 2), spentOutputs: spent(1, () => 22), inputs: null }];
  assert.equal(decodeTaskMessage(encodeTask(items)).options.storeSignatures, false);
  const stored = decodeTaskMessage(encodeTask(items, { storeSignatures: true }));
  assert.equal(stored.options.storeSignatures, true);
  assert.deepEqual(plain(stored.items), plain(items));
});

test('values that do not fit the format are refused when encoding', () => {
  assert.throws(() => encodeTask([{ txIndex: -1, flags: 0, txBytes: new Uint8Array(0), spentOutputs: [], inputs: null }]), RangeError);
  assert.throws(() => encodeTask([{ txIndex: 0, flags: 2 ** 32, txBytes: new Uint8Array(0), spentOutputs: [], inputs: null }]), RangeError);
  assert.throws(() => encodeTask([{ txIndex: 0, flags: 0, txBytes: new Uint8Array(0), spentOutputs: [], inputs: [1.5] }]), RangeError);
});
