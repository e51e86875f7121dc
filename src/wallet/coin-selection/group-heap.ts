/**
 * SRD's std::priority_queue<OutputGroup, std::vector<OutputGroup>, MinOutputGroupComparator>:
 * a binary heap whose top is the group of smallest selection amount. It follows libstdc++'s
 * push_heap/pop_heap step for step, so groups of equal amount leave in the same order as in
 * Core for the same insertions.
 */
import type { OutputGroup } from './output-group.js';

/** MinOutputGroupComparator: `a` sorts below `b` when it is worth more, putting the least valuable on top. */
function below(a: OutputGroup, b: OutputGroup): boolean {
  return a.selectionAmount > b.selectionAmount;
}

export class SmallestGroupHeap {
  readonly #items: OutputGroup[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The least valuable group. */
  top(): OutputGroup {
    const first = this.#items[0];
    if (first === undefined) throw new Error('SmallestGroupHeap: empty');
    return first;
  }

  /** priority_queue::push: push_back then std::push_heap. */
  push(group: OutputGroup): void {
    this.#items.push(group);
    this.#siftUp(this.#items.length - 1, 0, group);
  }

  /** priority_queue::pop: std::pop_heap then pop_back. */
  pop(): void {
    const items = this.#items;
    const length = items.length;
    if (length === 0) throw new Error('SmallestGroupHeap: empty');
    if (length > 1) {
      // __pop_heap: the last element is re-seated from the root's hole; the root goes last.
      const value = items[length - 1]!;
      items[length - 1] = items[0]!;
      this.#adjust(0, length - 1, value);
    }
    items.pop();
  }

  /** libstdc++'s __push_heap. */
  #siftUp(holeIndex: number, topIndex: number, value: OutputGroup): void {
    const items = this.#items;
    let hole = holeIndex;
    let parent = Math.floor((hole - 1) / 2);
    while (hole > topIndex && below(items[parent]!, value)) {
      items[hole] = items[parent]!;
      hole = parent;
      parent = Math.floor((hole - 1) / 2);
    }
    items[hole] = value;
  }

  /** libstdc++'s __adjust_heap over the first `length` items. */
  #adjust(holeIndex: number, length: number, value: OutputGroup): void {
    const items = this.#items;
    const topIndex = holeIndex;
    let hole = holeIndex;
    let secondChild = holeIndex;
    while (secondChild < Math.floor((length - 1) / 2)) {
      secondChild = 2 * (secondChild + 1);
      if (below(items[secondChild]!, items[secondChild - 1]!)) secondChild--;
      items[hole] = items[secondChild]!;
      hole = secondChild;
    }
    if ((length & 1) === 0 && secondChild === Math.floor((length - 2) / 2)) {
      secondChild = 2 * (secondChild + 1);
      items[hole] = items[secondChild - 1]!;
      hole = secondChild - 1;
    }
    this.#siftUp(hole, topIndex, value);
  }
}
