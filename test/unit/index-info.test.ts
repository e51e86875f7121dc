/**
 * getindexinfo as an HTTP front-end judges an index from the indexes environment alone
 * (storedIndexInfo, real LMDB): synced only when the stored best block is the active tip
 * by hash, so a block at the tip's height on a stale branch is not synced.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedIndexInfo } from '../../src/chain/index.js';
import { INDEXES_META, openIndexesEnv } from '../../src/storage/index.js';
import { filledHash, withTempDir } from './storage-fixtures.js';

test('a stored index best block is synced only when it is the tip itself, for both indexes', async () => {
  await withTempDir(async (dir) => {
    const env = openIndexesEnv(dir);
    const active = filledHash(1);
    const stale = filledHash(2);
    // Both blocks stand at height 7: one on the active chain, one on a stale branch.
    const heightOf = (hash: Uint8Array): number | undefined => (hash[0] === 1 || hash[0] === 2 ? 7 : undefined);
    const tipHash = (): Uint8Array => active;
    for (const field of [INDEXES_META.txindexBest, INDEXES_META.blockFilterBest]) {
      assert.deepEqual(storedIndexInfo(env, field, heightOf, tipHash), { synced: false, best_block_height: 0 }, 'nothing indexed yet');
      env.writeBatch((w) => w.putMeta(field, stale));
      assert.deepEqual(storedIndexInfo(env, field, heightOf, tipHash), { synced: false, best_block_height: 7 }, 'same height, stale branch');
      env.writeBatch((w) => w.putMeta(field, active));
      assert.deepEqual(storedIndexInfo(env, field, heightOf, tipHash), { synced: true, best_block_height: 7 });
    }
    await env.close();
  });
});
