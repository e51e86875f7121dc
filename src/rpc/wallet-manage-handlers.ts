/**
 * Wallet management as Core's RPCs answer it: createwallet, loadwallet, unloadwallet,
 * restorewallet, listwallets, getwalletinfo and backupwallet.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connectedSigner, WALLET_FLAG, type Wallet } from '../wallet/index.js';
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_WALLET_ERROR, RpcError } from './errors.js';
import type { RpcArgs } from './args.js';
import type { JsonObject } from './json.js';
import type { RpcCallContext } from './spec.js';
import { walletFileRpcError, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/** Core's WALLET_FLAG_TO_STRING, in bit order. */
const FLAG_NAMES: readonly [bigint, string][] = [
  [WALLET_FLAG.AVOID_REUSE, 'avoid_reuse'],
  [1n << 1n, 'key_origin_metadata'],
  [WALLET_FLAG.LAST_HARDENED_XPUB_CACHED, 'last_hardened_xpub_cached'],
  [WALLET_FLAG.DISABLE_PRIVATE_KEYS, 'disable_private_keys'],
  [WALLET_FLAG.BLANK_WALLET, 'blank'],
  [WALLET_FLAG.DESCRIPTORS, 'descriptor_wallet'],
  [WALLET_FLAG.EXTERNAL_SIGNER, 'external_signer'],
];

