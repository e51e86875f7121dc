/**
 * Core v31's CBlockPolicyEstimator: pool transactions are tracked from entry (only
 * those Core counts: accepted at the estimator's best height, while the node is current,
 * without in-pool parents, not bypassing limits, not from a package), confirmations
 * recorded as blocks arrive, and estimates answered from three horizons. Pure and
 * synchronous: the node feeds it mempool and block events and persists its state.
 */
import { defaultBuckets } from './buckets.js';
import {
  DOUBLE_SUCCESS_PCT,
  HALF_SUCCESS_PCT,
  LONG_BLOCK_PERIODS,
  LONG_DECAY,
  LONG_SCALE,
  MED_BLOCK_PERIODS,
  MED_DECAY,
  MED_SCALE,
  OLDEST_ESTIMATE_HISTORY,
  SHORT_BLOCK_PERIODS,
  SHORT_DECAY,
  SHORT_SCALE,
  SUCCESS_PCT,
  SUFFICIENT_FEETXS,
  SUFFICIENT_TXS_SHORT,
  type FeeEstimateHorizon,
} from './constants.js';
import { emptyEstimationResult, TxConfirmStats, type EstimationResult } from './tx-confirm-stats.js';

/** A transaction the pool accepted (Core's NewMempoolTransactionInfo). */
export interface NewPoolTransaction {
  readonly txid: string;
  readonly fee: bigint;
  readonly vsize: number;
  /** Chain height when it entered. */
  readonly height: number;
  /** Accepted with bypass_limits (re-added from a disconnected block). */
  readonly limitsBypassed: boolean;
  readonly submittedInPackage: boolean;
  /** Core's IsCurrentForFeeEstimation when it was accepted. */
  readonly chainstateIsCurrent: boolean;
  readonly hasNoPoolParents: boolean;
}

/** A pool transaction a block confirmed (Core's RemovedMempoolTransactionInfo). */
export interface ConfirmedPoolTransaction {
  readonly txid: string;
  readonly fee: bigint;
  readonly vsize: number;
  readonly height: number;
}

/** Core's FeeReason, as its StringForFeeReason names them. */
export type FeeReason = 'Half Target 60% Threshold' | 'Target 85% Threshold' | 'Double Target 95% Threshold' | 'Conservative Double Target longer horizon' | 'None';

/** Core's FeeCalculation. */
export interface FeeCalculation {
  est: EstimationResult;
  reason: FeeReason;
  desiredTarget: number;
  returnedTarget: number;
  bestHeight: number;
}

/** The persisted state (fee_estimates.dat's contents). */
export interface EstimatorState {
  bestSeenHeight: number;
  historicalFirst: number;
  historicalBest: number;
  buckets: number[];
  horizons: { medium: ReturnType<TxConfirmStats['data']>; short: ReturnType<TxConfirmStats['data']>; long: ReturnType<TxConfirmStats['data']> };
}

/** CFeeRate(fee, vsize).GetFeePerK() as the double Core files it under. */
function feeRatePerK(fee: bigint, vsize: number): number {
  return vsize > 0 ? Number((fee * 1000n) / BigInt(vsize)) : 0;
}

/** llround for the non-negative medians estimates produce: the fee rate in sat/kvB. */
function llround(value: number): number {
  return Math.round(value);
}

export class BlockPolicyEstimator {
  private buckets: number[] = defaultBuckets();
  private feeStats: TxConfirmStats;
  private shortStats: TxConfirmStats;
  private longStats: TxConfirmStats;
  private bestSeenHeight = 0;
  private firstRecordedHeight = 0;
  private historicalFirst = 0;
  private historicalBest = 0;
  private trackedTxs = 0;
  private untrackedTxs = 0;
  /** Tracked pool transactions: entry height and bucket. */
  private readonly poolTxs = new Map<string, { height: number; bucket: number }>();
  /** Nothing was ever recorded: decaying the (zero) averages can be skipped, the result is the same. */
  private allZero = true;

