/**
 * The RPC error codes wallet failures carry (Core's protocol.h numbers), kept here so the
 * wallet needs nothing from the RPC layer, which maps them unchanged.
 */
export const RPC_CODE = {
  WALLET_ERROR: -4,
  INVALID_PARAMETER: -8,
  WALLET_NOT_FOUND: -18,
  WALLET_ALREADY_LOADED: -35,
  WALLET_ALREADY_EXISTS: -36,
} as const;
