/**
 * Which blocks to ask a peer for next (Core's FindNextBlocksToDownload and FindNextBlocks):
 * walk from the last block we share with the peer towards its best known block, skipping
 * what we have and what is in flight elsewhere, within a moving window of
 * BLOCK_DOWNLOAD_WINDOW blocks past that shared block. When the window's end is reached
 * with nothing to fetch because one peer holds the block the window waits on, that peer is
 * the staller.
 */
import { BlockStatus, lastCommonAncestor, type ActiveChain, type BlockIndexEntry } from '../chain/index.js';

/** Core's BLOCK_DOWNLOAD_WINDOW. */
export const BLOCK_DOWNLOAD_WINDOW = 1024;
/** Core's MAX_BLOCKS_IN_TRANSIT_PER_PEER. */
export const MAX_BLOCKS_IN_TRANSIT_PER_PEER = 16;

export interface DownloadPeerView {
  readonly id: number;
  bestKnownBlock: BlockIndexEntry | undefined;
  lastCommonBlock: BlockIndexEntry | undefined;
  /** Whether the peer can serve witness data (NODE_WITNESS). */
  readonly servesWitnesses: boolean;
}

export interface DownloadContext {
  readonly chain: ActiveChain;
  readonly minimumChainWork: bigint;
  readonly segwitHeight: number;
  /** The peer a block is in flight from, if any. */
  inFlightFrom(hashHex: string): number | undefined;
  /** Received and waiting to be stored: as good as had. */
  received(hashHex: string): boolean;
}

export interface DownloadPlan {
  readonly blocks: BlockIndexEntry[];
  /** The peer that holds up the window, when nothing could be fetched because of it. */
  readonly staller: number | undefined;
}

export function findNextBlocksToDownload(peer: DownloadPeerView, count: number, ctx: DownloadContext): DownloadPlan {
  const blocks: BlockIndexEntry[] = [];
  if (count <= 0) return { blocks, staller: undefined };
  const best = peer.bestKnownBlock;
  const tip = ctx.chain.tip;
  if (!best || !tip || best.chainWork < tip.chainWork || best.chainWork < ctx.minimumChainWork) return { blocks, staller: undefined };
  // Bootstrap quickly by guessing that a parent of our tip is the fork point.
  peer.lastCommonBlock ??= ctx.chain.at(Math.min(best.height, ctx.chain.height));
  // The peer may have reorganised: step back to a block that is an ancestor of its best.
  peer.lastCommonBlock = lastCommonAncestor(peer.lastCommonBlock!, best);
  if (peer.lastCommonBlock === best) return { blocks, staller: undefined };

  let walk = peer.lastCommonBlock;
  const windowEnd = walk.height + BLOCK_DOWNLOAD_WINDOW;
  const maxHeight = Math.min(best.height, windowEnd + 1);
  let waitingFor: number | undefined;
  while (walk.height < maxHeight) {
    const toFetch = Math.min(maxHeight - walk.height, Math.max(count - blocks.length, 128));
    const batch: BlockIndexEntry[] = new Array(toFetch);
    walk = best.ancestor(walk.height + toFetch)!;
    batch[toFetch - 1] = walk;
    for (let i = toFetch - 1; i > 0; i--) batch[i - 1] = batch[i]!.prev!;
    for (const entry of batch) {
      // The peer's chain is invalid as far as we know.
      if (!entry.isValid(BlockStatus.VALID_TREE)) return { blocks, staller: undefined };
      if (!peer.servesWitnesses && entry.height >= ctx.segwitHeight) return { blocks, staller: undefined };
      if (entry.hasData || ctx.chain.contains(entry) || ctx.received(entry.hashHex)) {
        if (entry.chainTxCount > 0) peer.lastCommonBlock = entry;
        continue;
      }
      const holder = ctx.inFlightFrom(entry.hashHex);
      if (holder !== undefined) {
        waitingFor ??= holder;
        continue;
      }
      if (entry.height > windowEnd) {
        // Nothing to fetch here, though there would be with a window one block longer.
        const staller = blocks.length === 0 && waitingFor !== peer.id ? waitingFor : undefined;
        return { blocks, staller };
      }
      blocks.push(entry);
      if (blocks.length === count) return { blocks, staller: undefined };
    }
  }
  return { blocks, staller: undefined };
}
