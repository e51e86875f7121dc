/**
 * Block headers and blocks as RPC prints them (Core's blockheaderToJSON and blockToJSON,
 * rpc/blockchain.cpp, v31): getblockheader, getblock verbosity 1–3, REST headers and
 * blocks. The caller resolves everything that needs the chain (height, chain work, median
 * time past, transaction count, confirmations, the next block) and passes it in.
 */
import { blockStrippedSize, blockTotalSize, blockWeight, compactToTarget, deriveTarget, getDifficulty, uint256Hex } from '../../consensus/index.js';
import { hashToHex, toHex, type Block, type BlockHeader, type Transaction } from '../../primitives/index.js';
import type { ChainName } from '../../script/index.js';
import type { ResultObject } from './result.js';
import { doubleJson } from '../number-format.js';
import { txToJson, type SpentCoins } from './transaction.js';
import { txText } from './transaction-text.js';
import { writeJson } from '../json.js';

/** What blockheaderToJSON reads from the block index, resolved by the caller. */
export interface HeaderJsonFields {
  header: BlockHeader;
  height: number;
  /** Total work of the chain up to and including this block. */
  chainWork: bigint;
  /** Median time past of this block (its own time and up to ten predecessors). */
  medianTimePast: number;
  /** Transactions in the block (the index's nTx); 0 for a header whose block was never received. */
  txCount: number;
  /** tip height − height + 1 in the active chain, else -1 (Core's ComputeNextBlockAndDepth). */
  confirmations: number;
  /** The next block in the active chain (internal byte order), absent for the tip and off the active chain. */
  nextHash?: Uint8Array;
  /** The chain's proof-of-work limit, for "target" (Core's DeriveTarget). */
  powLimit: bigint;
}

/** The 32-bit value as eight lowercase hex digits (strprintf "%08x"). */
function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/**
 * getblockheader verbose: hash, confirmations, height, version (signed), versionHex,
 * merkleroot, time, mediantime, nonce, bits, target, difficulty, chainwork, nTx,
 * previousblockhash (not for genesis), nextblockhash (active chain, not the tip).
 */
export function headerToJson(fields: HeaderJsonFields): ResultObject {
  const { header } = fields;
  // Core derives the target with CHECK_NONFATAL; every stored header passed that check.
  const target = deriveTarget(header.bits, fields.powLimit) ?? compactToTarget(header.bits);
  const out: ResultObject = {
    hash: header.hashHex,
    confirmations: fields.confirmations,
    height: fields.height,
    version: header.version,
    versionHex: hex8(header.version),
    merkleroot: hashToHex(header.merkleRoot),
    time: header.time,
    mediantime: fields.medianTimePast,
    nonce: header.nonce,
    bits: hex8(header.bits),
    target: uint256Hex(target),
    difficulty: doubleJson(getDifficulty(header.bits)),
    chainwork: uint256Hex(fields.chainWork),
    nTx: fields.txCount,
  };
  if (fields.height > 0) out.previousblockhash = hashToHex(header.prevHash);
  if (fields.nextHash) out.nextblockhash = hashToHex(fields.nextHash);
  return out;
}

/**
 * getblock's "coinbase_tx" (v31): version, locktime, the first input's sequence and
 * scriptSig, and its single witness item when it has one. Outputs are left out on purpose.
 */
export function coinbaseTxJson(coinbase: Transaction): ResultObject {
  const input = coinbase.inputs[0]!;
  const out: ResultObject = {
    version: coinbase.version,
    locktime: coinbase.locktime,
    sequence: input.sequence,
    coinbase: toHex(input.scriptSig),
  };
  // Consensus allows the coinbase at most its one witness reserved value.
  if (input.witness.length > 0) out.witness = toHex(input.witness[0]!);
  return out;
}

export type BlockVerbosity = 1 | 2 | 3;

