/**
 * -blockfilterindex on a real in-process Chainstate: background catch-up, following new
 * blocks, a reorg followed at once (rewound to the fork, never out of sync), the filters
 * of disconnected blocks kept, restart and -reindex's wipe, what the coordinator's and a
 * front-end's snapshot views report, and Core's start-up check on pruned data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  basicBlockFilter,
  BlockFilterIndex,
  CoinStatsIndex,
  blockFilterHash,
  blockFilterHeader,
  ChainSnapshotSource,
  spentScripts,
  ZERO_FILTER_HEADER,
  type Chainstate,
  type NodeView,
} from '../../src/chain/index.js';
import { DEFAULT_MEMPOOL_POLICY } from '../../src/mempool/index.js';
import { toHex } from '../../src/primitives/index.js';
import { generateBlocks } from '../../src/mining/index.js';
import { chainFixture } from '../support/chainstate.js';

const OP_TRUE = Uint8Array.of(0x51);
const OTHER = Uint8Array.of(0x51, 0x01, 0x99, 0x75);
const NODE: NodeView = { ibd: false, now: () => 1_700_000_000, deprecatedRpc: [], warnings: [], pruneTarget: 0, mempoolPolicy: DEFAULT_MEMPOOL_POLICY, coinsCacheBytes: { db: 8 << 20, tip: 440 << 20 } };

/** Every active block's stored filter is the one built from its block and undo data, and the headers chain from zero. */
function checkActiveChain(chain: Chainstate, index: BlockFilterIndex): void {
  let prev = ZERO_FILTER_HEADER;
  for (let h = 0; h <= chain.chain.height; h++) {
    const entry = chain.chain.at(h)!;
    const filter = index.view.filter(entry.hash);
    assert.ok(filter, `filter of height ${h}`);
    const undo = h === 0 ? [] : chain.readUndo(entry)!;
    assert.equal(toHex(filter), toHex(basicBlockFilter(chain.readBlock(entry), spentScripts(undo))), `filter of height ${h}`);
    const header = index.view.header(entry.hash)!;
    assert.equal(toHex(header), toHex(blockFilterHeader(blockFilterHash(filter), prev)), `header of height ${h}`);
    prev = header;
  }
}

test('-blockfilterindex catches up, follows blocks and reorgs, survives a restart and is wiped by -reindex', async () => {
  const fixture = chainFixture();
  try {
    const holder: { index?: BlockFilterIndex } = {};
    const { chain, store, close } = await fixture.openWith({ events: { blockConnected: (b, e) => holder.index?.blockConnected(b, e) } });
    await generateBlocks(chain, OP_TRUE, 30, 1e6);
    let index = BlockFilterIndex.open(fixture.dir, chain, () => undefined);
    holder.index = index;
    assert.deepEqual(index.info(), { synced: false, best_block_height: 0 });
    await index.start();
    assert.deepEqual(index.info(), { synced: true, best_block_height: 30 });
    const later = await generateBlocks(chain, OP_TRUE, 5, 1e6);
    assert.deepEqual(index.info(), { synced: true, best_block_height: 35 });
    checkActiveChain(chain, index);

    // Reorg: the last 3 blocks replaced by 4; the index rewinds to the fork as the first new block connects.
    const replaced = chain.lookup(later[2]!)!;
    const replacedFilter = index.view.filter(replaced.hash)!;
    await chain.invalidateBlock(replaced);
    const replacement = await generateBlocks(chain, OTHER, 4, 1e6);
    assert.equal(chain.tip!.hashHex, replacement[3]);
    assert.deepEqual(index.info(), { synced: true, best_block_height: 36 });
    checkActiveChain(chain, index);
    // A disconnected block's filter stays readable by its hash, as in Core.
    assert.equal(toHex(index.view.filter(replaced.hash)!), toHex(replacedFilter));

    // The coordinator's snapshots and a front-end's read-only ones see the same index.
    const own = store.snapshotSource(fixture.params, () => NODE, () => undefined, () => index.view);
    assert.deepEqual(own.withSnapshot((v) => v.blockfilter?.info()), { synced: true, best_block_height: 36 });
    const readOnly = ChainSnapshotSource.openReadOnly(fixture.dir, fixture.params, () => NODE, false, true)!;
    const tip = chain.tip!;
    assert.deepEqual(readOnly.withSnapshot((v) => v.blockfilter?.info()), { synced: true, best_block_height: 36 });
    assert.equal(toHex(readOnly.withSnapshot((v) => v.blockfilter!.filter(tip.hash))!), toHex(index.view.filter(tip.hash)!));
    const hashes = [chain.chain.at(1)!.hash, tip.hash, new Uint8Array(32)];
    assert.deepEqual(readOnly.withSnapshot((v) => v.blockfilter!.headers(hashes)).map((h) => h && toHex(h)), [toHex(index.view.header(hashes[0]!)!), toHex(index.view.header(tip.hash)!), undefined]);
    assert.equal(ChainSnapshotSource.openReadOnly(fixture.dir, fixture.params, () => NODE, false, false)!.withSnapshot((v) => v.blockfilter), undefined);
    await readOnly.close();

    // Blocks connected while the index is closed are caught up on the next start.
    await index.close();
    holder.index = undefined;
    await generateBlocks(chain, OP_TRUE, 3, 1e6);
    index = BlockFilterIndex.open(fixture.dir, chain, () => undefined);
    assert.deepEqual(index.info(), { synced: false, best_block_height: 36 });
    holder.index = index;
    await index.start();
    assert.deepEqual(index.info(), { synced: true, best_block_height: 39 });
    checkActiveChain(chain, index);
    const headerBefore = toHex(index.view.header(chain.tip!.hash)!);
    await index.close();

    // -reindex wipes it: nothing indexed until it has caught up again, to the same headers.
    index = BlockFilterIndex.open(fixture.dir, chain, () => undefined, { wipe: true });
    holder.index = index;
    assert.deepEqual(index.info(), { synced: false, best_block_height: 0 });
    assert.equal(index.view.filter(replaced.hash), undefined);
    await index.start();
    assert.equal(toHex(index.view.header(chain.tip!.hash)!), headerBefore);
    await index.close();
    await close();
  } finally {
    fixture.remove();
  }
});

