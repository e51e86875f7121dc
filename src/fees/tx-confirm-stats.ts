/**
 * One time horizon of the estimator (Core's TxConfirmStats): per fee-rate bucket, decaying
 * averages of confirmed transactions (in total, within each period of `scale` blocks,
 * and of their fee rates), of transactions that left the pool unconfirmed, and the
 * undecayed counts of pool transactions by entry block (a circular buffer of
 * GetMaxConfirms slots plus the older ones). Arithmetic follows Core's step for step in
 * doubles (and Core's unsigned wrap-around where it indexes the buffer), so the
 * estimates come out bit-identical.
 */
import { bucketIndex } from './buckets.js';

/** Core's EstimatorBucket: a bucket range and its counts; start -1 means none. */
export interface EstimatorBucket {
  start: number;
  end: number;
  withinTarget: number;
  totalConfirmed: number;
  inMempool: number;
  leftMempool: number;
}

/** Core's EstimationResult: the passing and failing ranges an estimate was decided by. */
export interface EstimationResult {
  pass: EstimatorBucket;
  fail: EstimatorBucket;
  decay: number;
  scale: number;
}

export function emptyEstimatorBucket(): EstimatorBucket {
  return { start: -1, end: -1, withinTarget: 0, totalConfirmed: 0, inMempool: 0, leftMempool: 0 };
}

export function emptyEstimationResult(): EstimationResult {
  return { pass: emptyEstimatorBucket(), fail: emptyEstimatorBucket(), decay: 0, scale: 0 };
}

/** What a file stores of one horizon (Core's TxConfirmStats::Write order). */
export interface TxConfirmStatsData {
  decay: number;
  scale: number;
  feeRateAvg: number[];
  txCtAvg: number[];
  confAvg: number[][];
  failAvg: number[][];
}

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

export class TxConfirmStats {
  private feeRateAvg: number[];
  private txCtAvg: number[];
  /** confAvg[period][bucket]: confirmed within period+1 periods. */
  private confAvg: number[][];
  /** failAvg[period][bucket]: left the pool unconfirmed after period+1 periods. */
  private failAvg: number[][];
  /** unconfTxs[entryHeight % maxConfirms][bucket]: integer counts. */
  private unconfTxs: number[][];
  private oldUnconfTxs: number[];

  constructor(
    private readonly buckets: readonly number[],
    maxPeriods: number,
    private decay: number,
    private scale: number,
  ) {
    const n = buckets.length;
    this.confAvg = Array.from({ length: maxPeriods }, () => zeros(n));
    this.failAvg = Array.from({ length: maxPeriods }, () => zeros(n));
    this.txCtAvg = zeros(n);
    this.feeRateAvg = zeros(n);
    this.unconfTxs = Array.from({ length: this.maxConfirms }, () => zeros(n));
    this.oldUnconfTxs = zeros(n);
  }

  /** A horizon restored from a file, over the file's buckets. */
  static fromData(buckets: readonly number[], data: TxConfirmStatsData): TxConfirmStats {
    const stats = new TxConfirmStats(buckets, data.confAvg.length, data.decay, data.scale);
    stats.feeRateAvg = data.feeRateAvg.slice();
    stats.txCtAvg = data.txCtAvg.slice();
    stats.confAvg = data.confAvg.map((row) => row.slice());
    stats.failAvg = data.failAvg.map((row) => row.slice());
    return stats;
  }

  data(): TxConfirmStatsData {
    return {
      decay: this.decay,
      scale: this.scale,
      feeRateAvg: this.feeRateAvg.slice(),
      txCtAvg: this.txCtAvg.slice(),
      confAvg: this.confAvg.map((row) => row.slice()),
      failAvg: this.failAvg.map((row) => row.slice()),
    };
  }

  get decayRate(): number {
    return this.decay;
  }

  get scaleBlocks(): number {
    return this.scale;
  }

  /** GetMaxConfirms: the longest target this horizon tracks. */
  get maxConfirms(): number {
    return this.scale * this.confAvg.length;
  }

  /** ClearCurrent: the slot the new block height reuses moves into the old counts. */
  clearCurrent(blockHeight: number): void {
    const slot = this.unconfTxs[blockHeight % this.unconfTxs.length]!;
    for (let j = 0; j < this.buckets.length; j++) {
      this.oldUnconfTxs[j]! += slot[j]!;
      slot[j] = 0;
    }
  }

  /** Record: a transaction confirmed after `blocksToConfirm` blocks (1-based). */
  record(blocksToConfirm: number, feeRate: number): void {
    if (blocksToConfirm < 1) return;
    const periodsToConfirm = Math.floor((blocksToConfirm + this.scale - 1) / this.scale);
    const bucket = bucketIndex(this.buckets, feeRate);
    for (let i = periodsToConfirm; i <= this.confAvg.length; i++) this.confAvg[i - 1]![bucket]!++;
    this.txCtAvg[bucket]!++;
    this.feeRateAvg[bucket]! += feeRate;
  }

  updateMovingAverages(): void {
    const decay = this.decay;
    for (let j = 0; j < this.buckets.length; j++) {
      for (let i = 0; i < this.confAvg.length; i++) {
        this.confAvg[i]![j]! *= decay;
        this.failAvg[i]![j]! *= decay;
      }
      this.feeRateAvg[j]! *= decay;
      this.txCtAvg[j]! *= decay;
    }
  }

  /** NewTx: a transaction entered the pool at `blockHeight`; returns its bucket. */
  newTx(blockHeight: number, feeRate: number): number {
    const bucket = bucketIndex(this.buckets, feeRate);
    this.unconfTxs[blockHeight % this.unconfTxs.length]![bucket]!++;
    return bucket;
  }