export interface BlockJsonOptions {
  chain: ChainName;
  verbosity: BlockVerbosity;
  /**
   * The block's undo data (spent coins of each non-coinbase transaction, in order), when
   * the block is connected and not pruned. Verbosity 2 then shows fees; 3 also prevouts.
   */
  undo?: readonly SpentCoins[];
  /** Leave out "coinbase_tx", as Core before v31 did (for comparing with older nodes' output). */
  omitCoinbaseTx?: boolean;
}

/**
 * getblock verbosity 1–3: the header fields, strippedsize, size, weight, coinbase_tx, then
 * "tx" as txids (1) or transaction objects with hex and no blockhash (2, 3).
 */
export function blockToJson(block: Block, header: HeaderJsonFields, options: BlockJsonOptions): ResultObject {
  const out = blockSummaryJson(block, header, options);
  if (options.verbosity === 1) {
    out.tx = block.transactions.map((tx) => tx.txidHex);
  } else {
    out.tx = block.transactions.map((_, i) => blockTransactionJson(block, i, options));
  }
  return out;
}

/** getblock's object up to "tx" (which comes last). */
function blockSummaryJson(block: Block, header: HeaderJsonFields, options: BlockJsonOptions): ResultObject {
  return Object.assign(headerToJson(header), blockSizesJson(block, options));
}

/** strippedsize, size, weight and coinbase_tx: what getblock adds to the header fields before "tx". */
function blockSizesJson(block: Block, options: BlockJsonOptions): ResultObject {
  const out: ResultObject = { strippedsize: blockStrippedSize(block), size: blockTotalSize(block), weight: blockWeight(block) };
  if (!options.omitCoinbaseTx) out.coinbase_tx = coinbaseTxJson(block.transactions[0]!);
  const { undo } = options;
  if (undo && undo.length !== block.transactions.length - 1) {
    throw new Error(`undo data covers ${undo.length} transactions, the block has ${block.transactions.length - 1} besides the coinbase`);
  }
  return out;
}

/** writeJson(blockToJson(...)) written directly (see blockTailText). */
export function blockText(block: Block, header: HeaderJsonFields, options: BlockJsonOptions): string {
  return joinBlockText(header, blockTailText(block, options));
}

/**
 * What getblock prints after the header fields, as text: `,"strippedsize":…,"tx":[…]}`.
 * It depends on the block (and its undo data) only, never on the chain's tip; the
 * transactions are written directly (transaction-text.ts), with no object per transaction.
 */
export function blockTailText(block: Block, options: BlockJsonOptions): string {
  const sizes = writeJson(blockSizesJson(block, options));
  const txs = block.transactions;
  // Pieces joined once: appending builds a rope of every piece, which the collector then walks.
  const parts: string[] = new Array(txs.length);
  if (options.verbosity === 1) {
    for (let i = 0; i < txs.length; i++) parts[i] = `"${txs[i]!.txidHex}"`;
  } else {
    const prevouts = options.verbosity === 3;
    for (let i = 0; i < txs.length; i++) {
      parts[i] = txText(txs[i]!, { chain: options.chain, includeHex: true, undo: i > 0 ? options.undo?.[i - 1] : undefined, prevouts });
    }
  }
  return `,${sizes.slice(1, -1)},"tx":[${parts.join(',')}]}`;
}

/** getblock's whole text: the header fields (from the chain as it is now) and the block's tail. */
export function joinBlockText(header: HeaderJsonFields, tail: string): string {
  return writeJson(headerToJson(header)).slice(0, -1) + tail;
}

/**
 * Transaction `index` of the block as getblock 2/3 prints it in "tx".
 */
function blockTransactionJson(block: Block, index: number, options: BlockJsonOptions): ResultObject {
  return txToJson(block.transactions[index]!, {
    chain: options.chain,
    includeHex: true,
    undo: index > 0 ? options.undo?.[index - 1] : undefined,
    prevouts: options.verbosity === 3,
  });
}
