/**
 * BIP37 merkle blocks (Core's CMerkleBlock / CPartialMerkleTree, merkleblock.cpp): a block
 * header and a partial merkle tree proving which of the block's transactions match. Built
 * from a block's txids and a match set, serialized as Core's gettxoutproof writes it, and
 * read back and verified as verifytxoutproof does. Read errors carry the texts of Core's
 * stream exceptions (DataStream / ReadCompactSize).
 */
import { bytesEqual } from './bytes.js';
import { sha256d } from './hashes.js';
import { BlockHeader, HEADER_SIZE, parseHeader } from './header.js';
import { ByteWriter } from './writer.js';

/** Core's MAX_BLOCK_WEIGHT / MIN_TRANSACTION_WEIGHT: no block holds more transactions. */
const MAX_TRANSACTIONS = Math.floor(4_000_000 / (4 * 60));
/** Core's MAX_SIZE: the largest CompactSize a read accepts. */
const MAX_SIZE = 0x02000000;

/** A read failure with the what() text of Core's std::ios_base::failure (without libstdc++'s suffix). */
export class MerkleBlockReadError extends Error {
  override readonly name = 'MerkleBlockReadError';
}

export interface PartialMerkleTree {
  /** Transactions in the block. */
  readonly transactions: number;
  /** Node hashes in depth-first order (internal byte order). */
  readonly hashes: readonly Uint8Array[];
  /** Traversal flags in depth-first order; after a read, a multiple of 8 (whole bytes). */
  readonly bits: readonly boolean[];
}

export interface MerkleBlock {
  readonly header: BlockHeader;
  readonly tree: PartialMerkleTree;
}

const treeWidth = (transactions: number, height: number) => Math.floor((transactions + 2 ** height - 1) / 2 ** height);

function treeHeight(transactions: number): number {
  let height = 0;
  while (treeWidth(transactions, height) > 1) height++;
  return height;
}

function hashPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  const pair = new Uint8Array(64);
  pair.set(left, 0);
  pair.set(right, 32);
  return sha256d(pair);
}

/** Core's CPartialMerkleTree(vTxid, vMatch). */
export function buildPartialMerkleTree(txids: readonly Uint8Array[], matches: readonly boolean[]): PartialMerkleTree {
  const n = txids.length;
  const hashes: Uint8Array[] = [];
  const bits: boolean[] = [];
  const calcHash = (height: number, pos: number): Uint8Array => {
    if (height === 0) return txids[pos]!;
    const left = calcHash(height - 1, pos * 2);
    const right = pos * 2 + 1 < treeWidth(n, height - 1) ? calcHash(height - 1, pos * 2 + 1) : left;
    return hashPair(left, right);
  };
  const traverse = (height: number, pos: number): void => {
    let parentOfMatch = false;
    for (let p = pos * 2 ** height; p < (pos + 1) * 2 ** height && p < n; p++) parentOfMatch ||= matches[p] === true;
    bits.push(parentOfMatch);
    if (height === 0 || !parentOfMatch) {
      hashes.push(calcHash(height, pos));
    } else {
      traverse(height - 1, pos * 2);
      if (pos * 2 + 1 < treeWidth(n, height - 1)) traverse(height - 1, pos * 2 + 1);
    }
  };
  traverse(treeHeight(n), 0);
  return { transactions: n, hashes, bits };
}

/** Core's CMerkleBlock(block, txids): matches are the block's transactions whose txid is in `wanted`. */
export function buildMerkleBlock(header: BlockHeader, txids: readonly Uint8Array[], wanted: (txid: Uint8Array) => boolean): MerkleBlock {
  return { header, tree: buildPartialMerkleTree(txids, txids.map(wanted)) };
}

export interface ExtractedMatches {
  /** The merkle root the tree commits to, or null where Core returns uint256() (a bad tree). */
  readonly root: Uint8Array | null;
  /** Matched txids and their positions in the block, in block order. */
  readonly matches: readonly Uint8Array[];
  readonly indexes: readonly number[];
}

