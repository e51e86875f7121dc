/**
 * Differences from bitcoind v31.0 that are known and deliberate or not built yet, each with
 * its reason. `make differential` still counts them as different; the short form in
 * `make test` fails on any difference that is not listed here.
 */
export interface KnownDifference {
  /** The request's label as the catalogue writes it. */
  readonly label: string;
  readonly reason: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [];

export function knownDifference(label: string): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find((k) => k.label === label);
}