  constructor(private readonly log: (message: string) => void = () => {}) {
    this.feeStats = new TxConfirmStats(this.buckets, MED_BLOCK_PERIODS, MED_DECAY, MED_SCALE);
    this.shortStats = new TxConfirmStats(this.buckets, SHORT_BLOCK_PERIODS, SHORT_DECAY, SHORT_SCALE);
    this.longStats = new TxConfirmStats(this.buckets, LONG_BLOCK_PERIODS, LONG_DECAY, LONG_SCALE);
  }

  get trackedCount(): number {
    return this.poolTxs.size;
  }

  get bestHeight(): number {
    return this.bestSeenHeight;
  }

  private statsFor(horizon: FeeEstimateHorizon): TxConfirmStats {
    return horizon === 'short' ? this.shortStats : horizon === 'medium' ? this.feeStats : this.longStats;
  }

  private allStats(): TxConfirmStats[] {
    return [this.feeStats, this.shortStats, this.longStats];
  }

  // ------------------------------------------------------------ pool and block events

  /** processTransaction: a transaction entered the pool. */
  processTransaction(tx: NewPoolTransaction): void {
    if (this.poolTxs.has(tx.txid)) return;
    // Side chains, reorgs and an estimator not yet synced with the tip: ignored.
    if (tx.height !== this.bestSeenHeight) return;
    const valid = !tx.limitsBypassed && !tx.submittedInPackage && tx.chainstateIsCurrent && tx.hasNoPoolParents;
    if (!valid) {
      this.untrackedTxs++;
      return;
    }
    this.trackedTxs++;
    const feeRate = feeRatePerK(tx.fee, tx.vsize);
    const bucket = this.feeStats.newTx(tx.height, feeRate);
    this.shortStats.newTx(tx.height, feeRate);
    this.longStats.newTx(tx.height, feeRate);
    this.poolTxs.set(tx.txid, { height: tx.height, bucket });
    this.allZero = false;
  }

  /** removeTx: a transaction left the pool other than by confirmation (eviction, replacement, conflict). */
  removeTx(txid: string): boolean {
    return this.removeTracked(txid, false);
  }

  private removeTracked(txid: string, inBlock: boolean): boolean {
    const tracked = this.poolTxs.get(txid);
    if (!tracked) return false;
    for (const stats of this.allStats()) stats.removeTx(tracked.height, this.bestSeenHeight, tracked.bucket, inBlock);
    this.poolTxs.delete(txid);
    return true;
  }

  /** processBlock: a block at `height` confirmed these pool transactions. */
  processBlock(confirmed: readonly ConfirmedPoolTransaction[], height: number): void {
    // Side chains and reorgs are ignored.
    if (height <= this.bestSeenHeight) return;
    this.bestSeenHeight = height;
    if (!this.allZero) {
      for (const stats of this.allStats()) stats.clearCurrent(height);
      for (const stats of this.allStats()) stats.updateMovingAverages();
    }
    let counted = 0;
    for (const tx of confirmed) if (this.processBlockTx(height, tx)) counted++;
    if (this.firstRecordedHeight === 0 && counted > 0) {
      this.firstRecordedHeight = this.bestSeenHeight;
      this.log(`Blockpolicy first recorded height ${this.firstRecordedHeight}`);
    }
    this.log(
      `Blockpolicy estimates updated by ${counted} of ${confirmed.length} block txs, since last block ${this.trackedTxs} of ${this.trackedTxs + this.untrackedTxs} tracked, ` +
        `mempool map size ${this.poolTxs.size}, max target ${this.maxUsableEstimate()} from ${this.historicalBlockSpan() > this.blockSpan() ? 'historical' : 'current'}`,
    );
    this.trackedTxs = 0;
    this.untrackedTxs = 0;
  }

  private processBlockTx(height: number, tx: ConfirmedPoolTransaction): boolean {
    if (!this.removeTracked(tx.txid, true)) return false;
    const blocksToConfirm = height - tx.height;
    if (blocksToConfirm <= 0) return false;
    const feeRate = feeRatePerK(tx.fee, tx.vsize);
    for (const stats of this.allStats()) stats.record(blocksToConfirm, feeRate);
    this.allZero = false;
    return true;
  }

