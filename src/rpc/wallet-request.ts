/**
 * What every wallet RPC handler starts from: the wallet the request names (Core's
 * GetWalletForJSONRPCRequest over the `/wallet/<name>` endpoint), the node-wide wallet
 * options, and the translation of the wallet module's failures into Core's RPC errors.
 */
import { WalletFileError, walletOutputTypeOf, type Wallet, type WalletManager, type WalletOutputType, type WalletSpendSettings } from '../wallet/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_WALLET_INVALID_LABEL_NAME, RPC_WALLET_UNLOCK_NEEDED, RPC_WALLET_NOT_FOUND, RPC_WALLET_NOT_SPECIFIED, RpcError } from './errors.js';
import type { RpcCallContext, RpcHandler } from './spec.js';
import { NO_WALLET_LOADED, WALLET_NOT_LOADED } from './wallet-stubs.js';

export interface WalletRpcDeps {
  /** The loaded wallets (undefined until the wallet service started). */
  manager(): WalletManager | undefined;
  /** -keypool. */
  readonly keypool: number;
  /** The fee and spending options the wallet sends with. */
  readonly spendSettings: WalletSpendSettings;
}

export type WalletHandlers = Partial<Record<string, RpcHandler>>;

const MULTIPLE_WALLETS = 'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.';

/** Core's EnsureWalletIsUnlocked. */
export function ensureUnlocked(wallet: Wallet): void {
  if (wallet.isLocked) throw new RpcError(RPC_WALLET_UNLOCK_NEEDED, 'Error: Please enter the wallet passphrase with walletpassphrase first.');
}

/** Core's GetWalletForJSONRPCRequest. */
export function walletForRequest(deps: WalletRpcDeps, ctx: RpcCallContext): Wallet {
  const manager = deps.manager();
  if (ctx.wallet !== undefined) {
    const wallet = manager?.get(ctx.wallet);
    if (!wallet) throw new RpcError(RPC_WALLET_NOT_FOUND, WALLET_NOT_LOADED);
    return wallet;
  }
  const wallets = manager?.list() ?? [];
  if (wallets.length === 1) return wallets[0]!;
  if (wallets.length === 0) throw new RpcError(RPC_WALLET_NOT_FOUND, NO_WALLET_LOADED);
  throw new RpcError(RPC_WALLET_NOT_SPECIFIED, MULTIPLE_WALLETS);
}

/** A wallet file failure as the RPC error Core's HandleWalletError makes of it. */
export function walletFileRpcError(err: unknown): never {
  if (err instanceof WalletFileError) throw new RpcError(err.code, err.message);
  throw err;
}

/** Core's ParseOutputType; "unknown" is refused as Core refuses it (-5). */
export function parseOutputType(text: string): WalletOutputType {
  const found = walletOutputTypeOf(text);
  if (!found) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Unknown address type '${text}'`);
  return found;
}

/** Core's LabelFromValue: "*" is not a label. */
export function labelFromValue(value: string): string {
  if (value === '*') throw new RpcError(RPC_WALLET_INVALID_LABEL_NAME, 'Invalid label name');
  return value;
}
