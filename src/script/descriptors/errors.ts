/**
 * Descriptor errors carry Core's message text verbatim, because getdescriptorinfo and
 * deriveaddresses return it to the client unchanged, and the JSON-RPC code Core pairs
 * with it (RPC_INVALID_ADDRESS_OR_KEY for parse and derivation failures).
 */

/** Core's RPC_INVALID_ADDRESS_OR_KEY. */
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
/** Core's RPC_INVALID_PARAMETER. */
export const RPC_INVALID_PARAMETER = -8;
/** Core's RPC_MISC_ERROR. */
export const RPC_MISC_ERROR = -1;

export class DescriptorError extends Error {
  override readonly name = 'DescriptorError';

  constructor(
    message: string,
    /** The JSON-RPC error code Core reports this failure with. */
    readonly code: number = RPC_INVALID_ADDRESS_OR_KEY,
  ) {
    super(message);
  }
}