  /** FlushUnconfirmed (at shutdown): every tracked transaction leaves as unconfirmed. */
  flushUnconfirmed(): number {
    const count = this.poolTxs.size;
    for (const txid of [...this.poolTxs.keys()]) this.removeTracked(txid, false);
    return count;
  }

  // ------------------------------------------------------------ estimates

  /** HighestTargetTracked. */
  highestTargetTracked(horizon: FeeEstimateHorizon): number {
    return this.statsFor(horizon).maxConfirms;
  }

  private blockSpan(): number {
    if (this.firstRecordedHeight === 0) return 0;
    return this.bestSeenHeight - this.firstRecordedHeight;
  }

  private historicalBlockSpan(): number {
    if (this.historicalFirst === 0) return 0;
    if (this.bestSeenHeight - this.historicalBest > OLDEST_ESTIMATE_HISTORY) return 0;
    return this.historicalBest - this.historicalFirst;
  }

  /** MaxUsableEstimate: half the span of blocks seen (current or loaded), at most the long horizon's reach. */
  maxUsableEstimate(): number {
    return Math.min(this.longStats.maxConfirms, Math.floor(Math.max(this.blockSpan(), this.historicalBlockSpan()) / 2));
  }

  /** estimateRawFee: one horizon's estimate at a threshold, in sat/kvB (0 = none). */
  estimateRawFee(confTarget: number, successThreshold: number, horizon: FeeEstimateHorizon, result?: EstimationResult): number {
    const stats = this.statsFor(horizon);
    const sufficient = horizon === 'short' ? SUFFICIENT_TXS_SHORT : SUFFICIENT_FEETXS;
    if (confTarget <= 0 || confTarget > stats.maxConfirms) return 0;
    if (successThreshold > 1) return 0;
    const median = stats.estimateMedianVal(confTarget, sufficient, successThreshold, this.bestSeenHeight, result);
    if (median < 0) return 0;
    return llround(median);
  }

  /** estimateCombinedFee: the shortest horizon reaching the target, optionally lowered by shorter horizons' maxima. */
  private estimateCombinedFee(confTarget: number, successThreshold: number, checkShorterHorizon: boolean, result: EstimationResult): number {
    let estimate = -1;
    const best = this.bestSeenHeight;
    if (confTarget >= 1 && confTarget <= this.longStats.maxConfirms) {
      if (confTarget <= this.shortStats.maxConfirms) estimate = this.shortStats.estimateMedianVal(confTarget, SUFFICIENT_TXS_SHORT, successThreshold, best, result);
      else if (confTarget <= this.feeStats.maxConfirms) estimate = this.feeStats.estimateMedianVal(confTarget, SUFFICIENT_FEETXS, successThreshold, best, result);
      else estimate = this.longStats.estimateMedianVal(confTarget, SUFFICIENT_FEETXS, successThreshold, best, result);
      if (checkShorterHorizon) {
        const temp = emptyEstimationResult();
        if (confTarget > this.feeStats.maxConfirms) {
          const medMax = this.feeStats.estimateMedianVal(this.feeStats.maxConfirms, SUFFICIENT_FEETXS, successThreshold, best, temp);
          if (medMax > 0 && (estimate === -1 || medMax < estimate)) {
            estimate = medMax;
            Object.assign(result, temp);
          }
        }
        if (confTarget > this.shortStats.maxConfirms) {
          const shortMax = this.shortStats.estimateMedianVal(this.shortStats.maxConfirms, SUFFICIENT_TXS_SHORT, successThreshold, best, temp);
          if (shortMax > 0 && (estimate === -1 || shortMax < estimate)) {
            estimate = shortMax;
            Object.assign(result, temp);
          }
        }
      }
    }
    return estimate;
  }

