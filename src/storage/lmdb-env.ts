/**
 * One LMDB environment with named tables, and the only two ways in: `read` (a consistent
 * snapshot for many gets) and `write` (one synchronous, durable, atomic transaction).
 * Everything above this file works on table names and bytes; everything lmdb-js-specific
 * is here.
 *
 * ## lmdb-js options, and why
 *
 * - `overlappingSync: false`. lmdb-js turns it on by default off Windows: commits become
 *   visible first and are fsynced later, with a third meta page and the kernel boot id
 *   deciding at open whether the newest commit can be trusted. Our writes all go through
 *   `transactionSync`, whose commits are not the deferred kind, so the option would buy
 *   nothing here, while it would add that recovery logic (and its open-time
 *   MDB_PREVSNAPSHOT rollback) to every open of a copied data directory. With it off,
 *   LMDB's classic guarantee holds: when `write` returns, the transaction is on disk, and
 *   a crash at any instant — SIGKILL or power loss — leaves the last committed state.
 * - No `noSync`, `noMetaSync`, `useWritemap` or `mapAsync`: each trades crash safety for
 *   speed. Batching many changes into one `write` is the speed lever instead.
 * - No `mapSize`: lmdb-js grows the map by itself (its LMDB fork resizes on demand in the
 *   writer and remaps in readers when a read transaction starts), so the file grows from
 *   small to whatever the chain needs without a configured ceiling.
 * - `maxDbs: 16` (tables plus room for the later indexes), `maxReaders` 1024 by default
 *   (every HTTP front-end process may hold several snapshots at once during async reads).
 * - Every table uses `keyEncoding: 'binary'` and `encoding: 'binary'`: the codecs in this
 *   folder define the bytes; lmdb-js neither orders nor encodes anything itself.
 * - No `cache`: a per-process object cache would go stale against another process's
 *   commits, which is exactly the situation of the front-ends.
 *
 * ## Snapshots: transactions of our own
 *
 * A plain `db.get(key)` in lmdb-js reads from a read transaction that is renewed only on
 * the next event-loop turn (or after this process commits). A front-end answering
 * several requests in one turn would answer later ones from an older state, and two gets
 * of one request are not guaranteed to share a snapshot. `read` therefore takes a read
 * transaction of its own (lmdb-read-txns.ts: lmdb-js's way to the same end costs about
 * four times as much per call), renewed when the snapshot begins to the newest state
 * committed by any process, and passes it explicitly to every get and range; it is reset
 * again when the callback — or its promise — finishes. Inside a `write`, lmdb-js routes
 * reads to the write transaction, so a batch sees its own changes.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RangeOptions, type RootDatabase, type Transaction } from 'lmdb';
import { StorageError } from './errors.js';
import { ReadTxnPool, type NativeReadTxn } from './lmdb-read-txns.js';

export interface LmdbEnvOptions {
  /** Open without write access: HTTP front-ends. The environment must already exist. */
  readonly readOnly?: boolean;
  /** LMDB reader slots shared by all processes (default 1024). */
  readonly maxReaders?: number;
}

export interface RangeQuery {
  /** First key (inclusive); with `reverse`, the highest key to start from. */
  readonly start?: Uint8Array;
  /** Key to stop before (exclusive); with `reverse`, the lower bound. */
  readonly end?: Uint8Array;
  readonly reverse?: boolean;
  readonly limit?: number;
}

