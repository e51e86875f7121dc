/**
 * Adapts the worker pool (or in-thread checking for -par=1) to the chainstate's
 * ScriptChecker. Tiny batches are checked on this thread: messaging a worker costs more
 * than a handful of signature checks, and the verdict is the same either way.
 */
import { ScriptCheckPool, verifyJobsInline, type ScriptCheckResult } from '../../workers/index.js';
import type { ScriptChecker, ScriptCheckVerdict } from './chainstate.js';
import type { ScriptJob } from './connect-block.js';

/** Below this many inputs a batch is checked inline even when a pool exists. */
const INLINE_INPUT_LIMIT = 8;

function toVerdict(result: ScriptCheckResult): ScriptCheckVerdict {
  if (result.ok) return { ok: true };
  if (result.reason === 'script') return { ok: false, consensus: true, txIndex: result.txIndex, inputIndex: result.inputIndex, error: result.error };
  return { ok: false, consensus: false, detail: `${result.reason} failure at tx ${result.txIndex} input ${result.inputIndex}${result.detail ? `: ${result.detail}` : ''}` };
}

export class PoolScriptChecker implements ScriptChecker {
  /** `pool` null checks every batch on this thread (-par=1). */
  constructor(private readonly pool: ScriptCheckPool | null) {}

  get threads(): number {
    return this.pool ? this.pool.threads : 1;
  }

  async verify(jobs: readonly ScriptJob[]): Promise<ScriptCheckVerdict> {
    let inputs = 0;
    for (const job of jobs) inputs += job.tx.inputs.length;
    if (!this.pool || inputs < INLINE_INPUT_LIMIT) return toVerdict(verifyJobsInline(jobs));
    return toVerdict(await this.pool.verify(jobs));
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