/** Core's CPartialMerkleTree::ExtractMatches. */
export function extractMatches(tree: PartialMerkleTree): ExtractedMatches {
  const matches: Uint8Array[] = [];
  const indexes: number[] = [];
  const bad = (): ExtractedMatches => ({ root: null, matches: [], indexes: [] });
  const n = tree.transactions;
  if (n === 0 || n > MAX_TRANSACTIONS || tree.hashes.length > n || tree.bits.length < tree.hashes.length) return bad();
  let bitsUsed = 0;
  let hashesUsed = 0;
  let failed = false;
  const traverse = (height: number, pos: number): Uint8Array => {
    if (bitsUsed >= tree.bits.length) {
      failed = true;
      return new Uint8Array(32);
    }
    const parentOfMatch = tree.bits[bitsUsed++]!;
    if (height === 0 || !parentOfMatch) {
      if (hashesUsed >= tree.hashes.length) {
        failed = true;
        return new Uint8Array(32);
      }
      const hash = tree.hashes[hashesUsed++]!;
      if (height === 0 && parentOfMatch) {
        matches.push(hash);
        indexes.push(pos);
      }
      return hash;
    }
    const left = traverse(height - 1, pos * 2);
    let right = left;
    if (pos * 2 + 1 < treeWidth(n, height - 1)) {
      right = traverse(height - 1, pos * 2 + 1);
      // Two equal children would let a different transaction list share the root (CVE-2012-2459).
      if (bytesEqual(right, left)) failed = true;
    }
    return hashPair(left, right);
  };
  const root = traverse(treeHeight(n), 0);
  if (failed) return bad();
  if (Math.floor((bitsUsed + 7) / 8) !== Math.floor((tree.bits.length + 7) / 8)) return bad();
  if (hashesUsed !== tree.hashes.length) return bad();
  return { root, matches, indexes };
}

/** CMerkleBlock's serialization: header, nTransactions, vHash, then the flag bits packed LSB-first into bytes. */
export function serializeMerkleBlock(block: MerkleBlock): Uint8Array {
  const { tree } = block;
  const flags = new Uint8Array(Math.ceil(tree.bits.length / 8));
  tree.bits.forEach((bit, p) => {
    if (bit) flags[p >> 3]! |= 1 << (p & 7);
  });
  const w = new ByteWriter(HEADER_SIZE + 8 + tree.hashes.length * 32 + flags.length);
  w.bytes(block.header.toBytes());
  w.u32(tree.transactions);
  w.compactSize(tree.hashes.length);
  for (const hash of tree.hashes) w.bytes(hash);
  w.compactSize(flags.length);
  w.bytes(flags);
  return w.finish();
}

/** A reader that fails the way Core's DataStream and ReadCompactSize do. Trailing bytes are ignored, as `ssMB >> merkleBlock` does. */
class StreamReader {
  private offset = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new MerkleBlockReadError('DataStream::read(): end of data');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  u32(): number {
    const at = this.take(4);
    return this.view.getUint32(at.byteOffset - this.bytes.byteOffset, true);
  }

  compactSize(): number {
    const first = this.take(1)[0]!;
    let size: bigint;
    if (first < 253) size = BigInt(first);
    else if (first === 253) {
      const b = this.take(2);
      size = BigInt(b[0]! | (b[1]! << 8));
      if (size < 253n) throw new MerkleBlockReadError('non-canonical ReadCompactSize()');
    } else if (first === 254) {
      size = BigInt(this.u32());
      if (size < 0x10000n) throw new MerkleBlockReadError('non-canonical ReadCompactSize()');
    } else {
      const b = this.take(8);
      size = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
      if (size < 0x100000000n) throw new MerkleBlockReadError('non-canonical ReadCompactSize()');
    }
    if (size > BigInt(MAX_SIZE)) throw new MerkleBlockReadError('ReadCompactSize(): size too large');
    return Number(size);
  }
}

/** Reads a CMerkleBlock (Core's `DataStream >> CMerkleBlock`); throws MerkleBlockReadError. */
export function parseMerkleBlock(bytes: Uint8Array): MerkleBlock {
  const r = new StreamReader(bytes);
  const header = parseHeader(r.take(HEADER_SIZE));
  const transactions = r.u32();
  const hashCount = r.compactSize();
  const hashes: Uint8Array[] = [];
  for (let i = 0; i < hashCount; i++) hashes.push(r.take(32));
  const flags = r.take(r.compactSize());
  const bits: boolean[] = [];
  for (const byte of flags) for (let b = 0; b < 8; b++) bits.push(((byte >> b) & 1) === 1);
  return { header, tree: { transactions, hashes, bits } };
}
