/**
 * Context-free block checks (Core's CheckBlockHeader, CheckMerkleRoot,
 * CheckWitnessMalleation, CheckBlock and IsBlockMutated in validation.cpp): what a block
 * must satisfy before its place in the chain is known. Merkle and witness failures are
 * reported as 'mutated' (the data may be a corrupted copy of a valid block).
 */
import {
  blockMerkleRoot,
  blockWitnessMerkleRoot,
  bytesEqual,
  compactSizeLength,
  witnessCommitment,
  witnessCommitmentIndex,
  type Block,
  type BlockHeader,
} from '../primitives/index.js';
import { legacySigOpCount } from '../script/index.js';
import { MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT, WITNESS_SCALE_FACTOR } from './limits.js';
import type { ChainParams } from './params.js';
import { checkProofOfWork } from './pow.js';
import { checkSignetBlockSolution } from './signet.js';
import { checkTransaction } from './tx-check.js';
import { BLOCK_OK, blockFailure, type BlockCheck } from './validation-result.js';

/** Serialized size without witness data (what the 1 MB-era limit and bad-blk-length measure). */
export function blockStrippedSize(block: Block): number {
  let size = 80 + compactSizeLength(block.transactions.length);
  for (const tx of block.transactions) size += tx.baseSize;
  return size;
}

/** Serialized size with witness data. */
export function blockTotalSize(block: Block): number {
  let size = 80 + compactSizeLength(block.transactions.length);
  for (const tx of block.transactions) size += tx.totalSize;
  return size;
}

/** Core's GetBlockWeight: stripped size × 3 + total size. */
export function blockWeight(block: Block): number {
  return blockStrippedSize(block) * (WITNESS_SCALE_FACTOR - 1) + blockTotalSize(block);
}

/** Core's CheckBlockHeader: the header's hash meets its own claimed target. */
export function checkBlockHeader(header: BlockHeader, params: ChainParams): BlockCheck {
  if (!checkProofOfWork(header.hash, header.bits, params)) return blockFailure('invalid-header', 'high-hash', 'proof of work failed');
  return BLOCK_OK;
}

/**
 * Core's CheckMerkleRoot: the transactions hash to the header's merkle root, and no level
 * of the tree pairs a hash with an identical one (CVE-2012-2459: duplicating the last
 * transactions keeps the root, so such a block is a mutated copy, not an invalid block).
 */
export function checkMerkleRoot(block: Block): BlockCheck {
  const { root, mutated } = blockMerkleRoot(block);
  if (!bytesEqual(root, block.header.merkleRoot)) return blockFailure('mutated', 'bad-txnmrklroot', 'hashMerkleRoot mismatch');
  if (mutated) return blockFailure('mutated', 'bad-txns-duplicate', 'duplicate transaction');
  return BLOCK_OK;
}

/**
 * Core's CheckWitnessMalleation. With segwit expected and a commitment present, the
 * coinbase witness must be exactly one 32-byte reserved value and the commitment must
 * match the witness merkle root. Otherwise no transaction may carry witness data, which
 * would be unbound by the proof of work.
 */
export function checkWitnessMalleation(block: Block, expectWitnessCommitment: boolean): BlockCheck {
  if (expectWitnessCommitment) {
    const position = witnessCommitmentIndex(block);
    if (position >= 0) {
      const coinbase = block.transactions[0]!;
      const stack = coinbase.inputs[0]?.witness ?? [];
      if (stack.length !== 1 || stack[0]!.length !== 32) {
        return blockFailure('mutated', 'bad-witness-nonce-size', 'CheckWitnessMalleation : invalid witness reserved value size');
      }
      // The witness tree's own mutation flag is moot: the transaction tree already rules it out.
      const expected = witnessCommitment(blockWitnessMerkleRoot(block).root, stack[0]!);
      if (!bytesEqual(expected, coinbase.outputs[position]!.scriptPubKey.subarray(6, 38))) {
        return blockFailure('mutated', 'bad-witness-merkle-match', 'CheckWitnessMalleation : witness merkle commitment mismatch');
      }
      return BLOCK_OK;
    }
  }
  for (const tx of block.transactions) {
    if (tx.hasWitness) return blockFailure('mutated', 'unexpected-witness', 'CheckWitnessMalleation : unexpected witness data found');
  }
  return BLOCK_OK;
}

export interface CheckBlockOptions {
  /** Check proof of work and (on signet) the block solution; default true. */
  checkPow?: boolean;
  /** Check the merkle root; default true. */
  checkMerkleRoot?: boolean;
}

/**
 * Core's CheckBlock: header proof of work, signet solution, merkle root, size limits,
 * exactly one coinbase in first place, every transaction's CheckTransaction, and legacy
 * sigops within the limit. Witness data is not examined here (ContextualCheckBlock does
 * that once it knows whether segwit applies).
 */
export function checkBlock(block: Block, params: ChainParams, options: CheckBlockOptions = {}): BlockCheck {
  const checkPow = options.checkPow ?? true;
  if (checkPow) {
    const header = checkBlockHeader(block.header, params);
    if (!header.ok) return header;
    if (params.signetBlocks && !checkSignetBlockSolution(block, params)) {
      return blockFailure('consensus', 'bad-signet-blksig', 'signet block signature validation failure');
    }
  }
  if (options.checkMerkleRoot ?? true) {
    const merkle = checkMerkleRoot(block);
    if (!merkle.ok) return merkle;
  }

  const txs = block.transactions;
  if (txs.length === 0 || txs.length * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT || blockStrippedSize(block) * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) {
    return blockFailure('consensus', 'bad-blk-length', 'size limits failed');
  }
  if (!txs[0]!.isCoinbase()) return blockFailure('consensus', 'bad-cb-missing', 'first tx is not coinbase');
  for (let i = 1; i < txs.length; i++) {
    if (txs[i]!.isCoinbase()) return blockFailure('consensus', 'bad-cb-multiple', 'more than one coinbase');
  }
  for (const tx of txs) {
    const failure = checkTransaction(tx);
    // CheckTransaction's failures carry no debug message, hence the trailing space, as in Core.
    if (failure) return blockFailure('consensus', failure, `Transaction check failed (tx hash ${tx.txidHex}) `);
  }
  // Legacy counting only: P2SH and witness sigops need the spent outputs (ConnectBlock counts those).
  let sigops = 0;
  for (const tx of txs) sigops += legacySigOpCount(tx);
  if (sigops * WITNESS_SCALE_FACTOR > MAX_BLOCK_SIGOPS_COST) return blockFailure('consensus', 'bad-blk-sigops', 'out-of-bounds SigOpCount');
  return BLOCK_OK;
}

/**
 * Core's IsBlockMutated (used before a block from a peer is processed): the merkle root
 * or, when `checkWitnessRoot`, the witness commitment does not hold; a block without a
 * coinbase also counts as mutated if any transaction is 64 bytes without witness (it
 * could pose as an inner merkle node).
 */
export function isBlockMutated(block: Block, checkWitnessRoot: boolean): boolean {
  if (!checkMerkleRoot(block).ok) return true;
  const first = block.transactions[0];
  if (!first || !first.isCoinbase()) return block.transactions.some((tx) => tx.baseSize === 64);
  return !checkWitnessMalleation(block, checkWitnessRoot).ok;
}
