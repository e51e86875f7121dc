/**
 * The tree of every known header (Core's BlockManager index plus the chainstate's
 * candidate bookkeeping): lookup by hash, the best header, blocks waiting for a parent's
 * data, the candidate tips that may become active, and the chain-tips report.
 */
import { blockProof } from '../consensus/index.js';
import { hashToHex, type BlockHeader } from '../primitives/index.js';
import { BlockIndexEntry } from './block-index-entry.js';
import { BlockStatus } from './block-status.js';

/** Core's CBlockIndexWorkComparator as "a is better than b": more work, then seen earlier. */
export function betterCandidate(a: BlockIndexEntry, b: BlockIndexEntry): boolean {
  if (a.chainWork !== b.chainWork) return a.chainWork > b.chainWork;
  if (a.sequenceId !== b.sequenceId) return a.sequenceId < b.sequenceId;
  return a.loadOrder < b.loadOrder;
}

export type ChainTipStatus = 'active' | 'valid-fork' | 'valid-headers' | 'headers-only' | 'invalid';

export class BlockTree {
  private readonly byHash = new Map<string, BlockIndexEntry>();
  /** Children whose data arrived before an ancestor's (Core's m_blocks_unlinked). */
  private readonly unlinked = new Map<BlockIndexEntry, BlockIndexEntry[]>();
  readonly candidates = new Set<BlockIndexEntry>();
  bestHeader: BlockIndexEntry | undefined;
  bestInvalid: BlockIndexEntry | undefined;
  private nextSequenceId = 2;
  private nextLoadOrder = 0;

  get size(): number {
    return this.byHash.size;
  }

  get(hashHex: string): BlockIndexEntry | undefined {
    return this.byHash.get(hashHex);
  }

  getByHash(hash: Uint8Array): BlockIndexEntry | undefined {
    return this.byHash.get(hashToHex(hash));
  }

  entries(): IterableIterator<BlockIndexEntry> {
    return this.byHash.values();
  }

  /** Adds a header whose parent is known (or genesis), as Core's AddToBlockIndex. */
  addHeader(header: BlockHeader, prev: BlockIndexEntry | undefined): BlockIndexEntry {
    const entry = new BlockIndexEntry(header, prev, blockProof(header.bits), BlockStatus.VALID_TREE);
    entry.loadOrder = this.nextLoadOrder++;
    this.byHash.set(entry.hashHex, entry);
    this.considerBestHeader(entry);
    return entry;
  }

  /** An entry for `header` on top of `prev` that is not added to the tree (to test a block template). */
  probeEntry(header: BlockHeader, prev: BlockIndexEntry): BlockIndexEntry {
    return new BlockIndexEntry(header, prev, blockProof(header.bits), BlockStatus.VALID_TREE);
  }

  /** Re-creates an entry read from storage; the caller adds parents before children. */
  restore(header: BlockHeader, prev: BlockIndexEntry | undefined, work: bigint, status: number): BlockIndexEntry {
    const entry = new BlockIndexEntry(header, prev, work, status);
    entry.loadOrder = this.nextLoadOrder++;
    entry.dirty = false;
    this.byHash.set(entry.hashHex, entry);
    if (!entry.failed) this.considerBestHeader(entry);
    if (entry.failed && (!this.bestInvalid || entry.chainWork > this.bestInvalid.chainWork)) this.bestInvalid = entry;
    return entry;
  }

  considerBestHeader(entry: BlockIndexEntry): void {
    if (!this.bestHeader || entry.chainWork > this.bestHeader.chainWork) this.bestHeader = entry;
  }

  /** A fresh sequence id: blocks whose data arrives later lose chain-work ties. */
  takeSequenceId(): number {
    return this.nextSequenceId++;
  }

  /**
   * Core's ReceivedBlockTransactions after the data is stored: sets chain tx counts for
   * this block and any descendants that were waiting on it, and offers each as a candidate.
   */
  linkReceivedBlock(entry: BlockIndexEntry, offerCandidate: (e: BlockIndexEntry) => void): void {
    if (entry.prev && entry.prev.chainTxCount === 0) {
      if (entry.prev.isValid(BlockStatus.VALID_TREE)) {
        const waiting = this.unlinked.get(entry.prev) ?? [];
        waiting.push(entry);
        this.unlinked.set(entry.prev, waiting);
      }
      return;
    }
    const queue = [entry];
    while (queue.length > 0) {
      const next = queue.shift()!;
      next.chainTxCount = (next.prev?.chainTxCount ?? 0) + next.txCount;
      next.sequenceId = this.takeSequenceId();
      next.dirty = true;
      offerCandidate(next);
      const children = this.unlinked.get(next);
      if (children) {
        this.unlinked.delete(next);
        queue.push(...children);
      }
    }
  }

  /** Remembers a block whose data is missing again (pruned), so its arrival re-links it. */
  markUnlinked(entry: BlockIndexEntry): void {
    if (!entry.prev) return;
    const waiting = this.unlinked.get(entry.prev) ?? [];
    if (!waiting.includes(entry)) waiting.push(entry);
    this.unlinked.set(entry.prev, waiting);
  }

  /** The best candidate, or undefined. */
  bestCandidate(): BlockIndexEntry | undefined {
    let best: BlockIndexEntry | undefined;
    for (const c of this.candidates) if (!best || betterCandidate(c, best)) best = c;
    return best;
  }

  /** Tips of the tree: every entry without children, plus the active tip (Core's getchaintips set). */
  tips(activeTip: BlockIndexEntry | undefined): BlockIndexEntry[] {
    const hasChild = new Set<BlockIndexEntry>();
    for (const e of this.byHash.values()) if (e.prev) hasChild.add(e.prev);
    const tips = [...this.byHash.values()].filter((e) => !hasChild.has(e));
    if (activeTip && !tips.includes(activeTip)) tips.push(activeTip);
    return tips;
  }

  /** Every entry descending from `ancestor` (excluding it). */
  descendants(ancestor: BlockIndexEntry): BlockIndexEntry[] {
    const out: BlockIndexEntry[] = [];
    for (const e of this.byHash.values()) {
      if (e.height > ancestor.height && e.ancestor(ancestor.height) === ancestor) out.push(e);
    }
    return out;
  }
}

/** What getchaintips needs to know about a tip, from the live tree or a stored snapshot. */
export interface TipFacts {
  readonly failed: boolean;
  readonly chainTxCount: number;
  isValid(level: number): boolean;
}

/** Core's getchaintips status of a tip. */
export function tipStatus(entry: TipFacts, isActive: boolean): ChainTipStatus {
  if (isActive) return 'active';
  if (entry.failed) return 'invalid';
  if (entry.chainTxCount === 0) return 'headers-only';
  if (entry.isValid(BlockStatus.VALID_SCRIPTS)) return 'valid-fork';
  return 'valid-headers';
}
