/** The active chain: the block index entries from genesis to the tip, by height (Core's CChain). */
import type { BlockIndexEntry } from './block-index-entry.js';

export class ActiveChain {
  private readonly entries: BlockIndexEntry[] = [];

  get tip(): BlockIndexEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  get height(): number {
    return this.entries.length - 1;
  }

  get genesis(): BlockIndexEntry | undefined {
    return this.entries[0];
  }

  at(height: number): BlockIndexEntry | undefined {
    return height >= 0 ? this.entries[height] : undefined;
  }

  contains(entry: BlockIndexEntry): boolean {
    return this.entries[entry.height] === entry;
  }

  /** The entry after `entry` on this chain, when `entry` is on it. */
  next(entry: BlockIndexEntry): BlockIndexEntry | undefined {
    return this.contains(entry) ? this.entries[entry.height + 1] : undefined;
  }

  /** Makes `tip` the tip, rewriting the heights that differ (Core's SetTip). */
  setTip(tip: BlockIndexEntry | undefined): void {
    if (!tip) {
      this.entries.length = 0;
      return;
    }
    this.entries.length = tip.height + 1;
    let walk: BlockIndexEntry | undefined = tip;
    while (walk && this.entries[walk.height] !== walk) {
      this.entries[walk.height] = walk;
      walk = walk.prev;
    }
  }

  /** The last common block of this chain and `entry`'s ancestry (Core's FindFork). */
  findFork(entry: BlockIndexEntry): BlockIndexEntry | undefined {
    let walk: BlockIndexEntry | undefined = entry.height > this.height ? entry.ancestor(this.height) : entry;
    while (walk && !this.contains(walk)) walk = walk.prev;
    return walk;
  }

  /** Core's GetLocator: hashes stepping back exponentially from `from` (default tip). */
  locator(from: BlockIndexEntry | undefined = this.tip): Uint8Array[] {
    const hashes: Uint8Array[] = [];
    let step = 1;
    let walk = from;
    while (walk) {
      hashes.push(walk.hash);
      if (walk.height === 0) break;
      const height = Math.max(walk.height - step, 0);
      walk = this.contains(walk) ? this.at(height) : walk.ancestor(height);
      if (hashes.length > 10) step *= 2;
    }
    return hashes;
  }
}
