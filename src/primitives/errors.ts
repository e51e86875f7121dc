/** Raised when bytes do not decode as the structure asked for (truncated, oversized, trailing data). */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}
