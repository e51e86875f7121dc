/**
 * Script checks on the calling thread, for `-par=1` (and 0 on a one-core machine) where a
 * pool would only add messaging. The caller chooses it explicitly; the pool never falls
 * back to it on its own. Same verdicts as the pool: the first failing input in job order.
 */
import { checkTransaction } from './check.js';
import { resolveJobInputs } from './jobs.js';
import type { ScriptCheckJob, ScriptCheckResult } from './types.js';

export function verifyJobsInline(jobs: readonly ScriptCheckJob[]): ScriptCheckResult {
  const resolved = jobs.map((job, txIndex) => resolveJobInputs(job, txIndex));
  let checked = 0;
  for (let txIndex = 0; txIndex < jobs.length; txIndex++) {
    const job = jobs[txIndex]!;
    const inputs = resolved[txIndex]!;
    const failure = checkTransaction(txIndex, job.tx, job.spentOutputs, job.flags, inputs);
    if (failure) return failure;
    checked += inputs.length;
  }
  return { ok: true, checked };
}
