/**
 * One entry of the block index: a header placed in the tree of all known headers, with
 * its chain work, validity status and where its data lives. Implements the consensus
 * IndexedHeader view; ancestors are found through Core's skip list in O(log n).
 */
import type { IndexedHeader } from '../consensus/index.js';
import { hashToHex, type BlockHeader } from '../primitives/index.js';
import { BlockStatus, isValidUpTo } from './block-status.js';

export interface BlockDataPosition {
  file: number;
  pos: number;
}

/** Core's InvertLowestOne and GetSkipHeight: the skip list that makes GetAncestor logarithmic. */
function invertLowestOne(n: number): number {
  return n & (n - 1);
}

function skipHeight(height: number): number {
  if (height < 2) return 0;
  // Odd heights jump further back than the plain lowest-bit rule would.
  return height & 1 ? invertLowestOne(invertLowestOne(height - 1)) + 1 : invertLowestOne(height);
}

export class BlockIndexEntry implements IndexedHeader {
  readonly header: BlockHeader;
  readonly hash: Uint8Array;
  readonly hashHex: string;
  readonly height: number;
  readonly prev: BlockIndexEntry | undefined;
  readonly skip: BlockIndexEntry | undefined;
  readonly chainWork: bigint;
  status: number;
  txCount = 0;
  /** Transactions in this block and all ancestors; 0 while some ancestor's data is missing. */
  chainTxCount = 0;
  data: BlockDataPosition | undefined;
  /** Order in which block data arrived: ties in chain work go to the block seen first. */
  sequenceId = 0;
  /** Whether the block has been persisted with its current status. */
  dirty = true;
  /** Position in the order entries were created or loaded: the last tie-break between candidates. */
  loadOrder = 0;
  private mtp: number | undefined;

  constructor(header: BlockHeader, prev: BlockIndexEntry | undefined, work: bigint, status: number = BlockStatus.VALID_TREE) {
    this.header = header;
    this.hash = header.hash;
    this.hashHex = hashToHex(this.hash);
    this.prev = prev;
    this.height = prev ? prev.height + 1 : 0;
    this.chainWork = (prev?.chainWork ?? 0n) + work;
    this.status = status;
    this.skip = prev ? prev.ancestor(skipHeight(this.height)) : undefined;
  }

  get version(): number {
    return this.header.version;
  }

  get time(): number {
    return this.header.time;
  }

  get bits(): number {
    return this.header.bits;
  }

  ancestor(height: number): BlockIndexEntry | undefined {
    if (height > this.height || height < 0) return undefined;
    let walk: BlockIndexEntry = this;
    let heightWalk = this.height;
    while (heightWalk > height) {
      const heightSkip = skipHeight(heightWalk);
      const heightSkipPrev = skipHeight(heightWalk - 1);
      if (
        walk.skip !== undefined &&
        (heightSkip === height || (heightSkip > height && !(heightSkipPrev < heightSkip - 2 && heightSkipPrev >= height)))
      ) {
        walk = walk.skip;
        heightWalk = heightSkip;
      } else {
        walk = walk.prev!;
        heightWalk--;
      }
    }
    return walk;
  }

  medianTimePast(): number {
    if (this.mtp === undefined) {
      const times: number[] = [];
      let walk: BlockIndexEntry | undefined = this;
      for (let i = 0; i < 11 && walk; i++, walk = walk.prev) times.push(walk.time);
      times.sort((a, b) => a - b);
      this.mtp = times[Math.floor(times.length / 2)]!;
    }
    return this.mtp;
  }

  isValid(level: number = BlockStatus.VALID_TRANSACTIONS): boolean {
    return isValidUpTo(this.status, level);
  }

  get hasData(): boolean {
    return (this.status & BlockStatus.HAVE_DATA) !== 0;
  }

  get failed(): boolean {
    return (this.status & BlockStatus.FAILED_MASK) !== 0;
  }
}

/** Core's LastCommonAncestor. */
export function lastCommonAncestor(a: BlockIndexEntry, b: BlockIndexEntry): BlockIndexEntry {
  let pa: BlockIndexEntry | undefined = a.height > b.height ? a.ancestor(b.height) : a;
  let pb: BlockIndexEntry | undefined = b.height > a.height ? b.ancestor(a.height) : b;
  while (pa && pb && pa !== pb) {
    pa = pa.prev;
    pb = pb.prev;
  }
  return pa!;
}
