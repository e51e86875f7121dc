/**
 * Fee rates as coin selection uses them: satoshis per 1,000 virtual bytes (Core's CFeeRate
 * built from a per-kvB amount, which is every rate the wallet's send path holds).
 */

/** A fee rate in satoshis per 1,000 virtual bytes. */
export type FeeRate = bigint;

/**
 * CFeeRate::GetFee (v31, policy/feerate.cpp): the fee of `vsize` virtual bytes, rounded up
 * (FeePerVSize::EvaluateFeeUp, so a positive rate never yields 0 for a non-empty size), and -1
 * for a negative rate that rounds to 0. v31's CFeeRate holds a FeeFrac and rounds up; older
 * releases truncated `rate * size / 1000` and then turned a 0 into 1, which differs by a
 * satoshi whenever the division is inexact.
 */
export function feeAtRate(rate: FeeRate, vsize: number): bigint {
  if (!Number.isInteger(vsize) || vsize < 0) throw new RangeError(`feeAtRate: vsize ${vsize} is not a non-negative integer`);
  const product = rate * BigInt(vsize);
  // Ceiling division by 1000 for either sign (EvaluateFeeUp rounds toward +infinity).
  const fee = product >= 0n ? (product + 999n) / 1000n : product / 1000n;
  if (fee === 0n && vsize !== 0 && rate < 0n) return -1n;
  return fee;
}

