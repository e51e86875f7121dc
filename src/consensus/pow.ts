/**
 * Proof of work (Core's pow.cpp): which bits a block must carry (retargeting, the testnet
 * minimum-difficulty exception, BIP94), whether a hash meets its bits, the work a block
 * adds to its chain, and the difficulty number RPCs print.
 */
import { hashToHex } from '../primitives/index.js';
import { decodeCompact, compactToTarget, bitLength, targetToCompact, UINT256_MASK } from './compact.js';
import type { IndexedHeader } from './indexed-header.js';
import type { ChainParams } from './params.js';

/**
 * Core's DeriveTarget: the target of `bits` when it is a valid one for this chain
 * (positive, no overflow, not above powLimit), else undefined.
 */
export function deriveTarget(bits: number, powLimit: bigint): bigint | undefined {
  const { target, negative, overflow } = decodeCompact(bits);
  if (negative || target === 0n || overflow || target > powLimit) return undefined;
  return target;
}

/** A 32-byte hash in internal order read as the little-endian 256-bit number PoW compares. */
export function hashToNumber(hash: Uint8Array): bigint {
  return BigInt('0x' + hashToHex(hash));
}

/** Core's CheckProofOfWork: `bits` is a valid target for the chain and the hash does not exceed it. */
export function checkProofOfWork(hash: Uint8Array, bits: number, params: ChainParams): boolean {
  const target = deriveTarget(bits, params.powLimit);
  return target !== undefined && hashToNumber(hash) <= target;
}

/**
 * Core's CalculateNextWorkRequired: scale the old target by the period's actual timespan,
 * clamped to a factor of four either way, capped at powLimit. Under BIP94 the old target is
 * the first block's of the period, so minimum-difficulty blocks at its end cannot drag the
 * real difficulty down. The multiplication wraps at 256 bits exactly as arith_uint256 does.
 */
export function calculateNextWorkRequired(last: IndexedHeader, firstBlockTime: number, params: ChainParams): number {
  if (params.noRetargeting) return last.bits;
  const smallest = Math.trunc(params.targetTimespan / 4);
  const largest = params.targetTimespan * 4;
  let actual = last.time - firstBlockTime;
  if (actual < smallest) actual = smallest;
  if (actual > largest) actual = largest;
  let base = last.bits;
  if (params.enforceBip94) {
    const first = last.ancestor(last.height - (params.difficultyAdjustmentInterval - 1));
    if (!first) throw new RangeError(`no ancestor at the start of the retarget period ending at ${last.height}`);
    base = first.bits;
  }
  let target = (compactToTarget(base) * BigInt(actual)) & UINT256_MASK;
  target /= BigInt(params.targetTimespan);
  if (target > params.powLimit) target = params.powLimit;
  return targetToCompact(target);
}

/**
 * Core's GetNextWorkRequired: the bits the block after `last` must carry when its
 * timestamp is `newBlockTime`. Off a retarget boundary the bits carry over, except on
 * chains allowing minimum-difficulty blocks: a block more than twice the target spacing
 * after its parent may use powLimit, and otherwise must use the bits of the last block
 * that was not such an exception (walking back to the period start at most).
 */
export function getNextWorkRequired(last: IndexedHeader, newBlockTime: number, params: ChainParams): number {
  const interval = params.difficultyAdjustmentInterval;
  if ((last.height + 1) % interval !== 0) {
    if (params.allowMinDifficultyBlocks) {
      if (newBlockTime > last.time + params.targetSpacing * 2) return params.powLimitBits;
      let walk = last;
      while (walk.prev && walk.height % interval !== 0 && walk.bits === params.powLimitBits) walk = walk.prev;
      return walk.bits;
    }
    return last.bits;
  }
  const first = last.ancestor(last.height - (interval - 1));
  if (!first) throw new RangeError(`no ancestor at the start of the retarget period ending at ${last.height}`);
  return calculateNextWorkRequired(last, first.time, params);
}

/**
 * Core's PermittedDifficultyTransition: whether `newBits` at `height` is within what the
 * retarget rules could produce from `oldBits` (used to bound headers during pre-sync).
 * Chains with minimum-difficulty blocks accept anything.
 */
export function permittedDifficultyTransition(params: ChainParams, height: number, oldBits: number, newBits: number): boolean {
  if (params.allowMinDifficultyBlocks) return true;
  if (height % params.difficultyAdjustmentInterval === 0) {
    const observed = compactToTarget(newBits);
    const bound = (timespan: number): bigint => {
      let target = (compactToTarget(oldBits) * BigInt(timespan)) & UINT256_MASK;
      target /= BigInt(params.targetTimespan);
      if (target > params.powLimit) target = params.powLimit;
      // Round through the compact form, as the real retarget does.
      return compactToTarget(targetToCompact(target));
    };
    if (bound(params.targetTimespan * 4) < observed) return false;
    if (bound(Math.trunc(params.targetTimespan / 4)) > observed) return false;
    return true;
  }
  return oldBits === newBits;
}

/**
 * Core's GetBlockProof: the expected number of hashes to find a block at `bits`,
 * 2^256 / (target + 1); 0 for an invalid target. Chain work is the sum over a chain.
 */
export function blockProof(bits: number): bigint {
  const { target, negative, overflow } = decodeCompact(bits);
  if (negative || overflow || target === 0n) return 0n;
  return (1n << 256n) / (target + 1n);
}

const INT64_MAX = (1n << 63n) - 1n;

/**
 * Core's GetBlockProofEquivalentTime: how long, at the tip's difficulty, the work between
 * two chain-work totals would take to mine (seconds, signed; saturates at INT64_MAX).
 * Used by assumevalid to require its block to be buried by two weeks of work.
 */
export function blockProofEquivalentTime(toChainWork: bigint, fromChainWork: bigint, tipBits: number, params: ChainParams): bigint {
  let sign = 1n;
  let r: bigint;
  if (toChainWork > fromChainWork) {
    r = toChainWork - fromChainWork;
  } else {
    r = fromChainWork - toChainWork;
    sign = -1n;
  }
  r = ((r * BigInt(params.targetSpacing)) & UINT256_MASK) / blockProof(tipBits);
  if (bitLength(r) > 63) return sign * INT64_MAX;
  return sign * r;
}

/**
 * Core's GetDifficulty (rpc/blockchain.cpp): the difficulty-1 mantissa 0xffff over this
 * mantissa, scaled by 256 per exponent step from 29, all in doubles exactly as Core
 * computes it (so the printed digits agree).
 */
export function getDifficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256.0;
    shift++;
  }
  while (shift > 29) {
    diff /= 256.0;
    shift--;
  }
  return diff;
}
