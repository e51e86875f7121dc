/**
 * What callers hand the script-check pool and what they get back. Shared by the pool, the
 * in-thread fallback and the worker, so a verdict means the same thing on every path.
 */
import type { Transaction, TxOut } from '../src/primitives/index.js';
import type { ScriptError } from '../src/script/index.js';

/** One transaction whose inputs need their scripts checked. */
export interface ScriptCheckJob {
  readonly tx: Transaction;
  /** The output each input spends, in input order: one per input, all of them (taproot sighashes commit to every one). */
  readonly spentOutputs: readonly TxOut[];
  /** Script verification flags (VerifyFlags bits) in force for this transaction. */
  readonly flags: number;
  /** Input indexes to check; default every input, or none for a coinbase. */
  readonly inputs?: readonly number[];
}

export interface ScriptCheckSuccess {
  readonly ok: true;
  /** How many inputs were verified. */
  readonly checked: number;
  /** Curve verifications run (ECDSA and BIP340 signatures the signature cache did not answer). */
  readonly signaturesVerified: number;
  /** Signatures the signature cache answered. */
  readonly signatureCacheHits: number;
}

/**
 * How a check uses Core's signature cache: signatures are always looked up; `storeSignatures`
 * adds the ones found valid (mempool acceptance, TestBlockValidity), while block validation
 * only reads and marks what it used as collectable.
 */
export interface ScriptCheckCaching {
  readonly storeSignatures: boolean;
}

export const READ_SIGNATURE_CACHE: ScriptCheckCaching = { storeSignatures: false };

/**
 * Why a check failed:
 * - `script`: the interpreter rejected the input (`error` says how);
 * - `exception`: verifying the input threw, which is a bug in the interpreter or a
 *   transaction that does not parse; `detail` carries the message;
 * - `worker`: the task never produced a verdict (the worker thread died, rejected the
 *   message or timed out); the first transaction and input of the lost task are named.
 */
export type ScriptCheckFailureReason = 'script' | 'exception' | 'worker';

export interface ScriptCheckFailure {
  readonly ok: false;
  readonly reason: ScriptCheckFailureReason;
  /** Index of the failing transaction in the job list the caller passed. */
  readonly txIndex: number;
  /** Index of the failing input within that transaction; -1 when the transaction itself did not parse. */
  readonly inputIndex: number;
  /** The script error; UNKNOWN_ERROR for `exception` and `worker` failures. */
  readonly error: ScriptError;
  readonly detail?: string;
}

export type ScriptCheckResult = ScriptCheckSuccess | ScriptCheckFailure;

/** A job the caller built wrongly (spent outputs missing, input index out of range): a bug upstream, not an invalid block. */
export class ScriptCheckJobError extends Error {
  override readonly name = 'ScriptCheckJobError';
  readonly txIndex: number;

  constructor(txIndex: number, message: string) {
    super(`script check job ${txIndex}: ${message}`);
    this.txIndex = txIndex;
  }
}

/** The pool was used after close(). */
export class ScriptCheckPoolClosedError extends Error {
  override readonly name = 'ScriptCheckPoolClosedError';

  constructor() {
    super('script check pool is closed');
  }
}

/**
 * Every worker thread is gone and Piscina will not start more (it stops after workers
 * fail while starting, e.g. the worker module does not load). Not a verdict on any block.
 */
export class ScriptCheckPoolBrokenError extends Error {
  override readonly name = 'ScriptCheckPoolBrokenError';
}
