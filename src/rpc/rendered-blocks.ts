/**
 * A memory-bounded cache, per process, of what RPC renders from a block that never
 * changes once the block is stored: getblock 0's hex, the parts of getblock 1–3 after the header fields
 * (sizes, coinbase_tx and the "tx" list, with fees and prevouts when undo data was there)
 * getblockstats' statistics, and getrawtransaction's rendering of a confirmed transaction
 * found through the txindex. The header fields (confirmations, nextblockhash) are
 * made per request from the snapshot and spliced in front, so an answer from the cache is
 * byte for byte the one rendered afresh; before using an entry the caller still checks
 * what Core's reads would check (the block is on disk, the undo data is there).
 *
 * Keys are block hashes with the form asked for. The budget counts string characters of
 * the kept texts (one byte each: JSON here is ASCII) plus a fixed guess per stats object;
 * the oldest entries leave first. TSBTCD_RPC_BLOCK_CACHE_MB sets it (default 64; 0
 * disables the cache, which the benchmarks use to report both).
 */
import type { BlockStats } from './format/index.js';

const DEFAULT_BUDGET_MB = 64;
/** What a kept statistics object is counted as. */
const STATS_COST = 2048;

function budgetFromEnv(): number {
  const text = process.env['TSBTCD_RPC_BLOCK_CACHE_MB'];
  const mb = text === undefined || text === '' ? DEFAULT_BUDGET_MB : Number(text);
  return Number.isFinite(mb) && mb > 0 ? mb * 1024 * 1024 : 0;
}

export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; cost: number }>();
  private used = 0;

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    // Most recently used last: eviction takes from the front.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V, cost: number): void {
    if (cost > this.budget) return;
    const old = this.entries.get(key);
    if (old) {
      this.used -= old.cost;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, cost });
    this.used += cost;
    for (const [k, e] of this.entries) {
      if (this.used <= this.budget) break;
      this.entries.delete(k);
      this.used -= e.cost;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** getblock's text after the header fields (`,"strippedsize":…,"tx":[…]}`), or for verbosity 0 its whole hex text. */
const blockTails = new BoundedCache<string>(budgetFromEnv());
const blockStats = new BoundedCache<BlockStats>(budgetFromEnv() / 8);

export function blockTailKey(hashHex: string, verbosity: number, withUndo: boolean): string {
  return `${hashHex}:${verbosity}:${withUndo ? 'u' : '-'}`;
}

export function keptBlockTail(key: string): string | undefined {
  return blockTails.get(key);
}

export function keepBlockTail(key: string, tail: string): void {
  blockTails.set(key, tail, tail.length);
}

export function keptBlockStats(hashHex: string): BlockStats | undefined {
  return blockStats.get(hashHex);
}

export function keepBlockStats(hashHex: string, stats: BlockStats): void {
  blockStats.set(hashHex, stats, STATS_COST);
}

/** A confirmed transaction's text as getrawtransaction renders it before the block's fields. */
export interface KeptTransaction {
  /** The block the transaction was read from (by its txindex position, or the block a call named). */
  readonly blockHash: Uint8Array;
  /** Whether the block's undo data was read (verbosity 2: fee and prevouts depend on it). */
  readonly withUndo: boolean;
  readonly members: string;
}

const transactions = new BoundedCache<KeptTransaction>(budgetFromEnv() / 8);

/** By txid, its txindex position and the verbosity (1, or 2 and above); getrawtransaction keys a lookup in a named block by txid and block. */
export function transactionKey(txidHex: string, position: { file: number; pos: number; offset: number }, verbosity: number): string {
  return `${txidHex}:${position.file}:${position.pos}:${position.offset}:${verbosity >= 2 ? 2 : 1}`;
}

export function keptTransaction(key: string): KeptTransaction | undefined {
  return transactions.get(key);
}

export function keepTransaction(key: string, kept: KeptTransaction): void {
  transactions.set(key, kept, kept.members.length + 64);
}
