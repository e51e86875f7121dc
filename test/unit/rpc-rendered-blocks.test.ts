/** The bounded cache behind the renderings RPC keeps per block (rendered-blocks.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedCache } from '../../src/rpc/rendered-blocks.js';

test('the cache keeps entries within its budget, dropping the least recently used first', () => {
  const cache = new BoundedCache<string>(10);
  cache.set('a', 'aaaa', 4);
  cache.set('b', 'bbbb', 4);
  assert.equal(cache.get('a'), 'aaaa'); // a is now the most recently used
  cache.set('c', 'cccc', 4); // 12 > 10: b goes
  assert.equal(cache.get('b'), undefined);
  assert.equal(cache.get('a'), 'aaaa');
  assert.equal(cache.get('c'), 'cccc');
  cache.set('c', 'cc', 2); // replacing counts the new cost only
  cache.set('d', 'dd', 2);
  assert.equal(cache.size, 3);
  cache.set('huge', 'x'.repeat(11), 11); // larger than the whole budget: not kept, nothing evicted
  assert.equal(cache.get('huge'), undefined);
  assert.equal(cache.size, 3);
});

test('a cache with no budget keeps nothing', () => {
  const cache = new BoundedCache<string>(0);
  cache.set('a', 'a', 1);
  assert.equal(cache.get('a'), undefined);
});
