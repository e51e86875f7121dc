/**
 * REST headers JSON written from the headers table (src/rest/headers-json.ts) against the
 * RPC renderer it stands in for: writeJson of headerToJson(headerFields(...)) per header,
 * on a mined regtest chain read through a snapshot, for runs at genesis, across a chunk
 * boundary, at the tip and past it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeView } from '../../src/chain/index.js';
import { DEFAULT_MEMPOOL_POLICY } from '../../src/mempool/index.js';
import { generateBlocks } from '../../src/mining/index.js';
import { activeHeadersJson } from '../../src/rest/headers-json.js';
import { headerFields, headerToJson, writeJson } from '../../src/rpc/index.js';
import { chainFixture } from '../support/chainstate.js';

const NODE: NodeView = { ibd: false, now: () => 1_700_000_000, deprecatedRpc: [], warnings: [], pruneTarget: 0, mempoolPolicy: DEFAULT_MEMPOOL_POLICY, coinsCacheBytes: { db: 8 << 20, tip: 440 << 20 } };

test('REST headers JSON from the headers table equals headerToJson per header, byte for byte', async () => {
  const fixture = chainFixture();
  try {
    const { chain, store, close } = await fixture.open();
    await generateBlocks(chain, Uint8Array.of(0x51), 300, 1e6);
    const source = store.snapshotSource(fixture.params, () => NODE, () => undefined);
    source.withSnapshot((view) => {
      for (const [from, count] of [
        [0, 2000],
        [0, 1],
        [5, 20],
        [250, 10],
        [298, 5],
        [300, 1],
      ] as const) {
        const start = view.activeEntry(from)!;
        const shown = Math.min(count, view.height - from + 1);
        const expected = Array.from({ length: shown }, (_, i) => headerToJson(headerFields(view, view.activeEntry(from + i)!)));
        assert.equal(activeHeadersJson(view, from, shown, start.chainWork).toString('latin1'), `${writeJson(expected)}\n`, `${count} from ${from}`);
      }
      assert.equal(activeHeadersJson(view, 0, 0, 0n).toString('latin1'), '[]\n');
    });
    await close();
  } finally {
    fixture.remove();
  }
});
