/**
 * The wallets a wallet directory holds, found as Core's ListDatabases finds them
 * (wallet/db.cpp): walking the directory tree in the order the file system lists it, a
 * directory is a wallet when its wallet.dat is a SQLite wallet of this network or a
 * Berkeley DB file (a legacy wallet, listed so it can be migrated); at the top level, a
 * wallet.dat file is the wallet named "" and any other Berkeley DB file a wallet of its
 * file name. `.bak` files are skipped.
 */
import { closeSync, lstatSync, openSync, opendirSync, readSync, statSync, type Dir } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isSqliteWalletFile, WALLET_DATABASE_FILENAME } from './wallet-database.js';

export interface ListedWalletDatabase {
  /** The wallet's name: its path relative to the wallet directory ("" for a top-level wallet.dat). */
  readonly name: string;
  readonly format: 'sqlite' | 'bdb';
}

/** Core's IsBDBFile: at least 4 KiB with the Btree magic at offset 12 (either byte order). */
export function isBerkeleyDbFile(path: string): boolean {
  let fd: number | undefined;
  try {
    if (statSync(path).size < 4096) return false;
    fd = openSync(path, 'r');
    const magic = Buffer.alloc(4);
    if (readSync(fd, magic, 0, 4, 12) < 4) return false;
    const value = magic.readUInt32LE(0);
    return value === 0x00053162 || value === 0x62310500;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function formatOf(file: string, messageStart: Uint8Array): 'sqlite' | 'bdb' | undefined {
  if (isBerkeleyDbFile(file)) return 'bdb';
  if (isSqliteWalletFile(file, messageStart)) return 'sqlite';
  return undefined;
}

/** Core's ListDatabases over `walletDir`, in its order (directory order, each directory followed by what it holds). */
export function listWalletDatabases(walletDir: string, messageStart: Uint8Array): ListedWalletDatabase[] {
  const found: ListedWalletDatabase[] = [];
  const walk = (dir: string, depth: number): void => {
    let handle: Dir;
    try {
      handle = opendirSync(dir);
    } catch {
      return; // Core logs the error and skips the directory.
    }
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        const full = join(dir, entry.name);
        const name = relative(walletDir, full).split(sep).join('/');
        let isDirectory: boolean;
        try {
          // recursive_directory_iterator's status() follows symbolic links.
          isDirectory = statSync(full).isDirectory();
        } catch {
          continue;
        }
        if (isDirectory) {
          const format = formatOf(join(full, WALLET_DATABASE_FILENAME), messageStart);
          if (format) found.push({ name, format });
          // The iterator does not descend through a symbolic link to a directory.
          if (!lstatSync(full).isSymbolicLink()) walk(full, depth + 1);
        } else if (depth === 0 && lstatSync(full).isFile() && !entry.name.endsWith('.bak')) {
          if (entry.name === WALLET_DATABASE_FILENAME) {
            const format = formatOf(full, messageStart);
            if (format) found.push({ name: '', format });
          } else if (isBerkeleyDbFile(full)) {
            found.push({ name, format: 'bdb' });
          }
        }
      }
    } finally {
      handle.closeSync();
    }
  };
  walk(walletDir, 0);
  return found;
}
