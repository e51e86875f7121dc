/**
 * getblockchaininfo's text (the RPC and REST /rest/chaininfo.json) computed once per
 * state it describes. It reads, of the snapshot, the tip, the best header, the block
 * files' size and whether anything was pruned (pruning changes the size too), and of the
 * node its state object (IBD, prune target, warnings, -deprecatedrpc: replaced whenever
 * it changes) and its clock in seconds (the verification progress). When none of them
 * moved since the last answer, the answer is the same text: those four reads replace the
 * tip and best-header entries and the rendering. One answer is kept, so nothing
 * accumulates.
 */
import type { NodeView, SnapshotChainView } from '../chain/index.js';
import { toHex } from '../primitives/index.js';
import { CHAINSTATE_META } from '../storage/index.js';

let last: { readonly node: NodeView; readonly key: string; readonly text: string } | undefined;

function stateKey(snapshot: SnapshotChainView): string {
  const { reader } = snapshot;
  const hash = (bytes: Uint8Array | undefined): string => (bytes ? toHex(bytes) : '');
  return `${hash(reader.meta(CHAINSTATE_META.tip))} ${hash(reader.meta(CHAINSTATE_META.bestHeader))} ${reader.blockFilesSize()} ${reader.meta(CHAINSTATE_META.havePruned) === true} ${snapshot.node.now()}`;
}

/** `render()` (getblockchaininfo's text of `snapshot`), or the last one while the state it reads is the same. */
export function memoizedChainInfo(snapshot: SnapshotChainView, render: () => string): string {
  const key = stateKey(snapshot);
  if (last?.node === snapshot.node && last.key === key) return last.text;
  const text = render();
  last = { node: snapshot.node, key, text };
  return text;
}
