/**
 * The view of the block index that consensus rules need: a header placed in a chain,
 * with its ancestors. The chainstate's block index entries implement it; consensus code
 * never sees storage or the rest of the index.
 */
export interface IndexedHeader {
  readonly hash: Uint8Array;
  readonly height: number;
  readonly version: number;
  readonly time: number;
  readonly bits: number;
  readonly prev: IndexedHeader | undefined;
  /** The ancestor at `height` (at most this.height), as Core's GetAncestor; undefined when out of range. */
  ancestor(height: number): IndexedHeader | undefined;
  /** Median of the times of this block and its up to 10 predecessors (Core's GetMedianTimePast). */
  medianTimePast(): number;
}
