/**
 * BIP133 fee filters as Core sends them (policy/fees FeeFilterRounder): the mempool's
 * minimum fee is rounded down to one of a set of buckets spaced by 10% (two times in three,
 * otherwise up to the bucket above), so a peer cannot fingerprint the node by its exact
 * minimum. During initial block download the filter is the largest bucket: send nothing.
 */
import { randomInt } from 'node:crypto';

/** Core's MAX_FILTER_FEERATE and FEE_FILTER_SPACING. */
const MAX_FILTER_FEERATE = 1e7;
const FEE_FILTER_SPACING = 1.1;

/** Core's AVG_FEEFILTER_BROADCAST_INTERVAL and MAX_FEEFILTER_CHANGE_DELAY, in milliseconds. */
export const AVG_FEEFILTER_BROADCAST_INTERVAL_MS = 10 * 60 * 1000;
export const MAX_FEEFILTER_CHANGE_DELAY_MS = 5 * 60 * 1000;

export class FeeFilterRounder {
  readonly #buckets: number[];

  /** `minIncrementalFee` in satoshis per kvB (-incrementalrelayfee). */
  constructor(minIncrementalFee: bigint) {
    const minLimit = Math.max(1, Math.floor(Number(minIncrementalFee) / 2));
    this.#buckets = [0];
    for (let boundary = minLimit; boundary <= MAX_FILTER_FEERATE; boundary *= FEE_FILTER_SPACING) this.#buckets.push(boundary);
  }

  /** The largest bucket: what Core announces while in initial block download. */
  get maxFilter(): bigint {
    return BigInt(Math.trunc(this.#buckets[this.#buckets.length - 1]!));
  }

  round(currentMinFee: bigint): bigint {
    const fee = Number(currentMinFee);
    let i = this.#buckets.findIndex((b) => b >= fee);
    if (i === -1) i = this.#buckets.length - 1;
    else if (i > 0 && randomInt(3) !== 0) i--;
    return BigInt(Math.trunc(this.#buckets[i]!));
  }
}

/** Core's rand_exp_duration: the delay to the next event of a Poisson process with this mean. */
export function poissonDelayMs(meanMs: number): number {
  return -Math.log1p(-Math.random()) * meanMs;
}
