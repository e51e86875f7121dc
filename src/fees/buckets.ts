/**
 * The fee-rate buckets: upper bounds from MIN_BUCKET_FEERATE up by FEE_SPACING to
 * MAX_BUCKET_FEERATE, then INF_FEERATE. A fee rate falls into the first bucket whose
 * bound is at least it (Core's bucketMap.lower_bound). The bounds are computed by the
 * same repeated double multiplication as Core, so they are bit-identical to its file's.
 */
import { FEE_SPACING, INF_FEERATE, MAX_BUCKET_FEERATE, MIN_BUCKET_FEERATE } from './constants.js';

export function defaultBuckets(): number[] {
  const buckets: number[] = [];
  for (let bound = MIN_BUCKET_FEERATE; bound <= MAX_BUCKET_FEERATE; bound *= FEE_SPACING) buckets.push(bound);
  buckets.push(INF_FEERATE);
  return buckets;
}

/** The index of the first bound >= feeRate (the last bucket for anything above every bound). */
export function bucketIndex(buckets: readonly number[], feeRate: number): number {
  let lo = 0;
  let hi = buckets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (buckets[mid]! >= feeRate) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
