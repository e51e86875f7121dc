/**
 * The Piscina worker: verifies the scripts of one task (a batch of transactions, see
 * message.ts) and replies with the first failing input in task order, or ok with the
 * number of inputs checked and the signature work it took. A pure function of the message
 * and of the signature cache, the one piece of state every thread shares (its table lives
 * in a SharedArrayBuffer handed over in the pool's workerData).
 *
 * A message that does not decode throws, which Piscina turns into a rejected task; the
 * pool reports that as a `worker` failure. Failures inside one transaction are caught in
 * checkTransaction and name the transaction and input.
 *
 * The module selects the signature backend the pool names in workerData as it loads: a
 * backend that cannot load throws here, so every task sent to the thread comes back as a
 * `worker` failure naming the cause, never a verdict from another backend.
 */
import { workerData } from 'node:worker_threads';
import { parseTransaction } from '../src/primitives/index.js';
import { chooseSignatureBackend, isSignatureBackendChoice, SignatureCache, SignatureCheckCounters } from '../src/script/index.js';
import { checkTransaction, defaultInputs, exceptionFailure, signatureOptions } from './check.js';
import { decodeTaskMessage } from './message.js';
import type { VerifyWorkerData } from './pool.js';
import type { ScriptCheckResult } from './types.js';

// Piscina hands its workerData option to the thread as worker_threads' own workerData.
const data = workerData as Partial<VerifyWorkerData> | null | undefined;
const requested = data?.signatureBackend ?? 'noble';
if (!isSignatureBackendChoice(requested)) throw new Error(`verify worker: unknown signature backend "${String(requested)}"`);
chooseSignatureBackend(requested);
/** The signature cache's table, shared with the coordinator and the other threads. */
const signatureCache = data?.signatureCache ? SignatureCache.attach(data.signatureCache) : null;

export default function verifyTask(buffer: ArrayBuffer): ScriptCheckResult {
  const { options, items } = decodeTaskMessage(buffer);
  const counters = new SignatureCheckCounters();
  const signatures = signatureOptions(signatureCache, options.storeSignatures, counters);
  let checked = 0;
  for (const item of items) {
    let tx;
    try {
      tx = parseTransaction(item.txBytes);
    } catch (err) {
      return exceptionFailure(item.txIndex, -1, err);
    }
    const inputs = item.inputs ?? defaultInputs(tx);
    const failure = checkTransaction(item.txIndex, tx, item.spentOutputs, item.flags, inputs, signatures);
    if (failure) return failure;
    checked += inputs.length;
  }
  return { ok: true, checked, signaturesVerified: counters.verified, signatureCacheHits: counters.cacheHits };
}
