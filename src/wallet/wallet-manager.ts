/**
 * The node's loaded wallets (Core's WalletContext with CreateWallet, LoadWallet,
 * RemoveWallet/UnloadWallet and RestoreWallet): each by name, in the order loaded, each
 * attached to the chain, and each told of every block and mempool change.
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { Block, Transaction } from '../primitives/index.js';
import type { ChainName } from '../script/index.js';
import { writeNewDescriptorWallet } from './new-wallet.js';
import { RPC_CODE } from './rpc-codes.js';
import { setupSignerDescriptors } from './signer-descriptors.js';
import { StoredWalletCorrupt } from './stored-wallet.js';
import { Wallet } from './wallet.js';
import type { WalletTx } from './wallet-txs.js';
import type { WalletChain } from './wallet-chain.js';
import { databaseFileAt, openWalletDatabaseAt, restoreWalletFile, WalletFileError, walletPathForCreate, walletPathForLoad, walletPathOf } from './wallet-files.js';
import { isBerkeleyDbFile } from './wallet-dir.js';

export interface WalletManagerOptions {
  readonly chainName: ChainName;
  readonly messageStart: Uint8Array;
  /** Core's GetWalletDir(). */
  walletDir(): string;
  readonly chain: WalletChain;
  readonly keypool?: number;
  readonly log: (message: string) => void;
  /** -walletbroadcast (default on). */
  readonly broadcastTransactions?: boolean;
  /** -walletnotify's handler, told of each wallet transaction change (undefined: none). */
  readonly notifyTransaction?: (wallet: Wallet, wtx: WalletTx) => void;
  /** Core's AddWalletSetting / RemoveWalletSetting (settings.json `wallet`); false when it could not be written. */
  updateStartupSetting(name: string, load: boolean): boolean;
  /**
   * The wallet options as CWallet::Create checks them on every create and load: a bad one
   * (`error`) fails the load, high ones are warnings of each load.
   */
  optionCheck?(): { readonly error: string | undefined; readonly warnings: readonly string[] };
}

export interface CreateWalletOptions {
  readonly disablePrivateKeys: boolean;
  readonly blank: boolean;
  /** undefined: not given; '' given empty (Core warns and does not encrypt). */
  readonly passphrase: string | undefined;
  readonly avoidReuse: boolean;
  readonly loadOnStartup: boolean | undefined;
  /** An external signer wallet: the device's `getdescriptors` answer, set up once the file is made. */
  readonly signerDescriptors?: unknown;
}

const LOAD_FAILED = 'Wallet loading failed. ';

/** Core's text when settings.json could not record load_on_startup. */
const STARTUP_SETTING_WARNING = 'Wallet load on startup setting could not be updated, so wallet may not be loaded next node startup.';

export class WalletManager {
  readonly #wallets = new Map<string, Wallet>();

  constructor(private readonly options: WalletManagerOptions) {}

  get(name: string): Wallet | undefined {
    return this.#wallets.get(name);
  }

  /** Loaded wallets in the order they were loaded (Core's GetWallets). */
  list(): Wallet[] {
    return [...this.#wallets.values()];
  }

  #startupSetting(name: string, load: boolean | undefined, warnings: string[]): void {
    if (load === undefined) return;
    if (!this.options.updateStartupSetting(name, load)) warnings.push(STARTUP_SETTING_WARNING);
  }

