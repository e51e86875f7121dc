/**
 * A fee over a weight (Core's FeeFrac / FeePerWeight) and their exact comparison by
 * cross-multiplication, which is what every chunk and linearization decision compares.
 */
export interface FeeFraction {
  readonly fee: bigint;
  readonly weight: number;
}

/** a's feerate compared with b's: positive when a pays more per weight unit. */
export function compareFeerate(a: FeeFraction, b: FeeFraction): number {
  const lhs = a.fee * BigInt(b.weight);
  const rhs = b.fee * BigInt(a.weight);
  return lhs > rhs ? 1 : lhs < rhs ? -1 : 0;
}
