/**
 * The headers table (active-headers.ts) on real LMDB files: it follows the active table
 * through connects, reorgs and shrinks in the same batches, reads any run of heights
 * across chunk boundaries, and is recognised as stale and rebuilt when the active table
 * moved without it (a directory from before the table).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256d } from '../../src/primitives/index.js';
import { HEADERS_PER_CHUNK, openChainstateEnv, type BlockIndexRecord, type ChainstateEnv, type ChainstateWriter } from '../../src/storage/index.js';
import { randomBytes, seeded, withTempDir } from './storage-fixtures.js';

interface Block {
  readonly header: Uint8Array;
  readonly hash: Uint8Array;
}

const random = seeded(13);

function newBlock(): Block {
  const header = randomBytes(random, 80);
  return { header, hash: sha256d(header) };
}

function record(block: Block, height: number): BlockIndexRecord {
  return { header: block.header, height, chainWork: BigInt(height + 1), status: 0x1d, txCount: 1, chainTxCount: height + 1, dataFile: 0, dataPos: 8, sequenceId: 0 };
}

/** Writes the blocks' index entries, then the chain's changes, in one batch (as a flush does). */
function commit(env: ChainstateEnv, blocks: ReadonlyMap<number, Block | null>): void {
  env.writeBatch((w: ChainstateWriter) => {
    for (const [height, block] of blocks) if (block) w.putBlockIndex(block.hash, record(block, height));
    w.applyActiveChanges([...blocks].map(([height, block]) => ({ height, hash: block?.hash ?? null })));
  });
}

const concat = (blocks: readonly Block[]): Uint8Array => Buffer.concat(blocks.map((b) => b.header));

function assertChain(env: ChainstateEnv, chain: readonly Block[]): void {
  env.withSnapshot((r) => {
    assert.equal(r.activeTipHeight(), chain.length - 1);
    assert.ok(r.activeHeadersCurrent());
    assert.deepEqual(Buffer.from(r.activeHeaders(0, chain.length)), Buffer.from(concat(chain)));
    // Runs that start and end inside chunks and cross their boundaries.
    for (const [from, count] of [
      [HEADERS_PER_CHUNK - 3, 7],
      [1, HEADERS_PER_CHUNK * 2],
      [chain.length - 1, 1],
    ] as const) {
      if (from + count > chain.length) continue;
      assert.deepEqual(Buffer.from(r.activeHeaders(from, count)), Buffer.from(concat(chain.slice(from, from + count))), `${count} from ${from}`);
    }
  });
}

test('the headers table follows connects, a reorg and a shrink to a chunk boundary', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    try {
      env.withSnapshot((r) => assert.ok(r.activeHeadersCurrent(), 'empty tables agree'));
      const chain = Array.from({ length: 600 }, newBlock);
      commit(env, new Map(chain.map((b, h) => [h, b])));
      assertChain(env, chain);

      // One block at a time, as blocks connect at the tip.
      for (let i = 0; i < 3; i++) {
        chain.push(newBlock());
        commit(env, new Map([[chain.length - 1, chain.at(-1)!]]));
      }
      assertChain(env, chain);

      // A reorg's final state per height, in Chainstate's order: disconnected heights
      // first (top down), the new branch reusing their slots, removals above its tip.
      const changes = new Map<number, Block | null>();
      for (let h = chain.length - 1; h >= 500; h--) changes.set(h, null);
      const branch = Array.from({ length: 41 }, newBlock);
      branch.forEach((b, i) => changes.set(500 + i, b));
      commit(env, changes);
      chain.splice(500, chain.length - 500, ...branch);
      assertChain(env, chain);

      // Down to exactly two chunks: the third chunk goes.
      commit(env, new Map(Array.from({ length: chain.length - 2 * HEADERS_PER_CHUNK }, (_, i) => [2 * HEADERS_PER_CHUNK + i, null])));
      chain.length = 2 * HEADERS_PER_CHUNK;
      assertChain(env, chain);
      env.withSnapshot((r) => assert.equal(r.activeHeadersCurrent(), true));
    } finally {
      await env.close();
    }
  });
});

test('an active table moved without the headers table is detected and rebuilt', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    try {
      const chain = Array.from({ length: 300 }, newBlock);
      // As a build before the table wrote it: index and active only.
      env.writeBatch((w) => {
        chain.forEach((b, h) => {
          w.putBlockIndex(b.hash, record(b, h));
          w.putActive(h, b.hash);
        });
      });
      env.withSnapshot((r) => assert.equal(r.activeHeadersCurrent(), false));
      env.writeBatch((w) => w.rebuildActiveHeaders());
      assertChain(env, chain);

      // The same length but another tip (a reorg by an older build) is stale too.
      const other = newBlock();
      env.writeBatch((w) => {
        w.putBlockIndex(other.hash, record(other, 299));
        w.putActive(299, other.hash);
      });
      env.withSnapshot((r) => assert.equal(r.activeHeadersCurrent(), false));
      env.writeBatch((w) => w.rebuildActiveHeaders());
      chain[299] = other;
      assertChain(env, chain);

      // A chain of whole chunks rebuilds without an empty trailing chunk.
      const whole = Array.from({ length: HEADERS_PER_CHUNK }, newBlock);
      env.writeBatch((w) => {
        w.clear('active');
        whole.forEach((b, h) => {
          w.putBlockIndex(b.hash, record(b, h));
          w.putActive(h, b.hash);
        });
        w.rebuildActiveHeaders();
      });
      assertChain(env, whole);
    } finally {
      await env.close();
    }
  });
});
