/**
 * Core's TaprootBuilder::GetTreeTuples for leaves added depth-first: each Combine puts the
 * newer subtree's leaves before the older one's, so the tuples come out in that order, not
 * in the order the leaves were written.
 */
import type { TapTreeLeaf } from './types.js';

export function treeTuples(leaves: readonly TapTreeLeaf[]): TapTreeLeaf[] {
  const branch: (TapTreeLeaf[] | undefined)[] = [];
  for (const leaf of leaves) {
    let node = [leaf];
    let depth = leaf.depth;
    while (branch.length > depth && branch[depth]) {
      node = [...node, ...branch[depth]!];
      branch.pop();
      depth--;
    }
    while (branch.length <= depth) branch.push(undefined);
    branch[depth] = node;
  }
  // Each leaf's depth is the length of its merkle path, which the order does not change.
  return branch[0] ?? [];
}
