/**
 * Opening the node's two LMDB environments under a network directory, with typed
 * readers and writers. The coordinator opens them writable; HTTP front-ends open them
 * read-only and take one snapshot per request:
 *
 *     const env = openChainstateEnv(netdir, { readOnly: true });
 *     const tip = env.withSnapshot((r) => r.meta(CHAINSTATE_META.tip));
 *
 * and the coordinator commits a block's effects in one batch:
 *
 *     env.writeBatch((w) => { w.putCoin(...); w.putUndo(...); w.putMeta(CHAINSTATE_META.tip, hash); });
 *
 * Durability and snapshot semantics, and the lmdb-js options behind them, are described
 * in lmdb-env.ts.
 */
import { join } from 'node:path';
import { ChainstateReader, ChainstateWriter } from './chainstate-tables.js';
import { StorageError } from './errors.js';
import { IndexesReader, IndexesWriter } from './indexes-tables.js';
import {
  CHAINSTATE_DIR,
  CHAINSTATE_META,
  CHAINSTATE_TABLES,
  FORMAT_VERSION,
  INDEXES_DIR,
  INDEXES_META,
  INDEXES_TABLES,
  type ChainstateTable,
  type IndexesTable,
} from './layout.js';
import { LmdbEnv, type LmdbEnvOptions, type TableReader, type TableWriter } from './lmdb-env.js';
import type { MetaField } from './meta-codec.js';

export type OpenEnvOptions = LmdbEnvOptions;

/** An environment with typed views: R for snapshots, W for write batches. */
export class StorageEnv<T extends string, R, W> {
  constructor(
    /** The untyped environment, for table-level access (tests, migrations). */
    readonly lmdb: LmdbEnv<T>,
    private readonly makeReader: (tables: TableReader<T>) => R,
    private readonly makeWriter: (tables: TableWriter<T>) => W,
  ) {}

  get path(): string {
    return this.lmdb.path;
  }

  get readOnly(): boolean {
    return this.lmdb.readOnly;
  }

  /**
   * `fn` reads one consistent snapshot: the newest state committed by any process when
   * this is called. It may be async; the snapshot lasts until its promise settles.
   */
  withSnapshot<X>(fn: (reader: R) => X): X {
    return this.lmdb.read((tables) => fn(this.makeReader(tables)));
  }

  /** A snapshot that stays open until closed (LmdbEnv.openSnapshot): close it before writing. */
  openSnapshot(): { readonly reader: R; close(): void } {
    const snapshot = this.lmdb.openSnapshot();
    return { reader: this.makeReader(snapshot.reader), close: snapshot.close };
  }

  /** `fn`'s writes commit atomically and durably before this returns, or not at all if it throws. */
  writeBatch<X>(fn: (writer: W) => X): X {
    return this.lmdb.write((tables) => fn(this.makeWriter(tables)));
  }

  close(): Promise<void> {
    return this.lmdb.close();
  }
}

export type ChainstateEnv = StorageEnv<ChainstateTable, ChainstateReader, ChainstateWriter>;
export type IndexesEnv = StorageEnv<IndexesTable, IndexesReader, IndexesWriter>;

/**
 * A new environment gets the current format version; an existing one must carry it. A
 * writer finding data but no version refuses rather than guess what wrote it.
 */
function checkFormat<T extends string>(lmdb: LmdbEnv<T>, tables: readonly T[], metaTable: T, format: MetaField<number>): void {
  const found = lmdb.read((r) => {
    const bytes = r.get(metaTable, format.key);
    return bytes === undefined ? undefined : format.codec.decode(bytes);
  });
  if (found === FORMAT_VERSION) return;
  if (found !== undefined) {
    throw new StorageError(`${lmdb.path} has storage format ${found}, this build reads format ${FORMAT_VERSION}`);
  }
  if (lmdb.readOnly) throw new StorageError(`${lmdb.path} has not been initialised by the coordinator`);
  lmdb.write((w) => {
    for (const table of tables) {
      if (w.count(table) > 0) throw new StorageError(`${lmdb.path} holds data but no format version: not written by this node`);
    }
    w.put(metaTable, format.key, format.codec.encode(FORMAT_VERSION));
  });
}

function openChecked<T extends string, R, W>(
  dir: string,
  tables: readonly T[],
  metaTable: T,
  format: MetaField<number>,
  options: OpenEnvOptions,
  makeReader: (tables: TableReader<T>) => R,
  makeWriter: (tables: TableWriter<T>) => W,
): StorageEnv<T, R, W> {
  const lmdb = LmdbEnv.open(dir, tables, options);
  try {
    checkFormat(lmdb, tables, metaTable, format);
  } catch (err) {
    void lmdb.close();
    throw err;
  }
  return new StorageEnv(lmdb, makeReader, makeWriter);
}

/** `<netdir>/chainstate/`: block index, active chain, coins, undo, mempool mirror, file info. */
export function openChainstateEnv(netdir: string, options: OpenEnvOptions = {}): ChainstateEnv {
  return openChecked(
    join(netdir, CHAINSTATE_DIR),
    CHAINSTATE_TABLES,
    'meta',
    CHAINSTATE_META.format,
    options,
    (tables) => new ChainstateReader(tables),
    (tables) => new ChainstateWriter(tables),
  );
}

/** `<netdir>/indexes/`: txindex (and later filters, coinstats). */
export function openIndexesEnv(netdir: string, options: OpenEnvOptions = {}): IndexesEnv {
  return openChecked(
    join(netdir, INDEXES_DIR),
    INDEXES_TABLES,
    'meta',
    INDEXES_META.format,
    options,
    (tables) => new IndexesReader(tables),
    (tables) => new IndexesWriter(tables),
  );
}
