/**
 * ChainSnapshotSource.withTurnSnapshot, as HTTP front-ends read the chain: calls in one
 * event-loop turn share a snapshot (the state when the turn's first call came), a later
 * turn sees what was committed meanwhile, and an async call keeps its snapshot until it
 * settles, after its turn has ended.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { ChainSnapshotSource, type NodeView } from '../../src/chain/index.js';
import { DEFAULT_MEMPOOL_POLICY } from '../../src/mempool/index.js';
import { generateBlocks } from '../../src/mining/index.js';
import { chainFixture } from '../support/chainstate.js';

const OP_TRUE = Uint8Array.of(0x51);
const NODE: NodeView = { ibd: false, now: () => 1_700_000_000, deprecatedRpc: [], warnings: [], pruneTarget: 0, mempoolPolicy: DEFAULT_MEMPOOL_POLICY, coinsCacheBytes: { db: 8 << 20, tip: 440 << 20 } };

test('turn snapshots: shared within a turn, fresh in the next, kept by an async call until it settles', async () => {
  const fixture = chainFixture();
  try {
    const { chain, close } = await fixture.openWith({});
    await generateBlocks(chain, OP_TRUE, 3, 1e6);
    const source = ChainSnapshotSource.openReadOnly(fixture.dir, fixture.params, () => NODE, false)!;
    await nextTurn();

    const first = source.withTurnSnapshot((v) => v);
    assert.equal(first.height, 3);
    // Later calls of the same turn get the same view.
    assert.equal(source.withTurnSnapshot((v) => v), first);
    // An async call started in this turn keeps this state after the turn ends.
    let release!: () => void;
    const held = source.withTurnSnapshot(async (v) => {
      await new Promise<void>((resolve) => (release = resolve));
      // Read after the turn: from the same transaction, which still ends at height 3.
      return [v.reader.activeHash(3) !== undefined, v.reader.activeHash(4) === undefined];
    });
    await generateBlocks(chain, OP_TRUE, 2, 1e6);
    // The plain per-call snapshot sees the new blocks at once.
    assert.equal(source.withSnapshot((v) => v.height), 5);
    await nextTurn();
    const next = source.withTurnSnapshot((v) => v);
    assert.notEqual(next, first);
    assert.equal(next.height, 5);
    assert.equal(next.tip().hashHex, chain.tip!.hashHex);
    release();
    assert.deepEqual(await held, [true, true]);
    // A throwing call releases its share too: the next turn still opens and closes cleanly.
    assert.throws(() => source.withTurnSnapshot(() => { throw new Error('boom'); }), /boom/);
    await nextTurn();
    assert.equal(source.withTurnSnapshot((v) => v.height), 5);
    await nextTurn();
    await source.close();
    await close();
  } finally {
    fixture.remove();
  }
});
