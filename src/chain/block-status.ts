/**
 * Block validity and storage status bits, with Core's values (chain.h) so that status
 * numbers read the same as Core's in logs and debugging output.
 */
export const BlockStatus = {
  VALID_UNKNOWN: 0,
  /** Parsed, version ok, hash satisfies claimed PoW, timestamp not in the future. */
  VALID_RESERVED: 1,
  /** All parent headers found, difficulty matches, timestamp ≥ median of previous; implies all parents are at least TREE. */
  VALID_TREE: 2,
  /** Only first tx is coinbase, 2 ≤ coinbase input script length ≤ 100, transactions valid, no duplicate txids, sigops, size, merkle root. */
  VALID_TRANSACTIONS: 3,
  /** Outputs do not overspend inputs, no double spends, coinbase output ok, no immature coinbase spends, BIP30. */
  VALID_CHAIN: 4,
  /** Scripts and signatures ok. */
  VALID_SCRIPTS: 5,
  VALID_MASK: 7,
  HAVE_DATA: 8,
  HAVE_UNDO: 16,
  FAILED_VALID: 32,
  FAILED_CHILD: 64,
  FAILED_MASK: 96,
  /** Block data was received with witness-enforcing client. */
  OPT_WITNESS: 128,
} as const;

export function validityLevel(status: number): number {
  return status & BlockStatus.VALID_MASK;
}

/** Core's IsValid(nUpTo): not failed and at least the given validity level. */
export function isValidUpTo(status: number, level: number): boolean {
  if (status & BlockStatus.FAILED_MASK) return false;
  return validityLevel(status) >= level;
}

/** Core's RaiseValidity: true when the level went up. */
export function raiseValidity(status: number, level: number): number {
  if (status & BlockStatus.FAILED_MASK) return status;
  if (validityLevel(status) < level) return (status & ~BlockStatus.VALID_MASK) | level;
  return status;
}
