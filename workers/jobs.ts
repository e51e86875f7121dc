/**
 * Checks a caller's job list before any work starts, so a malformed job is a typed error
 * at the call site rather than a confusing verdict from a worker thread.
 */
import type { Transaction, TxOut } from '../src/primitives/index.js';
import { defaultInputs } from './check.js';
import { ScriptCheckJobError, type ScriptCheckJob } from './types.js';

/** The input indexes a job asks for, validated against its transaction. */
export function resolveJobInputs(job: ScriptCheckJob, txIndex: number): readonly number[] {
  if (!Number.isInteger(job.flags) || job.flags < 0 || job.flags > 0xffffffff) {
    throw new ScriptCheckJobError(txIndex, `flags ${job.flags} are not a u32 bit set`);
  }
  const inputs = job.inputs ?? defaultInputs(job.tx);
  if (inputs.length === 0) return inputs;
  if (job.spentOutputs.length !== job.tx.inputs.length) {
    throw new ScriptCheckJobError(txIndex, `${job.spentOutputs.length} spent outputs for ${job.tx.inputs.length} inputs`);
  }
  let previous = -1;
  for (const index of inputs) {
    if (!Number.isInteger(index) || index <= previous || index >= job.tx.inputs.length) {
      throw new ScriptCheckJobError(txIndex, `input indexes must be ascending and below ${job.tx.inputs.length}, got ${index}`);
    }
    previous = index;
  }
  return inputs;
}

/**
 * One job per transaction of a block, so verdicts name block transaction indexes.
 * `spentOutputs[i]` belongs to transaction i; the coinbase's entry is ignored (it has no
 * scripts to check) and may be empty.
 */
export function blockJobs(
  transactions: readonly Transaction[],
  spentOutputs: readonly (readonly TxOut[])[],
  flags: number,
): ScriptCheckJob[] {
  if (spentOutputs.length !== transactions.length) {
    throw new ScriptCheckJobError(-1, `${spentOutputs.length} spent-output lists for ${transactions.length} transactions`);
  }
  return transactions.map((tx, i) => ({ tx, spentOutputs: spentOutputs[i]!, flags }));
}