  /**
   * removeTx: a tracked transaction left the pool, `inBlock` or not; one that did not
   * confirm counts as a failure for every whole period it waited.
   */
  removeTx(entryHeight: number, bestSeenHeight: number, bucket: number, inBlock: boolean): void {
    // Core: int blocksAgo = (unsigned) nBestSeenHeight - entryHeight.
    let blocksAgo = (bestSeenHeight - entryHeight) | 0;
    if (bestSeenHeight === 0) blocksAgo = 0;
    if (blocksAgo < 0) return;
    if (blocksAgo >= this.unconfTxs.length) {
      if (this.oldUnconfTxs[bucket]! > 0) this.oldUnconfTxs[bucket]!--;
    } else {
      const slot = this.unconfTxs[entryHeight % this.unconfTxs.length]!;
      if (slot[bucket]! > 0) slot[bucket]!--;
    }
    if (!inBlock && blocksAgo >= this.scale) {
      const periodsAgo = Math.floor(blocksAgo / this.scale);
      for (let i = 0; i < periodsAgo && i < this.failAvg.length; i++) this.failAvg[i]![bucket]!++;
    }
  }

  /**
   * EstimateMedianVal: from the highest bucket down, ranges of buckets with enough data
   * are tested against the success threshold; the answer is the average fee rate of the
   * median bucket of the last passing range, or -1.
   */
  estimateMedianVal(confTarget: number, sufficientTxVal: number, successBreakPoint: number, blockHeight: number, result?: EstimationResult): number {
    let nConf = 0;
    let totalNum = 0;
    let extraNum = 0;
    let failNum = 0;
    const periodTarget = Math.floor((confTarget + this.scale - 1) / this.scale);
    const maxBucketIndex = this.buckets.length - 1;
    let curNearBucket = maxBucketIndex;
    let bestNearBucket = maxBucketIndex;
    let curFarBucket = maxBucketIndex;
    let bestFarBucket = maxBucketIndex;
    let partialNum = 0;
    let foundAnswer = false;
    const bins = this.unconfTxs.length;
    let newBucketRange = true;
    let passing = true;
    const passBucket = emptyEstimatorBucket();
    let failBucket = emptyEstimatorBucket();
    const maxConfirms = this.maxConfirms;
    const confRow = this.confAvg[periodTarget - 1]!;
    const failRow = this.failAvg[periodTarget - 1]!;

    for (let bucket = maxBucketIndex; bucket >= 0; --bucket) {
      if (newBucketRange) {
        curNearBucket = bucket;
        newBucketRange = false;
      }
      curFarBucket = bucket;
      nConf += confRow[bucket]!;
      partialNum += this.txCtAvg[bucket]!;
      totalNum += this.txCtAvg[bucket]!;
      failNum += failRow[bucket]!;
      // Core's unsigned arithmetic: (nBlockHeight - confct) wraps modulo 2^32.
      for (let confct = confTarget; confct < maxConfirms; confct++) extraNum += this.unconfTxs[((blockHeight - confct) >>> 0) % bins]![bucket]!;
      extraNum += this.oldUnconfTxs[bucket]!;
      if (partialNum < sufficientTxVal / (1 - this.decay)) continue;
      partialNum = 0;
      const curPct = nConf / (totalNum + failNum + extraNum);
      if (curPct < successBreakPoint) {
        if (passing) {
          this.describeRange(failBucket, curNearBucket, curFarBucket, nConf, totalNum, extraNum, failNum);
          passing = false;
        }
        continue;
      }
      failBucket = emptyEstimatorBucket();
      foundAnswer = true;
      passing = true;
      passBucket.withinTarget = nConf;
      nConf = 0;
      passBucket.totalConfirmed = totalNum;
      totalNum = 0;
      passBucket.inMempool = extraNum;
      passBucket.leftMempool = failNum;
      failNum = 0;
      extraNum = 0;
      bestNearBucket = curNearBucket;
      bestFarBucket = curFarBucket;
      newBucketRange = true;
    }

    let median = -1;
    let txSum = 0;
    const minBucket = Math.min(bestNearBucket, bestFarBucket);
    const maxBucket = Math.max(bestNearBucket, bestFarBucket);
    for (let j = minBucket; j <= maxBucket; j++) txSum += this.txCtAvg[j]!;
    if (foundAnswer && txSum !== 0) {
      txSum = txSum / 2;
      for (let j = minBucket; j <= maxBucket; j++) {
        if (this.txCtAvg[j]! < txSum) txSum -= this.txCtAvg[j]!;
        else {
          median = this.feeRateAvg[j]! / this.txCtAvg[j]!;
          break;
        }
      }
      passBucket.start = minBucket ? this.buckets[minBucket - 1]! : 0;
      passBucket.end = this.buckets[maxBucket]!;
    }

    // Passing until the last buckets ran out of data: those are reported as the failure.
    if (passing && !newBucketRange) this.describeRange(failBucket, curNearBucket, curFarBucket, nConf, totalNum, extraNum, failNum);

    if (result) {
      result.pass = passBucket;
      result.fail = failBucket;
      result.decay = this.decay;
      result.scale = this.scale;
    }
    return median;
  }

  /** Fills `bucket` with the range between two bucket indexes and the counts gathered over it (Core fills its failBucket so twice). */
  private describeRange(bucket: EstimatorBucket, near: number, far: number, withinTarget: number, totalConfirmed: number, inMempool: number, leftMempool: number): void {
    const low = Math.min(near, far);
    bucket.start = low ? this.buckets[low - 1]! : 0;
    bucket.end = this.buckets[Math.max(near, far)]!;
    bucket.withinTarget = withinTarget;
    bucket.totalConfirmed = totalConfirmed;
    bucket.inMempool = inMempool;
    bucket.leftMempool = leftMempool;
  }
}