  /** estimateConservativeFee: DOUBLE_SUCCESS_PCT at twice the target on the longer horizons too. */
  private estimateConservativeFee(doubleTarget: number, result: EstimationResult): number {
    let estimate = -1;
    const temp = emptyEstimationResult();
    if (doubleTarget <= this.shortStats.maxConfirms) {
      estimate = this.feeStats.estimateMedianVal(doubleTarget, SUFFICIENT_FEETXS, DOUBLE_SUCCESS_PCT, this.bestSeenHeight, result);
    }
    if (doubleTarget <= this.feeStats.maxConfirms) {
      const longEstimate = this.longStats.estimateMedianVal(doubleTarget, SUFFICIENT_FEETXS, DOUBLE_SUCCESS_PCT, this.bestSeenHeight, temp);
      if (longEstimate > estimate) {
        estimate = longEstimate;
        Object.assign(result, temp);
      }
    }
    return estimate;
  }

  /**
   * estimateSmartFee: the highest of 60% at half the target, 85% at the target and 95% at
   * twice it (and, conservatively or when nothing was found, 95% at twice it on the
   * longer horizons); the target is raised to 2 and capped at what the blocks seen allow.
   * Returns sat/kvB, 0 when there is no estimate.
   */
  estimateSmartFee(confTarget: number, conservative: boolean, feeCalc?: FeeCalculation): number {
    if (feeCalc) {
      feeCalc.desiredTarget = confTarget;
      feeCalc.returnedTarget = confTarget;
      feeCalc.bestHeight = this.bestSeenHeight;
    }
    if (confTarget <= 0 || confTarget > this.longStats.maxConfirms) return 0;
    if (confTarget === 1) confTarget = 2;
    const maxUsable = this.maxUsableEstimate();
    if (confTarget > maxUsable) confTarget = maxUsable;
    if (feeCalc) feeCalc.returnedTarget = confTarget;
    if (confTarget <= 1) return 0;

    const temp = emptyEstimationResult();
    const setCalc = (reason: FeeReason): void => {
      if (feeCalc) {
        feeCalc.est = { ...temp };
        feeCalc.reason = reason;
      }
    };
    const halfEst = this.estimateCombinedFee(Math.floor(confTarget / 2), HALF_SUCCESS_PCT, true, temp);
    setCalc('Half Target 60% Threshold');
    let median = halfEst;
    const actualEst = this.estimateCombinedFee(confTarget, SUCCESS_PCT, true, temp);
    if (actualEst > median) {
      median = actualEst;
      setCalc('Target 85% Threshold');
    }
    const doubleEst = this.estimateCombinedFee(2 * confTarget, DOUBLE_SUCCESS_PCT, !conservative, temp);
    if (doubleEst > median) {
      median = doubleEst;
      setCalc('Double Target 95% Threshold');
    }
    if (conservative || median === -1) {
      const consEst = this.estimateConservativeFee(2 * confTarget, temp);
      if (consEst > median) {
        median = consEst;
        setCalc('Conservative Double Target longer horizon');
      }
    }
    if (median < 0) return 0;
    return llround(median);
  }

  // ------------------------------------------------------------ persistence

  /** What Write stores: the current span when it is more than half the historical one, else the historical. */
  state(): EstimatorState {
    const current = this.blockSpan() > Math.floor(this.historicalBlockSpan() / 2);
    return {
      bestSeenHeight: this.bestSeenHeight,
      historicalFirst: current ? this.firstRecordedHeight : this.historicalFirst,
      historicalBest: current ? this.bestSeenHeight : this.historicalBest,
      buckets: this.buckets.slice(),
      horizons: { medium: this.feeStats.data(), short: this.shortStats.data(), long: this.longStats.data() },
    };
  }

  /** Read's effect: the file's buckets, horizons, best height and historical span replace the current ones. */
  restore(state: EstimatorState): void {
    this.buckets = state.buckets.slice();
    this.feeStats = TxConfirmStats.fromData(this.buckets, state.horizons.medium);
    this.shortStats = TxConfirmStats.fromData(this.buckets, state.horizons.short);
    this.longStats = TxConfirmStats.fromData(this.buckets, state.horizons.long);
    this.bestSeenHeight = state.bestSeenHeight;
    this.historicalFirst = state.historicalFirst;
    this.historicalBest = state.historicalBest;
    this.allZero = false;
  }
}
