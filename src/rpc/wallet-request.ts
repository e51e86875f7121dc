/**
 * What every wallet RPC handler starts from: the wallet the request names (Core's
 * GetWalletForJSONRPCRequest over the `/wallet/<name>` endpoint), the node-wide wallet
 * options, and the translation of the wallet module's failures into Core's RPC errors.
 */
import type { Psbt } from '../psbt/index.js';
import type { ChainName } from '../script/index.js';
import { connectedSigner, fillPsbtWithSigner, fillWalletPsbt, WALLET_FLAG, WalletFileError, walletOutputTypeOf, type Wallet, type WalletManager, type WalletOutputType, type WalletSpendSettings } from '../wallet/index.js';
import { RPC_DESERIALIZATION_ERROR, RPC_TRANSACTION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_WALLET_INVALID_LABEL_NAME, RPC_WALLET_UNLOCK_NEEDED, RPC_WALLET_NOT_FOUND, RPC_WALLET_NOT_SPECIFIED, RpcError } from './errors.js';
import type { RpcCallContext, RpcHandler } from './spec.js';
import { NO_WALLET_LOADED, WALLET_NOT_LOADED } from './wallet-stubs.js';

export interface WalletRpcDeps {
  /** The loaded wallets (undefined until the wallet service started). */
  manager(): WalletManager | undefined;
  /** -keypool. */
  readonly keypool: number;
  /** The fee and spending options the wallet sends with. */
  readonly spendSettings: WalletSpendSettings;
  /** -signer's command ('' when not set), which external signer wallets sign with. */
  readonly signer: string;
  readonly chainName: ChainName;
}

export type WalletHandlers = Partial<Record<string, RpcHandler>>;

const MULTIPLE_WALLETS = 'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.';

/** WalletRescanReserver's refusal while a rescan of the wallet runs. */
export const RESCANNING = 'Wallet is currently rescanning. Abort existing rescan or wait.';

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

/** PSBTErrorString for the errors a wallet's FillPSBT ends with. */
const SIGNER_ERROR_TEXT = { EXTERNAL_SIGNER_NOT_FOUND: 'External signer not found', EXTERNAL_SIGNER_FAILED: 'External signer failed to sign' } as const;

/**
 * CWallet::FillPSBT, through the external signer for a wallet made with one; its failures
 * as Core's JSONRPCPSBTError makes them (-25, or -22 for a sighash that does not match).
 */
export async function fillPsbt(
  deps: WalletRpcDeps,
  wallet: Wallet,
  psbt: Psbt,
  options: { sign: boolean; sighash: number | null; finalize: boolean; bip32derivs?: boolean },
): Promise<{ complete: boolean }> {
  const filled = wallet.hasFlag(WALLET_FLAG.EXTERNAL_SIGNER)
    ? await fillPsbtWithSigner(wallet, psbt, options, () => connectedSigner(deps.signer, wallet.chainName))
    : fillWalletPsbt(wallet, psbt, options);
  if ('error' in filled) throw new RpcError(RPC_TRANSACTION_ERROR, SIGNER_ERROR_TEXT[filled.error]);
  if (filled.sighashMismatch) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Specified sighash value does not match value stored in PSBT');
  return filled;
}

/**
 * Core's FinishTransaction / feebumper::SignTransaction signing: filled first without signing
 * (derivation paths in), so an external signer is asked once with everything it needs, then
 * signed with the paths left out, finalized.
 */
export async function signWalletPsbt(deps: WalletRpcDeps, wallet: Wallet, psbt: Psbt): Promise<void> {
  await fillPsbt(deps, wallet, psbt, { sign: false, sighash: null, finalize: true, bip32derivs: true });
  await fillPsbt(deps, wallet, psbt, { sign: true, sighash: null, finalize: true, bip32derivs: false });
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
