/**
 * workers: script and signature checks off the main thread. A Piscina pool of verify
 * workers takes jobs (transaction, spent outputs, flags), batches their inputs into
 * transferable binary tasks (message.ts) and reports the first failing input in job order.
 * verifyJobsInline gives the same verdicts on the calling thread for -par=1.
 */
export { ScriptCheckPool, VERIFY_WORKER_FILE, type ScriptCheckPoolOptions } from './pool.js';
export { verifyJobsInline } from './inline.js';
export { blockJobs } from './jobs.js';
export { DEFAULT_SPLIT, type SplitOptions } from './split.js';
export {
  ScriptCheckJobError,
  ScriptCheckPoolBrokenError,
  ScriptCheckPoolClosedError,
  READ_SIGNATURE_CACHE,
  type ScriptCheckCaching,
  type ScriptCheckFailure,
  type ScriptCheckFailureReason,
  type ScriptCheckJob,
  type ScriptCheckResult,
  type ScriptCheckSuccess,
} from './types.js';
