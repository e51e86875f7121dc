/**
 * The read transactions behind `LmdbEnv.read`: a few LMDB read transactions this process
 * owns, reset between snapshots, instead of lmdb-js's shared per-turn one.
 *
 * Why: a snapshot through lmdb-js's public API (`resetReadTxn()` then
 * `useReadTransaction()`) renews its shared transaction and schedules a `setTimeout` to
 * reset it again; measured at about 3 µs per snapshot, most of what a small RPC such as
 * getblockhash spends in storage. LMDB itself needs one `mdb_txn_reset` when a snapshot
 * ends and one `mdb_txn_renew` when the next begins, which moves the transaction to the
 * newest commit of any process. Owning the transactions costs about 1 µs per snapshot.
 *
 * lmdb-js has no public way to reset a transaction it does not consider current, so the
 * `Txn` class and `resetTxn` come from its native binding module (`native.js`, beside its
 * public entry point). The lmdb version is pinned exactly in package.json; if either export
 * is missing, loading this file throws: a start-up failure, never a silent slow path.
 *
 * Invariants:
 * - an idle transaction is always reset, so it pins no pages while the process waits;
 * - a transaction is reset again when handed out, because lmdb-js's few reads that take no
 *   explicit transaction (table statistics) use the most recently created one;
 * - for the same reason the most recently created transaction is never aborted: lmdb-js's
 *   native environment keeps pointing at it, and a read through an aborted one would
 *   touch freed memory. Beyond MAX_IDLE, older ones are aborted instead; at close the
 *   environment aborts them all itself.
 */
import { StorageError } from './errors.js';

/** lmdb-js's native read transaction (`Txn`), as far as this file and lmdb-js's reads use it. */
export interface NativeReadTxn {
  readonly address: number;
  /** mdb_txn_renew (lmdb-js throws on errors other than "already renewed"). */
  renew(): void;
  abort(): void;
}

type TxnConstructor = new (env: unknown, flags: number) => NativeReadTxn;

/** MDB_RDONLY. */
const MDB_RDONLY = 0x20000;
/** Idle transactions kept per environment; more are only needed by overlapping async snapshots. */
const MAX_IDLE = 4;

async function loadNativeTxnApi(): Promise<{ Txn: TxnConstructor; resetTxn: (address: number) => void }> {
  const nativeUrl = new URL('native.js', import.meta.resolve('lmdb'));
  let native: Record<string, unknown>;
  try {
    native = (await import(nativeUrl.href)) as Record<string, unknown>;
  } catch (err) {
    throw new StorageError(`cannot load lmdb-js's native binding module ${nativeUrl.href}: ${(err as Error).message}`, { cause: err });
  }
  const { Txn, resetTxn } = native;
  if (typeof Txn !== 'function' || typeof resetTxn !== 'function') {
    throw new StorageError(`${nativeUrl.href} no longer exports Txn and resetTxn: this lmdb version is not the one package.json pins`);
  }
  return { Txn: Txn as TxnConstructor, resetTxn: resetTxn as (address: number) => void };
}

const { Txn, resetTxn } = await loadNativeTxnApi();

export class ReadTxnPool {
  private readonly idle: NativeReadTxn[] = [];
  /** The last transaction this pool created (see the invariants above). */
  private newest: NativeReadTxn | undefined;
  private closed = false;

  /** `env`: lmdb-js's native environment of the root database (`root.env`). */
  constructor(private readonly env: unknown) {}

  /** A transaction on the newest committed state. */
  acquire(): NativeReadTxn {
    if (this.closed) throw new StorageError('read transaction pool is closed');
    let txn = this.idle.pop();
    if (txn === undefined) txn = this.newest = new Txn(this.env, MDB_RDONLY);
    resetTxn(txn.address);
    txn.renew();
    return txn;
  }

  /**
   * Ends the snapshot. A cursor left open on it (an abandoned range) cannot read any more
   * (the reader's guard throws) and lmdb-js closes it safely on a reset transaction.
   */
  release(txn: NativeReadTxn): void {
    if (this.closed) return;
    resetTxn(txn.address);
    if (this.idle.length < MAX_IDLE) {
      this.idle.push(txn);
    } else if (txn !== this.newest) {
      txn.abort();
    } else {
      this.idle.shift()!.abort();
      this.idle.push(txn);
    }
  }

  /** Resets idle transactions after a read lmdb-js routed through the newest one (see above). */
  resetIdle(): void {
    if (this.closed) return;
    for (const txn of this.idle) resetTxn(txn.address);
  }

  /** The environment is closing: it aborts every transaction itself; later releases do nothing. */
  close(): void {
    this.closed = true;
    this.idle.length = 0;
    this.newest = undefined;
  }
}
