/**
 * mempool.dat (Core's DumpMempool and LoadMempool, -persistmempool, -persistmempoolv1,
 * savemempool, importmempool) beside the crash-safe mempool tables.
 *
 * The LMDB tables (`mempool`, `mempooldelta`) are committed with every pool change, so
 * they are the record after a crash. mempool.dat is Core's file: written at a clean
 * shutdown and by savemempool, atomically (mempool.dat.new, flushed, renamed over), and
 * loaded at start-up after the tables. The rule when both exist: the tables' entries and
 * prioritisations come back first; then mempool.dat is merged in as Core loads it (its
 * entry times, deltas added, its unbroadcast set), unless it is the file this node wrote
 * itself — its SHA-256 is recorded in the chainstate when it is written, and that dump
 * describes a pool the tables hold too (or an older one, when the node ran on and
 * crashed). A file bitcoind wrote, or any other, is loaded. -persistmempool=0 neither
 * loads nor writes anything: the tables are emptied at start and at a clean stop, and the
 * recorded hash is forgotten, so a later start loads whatever mempool.dat is there, as
 * Core would.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LmdbChainStore } from '../chain/index.js';
import { encodeMempoolFile, MEMPOOL_OBFUSCATION_KEY_SIZE, STARTUP_IMPORT_OPTIONS, type ImportMempoolOptions, type NodeMempool } from '../mempool/index.js';
import { bytesEqual, sha256 } from '../primitives/index.js';
import type { MempoolPersistence } from '../rpc/index.js';

export const MEMPOOL_FILE = 'mempool.dat';

export interface MempoolPersistOptions {
  readonly netDir: string;
  /** -persistmempool. */
  readonly persist: boolean;
  /** -persistmempoolv1: write the unobfuscated version 1. */
  readonly writeV1: boolean;
  readonly log: (message: string) => void;
  readonly initialBlockDownload: () => boolean;
  readonly interrupted: () => boolean;
}

export class MempoolPersist implements MempoolPersistence {
  private loadTried = false;

  constructor(
    private readonly mempool: NodeMempool,
    private readonly store: LmdbChainStore,
    private readonly options: MempoolPersistOptions,
  ) {}

  get filePath(): string {
    return path.join(this.options.netDir, MEMPOOL_FILE);
  }

  loaded(): boolean {
    return this.loadTried;
  }

  initialBlockDownload(): boolean {
    return this.options.initialBlockDownload();
  }

  /** Start-up: the tables reloaded, then mempool.dat merged in (see the rule above). */
  async start(): Promise<void> {
    const { log, persist } = this.options;
    const saved = this.store.readMempool();
    if (persist) log(`Loading ${saved.entries.length} mempool transactions from disk...`);
    const { accepted, failed, expired } = await this.mempool.reload(saved, persist);
    if (persist) {
      log(`Imported mempool transactions from disk: ${accepted} succeeded, ${failed} failed, ${expired} expired, 0 already there, 0 waiting for initial broadcast`);
      this.finishInterruptedDump();
      const ownDump = this.store.readMempoolDumpHash();
      const file = this.readFile(this.filePath);
      if (file && ownDump && bytesEqual(sha256(file), ownDump)) log(`${MEMPOOL_FILE} is this node's own last dump: the mempool tables hold its pool`);
      else if (file) await this.mempool.loadFile(file, STARTUP_IMPORT_OPTIONS, this.options.interrupted);
    } else {
      this.store.forgetMempool();
    }
    this.loadTried = !this.options.interrupted();
  }

  /**
   * A dump whose hash was recorded but whose rename did not happen (a crash in between):
   * the rename is finished, so the recorded hash names mempool.dat again.
   */
  private finishInterruptedDump(): void {
    const pending = `${this.filePath}.new`;
    const bytes = fs.existsSync(pending) ? fs.readFileSync(pending) : undefined;
    const ownDump = this.store.readMempoolDumpHash();
    if (bytes && ownDump && bytesEqual(sha256(bytes), ownDump)) fs.renameSync(pending, this.filePath);
  }

  private readFile(file: string): Uint8Array | undefined {
    try {
      return fs.readFileSync(file);
    } catch {
      this.options.log('Failed to open mempool file. Continuing anyway.');
      return undefined;
    }
  }

  async import(file: string, options: ImportMempoolOptions): Promise<boolean> {
    const bytes = this.readFile(file);
    if (!bytes) return false;
    return (await this.mempool.loadFile(bytes, options, this.options.interrupted)) !== undefined;
  }

  async save(): Promise<string | undefined> {
    return (await this.dump()) ? this.filePath : undefined;
  }

  /** Core's Shutdown: mempool.dat written when -persistmempool and the load had run; else the tables emptied. */
  async shutdown(): Promise<void> {
    if (!this.options.persist) await this.mempool.committed(() => this.store.forgetMempool());
    else if (this.loadTried) await this.dump();
  }

  /**
   * Core's DumpMempool: the pool as it is now into mempool.dat.new, flushed to disk, its
   * hash recorded, then renamed over mempool.dat.
   */
  private async dump(): Promise<boolean> {
    const { log } = this.options;
    const start = performance.now();
    // The tables then hold the pool the file describes (the recorded hash's promise).
    const content = await this.mempool.committed(() => this.mempool.fileContent());
    const mid = performance.now();
    const pending = `${this.filePath}.new`;
    try {
      log(`Writing ${content.txs.length} mempool transactions to file...`);
      log(`Writing ${content.unbroadcast.length} unbroadcast transactions to file.`);
      const bytes = encodeMempoolFile(content, this.options.writeV1 ? undefined : randomBytes(MEMPOOL_OBFUSCATION_KEY_SIZE));
      const fd = fs.openSync(pending, 'w');
      try {
        fs.writeSync(fd, bytes);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      this.store.writeMempoolDumpHash(sha256(bytes));
      fs.renameSync(pending, this.filePath);
      const last = performance.now();
      log(`Dumped mempool: ${((mid - start) / 1000).toFixed(3)}s to copy, ${((last - mid) / 1000).toFixed(3)}s to dump, ${bytes.length} bytes dumped to file`);
      return true;
    } catch (err) {
      log(`Failed to dump mempool: ${(err as Error).message}. Continuing anyway.`);
      return false;
    }
  }
}