  /**
   * CWallet::Create's failures, which Core's CreateWallet and LoadWallet prefix with
   * "Wallet creation failed." / "Wallet loading failed." (LoadWallets at start-up does not).
   */
  #open(name: string, path: string, warnings: string[], failurePrefix: string): Wallet {
    const check = this.options.optionCheck?.();
    if (check?.error !== undefined) throw new WalletFileError(`${failurePrefix}${check.error}`, RPC_CODE.WALLET_ERROR);
    if (check) warnings.push(...check.warnings);
    const db = openWalletDatabaseAt(path, this.options.messageStart);
    try {
      const notify = this.options.notifyTransaction;
      const wallet = Wallet.load(db, this.options.chain, {
        name,
        chain: this.options.chainName,
        keypool: this.options.keypool ?? 1000,
        log: this.options.log,
        broadcastTransactions: this.options.broadcastTransactions ?? true,
        ...(notify ? { onTransactionChanged: (w: Wallet, wtx: WalletTx) => notify(w, wtx) } : {}),
      });
      this.#wallets.set(name, wallet);
      return wallet;
    } catch (err) {
      db.close();
      if (err instanceof StoredWalletCorrupt) {
        throw new WalletFileError(`Wallet corrupted`, RPC_CODE.WALLET_ERROR);
      }
      if (err instanceof WalletFileError) throw err;
      throw new WalletFileError(`Error loading ${path}: ${(err as Error).message}`, RPC_CODE.WALLET_ERROR);
    }
  }

  /** loadwallet (and -wallet at start-up). */
  load(name: string, loadOnStartup: boolean | undefined, atStartup = false): { wallet: Wallet; warnings: string[] } {
    if (this.#wallets.has(name)) throw new WalletFileError(`Wallet "${name}" is already loaded.`, RPC_CODE.WALLET_ALREADY_LOADED);
    const path = walletPathForLoad(this.options.walletDir(), name, this.options.messageStart);
    const warnings: string[] = [];
    const wallet = this.#open(name, path, warnings, atStartup ? '' : LOAD_FAILED);
    this.#startupSetting(name, loadOnStartup, warnings);
    return { wallet, warnings };
  }

  /**
   * CreateWallet's refusals before it makes anything (an external signer's wallet without
   * disabled private keys, a passphrase for one without keys, the path, a bad wallet option),
   * in Core's order. Returns the new wallet's path.
   */
  checkCreate(name: string, options: Pick<CreateWalletOptions, 'passphrase' | 'disablePrivateKeys' | 'signerDescriptors'> & { readonly externalSigner?: boolean }): string {
    if ((options.externalSigner || options.signerDescriptors !== undefined) && !options.disablePrivateKeys) {
      throw new WalletFileError('Private keys must be disabled when using an external signer', RPC_CODE.WALLET_ERROR);
    }
    if ((options.passphrase ?? '') !== '' && options.disablePrivateKeys) {
      throw new WalletFileError(
        'Passphrase provided but private keys are disabled. A passphrase is only used to encrypt private keys, so cannot be used for wallets with private keys disabled.',
        RPC_CODE.WALLET_ERROR,
      );
    }
    const path = walletPathForCreate(this.options.walletDir(), name, this.options.messageStart);
    const check = this.options.optionCheck?.();
    if (check?.error !== undefined) throw new WalletFileError(`Wallet creation failed. ${check.error}`, RPC_CODE.WALLET_ERROR);
    return path;
  }

  /** createwallet: the file written as Core's CreateWallet writes it, then loaded. */
  create(name: string, options: CreateWalletOptions): { wallet: Wallet; warnings: string[] } {
    const warnings: string[] = [];
    const passphrase = options.passphrase ?? '';
    if (options.passphrase === '') warnings.push('Empty string given as passphrase, wallet will not be encrypted.');
    const path = this.checkCreate(name, options);
    if (!existsSync(path)) mkdirSync(path, { recursive: true });
    const db = openWalletDatabaseAt(path, this.options.messageStart);
    try {
      writeNewDescriptorWallet(db, {
        chain: this.options.chainName,
        creationTime: this.options.chain.now(),
        tipLocator: this.options.chain.locator(),
        keypool: this.options.keypool ?? 1000,
        avoidReuse: options.avoidReuse,
        disablePrivateKeys: options.disablePrivateKeys,
        blank: options.blank,
        externalSigner: options.signerDescriptors !== undefined,
        ...(passphrase !== '' ? { passphrase: new TextEncoder().encode(passphrase) } : {}),
      });
    } finally {
      db.close();
    }
    const wallet = this.#open(name, path, warnings, 'Wallet creation failed. ');
    if (options.signerDescriptors !== undefined) {
      try {
        setupSignerDescriptors(wallet, options.signerDescriptors, this.options.chain.now());
      } catch (err) {
        // As in Core, the wallet is not loaded; its file stays.
        this.#wallets.delete(name);
        wallet.close();
        throw err;
      }
    }
    this.#startupSetting(name, options.loadOnStartup, warnings);
    return { wallet, warnings };
  }

  /** restorewallet: the backup copied into place, then loaded (the copy removed again if loading fails). */
  restore(name: string, backupFile: string, loadOnStartup: boolean | undefined): { wallet: Wallet; warnings: string[] } {
    const { path, discard } = restoreWalletFile(this.options.walletDir(), name, backupFile, this.options.messageStart);
    const warnings: string[] = [];
    let wallet: Wallet;
    try {
      wallet = this.#open(name, path, warnings, LOAD_FAILED);
    } catch (err) {
      discard();
      throw err;
    }
    this.#startupSetting(name, loadOnStartup, warnings);
    return { wallet, warnings };
  }

  /**
   * migratewallet's checks (Core's MigrateLegacyToDescriptor before it opens the file): a
   * loaded wallet, a path that is not a Berkeley DB file, or no wallet at all cannot be
   * migrated. Reading a legacy (Berkeley DB) wallet is not built: that is refused too, saying so.
   */
  migrate(name: string): never {
    if (this.#wallets.has(name)) throw new WalletFileError('Error: This wallet is already a descriptor wallet', RPC_CODE.WALLET_ERROR);
    const path = walletPathOf(this.options.walletDir(), name);
    if (!existsSync(path)) throw new WalletFileError('Error: Wallet does not exist', RPC_CODE.WALLET_ERROR);
    if (!isBerkeleyDbFile(databaseFileAt(path))) throw new WalletFileError('Error: This wallet is already a descriptor wallet', RPC_CODE.WALLET_ERROR);
    throw new WalletFileError(
      'Error: tsbtcd cannot read legacy (Berkeley DB) wallets; migrate this one with bitcoind (migratewallet), then load the descriptor wallet it writes',
      RPC_CODE.WALLET_ERROR,
    );
  }

  /** unloadwallet. */
  unload(name: string, loadOnStartup: boolean | undefined): { warnings: string[] } {
    const wallet = this.#wallets.get(name);
    if (!wallet) throw new WalletFileError('Requested wallet does not exist or is not loaded', RPC_CODE.WALLET_NOT_FOUND);
    this.#wallets.delete(name);
    const warnings: string[] = [];
    this.#startupSetting(name, loadOnStartup, warnings);
    wallet.close();
    return { warnings };
  }

  /** At shutdown: every wallet flushed and closed. */
  closeAll(): void {
    for (const wallet of this.#wallets.values()) {
      try {
        wallet.close();
      } catch (err) {
        this.options.log(`Closing wallet ${wallet.name} failed: ${(err as Error).message}`);
      }
    }
    this.#wallets.clear();
  }

  blockConnected(block: Block, height: number, hash: Uint8Array): void {
    for (const wallet of this.#wallets.values()) wallet.blockConnected(block, height, hash);
  }

  blockDisconnected(block: Block, height: number, prevHash: Uint8Array): void {
    for (const wallet of this.#wallets.values()) wallet.blockDisconnected(block, height, prevHash);
  }

  transactionAddedToMempool(tx: Transaction): void {
    for (const wallet of this.#wallets.values()) wallet.transactionAddedToMempool(tx);
  }

  transactionRemovedFromMempool(tx: Transaction): void {
    for (const wallet of this.#wallets.values()) wallet.transactionRemovedFromMempool(tx, 'other');
  }
}
