/**
 * -txindex: txid → where the transaction's bytes are (blk file, block position, offset
 * and length within the block), in the indexes environment. Like Core's BaseIndex it
 * catches up from where it stopped in the background (in batches, yielding to the event
 * loop so RPC keeps answering), then follows connected blocks; after a reorg it resumes
 * from the fork point. It records the block it has reached, so a crash costs only a
 * re-index of the blocks after it. Entries of disconnected blocks stay, as in Core: the
 * block data is still on disk and the lookup names the block.
 */
import type { ParsedBlock } from '../primitives/index.js';
import { INDEXES_META, openIndexesEnv, type IndexesEnv, type IndexesWriter, type TxIndexEntry } from '../storage/index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';

/** Blocks written per write transaction while catching up. */
const SYNC_BATCH = 200;

export interface IndexInfo {
  synced: boolean;
  best_block_height: number;
}

export class TxIndex {
  private best: BlockIndexEntry | undefined;
  private syncing: Promise<void> | undefined;
  private stopped = false;
  synced = false;

  private constructor(
    private readonly env: IndexesEnv,
    private readonly chain: Chainstate,
    private readonly log: (m: string) => void,
  ) {
    const bestHash = env.withSnapshot((r) => r.meta(INDEXES_META.txindexBest));
    this.best = bestHash ? chain.tree.getByHash(bestHash) : undefined;
  }

  static open(netdir: string, chain: Chainstate, log: (m: string) => void): TxIndex {
    return new TxIndex(openIndexesEnv(netdir), chain, log);
  }

  /** The position of a confirmed transaction, if indexed. */
  lookup(txid: Uint8Array): TxIndexEntry | undefined {
    return this.env.withSnapshot((r) => r.txIndexEntry(txid));
  }

  info(): IndexInfo {
    return { synced: this.synced, best_block_height: this.best?.height ?? 0 };
  }

  /** Starts catching up in the background; resolves when caught up (or stopped). */
  start(): Promise<void> {
    this.syncing ??= this.catchUp();
    return this.syncing;
  }

  /** The next active-chain block after the indexed one, rewinding to the fork after a reorg. */
  private nextToIndex(): BlockIndexEntry | undefined {
    const active = this.chain.chain;
    if (this.best && !active.contains(this.best)) {
      const fork = active.findFork(this.best);
      this.log(`txindex: rewinding from ${this.best.hashHex} to ${fork?.hashHex ?? 'genesis'}`);
      this.best = fork;
    }
    return this.best ? active.next(this.best) : active.at(0);
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const batch: BlockIndexEntry[] = [];
      for (let next = this.nextToIndex(); next && batch.length < SYNC_BATCH; next = this.chain.chain.next(next)) batch.push(next);
      if (batch.length === 0) {
        this.synced = true;
        this.log(`txindex is enabled at height ${this.best?.height ?? -1}`);
        return;
      }
      this.env.writeBatch((w) => {
        for (const entry of batch) this.writeBlock(w, this.chain.readBlock(entry), entry);
        w.putMeta(INDEXES_META.txindexBest, batch[batch.length - 1]!.hash);
      });
      this.best = batch[batch.length - 1];
      // Let RPC and validation run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private writeBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry): void {
    // Core leaves the genesis block out: its coinbase's outputs are not spendable (REST tx answers 404 for it).
    if (entry.height === 0) return;
    const data = entry.data;
    if (!data) throw new Error(`txindex: block ${entry.hashHex} has no data`);
    block.transactions.forEach((tx, i) => {
      const offset = block.txOffsets[i]!;
      const end = i + 1 < block.txOffsets.length ? block.txOffsets[i + 1]! : block.size;
      w.putTxIndexEntry(tx.txid, { file: data.file, pos: data.pos, offset, length: end - offset });
    });
  }

  /** Chainstate event: index the block now if it extends what is indexed; the catch-up loop handles gaps. */
  blockConnected(block: ParsedBlock, entry: BlockIndexEntry): void {
    if (!this.synced || this.stopped) return;
    if (entry.prev !== this.best) {
      // A reorg (or a gap): the catch-up loop rewinds to the fork and indexes forward.
      this.synced = false;
      this.syncing = this.catchUp();
      return;
    }
    this.env.writeBatch((w) => {
      this.writeBlock(w, block, entry);
      w.putMeta(INDEXES_META.txindexBest, entry.hash);
    });
    this.best = entry;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.syncing?.catch(() => undefined);
    await this.env.close();
  }
}
