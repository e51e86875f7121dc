/**
 * What a getheaders or getblocks asks for (Core's FindForkInGlobalIndex and the loops of
 * net_processing's GETHEADERS / GETBLOCKS handlers): the first locator hash on our active
 * chain is the fork point, and the answer is the active chain after it, up to a limit or
 * the stop hash.
 */
import type { ActiveChain, BlockIndexEntry, BlockTree } from '../chain/index.js';

/** Core's FindForkInGlobalIndex: the newest locator entry on our chain, else genesis. */
export function findForkInGlobalIndex(chain: ActiveChain, tree: BlockTree, locator: readonly Uint8Array[]): BlockIndexEntry | undefined {
  const tip = chain.tip;
  for (const hash of locator) {
    const entry = tree.getByHash(hash);
    if (!entry) continue;
    if (chain.contains(entry)) return entry;
    // A locator entry ahead of our tip on the same chain: our tip is the fork point.
    if (tip && entry.ancestor(chain.height) === tip) return tip;
  }
  return chain.genesis;
}

/**
 * Active-chain blocks from `start` on, at most `limit`, ending early at the block whose
 * hash is `stopHex` (included).
 */
export function activeChainFrom(chain: ActiveChain, start: BlockIndexEntry | undefined, limit: number, stopHex: string | undefined): BlockIndexEntry[] {
  const out: BlockIndexEntry[] = [];
  for (let walk = start; walk && out.length < limit; walk = chain.next(walk)) {
    out.push(walk);
    if (walk.hashHex === stopHex) break;
  }
  return out;
}
