/**
 * Absolute and relative lock times (Core's consensus/tx_verify.cpp): IsFinalTx for
 * nLockTime (BIP113 makes blocks compare it with median time past), and BIP68 sequence
 * locks, which need the chain's history to turn relative times into absolute ones.
 */
import type { Transaction } from '../primitives/index.js';
import { LOCKTIME_THRESHOLD, SEQUENCE_LOCKTIME_DISABLE_FLAG, SEQUENCE_LOCKTIME_MASK, SEQUENCE_LOCKTIME_TYPE_FLAG } from '../script/index.js';
import type { IndexedHeader } from './indexed-header.js';

/** Core's LOCKTIME_VERIFY_SEQUENCE: interpret nSequence as a BIP68 relative lock time. */
export const LOCKTIME_VERIFY_SEQUENCE = 1 << 0;
/** Time-based relative locks count in units of 2^9 = 512 seconds. */
export const SEQUENCE_LOCKTIME_GRANULARITY = 9;

/**
 * Core's IsFinalTx: the lock time has passed (a height below LOCKTIME_THRESHOLD is
 * compared with `blockHeight`, anything else with `blockTime`), or every input opted out
 * with a final sequence.
 */
export function isFinalTx(tx: Transaction, blockHeight: number, blockTime: number): boolean {
  if (tx.locktime === 0) return true;
  if (tx.locktime < (tx.locktime < LOCKTIME_THRESHOLD ? blockHeight : blockTime)) return true;
  for (const input of tx.inputs) if (input.sequence !== 0xffffffff) return false;
  return true;
}

/** The last invalid height and time (nLockTime semantics; -1: no constraint) a transaction's sequence locks imply. */
export interface SequenceLockPair {
  readonly minHeight: number;
  readonly minTime: number;
}

/**
 * Core's CalculateSequenceLocks for a transaction in the block after `blockParent`.
 * `prevHeights[i]` is the height of the block that created input i's coin (the new
 * block's height for coins created in it or in the mempool). Time locks count from the
 * median time past of the block before the coin's block. Core takes the new block's
 * index; its parent carries the same information (its ancestors, and height + 1).
 */
export function calculateSequenceLocks(tx: Transaction, flags: number, prevHeights: readonly number[], blockParent: IndexedHeader): SequenceLockPair {
  if (prevHeights.length !== tx.inputs.length) throw new RangeError('one previous height per input');
  let minHeight = -1;
  let minTime = -1;
  // Version is unsigned (Core v28+), so versions with the top bit set count as >= 2.
  if (!(tx.version >= 2 && (flags & LOCKTIME_VERIFY_SEQUENCE) !== 0)) return { minHeight, minTime };
  tx.inputs.forEach((input, i) => {
    const sequence = input.sequence;
    if ((sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) !== 0) return;
    const coinHeight = prevHeights[i]!;
    const value = sequence & SEQUENCE_LOCKTIME_MASK;
    if ((sequence & SEQUENCE_LOCKTIME_TYPE_FLAG) !== 0) {
      const ancestor = blockParent.ancestor(Math.max(coinHeight - 1, 0));
      if (!ancestor) throw new RangeError(`no ancestor at height ${Math.max(coinHeight - 1, 0)} for a time lock`);
      // -1: BIP68 names the first valid time, nLockTime semantics the last invalid one.
      minTime = Math.max(minTime, ancestor.medianTimePast() + value * 2 ** SEQUENCE_LOCKTIME_GRANULARITY - 1);
    } else {
      minHeight = Math.max(minHeight, coinHeight + value - 1);
    }
  });
  return { minHeight, minTime };
}

/** Core's EvaluateSequenceLocks: the block after `blockParent` satisfies the locks. */
export function evaluateSequenceLocks(blockParent: IndexedHeader, lock: SequenceLockPair): boolean {
  return !(lock.minHeight >= blockParent.height + 1 || lock.minTime >= blockParent.medianTimePast());
}

/** Core's SequenceLocks: calculate then evaluate, for a transaction in the block after `blockParent`. */
export function sequenceLocks(tx: Transaction, flags: number, prevHeights: readonly number[], blockParent: IndexedHeader): boolean {
  return evaluateSequenceLocks(blockParent, calculateSequenceLocks(tx, flags, prevHeights, blockParent));
}
