/**
 * Outcomes of block and transaction checks (Core's BlockValidationState and
 * TxValidationState): a reject reason exactly as Core words it (submitblock and
 * rejection messages return it), a debug message, and the kind of failure, which
 * decides whether the block may be marked permanently invalid.
 */

/**
 * Core's BlockValidationResult. `mutated` means the data may not be what the header's
 * proof of work commits to (merkle or witness malleation): such a block must not be
 * cached as invalid, because an honest copy of it may still arrive. `time-future` is
 * likewise not permanent.
 */
export type BlockValidationResult =
  | 'consensus'
  | 'cached-invalid'
  | 'invalid-header'
  | 'mutated'
  | 'missing-prev'
  | 'invalid-prev'
  | 'time-future'
  | 'header-low-work';

export interface BlockCheckFailure {
  readonly ok: false;
  readonly result: BlockValidationResult;
  /** Core's reject reason, e.g. "bad-txnmrklroot". */
  readonly reason: string;
  /** Core's debug message ('' where Core gives none). */
  readonly debug: string;
  /** True when result is 'mutated': corruption is possible, do not mark the block invalid. */
  readonly mutated: boolean;
}

export type BlockCheck = { readonly ok: true } | BlockCheckFailure;

/** The one success value (checks return it rather than allocating). */
export const BLOCK_OK: BlockCheck = Object.freeze({ ok: true });

/** A block failure; `mutated` follows from the result so callers cannot set them inconsistently. */
export function blockFailure(result: BlockValidationResult, reason: string, debug = ''): BlockCheckFailure {
  return { ok: false, result, reason, debug, mutated: result === 'mutated' };
}

/** Core's TxValidationResult values that consensus checks produce. */
export type TxValidationResult = 'consensus' | 'missing-inputs' | 'premature-spend';

export interface TxValidationFailure {
  readonly ok: false;
  readonly result: TxValidationResult;
  readonly reason: string;
  readonly debug: string;
}

/** A transaction failure with Core's reason and debug text. */
export function txFailure(result: TxValidationResult, reason: string, debug = ''): TxValidationFailure {
  return { ok: false, result, reason, debug };
}
