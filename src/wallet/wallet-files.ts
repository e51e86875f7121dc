/**
 * Finding a wallet's database by name, for creating and for loading, with Core's outcomes
 * (wallet/wallet.cpp MakeWalletDatabase, wallet/db.cpp MakeDatabase) and its texts: the
 * name is a path under the wallet directory (or an absolute path); creating needs no
 * database there yet; loading needs a SQLite wallet of this network there, and names what
 * else it found. Each failure carries the RPC code Core's HandleWalletError gives it.
 */
import { copyFileSync, constants as fsConstants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { RPC_CODE } from './rpc-codes.js';
import { isBerkeleyDbFile } from './wallet-dir.js';
import { isSqliteWalletFile, walletDatabaseFile, WalletDatabase, WalletDatabaseError } from './wallet-database.js';

/** A wallet that cannot be created or loaded: Core's message and RPC error code. */
export class WalletFileError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = 'WalletFileError';
  }
}

const VERIFY_FAILED = 'Wallet file verification failed. ';

/** Core's path of a wallet: the name joined to the wallet directory, or the name when it is absolute. */
export function walletPathOf(walletDir: string, name: string): string {
  return isAbsolute(name) ? name : resolve(join(walletDir, name));
}

/** Where the database of the wallet at `path` is: its wallet.dat, or the path itself when that is a file. */
export function databaseFileAt(path: string): string {
  return existsSync(path) && statSync(path).isFile() ? path : walletDatabaseFile(path);
}

/**
 * Core's checks before creating: a name, and no wallet database at the path yet (a file
 * that is neither a Berkeley DB nor this network's SQLite wallet does not count, as in
 * Core's MakeDatabase; opening it then fails). Returns the wallet's directory.
 */
export function walletPathForCreate(walletDir: string, name: string, messageStart: Uint8Array): string {
  if (name === '') throw new WalletFileError('Wallet name cannot be empty', RPC_CODE.INVALID_PARAMETER);
  const path = walletPathOf(walletDir, name);
  const file = databaseFileAt(path);
  if (isBerkeleyDbFile(file) || isSqliteWalletFile(file, messageStart)) {
    throw new WalletFileError(`${VERIFY_FAILED}Failed to create database path '${path}'. Database already exists.`, RPC_CODE.WALLET_ERROR);
  }
  return path;
}

/** Core's checks before loading: a SQLite wallet of this network at the path. Returns the wallet's directory. */
export function walletPathForLoad(walletDir: string, name: string, messageStart: Uint8Array): string {
  const path = walletPathOf(walletDir, name);
  if (!existsSync(path)) throw new WalletFileError(`${VERIFY_FAILED}Failed to load database path '${path}'. Path does not exist.`, RPC_CODE.WALLET_NOT_FOUND);
  const file = databaseFileAt(path);
  if (isBerkeleyDbFile(file)) {
    throw new WalletFileError(
      `${VERIFY_FAILED}Failed to open database path '${path}'. The wallet appears to be a Legacy wallet, please use the wallet migration tool (migratewallet RPC or the GUI option).`,
      RPC_CODE.WALLET_NOT_FOUND,
    );
  }
  if (!isSqliteWalletFile(file, messageStart)) throw new WalletFileError(`${VERIFY_FAILED}Failed to load database path '${path}'. Data is not in recognized format.`, RPC_CODE.WALLET_NOT_FOUND);
  return path;
}

/** Opens the database of a wallet directory found by the checks above; a failure to open or verify is Core's -4 with its text. */
export function openWalletDatabaseAt(path: string, messageStart: Uint8Array): WalletDatabase {
  try {
    return WalletDatabase.open(path, { messageStart });
  } catch (err) {
    // Core keeps the database's text as it is, its trailing newline included.
    if (err instanceof WalletDatabaseError) throw new WalletFileError(`${VERIFY_FAILED}${err.message}`, RPC_CODE.WALLET_ERROR);
    throw err;
  }
}

/**
 * restorewallet's file work (Core's RestoreWallet): the backup copied to `<wallet dir>/<name>/
 * wallet.dat` without overwriting anything, then checked as loading checks it; when that
 * fails, the copy (and a directory made for it) is removed again. Returns the wallet's path and
 * `discard`, which removes them when the load after it fails.
 */
export function restoreWalletFile(walletDir: string, name: string, backupFile: string, messageStart: Uint8Array): { path: string; discard(): void } {
  if (name === '') throw new WalletFileError('Wallet name cannot be empty', RPC_CODE.INVALID_PARAMETER);
  if (!existsSync(backupFile)) throw new WalletFileError('Backup file does not exist', RPC_CODE.INVALID_PARAMETER);
  const path = walletPathOf(walletDir, name);
  const file = walletDatabaseFile(path);
  let createdDirectory = false;
  if (existsSync(path)) {
    if (!statSync(path).isDirectory()) throw new WalletFileError(`Failed to restore wallet. Database file exists '${path}'.`, RPC_CODE.WALLET_ALREADY_EXISTS);
    if (existsSync(file)) throw new WalletFileError(`Failed to restore wallet. Database file exists in '${file}'.`, RPC_CODE.WALLET_ALREADY_EXISTS);
  } else {
    mkdirSync(path, { recursive: true });
    createdDirectory = true;
  }
  copyFileSync(backupFile, file, fsConstants.COPYFILE_EXCL);
  const discard = () => {
    rmSync(file, { force: true });
    if (createdDirectory) rmSync(path, { recursive: true, force: true });
  };
  try {
    return { path: walletPathForLoad(walletDir, name, messageStart), discard };
  } catch (err) {
    discard();
    throw err;
  }
}
