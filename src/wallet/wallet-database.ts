/**
 * A wallet's database as Bitcoin Core keeps it (wallet/sqlite.cpp): `wallet.dat` in the
 * wallet's directory, one table `main(key BLOB PRIMARY KEY NOT NULL, value BLOB NOT NULL)` of
 * serialized records, the network's message start as SQLite's application id, schema version
 * 0 as its user version. The file is locked for the connection's life (exclusive locking
 * mode, taken by an exclusive transaction at open), so a wallet loaded by one node cannot be
 * opened by another, bitcoind included. Writes outside a transaction commit one by one, with
 * SQLite's default journal and full sync, as Core's.
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteDatabase, SqliteError, type SqliteStatement } from './sqlite.js';

/** Core's DATABASE_FILENAME for SQLite wallets. */
export const WALLET_DATABASE_FILENAME = 'wallet.dat';
/** Core's WALLET_SCHEMA_VERSION: the user_version of every wallet it writes and accepts. */
export const WALLET_SCHEMA_VERSION = 0;

/** A database that could not be opened or verified; the message is Core's. */
export class WalletDatabaseError extends Error {
  constructor(
    message: string,
    /** Core's DatabaseStatus: FAILED_LOAD (opening) or FAILED_VERIFY (the checks after). */
    readonly status: 'FAILED_LOAD' | 'FAILED_VERIFY',
  ) {
    super(message);
    this.name = 'WalletDatabaseError';
  }
}

export interface OpenWalletDatabaseOptions {
  /** The network's message start: the application id a wallet of this network carries. */
  readonly messageStart: Uint8Array;
  /** Core's DatabaseOptions::verify: check the application id, schema version and integrity (on by default). */
  readonly verify?: boolean;
}

/** Core's SQLiteDataFile: the database inside a wallet directory. */
export function walletDatabaseFile(walletDirectory: string): string {
  return join(walletDirectory, WALLET_DATABASE_FILENAME);
}

