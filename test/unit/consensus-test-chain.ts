/**
 * A minimal block index for consensus tests: IndexedHeader nodes with O(1) ancestors,
 * built from real headers or from synthetic (version, time, bits) triples, and small
 * block builders (BIP34 coinbase, witness commitment, nonce grinding for easy targets).
 */
import { checkProofOfWork, coinbaseHeightPrefix, type ChainParams, type IndexedHeader } from '../../src/consensus/index.js';
import {
  BlockHeader,
  computeMerkleRoot,
  concatBytes,
  NULL_OUTPOINT,
  sha256,
  Transaction,
  WITNESS_COMMITMENT_HEADER,
  witnessCommitment,
  type Block,
  type TxOut,
} from '../../src/primitives/index.js';

export class TestIndex implements IndexedHeader {
  /** line[h] is this node's ancestor at height h (shared with descendants while they extend it). */
  private readonly line: TestIndex[];

  constructor(
    readonly hash: Uint8Array,
    readonly version: number,
    readonly time: number,
    readonly bits: number,
    readonly prev: TestIndex | undefined,
  ) {
    if (!prev) {
      this.line = [this];
    } else {
      // Extend the parent's line in place when the parent is its tip; copy it for a fork.
      this.line = prev.line.length === prev.height + 1 ? prev.line : prev.line.slice(0, prev.height + 1);
      this.line.push(this);
    }
  }

  get height(): number {
    return this.prev ? this.prev.height + 1 : 0;
  }

  ancestor(height: number): TestIndex | undefined {
    if (height < 0 || height > this.height) return undefined;
    return this.line[height];
  }

  medianTimePast(): number {
    const times: number[] = [];
    for (let walk: TestIndex | undefined = this; walk && times.length < 11; walk = walk.prev) times.push(walk.time);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  }
}

/** An index node for a real header. */
export function indexHeader(header: BlockHeader, prev: TestIndex | undefined): TestIndex {
  return new TestIndex(header.hash, header.version, header.time, header.bits, prev);
}

let counter = 0;

/** A node with a unique synthetic hash (no proof of work). */
export function syntheticChild(prev: TestIndex | undefined, fields: { version?: number; time: number; bits: number }): TestIndex {
  const hash = sha256(new TextEncoder().encode(`synthetic block ${counter++}`));
  return new TestIndex(hash, fields.version ?? 0x20000000, fields.time, fields.bits, prev);
}

/** Extends `tip` by `count` synthetic blocks; `fields(height)` gives each block's fields. */
export function extend(
  tip: TestIndex | undefined,
  count: number,
  fields: (height: number) => { version?: number; time: number; bits: number },
): TestIndex {
  let walk = tip;
  for (let i = 0; i < count; i++) walk = syntheticChild(walk, fields(walk ? walk.height + 1 : 0));
  if (!walk) throw new RangeError('extend needs a tip or a positive count');
  return walk;
}

/** A coinbase for `height` (BIP34 prefix) paying `value` to OP_TRUE, with `extraScriptSig` after the height. */
export function coinbaseTx(height: number, value: bigint, options: { witnessReserved?: Uint8Array; extraScriptSig?: Uint8Array; outputs?: TxOut[] } = {}): Transaction {
  const scriptSig = concatBytes(coinbaseHeightPrefix(height), options.extraScriptSig ?? Uint8Array.of(0x00));
  return new Transaction({
    version: 2,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig, sequence: 0xffffffff, witness: options.witnessReserved ? [options.witnessReserved] : [] }],
    outputs: options.outputs ?? [{ value, scriptPubKey: Uint8Array.of(0x51) }],
    locktime: 0,
  });
}

/** The coinbase with a BIP141 commitment output for `transactions` (whose first entry is that coinbase) appended. */
export function withWitnessCommitment(transactions: readonly Transaction[], reserved = new Uint8Array(32)): Transaction[] {
  const coinbase = transactions[0]!;
  const root = computeMerkleRoot(transactions.map((tx, i) => (i === 0 ? new Uint8Array(32) : tx.wtxid))).root;
  const commitment = concatBytes(WITNESS_COMMITMENT_HEADER, witnessCommitment(root, reserved));
  const withCommitment = new Transaction({
    version: coinbase.version,
    inputs: [{ ...coinbase.inputs[0]!, witness: [reserved] }],
    outputs: [...coinbase.outputs, { value: 0n, scriptPubKey: commitment }],
    locktime: coinbase.locktime,
  });
  return [withCommitment, ...transactions.slice(1)];
}

/** A block over `transactions` with a correct merkle root, its nonce ground until the header meets `bits`. */
export function mineBlock(
  prevHash: Uint8Array,
  transactions: readonly Transaction[],
  fields: { time: number; bits: number; version?: number },
  params: ChainParams,
): Block {
  const merkleRoot = computeMerkleRoot(transactions.map((tx) => tx.txid)).root;
  for (let nonce = 0; ; nonce++) {
    const header = new BlockHeader({ version: fields.version ?? 0x20000000, prevHash, merkleRoot, time: fields.time, bits: fields.bits, nonce });
    if (checkProofOfWork(header.hash, header.bits, params)) return { header, transactions };
  }
}
