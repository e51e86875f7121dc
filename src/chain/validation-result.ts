/** The outcome of a validation step, carrying Core's reject reason (what submitblock returns). */
export type Verdict = { ok: true } | Rejection;

export interface Rejection {
  ok: false;
  reason: string;
  debug?: string;
  /** The block's data did not match its header (mutated): it must not be marked invalid, another copy may be fine. */
  mutated?: boolean;
}

export const VALID: Verdict = { ok: true };

export function reject(reason: string, debug?: string, mutated?: boolean): Rejection {
  const r: Rejection = { ok: false, reason };
  if (debug !== undefined) r.debug = debug;
  if (mutated) r.mutated = true;
  return r;
}

/** Core's ValidationState::ToString: "reason, debug" or "reason". */
export function describeRejection(r: Rejection): string {
  return r.debug ? `${r.reason}, ${r.debug}` : r.reason;
}

/** A failure that is not a consensus verdict (I/O, a lost worker task): validation must stop, nothing is marked invalid. */
export class ChainSystemError extends Error {
  override readonly name = 'ChainSystemError';
}
