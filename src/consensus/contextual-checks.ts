/**
 * Checks that need the block's parent but not the UTXO set (Core's
 * ContextualCheckBlockHeader and ContextualCheckBlock): difficulty, timestamps, BIP94's
 * timewarp rule, obsolete versions, final transactions, the BIP34 coinbase height, the
 * witness commitment and the weight limit.
 */
import { bytesEqual, type Block } from '../primitives/index.js';
import { encodeScriptNum, OP, pushData } from '../script/index.js';
import { blockWeight, checkWitnessMalleation } from './block-checks.js';
import { deploymentActiveAfter } from './deployments.js';
import type { IndexedHeader } from './indexed-header.js';
import { MAX_BLOCK_WEIGHT } from './limits.js';
import { isFinalTx } from './locktime.js';
import type { ChainParams } from './params.js';
import { getNextWorkRequired } from './pow.js';
import { lockTimeCutoff } from './script-flags.js';
import { BLOCK_OK, blockFailure, type BlockCheck } from './validation-result.js';

/** Core's MAX_FUTURE_BLOCK_TIME: how far ahead of the node's clock a block may be dated. */
export const MAX_FUTURE_BLOCK_TIME = 2 * 60 * 60;
/** Core's MAX_TIMEWARP (BIP94): how far before its parent a retarget block may be dated. */
export const MAX_TIMEWARP = 600;

/** The header fields contextual checks read. */
export interface HeaderFields {
  readonly version: number;
  readonly time: number;
  readonly bits: number;
}

/** Lowercase 8-digit hex of a signed 32-bit value as C's %08x prints it. */
function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/**
 * Core's ContextualCheckBlockHeader for a header whose parent is `prev`, at node time
 * `now` (seconds; Core's NodeClock, mockable on regtest).
 */
export function contextualCheckBlockHeader(header: HeaderFields, prev: IndexedHeader, params: ChainParams, now: number): BlockCheck {
  const height = prev.height + 1;
  if (header.bits !== getNextWorkRequired(prev, header.time, params)) {
    return blockFailure('invalid-header', 'bad-diffbits', 'incorrect proof of work');
  }
  if (header.time <= prev.medianTimePast()) return blockFailure('invalid-header', 'time-too-old', "block's timestamp is too early");
  // BIP94: the first block of a period may not be dated far before its parent, which
  // would let miners stretch the measured timespan (the timewarp attack).
  if (params.enforceBip94 && height % params.difficultyAdjustmentInterval === 0 && header.time < prev.time - MAX_TIMEWARP) {
    return blockFailure('invalid-header', 'time-timewarp-attack', "block's timestamp is too early on diff adjustment block");
  }
  if (header.time > now + MAX_FUTURE_BLOCK_TIME) return blockFailure('time-future', 'time-too-new', 'block timestamp too far in the future');
  if (
    (header.version < 2 && deploymentActiveAfter(prev, params, 'bip34')) ||
    (header.version < 3 && deploymentActiveAfter(prev, params, 'dersig')) ||
    (header.version < 4 && deploymentActiveAfter(prev, params, 'cltv'))
  ) {
    return blockFailure('invalid-header', `bad-version(0x${hex32(header.version)})`, `rejected nVersion=0x${hex32(header.version)} block`);
  }
  return BLOCK_OK;
}

/**
 * What a BIP34 coinbase scriptSig must start with: Core's `CScript() << height`, which is
 * OP_1..OP_16 for 1..16, OP_0 for 0 and a minimal CScriptNum push otherwise.
 */
export function coinbaseHeightPrefix(height: number): Uint8Array {
  if (height === -1 || (height >= 1 && height <= 16)) return Uint8Array.of(OP.OP_1 + height - 1);
  if (height === 0) return Uint8Array.of(OP.OP_0);
  return pushData(encodeScriptNum(height));
}

/**
 * Core's ContextualCheckBlock for a block whose parent is `prev` (undefined for genesis):
 * every transaction final (BIP113 cutoff once CSV applies), the coinbase height once
 * BIP34 applies, witness commitment rules once segwit applies (and no witness data
 * before), then the weight limit, which only means something once the witness is bound.
 * Like Core, it assumes checkBlock passed (there is a coinbase with an input).
 */
export function contextualCheckBlock(block: Block, prev: IndexedHeader | undefined, params: ChainParams): BlockCheck {
  const height = prev ? prev.height + 1 : 0;
  const cutoff = lockTimeCutoff(prev, block.header.time, params);
  for (const tx of block.transactions) {
    if (!isFinalTx(tx, height, cutoff)) return blockFailure('consensus', 'bad-txns-nonfinal', 'non-final transaction');
  }
  if (deploymentActiveAfter(prev, params, 'bip34')) {
    const expected = coinbaseHeightPrefix(height);
    const scriptSig = block.transactions[0]!.inputs[0]!.scriptSig;
    if (scriptSig.length < expected.length || !bytesEqual(scriptSig.subarray(0, expected.length), expected)) {
      return blockFailure('consensus', 'bad-cb-height', 'block height mismatch in coinbase');
    }
  }
  const witness = checkWitnessMalleation(block, deploymentActiveAfter(prev, params, 'segwit'));
  if (!witness.ok) return witness;
  if (blockWeight(block) > MAX_BLOCK_WEIGHT) return blockFailure('consensus', 'bad-blk-weight', 'ContextualCheckBlock : weight limit failed');
  return BLOCK_OK;
}
