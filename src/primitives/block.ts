import { bytesEqual } from './bytes.js';
import { sha256d } from './hashes.js';
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
  return { header, transactions, txOffsets, size: reader.offset - start };
}

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
  return computeMerkleRoot(block.transactions.map((tx) => tx.txid));
}

/** BIP141 witness merkle root: the coinbase's wtxid counts as 32 zero bytes. */
export function blockWitnessMerkleRoot(block: Block): MerkleResult {
  return computeMerkleRoot(block.transactions.map((tx, i) => (i === 0 ? new Uint8Array(32) : tx.wtxid)));
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
