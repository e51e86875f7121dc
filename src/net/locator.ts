/**
 * Block locators (Core's LocatorEntries): the heights whose hashes a getheaders or
 * getblocks names, newest first. The first eleven step back one block each, then the step
 * doubles each time, and the genesis block always ends the list, so a peer finds the fork
 * point in O(log n) hashes however far back it lies.
 */

/** The heights of a locator from a tip at `tipHeight` (newest first), as Core walks them. */
export function locatorHeights(tipHeight: number): number[] {
  if (!Number.isInteger(tipHeight) || tipHeight < 0) throw new RangeError(`a locator starts at a height of at least 0, got ${tipHeight}`);
  const heights: number[] = [];
  let step = 1;
  let height = tipHeight;
  for (;;) {
    heights.push(height);
    if (height === 0) return heights;
    height = Math.max(height - step, 0);
    if (heights.length > 10) step *= 2;
  }
}
