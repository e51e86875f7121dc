/**
 * The one error vocabulary of JSON-RPC: `RpcError(code, message)` and Bitcoin Core's
 * code constants (src/rpc/protocol.h, v31). Handlers throw RpcError; anything else a
 * handler throws becomes RPC_MISC_ERROR with its message, as Core does for a
 * std::exception.
 */
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_PARSE_ERROR = -32700;

export const RPC_MISC_ERROR = -1;
export const RPC_FORBIDDEN_BY_SAFE_MODE = -2;
export const RPC_TYPE_ERROR = -3;
export const RPC_WALLET_ERROR = -4;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_WALLET_INSUFFICIENT_FUNDS = -6;
export const RPC_OUT_OF_MEMORY = -7;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_CLIENT_NOT_CONNECTED = -9;
export const RPC_CLIENT_IN_INITIAL_DOWNLOAD = -10;
export const RPC_WALLET_INVALID_LABEL_NAME = -11;
export const RPC_WALLET_KEYPOOL_RAN_OUT = -12;
export const RPC_WALLET_UNLOCK_NEEDED = -13;
export const RPC_WALLET_PASSPHRASE_INCORRECT = -14;
export const RPC_WALLET_WRONG_ENC_STATE = -15;
export const RPC_WALLET_ENCRYPTION_FAILED = -16;
export const RPC_WALLET_ALREADY_UNLOCKED = -17;
export const RPC_WALLET_NOT_FOUND = -18;
export const RPC_WALLET_NOT_SPECIFIED = -19;
export const RPC_DATABASE_ERROR = -20;
export const RPC_DESERIALIZATION_ERROR = -22;
export const RPC_CLIENT_NODE_ALREADY_ADDED = -23;
export const RPC_CLIENT_NODE_NOT_ADDED = -24;
export const RPC_VERIFY_ERROR = -25;
export const RPC_VERIFY_REJECTED = -26;
export const RPC_VERIFY_ALREADY_IN_UTXO_SET = -27;
export const RPC_IN_WARMUP = -28;
export const RPC_CLIENT_NODE_NOT_CONNECTED = -29;
export const RPC_CLIENT_INVALID_IP_OR_SUBNET = -30;
export const RPC_CLIENT_P2P_DISABLED = -31;
export const RPC_METHOD_DEPRECATED = -32;
export const RPC_CLIENT_MEMPOOL_DISABLED = -33;
export const RPC_CLIENT_NODE_CAPACITY_REACHED = -34;
export const RPC_WALLET_ALREADY_LOADED = -35;
export const RPC_WALLET_ALREADY_EXISTS = -36;
export const RPC_LIMIT_EXCEEDED = -37;

/** Core's aliases, kept so code reads like the reference. */
export const RPC_TRANSACTION_ERROR = RPC_VERIFY_ERROR;
export const RPC_TRANSACTION_REJECTED = RPC_VERIFY_REJECTED;

/** The error object a reply carries: exactly `{code, message}`, no `data`. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
}

export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  toObject(): RpcErrorObject {
    return { code: this.code, message: this.message };
  }
}

/** Maps anything a handler threw to the reply error, as CRPCTable::execute does. */
export function toRpcErrorObject(err: unknown): RpcErrorObject {
  if (err instanceof RpcError) return err.toObject();
  if (err instanceof Error) return { code: RPC_MISC_ERROR, message: err.message };
  return { code: RPC_MISC_ERROR, message: String(err) };
}
