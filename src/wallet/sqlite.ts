/**
 * SQLite through the project's own Node-API addon over Debian's libsqlite3 (native/
 * sqlite_addon.c, built by `make build` into dist/native/sqlite.node): the library Bitcoin
 * Core links for its descriptor wallets, so files move between the two unchanged. A missing
 * addon is an error that says how to build it, never a fallback.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** dist/native/sqlite.node, beside dist/src (this module is dist/src/wallet/sqlite.js). */
export const SQLITE_ADDON_FILE = fileURLToPath(new URL('../../native/sqlite.node', import.meta.url));

type Connection = { readonly __connection: unique symbol };
type StatementHandle = { readonly __statement: unique symbol };
export type SqliteValue = Uint8Array | number | bigint | string | null;
/** A column as read: a blob is a Buffer (a copy), an integer or real a number, text a string. */
export type SqliteColumn = Buffer | number | string | null;

interface SqliteAddon {
  open(path: string, create: boolean): Connection;
  close(connection: Connection): void;
  exec(connection: Connection, sql: string): void;
  prepare(connection: Connection, sql: string): StatementHandle;
  bind(statement: StatementHandle, index: number, value: SqliteValue): void;
  step(statement: StatementHandle): boolean;
  column(statement: StatementHandle, index: number): SqliteColumn;
  columnCount(statement: StatementHandle): number;
  reset(statement: StatementHandle): void;
  finalize(statement: StatementHandle): void;
  inTransaction(connection: Connection): boolean;
  readonly(connection: Connection): boolean;
  backup(connection: Connection, path: string): void;
  libversion(): string;
}

/** A failed SQLite call: `code` is SQLite's extended result code, the message sqlite3_errstr's text. */
export class SqliteError extends Error {
  constructor(
    message: string,
    readonly code: number,
    /** sqlite3_errmsg of the connection, when there was one. */
    readonly detail: string | undefined,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

/** SQLite's primary result codes that callers tell apart (the low byte of an extended code). */
export const SQLITE_BUSY = 5;
export const SQLITE_NOTADB = 26;
export const SQLITE_CANTOPEN = 14;

let addon: SqliteAddon | undefined;

function loadAddon(): SqliteAddon {
  if (addon) return addon;
  try {
    return (addon = createRequire(import.meta.url)(SQLITE_ADDON_FILE) as SqliteAddon);
  } catch (err) {
    throw new Error(`cannot load SQLite for wallets from ${SQLITE_ADDON_FILE} (run make build): ${(err as Error).message}`);
  }
}

/** Runs an addon call, turning its errors into SqliteError. */
function call<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    const e = err as { code?: unknown; detail?: unknown; message: string };
    if (typeof e.code === 'number') throw new SqliteError(e.message, e.code, typeof e.detail === 'string' ? e.detail : undefined);
    throw err;
  }
}

/** The SQLite library's version (Core logs it as "Using SQLite Version"). */
export function sqliteVersion(): string {
  return loadAddon().libversion();
}

/** One prepared statement: bind, step through rows, reset; finalized by its database's close. */
export class SqliteStatement {
  #handle: StatementHandle | undefined;

  constructor(
    private readonly sqlite: SqliteAddon,
    handle: StatementHandle,
    private readonly forget: (statement: SqliteStatement) => void,
  ) {
    this.#handle = handle;
  }

  #live(): StatementHandle {
    if (!this.#handle) throw new Error('the statement was finalized');
    return this.#handle;
  }

  /** Runs it with these parameters (?1, ?2, ...) to completion. */
  run(...params: SqliteValue[]): void {
    this.#execute(params, () => undefined);
  }

  /** The first row's columns, or undefined when there is none. */
  get(...params: SqliteValue[]): SqliteColumn[] | undefined {
    let row: SqliteColumn[] | undefined;
    this.#execute(params, (columns) => {
      row = columns();
      return false;
    });
    return row;
  }

  /** Every row's columns. */
  all(...params: SqliteValue[]): SqliteColumn[][] {
    const rows: SqliteColumn[][] = [];
    this.#execute(params, (columns) => {
      rows.push(columns());
      return true;
    });
    return rows;
  }

  /** Binds, steps while `onRow` asks for more, and always resets (an error leaves the statement reusable). */
  #execute(params: readonly SqliteValue[], onRow: (columns: () => SqliteColumn[]) => boolean | undefined): void {
    const handle = this.#live();
    const sqlite = this.sqlite;
    const width = (this.#width ??= sqlite.columnCount(handle));
    const columns = (): SqliteColumn[] => {
      const out: SqliteColumn[] = [];
      for (let i = 0; i < width; i++) out.push(sqlite.column(handle, i));
      return out;
    };
    try {
      call(() => {
        for (const [i, value] of params.entries()) sqlite.bind(handle, i + 1, value);
        while (sqlite.step(handle)) if (onRow(columns) === false) break;
      });
    } finally {
      sqlite.reset(handle);
    }
  }

  #width: number | undefined;

  finalize(): void {
    if (!this.#handle) return;
    this.sqlite.finalize(this.#handle);
    this.#handle = undefined;
    this.forget(this);
  }
}

export interface OpenOptions {
  /** Create the file when it does not exist (SQLITE_OPEN_CREATE). */
  readonly create: boolean;
}

/** One connection to a database file. */
export class SqliteDatabase {
  readonly #statements = new Set<SqliteStatement>();
  #connection: Connection | undefined;

  private constructor(
    private readonly sqlite: SqliteAddon,
    connection: Connection,
    readonly path: string,
  ) {
    this.#connection = connection;
  }

  static open(path: string, options: OpenOptions): SqliteDatabase {
    const sqlite = loadAddon();
    return new SqliteDatabase(sqlite, call(() => sqlite.open(path, options.create)), path);
  }

  #live(): Connection {
    if (!this.#connection) throw new Error(`the database ${this.path} is closed`);
    return this.#connection;
  }

  get isOpen(): boolean {
    return this.#connection !== undefined;
  }

  /** Statements that return no rows (PRAGMA settings, BEGIN, COMMIT, CREATE TABLE). */
  exec(sql: string): void {
    const connection = this.#live();
    call(() => this.sqlite.exec(connection, sql));
  }

  prepare(sql: string): SqliteStatement {
    const connection = this.#live();
    const statement = new SqliteStatement(this.sqlite, call(() => this.sqlite.prepare(connection, sql)), (s) => this.#statements.delete(s));
    this.#statements.add(statement);
    return statement;
  }

  get inTransaction(): boolean {
    return this.sqlite.inTransaction(this.#live());
  }

  /** Whether the file could only be opened for reading. */
  get readonly(): boolean {
    return this.sqlite.readonly(this.#live());
  }

  /** Every page copied into a new database at `path` (SQLite's online backup). */
  backup(path: string): void {
    const connection = this.#live();
    call(() => this.sqlite.backup(connection, path));
  }

  /** Finalizes its statements, then closes. */
  close(): void {
    if (!this.#connection) return;
    for (const statement of [...this.#statements]) statement.finalize();
    const connection = this.#connection;
    call(() => this.sqlite.close(connection));
    this.#connection = undefined;
  }
}