/** The application id Core gives a wallet of this network: the message start read big-endian. */
function applicationId(messageStart: Uint8Array): number {
  return ((messageStart[0]! << 24) | (messageStart[1]! << 16) | (messageStart[2]! << 8) | messageStart[3]!) >>> 0;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Core's IsSQLiteFile: at least 512 bytes, SQLite's magic at the start and this network's
 * message start as the application id (offset 68). How listwalletdir and loading tell a
 * wallet of this network from anything else.
 */
export function isSqliteWalletFile(path: string, messageStart: Uint8Array): boolean {
  let fd: number | undefined;
  try {
    if (!existsSync(path) || statSync(path).size < 512) return false;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(72);
    if (readSync(fd, head, 0, 72, 0) < 72) return false;
    return head.subarray(0, 16).equals(SQLITE_MAGIC) && head.subarray(68, 72).equals(Buffer.from(messageStart));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The smallest key above every key starting with `prefix` (Core's GetNewPrefixCursor), or null when there is none. */
function prefixEnd(prefix: Uint8Array): Uint8Array | null {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] === 0xff) {
      end[i] = 0;
      continue;
    }
    end[i]!++;
    return end;
  }
  return null;
}

/** A blob column as a plain Uint8Array over the copy SQLite's addon made. */
const asBytes = (column: unknown): Uint8Array => {
  if (!(column instanceof Uint8Array)) throw new Error('a wallet record is not a blob');
  return new Uint8Array(column.buffer, column.byteOffset, column.byteLength);
};

export class WalletDatabase {
  readonly #db: SqliteDatabase;
  readonly #read: SqliteStatement;
  readonly #insert: SqliteStatement;
  readonly #overwrite: SqliteStatement;
  readonly #delete: SqliteStatement;
  readonly #deletePrefix: SqliteStatement;
  #inTransaction = false;

  private constructor(
    db: SqliteDatabase,
    /** The wallet's directory. */
    readonly directory: string,
  ) {
    this.#db = db;
    this.#read = db.prepare('SELECT value FROM main WHERE key = ?');
    this.#insert = db.prepare('INSERT INTO main VALUES(?, ?)');
    this.#overwrite = db.prepare('INSERT or REPLACE into main values(?, ?)');
    this.#delete = db.prepare('DELETE FROM main WHERE key = ?');
    this.#deletePrefix = db.prepare('DELETE FROM main WHERE instr(key, ?) = 1');
  }

  /**
   * Core's MakeSQLiteDatabase: opens (creating the directory and file when missing)
   * `<directory>/wallet.dat`, takes the exclusive lock, creates the table with the
   * application id and schema version in a new file, then verifies unless told not to.
   */
  static open(directory: string, options: OpenWalletDatabaseOptions): WalletDatabase {
    const file = walletDatabaseFile(directory);
    let db: SqliteDatabase;
    try {
      mkdirSync(directory, { recursive: true });
      db = SqliteDatabase.open(file, { create: true });
    } catch (err) {
      // Only SQLite's own failures are the database's; a missing addon is not (it says to run make build).
      if (!(err instanceof SqliteError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
      throw new WalletDatabaseError(`SQLiteDatabase: Failed to open database: ${(err as Error).message}\n`, 'FAILED_LOAD');
    }
    try {
      WalletDatabase.#prepareFile(db, options.messageStart);
      const opened = new WalletDatabase(db, directory);
      if (options.verify ?? true) WalletDatabase.#verify(db, options.messageStart);
      return opened;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Core's SQLiteDatabase::Open after sqlite3_open_v2. */
  static #prepareFile(db: SqliteDatabase, messageStart: Uint8Array): void {
    const load = (message: string): WalletDatabaseError => new WalletDatabaseError(message, 'FAILED_LOAD');
    if (db.readonly) throw load('SQLiteDatabase: Database opened in readonly mode but read-write permissions are needed');
    const pragma = (setting: string, failure: string): void => {
      try {
        db.exec(`PRAGMA ${setting}`);
      } catch (err) {
        throw load(`SQLiteDatabase: ${failure}: ${(err as Error).message}\n`);
      }
    };
    pragma('locking_mode = exclusive', 'Unable to change database locking mode to exclusive');
    // The lock is taken by a transaction and, in exclusive mode, kept until the connection closes.
    try {
      db.exec('BEGIN EXCLUSIVE TRANSACTION');
    } catch {
      throw load('SQLiteDatabase: Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core?\n');
    }
    try {
      db.exec('COMMIT');
    } catch (err) {
      throw load(`SQLiteDatabase: Unable to end exclusive lock transaction: ${(err as Error).message}\n`);
    }
    pragma('fullfsync = true', 'Failed to enable fullfsync');
    let tableExists: boolean;
    try {
      const check = db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='main'");
      tableExists = check.get() !== undefined;
      check.finalize();
    } catch (err) {
      throw load(`SQLiteDatabase: Failed to execute statement to check table existence: ${(err as Error).message}\n`);
    }
    if (tableExists) return;
    try {
      db.exec('CREATE TABLE main(key BLOB PRIMARY KEY NOT NULL, value BLOB NOT NULL)');
    } catch (err) {
      throw load(`SQLiteDatabase: Failed to create new database: ${(err as Error).message}\n`);
    }
    // Core writes the id as a signed 32-bit number.
    pragma(`application_id = ${applicationId(messageStart) | 0}`, 'Failed to set the application id');
    pragma(`user_version = ${WALLET_SCHEMA_VERSION}`, 'Failed to set the wallet schema version');
  }

  /** Core's SQLiteDatabase::Verify: this network's application id, schema version 0, and PRAGMA integrity_check. */
  static #verify(db: SqliteDatabase, messageStart: Uint8Array): void {
    const fail = (message: string): WalletDatabaseError => new WalletDatabaseError(message, 'FAILED_VERIFY');
    const readInteger = (key: string, description: string): number => {
      let row: unknown[] | undefined;
      try {
        const statement = db.prepare(`PRAGMA ${key}`);
        row = statement.get();
        statement.finalize();
      } catch (err) {
        throw fail(`SQLiteDatabase: Failed to fetch ${description}: ${(err as Error).message}`);
      }
      // sqlite3_errstr(SQLITE_DONE), as Core reports a pragma without a row.
      if (!row) throw fail(`SQLiteDatabase: Failed to fetch ${description}: no more rows available`);
      return Number(row[0]);
    };
    const appId = readInteger('application_id', 'the application id') >>> 0;
    const expected = applicationId(messageStart);
    if (appId !== expected) throw fail(`SQLiteDatabase: Unexpected application id. Expected ${expected}, got ${appId}`);
    const userVersion = readInteger('user_version', 'sqlite wallet schema version') | 0;
    if (userVersion !== WALLET_SCHEMA_VERSION) {
      throw fail(`SQLiteDatabase: Unknown sqlite wallet schema version ${userVersion}. Only version ${WALLET_SCHEMA_VERSION} is supported`);
    }
    let problems = '';
    try {
      const check = db.prepare('PRAGMA integrity_check');
      for (const [message] of check.all()) {
        if (message === 'ok') continue;
        if (problems === '') problems = 'Failed to verify database\n';
        problems += `${String(message)}\n`;
      }
      check.finalize();
    } catch (err) {
      throw fail(`SQLiteDatabase: Failed to execute statement to verify database: ${(err as Error).message}`);
    }
    if (problems !== '') throw fail(problems);
  }

  get file(): string {
    return walletDatabaseFile(this.directory);
  }

  read(key: Uint8Array): Uint8Array | undefined {
    const row = this.#read.get(key);
    return row && asBytes(row[0]);
  }

  has(key: Uint8Array): boolean {
    return this.#read.get(key) !== undefined;
  }

  /** Core's WriteKey: false when `overwrite` is off and the key exists. */
  write(key: Uint8Array, value: Uint8Array, overwrite = true): boolean {
    try {
      (overwrite ? this.#overwrite : this.#insert).run(key, value);
      return true;
    } catch (err) {
      if (!overwrite && err instanceof SqliteError && (err.code & 0xff) === 19) return false; // SQLITE_CONSTRAINT
      throw err;
    }
  }

  erase(key: Uint8Array): void {
    this.#delete.run(key);
  }

  /** Core's ErasePrefix: every record whose key starts with `prefix`. */
  erasePrefix(prefix: Uint8Array): void {
    this.#deletePrefix.run(prefix);
  }

  /** Every record in the table's own order (rowid: about the order written), as Core's GetNewCursor reads them. */
  entries(): [Uint8Array, Uint8Array][] {
    const statement = this.#db.prepare('SELECT key, value FROM main');
    try {
      return statement.all().map(([key, value]) => [asBytes(key), asBytes(value)]);
    } finally {
      statement.finalize();
    }
  }

  /** Core's GetNewPrefixCursor: the records whose key starts with `prefix`, in key order. */
  entriesWithPrefix(prefix: Uint8Array): [Uint8Array, Uint8Array][] {
    const end = prefixEnd(prefix);
    const statement = this.#db.prepare(end ? 'SELECT key, value FROM main WHERE key >= ? AND key < ?' : 'SELECT key, value FROM main WHERE key >= ?');
    try {
      const rows = end ? statement.all(prefix, end) : statement.all(prefix);
      return rows.map(([key, value]) => [asBytes(key), asBytes(value)]);
    } finally {
      statement.finalize();
    }
  }

  /** Runs `body` in one transaction (Core's TxnBegin/TxnCommit): all of its writes or, when it throws, none. */
  transaction<T>(body: () => T): T {
    if (this.#inTransaction) throw new Error('a wallet database transaction is already open');
    this.#db.exec('BEGIN TRANSACTION');
    this.#inTransaction = true;
    try {
      const result = body();
      this.#db.exec('COMMIT TRANSACTION');
      return result;
    } catch (err) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK TRANSACTION');
      throw err;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** Core's Backup: the whole database copied into a new file at `path`; false when that fails. */
  backup(path: string): boolean {
    try {
      this.#db.backup(path);
      return true;
    } catch {
      return false;
    }
  }

  /** Core's Rewrite: VACUUM. */
  rewrite(): boolean {
    try {
      this.#db.exec('VACUUM');
      return true;
    } catch {
      return false;
    }
  }

  /** Releases the file (and its lock). */
  close(): void {
    this.#db.close();
  }
}
