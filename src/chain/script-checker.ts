/**
 * Adapts the worker pool (or in-thread checking for -par=1) to the chainstate's
 * ScriptChecker, with Core's two caches in front of it: the script-execution cache skips
 * whole transactions before anything is dispatched, and the signature cache (shared with
 * the worker threads) answers signatures inside the interpreter. Tiny batches are checked
 * on this thread: messaging a worker costs more than a handful of signature checks, and
 * the verdict is the same either way.
 */
import type { SignatureCache } from '../script/index.js';
import { ScriptCheckPool, verifyJobsInline, type ScriptCheckJob, type ScriptCheckResult } from '../../workers/index.js';
import type { ScriptCaching, ScriptChecker, ScriptCheckVerdict, ScriptCheckWork } from './chainstate.js';
import type { ScriptJob } from './connect-block.js';
import type { ScriptExecutionCache } from './script-execution-cache.js';

/** Below this many inputs a batch is checked inline even when a pool exists. */
const INLINE_INPUT_LIMIT = 8;

/** Block validation: read both caches, store nothing (Core's ConnectBlock with fJustCheck false). */
export const BLOCK_SCRIPT_CACHING: ScriptCaching = { storeSignatures: false, storeScriptExecution: false };

function toVerdict(result: ScriptCheckResult, work: Omit<ScriptCheckWork, 'signaturesVerified' | 'signatureCacheHits'>): ScriptCheckVerdict {
  if (result.ok) return { ok: true, work: { ...work, signaturesVerified: result.signaturesVerified, signatureCacheHits: result.signatureCacheHits } };
  if (result.reason === 'script') return { ok: false, consensus: true, txIndex: result.txIndex, inputIndex: result.inputIndex, error: result.error };
  return { ok: false, consensus: false, detail: `${result.reason} failure at tx ${result.txIndex} input ${result.inputIndex}${result.detail ? `: ${result.detail}` : ''}` };
}

export interface ScriptCaches {
  readonly signatures: SignatureCache | null;
  readonly scriptExecution: ScriptExecutionCache | null;
}

const NO_CACHES: ScriptCaches = { signatures: null, scriptExecution: null };

export class PoolScriptChecker implements ScriptChecker {
  /**
   * `pool` null checks every batch on this thread (-par=1). A pool given here must have
   * been built with the same signature cache, so both paths answer from one table.
   */
  constructor(
    private readonly pool: ScriptCheckPool | null,
    readonly caches: ScriptCaches = NO_CACHES,
  ) {}

  get threads(): number {
    return this.pool ? this.pool.threads : 1;
  }

  async verify(jobs: readonly ScriptJob[], caching: ScriptCaching = BLOCK_SCRIPT_CACHING): Promise<ScriptCheckVerdict> {
    const execution = this.caches.scriptExecution;
    // Core's CheckInputScripts looks the transaction up first; block validation marks a hit
    // collectable (it will not be needed again), mempool acceptance keeps it.
    const entries = execution ? jobs.map((job) => (job.tx.isCoinbase() ? null : execution.entry(job.tx, job.flags))) : null;
    let toCheck: readonly ScriptCheckJob[] = jobs;
    let inputs = 0;
    let scriptCacheHits = 0;
    if (entries) {
      toCheck = jobs.map((job, i) => {
        const entry = entries[i];
        if (entry && execution!.set.has(entry, !caching.storeScriptExecution)) {
          scriptCacheHits++;
          return { ...job, inputs: [] };
        }
        if (entry) inputs += job.tx.inputs.length;
        return job;
      });
    } else {
      for (const job of jobs) if (!job.tx.isCoinbase()) inputs += job.tx.inputs.length;
    }
    const signatureCaching = { storeSignatures: caching.storeSignatures };
    const result =
      inputs === 0
        ? verifyJobsInline([], null)
        : !this.pool || inputs < INLINE_INPUT_LIMIT
          ? verifyJobsInline(toCheck, this.caches.signatures, signatureCaching)
          : await this.pool.verify(toCheck, signatureCaching);
    if (result.ok && entries && caching.storeScriptExecution) {
      for (const entry of entries) if (entry) execution!.set.add(entry);
    }
    return toVerdict(result, { transactions: jobs.length, scriptCacheHits });
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
