/**
 * Script checks on the calling thread, for `-par=1` (and 0 on a one-core machine) where a
 * pool would only add messaging. The caller chooses it explicitly; the pool never falls
 * back to it on its own. Same verdicts as the pool: the first failing input in job order.
 */
import { SignatureCheckCounters, type SignatureCache } from '../src/script/index.js';
import { checkTransaction, signatureOptions } from './check.js';
import { resolveJobInputs } from './jobs.js';
import { READ_SIGNATURE_CACHE, type ScriptCheckCaching, type ScriptCheckJob, type ScriptCheckResult } from './types.js';

export function verifyJobsInline(
  jobs: readonly ScriptCheckJob[],
  signatureCache: SignatureCache | null = null,
  caching: ScriptCheckCaching = READ_SIGNATURE_CACHE,
): ScriptCheckResult {
  const resolved = jobs.map((job, txIndex) => resolveJobInputs(job, txIndex));
  const counters = new SignatureCheckCounters();
  const signatures = signatureOptions(signatureCache, caching.storeSignatures, counters);
  let checked = 0;
  for (let txIndex = 0; txIndex < jobs.length; txIndex++) {
    const job = jobs[txIndex]!;
    const inputs = resolved[txIndex]!;
    const failure = checkTransaction(txIndex, job.tx, job.spentOutputs, job.flags, inputs, signatures);
    if (failure) return failure;
    checked += inputs.length;
  }
  return { ok: true, checked, signaturesVerified: counters.verified, signatureCacheHits: counters.cacheHits };
}
