/**
 * getindexinfo as an HTTP front-end judges an index from the indexes environment alone
 * (storedIndexInfo, real LMDB), as Core's m_synced flag reads: not before anything is
 * indexed, not while the stored block is on the active chain below the tip (catching up),
 * synced at the tip, and still synced once its block has left the active chain (as after
 * invalidateblock, where bitcoind v31.0 answers synced with the old height).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedIndexInfo } from '../../src/chain/index.js';
import { INDEXES_META, openIndexesEnv } from '../../src/storage/index.js';
import { filledHash, withTempDir } from './storage-fixtures.js';

test('a stored index best block is synced at the tip or off the active chain, not below the tip on it', async () => {
  await withTempDir(async (dir) => {
    const env = openIndexesEnv(dir);
    const tip = filledHash(1);
    const stale = filledHash(2);
    const below = filledHash(3);
    // The tip and a stale block at height 7, an active block at height 5.
    const places = new Map([[1, { height: 7, active: true }], [2, { height: 7, active: false }], [3, { height: 5, active: true }]]);
    const locate = (hash: Uint8Array) => places.get(hash[0]!);
    const tipHash = (): Uint8Array => tip;
    for (const field of [INDEXES_META.txindexBest, INDEXES_META.blockFilterBest, INDEXES_META.txoSpenderBest]) {
      assert.deepEqual(storedIndexInfo(env, field, locate, tipHash), { synced: false, best_block_height: 0 }, 'nothing indexed yet');
      env.writeBatch((w) => w.putMeta(field, below));
      assert.deepEqual(storedIndexInfo(env, field, locate, tipHash), { synced: false, best_block_height: 5 }, 'catching up');
      env.writeBatch((w) => w.putMeta(field, tip));
      assert.deepEqual(storedIndexInfo(env, field, locate, tipHash), { synced: true, best_block_height: 7 }, 'at the tip');
      env.writeBatch((w) => w.putMeta(field, stale));
      assert.deepEqual(storedIndexInfo(env, field, locate, tipHash), { synced: true, best_block_height: 7 }, 'its block invalidated');
    }
    await env.close();
  });
});
