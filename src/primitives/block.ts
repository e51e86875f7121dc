import { bytesEqual } from './bytes.js';
import { nativeBlockRoots, nativeHashesInUse, nativeTxHashes, sha256d } from './hashes.js';
import { BlockHeader, readHeader } from './header.js';
import { computeMerkleRoot, type MerkleResult } from './merkle.js';
import { ByteReader } from './reader.js';
import { readTransaction, serializeTransaction, type Transaction } from './transaction.js';
import { ByteWriter } from './writer.js';

export interface Block {
  readonly header: BlockHeader;
  readonly transactions: readonly Transaction[];
}

export interface ParsedBlock extends Block {
  /** Byte offset of each transaction inside the serialized block (for tx indexes and positional reads). */
  readonly txOffsets: readonly number[];
  /** Size of the serialized block. */
  readonly size: number;
}

export function readBlock(reader: ByteReader): ParsedBlock {
  const start = reader.offset;
  const header = readHeader(reader);
  const count = reader.compactSize();
  const transactions: Transaction[] = [];
  const txOffsets: number[] = [];
  for (let i = 0; i < count; i++) {
    txOffsets.push(reader.offset - start);
    transactions.push(readTransaction(reader));
  }
  const size = reader.offset - start;
  hashTransactionsNatively(reader.bytes, start, transactions, txOffsets, size);
  return { header, transactions, txOffsets, size };
}

/**
 * Gives a parsed block's transactions their txids and wtxids from one native call when
 * this thread hashes natively: a block is hashed whole right after it is read anyway (its
 * merkle root and witness commitment), and per-transaction calls cost more than hashing.
 */
function hashTransactionsNatively(bytes: Uint8Array, blockStart: number, transactions: readonly Transaction[], txOffsets: readonly number[], size: number): void {
  if (transactions.length === 0 || !nativeHashesInUse()) return;
  const layout = new Int32Array(3 * transactions.length);
  for (let i = 0; i < transactions.length; i++) {
    layout[3 * i] = blockStart + txOffsets[i]!;
    layout[3 * i + 1] = transactions[i]!.wireWitnessOffset;
    layout[3 * i + 2] = blockStart + (i + 1 < transactions.length ? txOffsets[i + 1]! : size);
  }
  const hashes = nativeTxHashes(bytes, layout)!;
  for (let i = 0; i < transactions.length; i++) {
    const tx = transactions[i]!;
    tx.adoptHashes(hashes.subarray(64 * i, 64 * i + 32), tx.wireWitnessOffset >= 0 ? hashes.subarray(64 * i + 32, 64 * i + 64) : undefined);
  }
  parsedRoots.set(transactions, new NativeRoots(hashes));
}

/**
 * Both merkle roots of a parsed block from its hashes in one native call, made when first
 * asked for: validation asks at once, RPC renderers that parse a block never do.
 */
class NativeRoots {
  private roots: { merkle: MerkleResult; witness: MerkleResult } | undefined;

  constructor(private readonly hashes: Uint8Array) {}

  get(): { merkle: MerkleResult; witness: MerkleResult } {
    if (!this.roots) {
      const roots = nativeBlockRoots(this.hashes)!;
      this.roots = { merkle: { root: roots.root, mutated: roots.mutated }, witness: { root: roots.witnessRoot, mutated: roots.witnessMutated } };
    }
    return this.roots;
  }
}

/**
 * The merkle roots of parsed blocks, computed with their hashes, by transaction list: a
 * block built from another list (a test's changed copy, a template) has none and computes
 * its own. Lists are never changed in place (Block's are readonly).
 */
const parsedRoots = new WeakMap<readonly Transaction[], NativeRoots>();

export function parseBlock(bytes: Uint8Array): ParsedBlock {
  const reader = new ByteReader(bytes);
  const block = readBlock(reader);
  reader.assertEnd();
  return block;
}

export function serializeBlock(block: Block, withWitness = true): Uint8Array {
  const writer = new ByteWriter(1024);
  writer.bytes(block.header.toBytes());
  writer.compactSize(block.transactions.length);
  for (const tx of block.transactions) serializeTransaction(tx, withWitness, writer);
  return writer.finish();
}

export function blockMerkleRoot(block: Block): MerkleResult {
  return parsedRoots.get(block.transactions)?.get().merkle ?? computeMerkleRoot(block.transactions.map((tx) => tx.txid));
}

/** BIP141 witness merkle root: the coinbase's wtxid counts as 32 zero bytes. */
export function blockWitnessMerkleRoot(block: Block): MerkleResult {
  return parsedRoots.get(block.transactions)?.get().witness ?? computeMerkleRoot(block.transactions.map((tx, i) => (i === 0 ? new Uint8Array(32) : tx.wtxid)));
}

/** The BIP141 commitment header: OP_RETURN, push 36, 0xaa21a9ed. */
export const WITNESS_COMMITMENT_HEADER = Uint8Array.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed);
export const MINIMUM_WITNESS_COMMITMENT = 38;

/** Index of the coinbase output holding the witness commitment (the last matching one), or -1. */
export function witnessCommitmentIndex(block: Block): number {
  const coinbase = block.transactions[0];
  if (!coinbase) return -1;
  let found = -1;
  coinbase.outputs.forEach((out, i) => {
    const s = out.scriptPubKey;
    if (s.length >= MINIMUM_WITNESS_COMMITMENT && bytesEqual(s.subarray(0, 6), WITNESS_COMMITMENT_HEADER)) found = i;
  });
  return found;
}

/** The commitment value SHA256d(witness root || reserved value). */
export function witnessCommitment(witnessRoot: Uint8Array, reservedValue: Uint8Array): Uint8Array {
  const buffer = new Uint8Array(64);
  buffer.set(witnessRoot, 0);
  buffer.set(reservedValue, 32);
  return sha256d(buffer);
}
