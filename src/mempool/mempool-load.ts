/**
 * Core's LoadMempool (node/mempool_persist.cpp): a mempool.dat's transactions offered to
 * the pool one by one, each prioritised first with the delta it carried, those past
 * -mempoolexpiry counted and skipped; then the file's other prioritisations, then its
 * unbroadcast set. What was read before a damaged byte stays done, as in Core.
 */
import { hashToHex } from '../primitives/index.js';
import { MempoolFileError, MempoolFileReader } from './mempool-file.js';
import type { Transaction } from '../primitives/index.js';

/** Core's ImportMempoolOptions. */
export interface ImportMempoolOptions {
  /** Enter transactions at the current time instead of the file's entry times. */
  readonly useCurrentTime: boolean;
  /** Apply the file's fee deltas (added to existing ones). */
  readonly applyFeeDeltaPriority: boolean;
  /** Mark the file's unbroadcast transactions as unbroadcast. */
  readonly applyUnbroadcastSet: boolean;
}

/** Start-up's options (Core's init: file times, deltas and unbroadcast set all taken over). */
export const STARTUP_IMPORT_OPTIONS: ImportMempoolOptions = { useCurrentTime: false, applyFeeDeltaPriority: true, applyUnbroadcastSet: true };

/** What the pool offers the loader; every call runs inside the chain's queue. */
export interface MempoolLoadTarget {
  now(): number;
  readonly expirySeconds: number;
  /** MemPoolAccept with the given entry time (bypass_limits false); true when accepted. */
  accept(tx: Transaction, time: number): Promise<boolean>;
  has(txidHex: string): boolean;
  prioritise(txidHex: string, delta: bigint): void;
  markUnbroadcast(txidHex: string): void;
  /** Core's m_interrupt: a shutdown request stops the load. */
  interrupted(): boolean;
}

export interface MempoolLoadReport {
  readonly succeeded: number;
  readonly failed: number;
  readonly expired: number;
  readonly alreadyThere: number;
  readonly unbroadcast: number;
}

/** Loads `file` into `target`; false when the file is unusable (Core's LoadMempool returning false). */
export async function loadMempoolFile(target: MempoolLoadTarget, file: Uint8Array, options: ImportMempoolOptions, log: (message: string) => void): Promise<MempoolLoadReport | undefined> {
  let succeeded = 0;
  let failed = 0;
  let expired = 0;
  let alreadyThere = 0;
  let unbroadcast = 0;
  const now = target.now();
  try {
    const reader = MempoolFileReader.open(file);
    if (!reader) return undefined;
    const total = reader.count;
    log(`Loading ${total} mempool transactions from file...`);
    let nextTenthToReport = 0;
    for (let tried = 0n; tried < total; tried++) {
      const percentageDone = Math.trunc((100 * Number(tried)) / Number(total));
      if (nextTenthToReport < Math.trunc(percentageDone / 10)) {
        log(`Progress loading mempool transactions from file: ${percentageDone}% (tried ${tried}, ${total - tried} remaining)`);
        nextTenthToReport = Math.trunc(percentageDone / 10);
      }
      const { tx, time: fileTime, feeDelta } = reader.nextTx();
      const time = options.useCurrentTime ? now : fileTime;
      if (feeDelta !== 0n && options.applyFeeDeltaPriority) target.prioritise(tx.txidHex, feeDelta);
      if (time > now - target.expirySeconds) {
        if (await target.accept(tx, time)) succeeded++;
        // Already pooled (a wallet or an earlier load put it there): not a failure.
        else if (target.has(tx.txidHex)) alreadyThere++;
        else failed++;
      } else {
        expired++;
      }
      if (target.interrupted()) return undefined;
    }
    const deltas = reader.deltas();
    if (options.applyFeeDeltaPriority) {
      // std::map keeps the first of duplicate keys.
      const seen = new Set<string>();
      for (const { txid, delta } of deltas) {
        const hex = hashToHex(txid);
        if (seen.has(hex)) continue;
        seen.add(hex);
        target.prioritise(hex, delta);
      }
    }
    const unbroadcastTxids = new Set(reader.unbroadcast().map(hashToHex));
    if (options.applyUnbroadcastSet) {
      unbroadcast = unbroadcastTxids.size;
      for (const txid of unbroadcastTxids) if (target.has(txid)) target.markUnbroadcast(txid);
    }
  } catch (err) {
    if (!(err instanceof MempoolFileError)) throw err;
    log(`Failed to deserialize mempool data on file: ${err.message}. Continuing anyway.`);
    return undefined;
  }
  log(`Imported mempool transactions from file: ${succeeded} succeeded, ${failed} failed, ${expired} expired, ${alreadyThere} already there, ${unbroadcast} waiting for initial broadcast`);
  return { succeeded, failed, expired, alreadyThere, unbroadcast };
}