export interface Entry {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/** Reads through one transaction. Values and keys returned are copies the caller owns. */
export interface TableReader<T extends string> {
  get(table: T, key: Uint8Array): Uint8Array | undefined;
  /**
   * `fn` on the stored value without a copy (undefined when absent): the view is valid only
   * during `fn`, which must not read again. For large values read in parts (header chunks).
   */
  withValue<R>(table: T, key: Uint8Array, fn: (value: Uint8Array) => R): R | undefined;
  has(table: T, key: Uint8Array): boolean;
  /** Entries in key order; iterate it inside the callback that gave you the reader. */
  range(table: T, query?: RangeQuery): Iterable<Entry>;
  count(table: T, query?: RangeQuery): number;
}

/** Writes inside the one write transaction of a `write` call; reads see those writes. */
export interface TableWriter<T extends string> extends TableReader<T> {
  put(table: T, key: Uint8Array, value: Uint8Array): void;
  /** True when the key existed. */
  del(table: T, key: Uint8Array): boolean;
  /** Empties the table (in this transaction: an abort restores it). */
  clear(table: T): void;
  /** Runs `fn` once the transaction has committed durably; not at all if it aborts. */
  afterCommit(fn: () => void): void;
}

const DEFAULT_MAX_READERS = 1024;
const MAX_DBS = 16;

/** V8 keeps typed arrays up to this many bytes inside the JS heap (typed_array_max_size_in_heap). */
const ON_HEAP_BYTES = 64;

/**
 * lmdb-js hands out Buffers; the codebase deals in plain Uint8Arrays (Buffer's slice is a
 * view, not a copy). A small one is copied: asking an on-heap Buffer for its `.buffer`
 * makes V8 move it off the heap first, which costs more than copying a hash.
 */
function plain(bytes: Uint8Array): Uint8Array {
  if (bytes.constructor === Uint8Array) return bytes;
  return bytes.byteLength <= ON_HEAP_BYTES ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** lmdb-js's getBinaryFast takes get's options too; its typings leave them out. */
type FastGetter = { getBinaryFast(key: Uint8Array, options?: { transaction: Transaction }): Uint8Array | undefined };

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

class LmdbTableReader<T extends string> implements TableReader<T> {
  private released = false;
  /** lmdb-js's get options, made once per reader rather than per get. */
  private readonly getOptions: { transaction: Transaction } | undefined;

  constructor(
    protected readonly dbs: Readonly<Record<T, Database<Uint8Array, Uint8Array>>>,
    /** The snapshot; undefined inside a write, where lmdb-js reads the write transaction. */
    private readonly txn: Transaction | undefined,
    private readonly what: string,
  ) {
    this.getOptions = txn ? { transaction: txn } : undefined;
  }

  protected checkOpen(): void {
    if (this.released) throw new StorageError(`${this.what} used after its callback returned`);
  }

  release(): void {
    this.released = true;
  }

  /** lmdb-js tests `'start' in options`, so absent bounds must be absent keys, not undefined values. */
  private rangeOptions(query: RangeQuery): RangeOptions {
    const options: RangeOptions = {};
    if (query.start !== undefined) options.start = query.start;
    if (query.end !== undefined) options.end = query.end;
    if (query.reverse) options.reverse = true;
    if (query.limit !== undefined) options.limit = query.limit;
    if (this.txn) options.transaction = this.txn;
    return options;
  }

  get(table: T, key: Uint8Array): Uint8Array | undefined {
    this.checkOpen();
    // getBinaryFast: lmdb-js's reusable buffer (or a view of the map), valid until its next
    // read; its `length` is the value's, which may be shorter than the memory behind it.
    const value = (this.dbs[table] as FastGetter).getBinaryFast(key, this.getOptions);
    return value === undefined ? undefined : new Uint8Array(value.buffer, value.byteOffset, value.length).slice();
  }

  withValue<R>(table: T, key: Uint8Array, fn: (value: Uint8Array) => R): R | undefined {
    this.checkOpen();
    const value = (this.dbs[table] as FastGetter).getBinaryFast(key, this.getOptions);
    return value === undefined ? undefined : fn(new Uint8Array(value.buffer, value.byteOffset, value.length));
  }

  has(table: T, key: Uint8Array): boolean {
    this.checkOpen();
    return (this.dbs[table] as FastGetter).getBinaryFast(key, this.getOptions) !== undefined;
  }

  range(table: T, query: RangeQuery = {}): Iterable<Entry> {
    this.checkOpen();
    const iterable = this.dbs[table].getRange(this.rangeOptions(query));
    // The guard makes an iterator that escaped its callback fail loudly instead of
    // silently continuing on whatever read transaction lmdb-js holds by then.
    const guard = (): void => this.checkOpen();
    return {
      *[Symbol.iterator]() {
        for (const { key, value } of iterable) {
          guard();
          yield { key: plain(key), value: plain(value) };
        }
      },
    };
  }

  count(table: T, query: RangeQuery = {}): number {
    this.checkOpen();
    return this.dbs[table].getCount(this.rangeOptions(query));
  }
}

class LmdbTableWriter<T extends string> extends LmdbTableReader<T> implements TableWriter<T> {
  readonly committed: (() => void)[] = [];

  put(table: T, key: Uint8Array, value: Uint8Array): void {
    this.checkOpen();
    this.dbs[table].putSync(key, value);
  }

  del(table: T, key: Uint8Array): boolean {
    this.checkOpen();
    return this.dbs[table].removeSync(key);
  }

  clear(table: T): void {
    this.checkOpen();
    this.dbs[table].clearSync();
  }

  afterCommit(fn: () => void): void {
    this.checkOpen();
    this.committed.push(fn);
  }
}

export class LmdbEnv<T extends string> {
  readonly path: string;
  readonly readOnly: boolean;
  private readonly root: RootDatabase<Uint8Array, Uint8Array>;
  private readonly dbs: Readonly<Record<T, Database<Uint8Array, Uint8Array>>>;
  private readonly readTxns: ReadTxnPool;
  private writing = false;
  private closed = false;

  private constructor(path: string, readOnly: boolean, root: RootDatabase<Uint8Array, Uint8Array>, dbs: Record<T, Database<Uint8Array, Uint8Array>>) {
    this.path = path;
    this.readOnly = readOnly;
    this.root = root;
    this.dbs = dbs;
    // lmdb-js keeps its native environment on the root database as `env`.
    this.readTxns = new ReadTxnPool((root as unknown as { env: unknown }).env);
  }

  /** Opens (a writer creates) the environment in directory `path` with the given tables. */
  static open<T extends string>(path: string, tables: readonly T[], options: LmdbEnvOptions = {}): LmdbEnv<T> {
    const readOnly = options.readOnly ?? false;
    if (readOnly && !existsSync(join(path, 'data.mdb'))) {
      throw new StorageError(`no LMDB environment at ${path}: the coordinator creates it before read-only processes open it`);
    }
    if (!readOnly) mkdirSync(path, { recursive: true });
    let root: RootDatabase<Uint8Array, Uint8Array>;
    try {
      root = open<Uint8Array, Uint8Array>({
        path,
        readOnly,
        maxDbs: MAX_DBS,
        maxReaders: options.maxReaders ?? DEFAULT_MAX_READERS,
        overlappingSync: false,
        keyEncoding: 'binary',
        encoding: 'binary',
      });
    } catch (err) {
      throw new StorageError(`cannot open LMDB environment at ${path}: ${(err as Error).message}`, { cause: err });
    }
    const dbs = {} as Record<T, Database<Uint8Array, Uint8Array>>;
    for (const table of tables) {
      try {
        dbs[table] = root.openDB<Uint8Array, Uint8Array>({ name: table, keyEncoding: 'binary', encoding: 'binary' });
      } catch (err) {
        void root.close();
        throw new StorageError(`cannot open table '${table}' in ${path}: ${(err as Error).message}`, { cause: err });
      }
    }
    return new LmdbEnv(path, readOnly, root, dbs);
  }

  /** Bytes the table's B-tree pages occupy (LMDB page statistics): Core's coins-DB size estimate. */
  tableSizeOnDisk(table: T): number {
    this.checkUsable();
    const stats = this.dbs[table].getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    // The statistics were read through lmdb-js's newest transaction, possibly an idle one of ours.
    this.readTxns.resetIdle();
    return stats.pageSize * (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages);
  }

  private checkUsable(): void {
    if (this.closed) throw new StorageError(`LMDB environment ${this.path} is closed`);
  }

  /**
   * Runs `fn` with a snapshot of the newest committed state (as of this call, including
   * other processes' commits in the same event-loop turn). `fn` may return a promise: the
   * snapshot stays open until it settles. Keep it short: an open snapshot pins old pages.
   */
  read<R>(fn: (reader: TableReader<T>) => R): R {
    const snapshot = this.openSnapshot();
    let result: R;
    try {
      result = fn(snapshot.reader);
    } catch (err) {
      snapshot.close();
      throw err;
    }
    if (isPromiseLike(result)) return Promise.resolve(result).finally(snapshot.close) as R;
    snapshot.close();
    return result;
  }

  /**
   * A snapshot of the newest committed state that stays open until `close()`, for a writer
   * that reads many times between its own commits (the coins cache's misses while blocks
   * connect) and closes it before it writes. It pins old pages while open.
   */
  openSnapshot(): { readonly reader: TableReader<T>; close(): void } {
    this.checkUsable();
    if (this.writing) throw new StorageError('a snapshot cannot be taken inside a write: reads there see the uncommitted batch');
    const txn = this.readTxns.acquire();
    const reader = new LmdbTableReader(this.dbs, txn as NativeReadTxn & Transaction, 'snapshot');
    let open = true;
    return {
      reader,
      close: () => {
        if (!open) return;
        open = false;
        reader.release();
        this.readTxns.release(txn);
      },
    };
  }

  /**
   * Runs `fn` inside one synchronous write transaction: every put and delete in it
   * commits together, durably, before this returns — or, if `fn` throws, none does.
   * `fn` must be synchronous (an async callback would hold LMDB's write lock across
   * event-loop turns); writes cannot nest.
   */
  write<R>(fn: (writer: TableWriter<T>) => R): R {
    this.checkUsable();
    if (this.readOnly) throw new StorageError(`LMDB environment ${this.path} is open read-only`);
    if (this.writing) throw new StorageError('writes cannot nest: put everything in the one batch');
    const writer = new LmdbTableWriter(this.dbs, undefined, 'write batch');
    this.writing = true;
    let result: R;
    try {
      result = this.root.transactionSync(() => {
        const value = fn(writer);
        if (isPromiseLike(value)) throw new StorageError('the write callback returned a promise: it must be synchronous');
        return value;
      });
    } finally {
      writer.release();
      this.writing = false;
    }
    for (const hook of writer.committed) hook();
    return result;
  }

  /** Closes the environment; pending snapshots must have finished. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.readTxns.close();
    await this.root.close();
  }
}
