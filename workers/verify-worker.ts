/**
 * The Piscina worker: verifies the scripts of one task (a batch of transactions, see
 * message.ts) and replies with the first failing input in task order, or ok with the
 * number of inputs checked. A pure function of the message: no I/O, no state between
 * tasks beyond the interpreter's module-level constants.
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
import { chooseSignatureBackend, isSignatureBackendChoice } from '../src/script/index.js';
import { checkTransaction, defaultInputs, exceptionFailure } from './check.js';
import { decodeTask } from './message.js';
import type { VerifyWorkerData } from './pool.js';
import type { ScriptCheckResult } from './types.js';

// Piscina hands its workerData option to the thread as worker_threads' own workerData.
const requested = (workerData as Partial<VerifyWorkerData> | null | undefined)?.signatureBackend ?? 'noble';
if (!isSignatureBackendChoice(requested)) throw new Error(`verify worker: unknown signature backend "${String(requested)}"`);
chooseSignatureBackend(requested);

export default function verifyTask(buffer: ArrayBuffer): ScriptCheckResult {
  const items = decodeTask(buffer);
  let checked = 0;
  for (const item of items) {
    let tx;
    try {
      tx = parseTransaction(item.txBytes);
    } catch (err) {
      return exceptionFailure(item.txIndex, -1, err);
    }
    const inputs = item.inputs ?? defaultInputs(tx);
    const failure = checkTransaction(item.txIndex, tx, item.spentOutputs, item.flags, inputs);
    if (failure) return failure;
    checked += inputs.length;
  }
  return { ok: true, checked };
}