/** The wallet named by the endpoint or by the parameter (Core's EnsureUniqueWalletName: unloadwallet, migratewallet). */
function endpointOrParameter(value: string | undefined, ctx: RpcCallContext): string {
  if (ctx.wallet !== undefined) {
    if (value !== undefined && value !== ctx.wallet) throw new RpcError(RPC_INVALID_PARAMETER, 'The RPC endpoint wallet and the wallet name parameter specify different wallets');
    return ctx.wallet;
  }
  if (value === undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Either the RPC endpoint wallet or the wallet name parameter must be provided');
  return value;
}

function withWarnings(result: JsonObject, warnings: readonly string[]): JsonObject {
  if (warnings.length > 0) result.warnings = [...warnings];
  return result;
}

/** Keys left to hand out in the active descriptors of one role (Core's GetKeyPoolSize per role). */
function keypoolSize(wallet: Wallet, internal: boolean): number {
  let size = 0;
  for (const id of (internal ? wallet.stored.activeInternal : wallet.stored.activeExternal).values()) {
    const spkm = wallet.spkms.get(id);
    if (spkm) size += spkm.isRange() ? spkm.record.rangeEnd - spkm.record.nextIndex : 0;
  }
  return size;
}

export function walletManageHandlers(deps: WalletRpcDeps): WalletHandlers {
  const manager = () => {
    const m = deps.manager();
    if (!m) throw new RpcError(RPC_WALLET_ERROR, 'Wallets are not loaded yet');
    return m;
  };
  const loadOnStartup = (args: RpcArgs): boolean | undefined => args.optBoolean('load_on_startup');

  return {
    createwallet: async (args) => {
      const name = args.string('wallet_name');
      if (args.optBoolean('descriptors') === false) {
        throw new RpcError(RPC_WALLET_ERROR, 'descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.');
      }
      const disablePrivateKeys = args.boolean('disable_private_keys');
      const passphrase = args.optString('passphrase');
      // An external signer's descriptors come from the device, asked after the checks
      // CreateWallet makes first; its failures are Core's runtime errors (-1).
      let signerDescriptors: unknown;
      if (args.optBoolean('external_signer') === true) {
        try {
          manager().checkCreate(name, { passphrase, disablePrivateKeys, externalSigner: true });
        } catch (err) {
          walletFileRpcError(err);
        }
        try {
          signerDescriptors = await (await connectedSigner(deps.signer, deps.chainName)).getDescriptors(0);
        } catch (err) {
          throw new RpcError(RPC_MISC_ERROR, (err as Error).message);
        }
      }
      try {
        const { wallet, warnings } = manager().create(name, {
          ...(signerDescriptors !== undefined ? { signerDescriptors } : {}),
          disablePrivateKeys,
          blank: args.boolean('blank'),
          passphrase,
          avoidReuse: args.boolean('avoid_reuse'),
          loadOnStartup: loadOnStartup(args),
        });
        return withWarnings({ name: wallet.name }, warnings);
      } catch (err) {
        walletFileRpcError(err);
      }
    },

    loadwallet: async (args) => {
      const name = args.string('filename');
      try {
        const { wallet, warnings } = manager().load(name, loadOnStartup(args));
        await wallet.resubmitWalletTransactions(deps.spendSettings.maxTxFee, false, true);
        return withWarnings({ name: wallet.name }, warnings);
      } catch (err) {
        walletFileRpcError(err);
      }
    },

    restorewallet: async (args) => {
      const name = args.string('wallet_name');
      const backup = args.string('backup_file');
      try {
        const { wallet, warnings } = manager().restore(name, backup, loadOnStartup(args));
        await wallet.resubmitWalletTransactions(deps.spendSettings.maxTxFee, false, true);
        return withWarnings({ name: wallet.name }, warnings);
      } catch (err) {
        walletFileRpcError(err);
      }
    },

    migratewallet: (args, ctx) => {
      const name = endpointOrParameter(args.optString('wallet_name'), ctx);
      args.optString('passphrase');
      try {
        manager().migrate(name);
      } catch (err) {
        walletFileRpcError(err);
      }
    },

    unloadwallet: (args, ctx) => {
      const name = endpointOrParameter(args.optString('wallet_name'), ctx);
      try {
        const { warnings } = manager().unload(name, loadOnStartup(args));
        return withWarnings({}, warnings);
      } catch (err) {
        walletFileRpcError(err);
      }
    },

    listwallets: () => (deps.manager()?.list() ?? []).map((w) => w.name),

    getwalletinfo: (_args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const info: JsonObject = {
        walletname: wallet.name,
        walletversion: 169900,
        format: 'sqlite',
        txcount: wallet.txs.size,
        keypoolsize: keypoolSize(wallet, false),
        keypoolsize_hd_internal: keypoolSize(wallet, true),
      };
      if (wallet.isEncrypted) info.unlocked_until = wallet.unlockedUntil;
      info.private_keys_enabled = !wallet.privateKeysDisabled;
      info.avoid_reuse = wallet.hasFlag(WALLET_FLAG.AVOID_REUSE);
      const scanning = wallet.scanningProgress;
      info.scanning = scanning ? { duration: scanning.duration, progress: scanning.progress } : false;
      info.descriptors = true;
      info.external_signer = wallet.hasFlag(WALLET_FLAG.EXTERNAL_SIGNER);
      info.blank = wallet.hasFlag(WALLET_FLAG.BLANK_WALLET);
      if (wallet.birthTime !== Number.MAX_SAFE_INTEGER) info.birthtime = wallet.birthTime;
      info.flags = FLAG_NAMES.filter(([bit]) => wallet.hasFlag(bit)).map(([, n]) => n);
      info.lastprocessedblock = wallet.lastProcessedBlock();
      return info;
    },

    setwalletflag: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const name = args.string('flag');
      const value = args.boolean('value');
      const flag = FLAG_NAMES.find(([, n]) => n === name)?.[0];
      if (flag === undefined) throw new RpcError(RPC_INVALID_PARAMETER, `Unknown wallet flag: ${name}`);
      // Core's MUTABLE_WALLET_FLAGS: avoid_reuse only.
      if (flag !== WALLET_FLAG.AVOID_REUSE) throw new RpcError(RPC_INVALID_PARAMETER, `Wallet flag is immutable: ${name}`);
      if (wallet.hasFlag(flag) === value) throw new RpcError(RPC_INVALID_PARAMETER, `Wallet flag is already set to ${value}: ${name}`);
      wallet.setFlag(flag, value);
      const result: JsonObject = { flag_name: name, flag_state: value };
      if (value) {
        result.warnings =
          'You need to rescan the blockchain in order to correctly mark used destinations in the past. Until this is done, some destinations may be considered unused, even if the opposite is the case.';
      }
      return result;
    },

    // Core's AbortRescan: true when a rescan of this wallet was running; it stops before its next block.
    abortrescan: (_args, ctx) => {
      return walletForRequest(deps, ctx).abortRescan();
    },

    backupwallet: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      let destination = args.string('destination');
      if (existsSync(destination) && statSync(destination).isDirectory()) destination = join(destination, wallet.name === '' ? 'wallet.dat' : wallet.name);
      if (!wallet.db.backup(destination)) throw new RpcError(RPC_WALLET_ERROR, 'Error: Wallet backup failed!');
      return null;
    },
  };
}
