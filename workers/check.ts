/**
 * The per-transaction verification loop, shared by the worker thread and the in-thread
 * fallback so both give identical verdicts. The transaction-wide sighash midstates are
 * built once and shared by all its inputs: a transaction with many inputs hashes its
 * prevouts, sequences and outputs once, not once per input.
 */
import type { Transaction, TxOut } from '../src/primitives/index.js';
import { PrecomputedTransactionData, ScriptError, verifyInput, type SignatureCache, type SignatureCheckCounters, type SignatureCheckOptions } from '../src/script/index.js';
import type { ScriptCheckFailure } from './types.js';

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

export function exceptionFailure(txIndex: number, inputIndex: number, err: unknown): ScriptCheckFailure {
  return { ok: false, reason: 'exception', txIndex, inputIndex, error: ScriptError.UNKNOWN_ERROR, detail: describe(err) };
}

/** The signature options of one check: the cache when there is one (storing valid signatures when `store`), and the counters. */
export function signatureOptions(cache: SignatureCache | null, store: boolean, counters: SignatureCheckCounters): SignatureCheckOptions {
  return cache ? { cache: { cache, store }, counters } : { counters };
}

/** Every input index of a transaction, or none for a coinbase (it has no scripts to check). */
export function defaultInputs(tx: Transaction): number[] {
  return tx.isCoinbase() ? [] : tx.inputs.map((_, i) => i);
}

/**
 * Verifies `inputs` of `tx` in order and returns the first failure, or null when all pass.
 * An exception is caught and reported against the input that raised it, so one bad input
 * never loses the verdicts of a whole task. `signatures` carries the signature cache and
 * the counters of this thread's work.
 */
export function checkTransaction(
  txIndex: number,
  tx: Transaction,
  spentOutputs: readonly TxOut[],
  flags: number,
  inputs: readonly number[],
  signatures: SignatureCheckOptions = {},
): ScriptCheckFailure | null {
  if (inputs.length === 0) return null;
  let txdata: PrecomputedTransactionData;
  try {
    txdata = new PrecomputedTransactionData(tx, spentOutputs);
  } catch (err) {
    return exceptionFailure(txIndex, inputs[0]!, err);
  }
  for (const inputIndex of inputs) {
    let error: ScriptError;
    try {
      error = verifyInput(tx, inputIndex, spentOutputs, flags, txdata, signatures);
    } catch (err) {
      return exceptionFailure(txIndex, inputIndex, err);
    }
    if (error !== ScriptError.OK) return { ok: false, reason: 'script', txIndex, inputIndex, error };
  }
  return null;
}
