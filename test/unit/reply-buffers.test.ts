/**
 * Reused reply buffers: a released buffer serves the next body that fits, two bodies in
 * use at once never share memory, and small or huge bodies get memory of their own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { takeReplyBuffer } from '../../src/http/index.js';

test('reply buffers are reused once released, never shared while in use', () => {
  const a = takeReplyBuffer(100_000);
  assert.equal(a.bytes.length, 100_000);
  const b = takeReplyBuffer(100_000);
  assert.notEqual(a.bytes.buffer, b.bytes.buffer, 'two bodies in use at once');
  a.bytes.fill(1);
  b.bytes.fill(2);
  assert.ok(a.bytes.every((x) => x === 1));
  a.release();
  a.release(); // idempotent: not kept twice
  const c = takeReplyBuffer(90_000);
  assert.equal(c.bytes.buffer, a.bytes.buffer, 'the released memory serves the next body that fits');
  const d = takeReplyBuffer(90_000);
  assert.notEqual(d.bytes.buffer, c.bytes.buffer, 'released once, handed out once');
  // A larger body than any kept buffer gets a new one.
  const e = takeReplyBuffer(300_000);
  assert.equal(e.bytes.length, 300_000);
  for (const r of [b, c, d, e]) r.release();
  // Small bodies come from Node's pool and are never kept.
  const small = takeReplyBuffer(100);
  small.release();
  assert.notEqual(takeReplyBuffer(100).bytes.buffer, takeReplyBuffer(90_000).bytes.buffer);
});
