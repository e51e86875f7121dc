/**
 * The pool's clusters kept by how late their last chunk comes in mining order, so the
 * size limit finds the worst chunk without looking at every cluster: a binary heap with
 * the latest on top. Clusters that change leave lazily — a replaced cluster stays in the
 * heap until it surfaces (or the heap is rebuilt once stale ones outnumber live ones).
 */
import { compareMiningOrder, type RankedChunk } from './linearize.js';

export interface HeapCluster {
  /** The cluster's last chunk, ranked (undefined for an empty cluster). */
  readonly lastChunk: RankedChunk | undefined;
}

/** Whether `a`'s last chunk comes later in mining order than `b`'s. */
function later(a: HeapCluster, b: HeapCluster): boolean {
  return compareMiningOrder(a.lastChunk!, b.lastChunk!) > 0;
}

export class WorstChunkHeap<C extends HeapCluster> {
  private items: C[] = [];

  constructor(private readonly isLive: (cluster: C) => boolean) {}

  push(cluster: C): void {
    if (!cluster.lastChunk) return;
    this.items.push(cluster);
    this.up(this.items.length - 1);
  }

  /** The live cluster whose last chunk is latest in mining order. */
  top(liveCount: number): C | undefined {
    if (this.items.length > 2 * liveCount + 64) this.rebuild();
    while (this.items.length > 0 && !this.isLive(this.items[0]!)) this.pop();
    return this.items[0];
  }

  private rebuild(): void {
    const live = this.items.filter(this.isLive);
    this.items = [];
    for (const c of live) this.push(c);
  }

  private pop(): void {
    const last = this.items.pop()!;
    if (this.items.length === 0) return;
    this.items[0] = last;
    this.down(0);
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!later(items[i]!, items[parent]!)) return;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < items.length && later(items[l]!, items[top]!)) top = l;
      if (r < items.length && later(items[r]!, items[top]!)) top = r;
      if (top === i) return;
      [items[i], items[top]] = [items[top]!, items[i]!];
      i = top;
    }
  }
}
