/**
 * The node's fee estimator (Core's node.fee_estimator): loaded from fee_estimates.dat in
 * the network directory at start-up (skipped when older than MAX_FILE_AGE unless
 * -acceptstalefeeestimates), fed by the mempool's events, written every
 * FEE_FLUSH_INTERVAL and at shutdown (after the tracked pool transactions are counted as
 * unconfirmed, as Core's Flush). -blocksonly runs without one, as Core does.
 */
import { closeSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BlockPolicyEstimator, decodeFeeEstimates, encodeFeeEstimates, FEE_FLUSH_INTERVAL_MS, MAX_FILE_AGE_HOURS, type ConfirmedPoolTransaction } from '../fees/index.js';
import type { MempoolEntry, MempoolEventListener } from '../mempool/index.js';
import type { Logger } from './logging.js';

export const FEE_ESTIMATES_FILENAME = 'fee_estimates.dat';

function confirmedInfo(entry: MempoolEntry): ConfirmedPoolTransaction {
  return { txid: entry.txid, fee: entry.fee, vsize: entry.vsize, height: entry.height };
}

export class FeeEstimation {
  readonly estimator: BlockPolicyEstimator;
  readonly filePath: string;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    netDir: string,
    private readonly log: Logger,
  ) {
    this.filePath = path.join(netDir, FEE_ESTIMATES_FILENAME);
    this.estimator = new BlockPolicyEstimator((m) => log.debug('estimatefee', m));
  }

  /** The constructor's file read in Core: missing, stale and unreadable files are logged and skipped. */
  load(acceptStale: boolean): void {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.filePath).mtimeMs;
    } catch {
      this.log.info(`${this.filePath} is not found. Continue anyway.`);
      return;
    }
    // Core measures the age against the file system's clock, not mocktime; whole hours.
    const ageHours = Math.floor((Date.now() - mtimeMs) / 3_600_000);
    if (ageHours > MAX_FILE_AGE_HOURS && !acceptStale) {
      this.log.warning(`Fee estimation file ${this.filePath} too old (age=${ageHours} > ${MAX_FILE_AGE_HOURS} hours) and will not be used to avoid serving stale estimates.`);
      return;
    }
    try {
      const decoded = decodeFeeEstimates(readFileSync(this.filePath));
      if ('oldVersion' in decoded) this.log.warning(`Incompatible old fee estimation data (non-fatal). Version: ${decoded.oldVersion}`);
      else this.estimator.restore(decoded);
    } catch (err) {
      this.log.warning(`Unable to read policy estimator data (non-fatal): ${(err as Error).message}`);
      this.log.warning(`Failed to read fee estimates from ${this.filePath}. Continue anyway.`);
    }
  }

  /** The mempool listener that feeds the estimator. */
  listener(): MempoolEventListener {
    const est = this.estimator;
    return {
      transactionAdded: (e) =>
        est.processTransaction({
          txid: e.entry.txid,
          fee: e.entry.fee,
          vsize: e.entry.vsize,
          height: e.entry.height,
          limitsBypassed: e.limitsBypassed,
          submittedInPackage: e.submittedInPackage,
          chainstateIsCurrent: e.chainstateIsCurrent,
          hasNoPoolParents: e.hasNoPoolParents,
        }),
      transactionRemoved: (entry) => void est.removeTx(entry.txid),
      removedForBlock: (confirmed, height) => est.processBlock(confirmed.map(confirmedInfo), height),
    };
  }

  /** Core's scheduleEvery(FlushFeeEstimates, FEE_FLUSH_INTERVAL). */
  startPeriodicFlush(): void {
    this.timer = setInterval(() => this.flushEstimates(), FEE_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** FlushFeeEstimates: the state written over the file. */
  flushEstimates(): void {
    try {
      const fd = openSync(this.filePath, 'w');
      try {
        writeSync(fd, encodeFeeEstimates(this.estimator.state()));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      this.log.warning(`Failed to write fee estimates to ${this.filePath}. Continue anyway.`);
      return;
    }
    this.log.debug('estimatefee', `Flushed fee estimates to ${this.filePath}.`);
  }

  /** Core's Flush at shutdown: tracked pool transactions leave as unconfirmed, then the file is written. */
  shutdown(): void {
    clearInterval(this.timer);
    const started = performance.now();
    const count = this.estimator.flushUnconfirmed();
    this.log.debug('estimatefee', `Recorded ${count} unconfirmed txs from mempool in ${((performance.now() - started) / 1000).toFixed(3)}s`);
    this.flushEstimates();
  }
}