test('on a pruned node the index starts while it has the blocks to catch up on, and refuses with Core’s text when not', async () => {
  const fixture = chainFixture('regtest', 1_700_000_000, { fastprune: true, prune: 'manual' });
  try {
    const holder: { index?: BlockFilterIndex } = {};
    const { chain, close } = await fixture.openWith({ events: { blockConnected: (b, e) => holder.index?.blockConnected(b, e) } });
    let index = BlockFilterIndex.open(fixture.dir, chain, () => undefined);
    holder.index = index;
    await index.start();
    await generateBlocks(chain, OP_TRUE, 900, 1e6);
    const pruned = await chain.pruneBlockchain(600);
    assert.ok(pruned !== undefined && pruned > 0 && !chain.chain.at(0)!.hasData, `prune height ${pruned}`);
    await index.close();
    holder.index = undefined;
    // At the tip, or behind it by blocks still on disk: it starts and catches up.
    await generateBlocks(chain, OP_TRUE, 10, 1e6);
    index = BlockFilterIndex.open(fixture.dir, chain, () => undefined);
    assert.equal(index.pruneViolation(), undefined);
    await index.start();
    assert.deepEqual(index.info(), { synced: true, best_block_height: 910 });
    await index.close();
    // Started over (-reindex wipes it), it would need genesis, which is pruned.
    index = BlockFilterIndex.open(fixture.dir, chain, () => undefined, { wipe: true });
    assert.equal(
      index.pruneViolation(),
      'basic block filter index best block of the index goes beyond pruned data. Please disable the index or reindex (which will download the whole blockchain again)',
    );
    await index.close();
    await close();
  } finally {
    fixture.remove();
  }
});

test('prune locks: pruning leaves an index the blocks it has not indexed yet (Core’s PRUNE_LOCK_BUFFER below them)', async () => {
  const fixture = chainFixture('regtest', 1_700_000_000, { fastprune: true, prune: 'manual' });
  try {
    const { chain, close } = await fixture.openWith({});
    await generateBlocks(chain, OP_TRUE, 900, 1e6);
    // Opened, not started: both indexes still need every block from genesis.
    const filters = BlockFilterIndex.open(fixture.dir, chain, () => undefined);
    const stats = CoinStatsIndex.open(fixture.dir, chain, () => undefined);
    assert.equal(await chain.pruneBlockchain(600), undefined, 'nothing pruned under a lock at genesis');
    assert.ok(chain.chain.at(0)!.hasData);
    await filters.start();
    await stats.start();
    assert.deepEqual([filters.info(), stats.info()], [
      { synced: true, best_block_height: 900 },
      { synced: true, best_block_height: 900 },
    ]);
    // Caught up, they hold nothing back: the request prunes as far as it can.
    const pruned = await chain.pruneBlockchain(600);
    assert.ok(pruned !== undefined && pruned > 500 && pruned <= 600, `prune height ${pruned}`);
    await filters.close();
    await stats.close();
    await close();
  } finally {
    fixture.remove();
  }
});
