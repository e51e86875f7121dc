/**
 * The UTXO view used while connecting blocks: a write-back cache over a backing source
 * (the LMDB coins table, or another cache). Connecting a block works in a child cache
 * that is merged into its parent only when the whole block is valid, so a failed block
 * leaves no trace. Entries remember whether they are dirty (must be written) and fresh
 * (absent from the parent), so a coin created and spent between flushes never reaches disk.
 */
import type { Coin } from '../consensus/index.js';
import { toHex, type OutPoint } from '../primitives/index.js';
import { outpointKey } from './outpoint-key.js';

export interface CoinsSource {
  /** The unspent coin at this key, or undefined. */
  fetchCoin(key: Uint8Array): Coin | undefined;
}

interface CacheEntry {
  key: Uint8Array;
  /** null: spent (or known absent). */
  coin: Coin | null;
  dirty: boolean;
  fresh: boolean;
}

/** Changes to write to the backing store: new or changed coins, and spent keys. */
export interface CoinsDelta {
  puts: { key: Uint8Array; coin: Coin }[];
  deletes: Uint8Array[];
}

/** Rough per-entry memory cost in bytes (map entry, key, coin object), for the -dbcache bound. */
const ENTRY_OVERHEAD = 160;

export class CoinsCache implements CoinsSource {
  private readonly entries = new Map<string, CacheEntry>();
  private memory = 0;

  constructor(private base: CoinsSource) {}

  /**
   * Reads through `base` from now on. A view built over the view of the block before it
   * (pipelined connects) is rebased onto the chainstate's coins once that block merged:
   * the old base is empty then, and lookups through it would cache stale absences.
   */
  rebase(base: CoinsSource): void {
    this.base = base;
  }

  get size(): number {
    return this.entries.size;
  }

  get memoryUsage(): number {
    return this.memory;
  }

  private lookup(key: Uint8Array): CacheEntry {
    const id = toHex(key);
    let entry = this.entries.get(id);
    if (!entry) {
      const coin = this.base.fetchCoin(key);
      entry = { key, coin: coin ?? null, dirty: false, fresh: false };
      this.entries.set(id, entry);
      this.memory += ENTRY_OVERHEAD + (coin ? coin.output.scriptPubKey.length : 0);
    }
    return entry;
  }

  fetchCoin(key: Uint8Array): Coin | undefined {
    return this.lookup(key).coin ?? undefined;
  }

  getCoin(outpoint: OutPoint): Coin | undefined {
    return this.fetchCoin(outpointKey(outpoint));
  }

  haveCoin(outpoint: OutPoint): boolean {
    return this.getCoin(outpoint) !== undefined;
  }

  /**
   * Adds an output. Like Core's AddCoin it does not consult the backing source: the caller
   * has already ruled out an unspent duplicate (BIP30) unless `possibleOverwrite`, Core's
   * flag for the historical duplicate coinbases, allows replacing one.
   */
  addCoin(outpoint: OutPoint, coin: Coin, possibleOverwrite: boolean): void {
    const key = outpointKey(outpoint);
    const id = toHex(key);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { key, coin: null, dirty: false, fresh: false };
      this.entries.set(id, entry);
      this.memory += ENTRY_OVERHEAD;
    }
    if (entry.coin && !possibleOverwrite) throw new Error(`attempted to overwrite an unspent coin ${toHex(outpoint.txid)}:${outpoint.vout}`);
    // Not fresh if a spend of this key is still unwritten: the spend must reach the parent.
    const fresh = !possibleOverwrite && !entry.dirty;
    entry.coin = coin;
    entry.dirty = true;
    entry.fresh = entry.fresh || fresh;
    this.memory += coin.output.scriptPubKey.length;
  }

  /** Spends an output; returns the coin (for undo data) or undefined when it was not there. */
  spendCoin(outpoint: OutPoint): Coin | undefined {
    const id = toHex(outpointKey(outpoint));
    const entry = this.entries.get(id) ?? this.lookup(outpointKey(outpoint));
    const coin = entry.coin;
    if (!coin) return undefined;
    if (entry.fresh) {
      this.entries.delete(id);
      this.memory -= ENTRY_OVERHEAD + coin.output.scriptPubKey.length;
    } else {
      entry.coin = null;
      entry.dirty = true;
    }
    return coin;
  }

  /** Merges this (child) cache's changes into `parent`, preserving freshness. */
  mergeInto(parent: CoinsCache): void {
    for (const entry of this.entries.values()) {
      if (!entry.dirty) continue;
      parent.applyChild(entry);
    }
    this.entries.clear();
    this.memory = 0;
  }

  private applyChild(child: CacheEntry): void {
    const id = toHex(child.key);
    const mine = this.entries.get(id);
    if (!mine) {
      // Absent here: fresh in the child means fresh here too.
      if (child.coin === null && child.fresh) return;
      this.entries.set(id, { key: child.key, coin: child.coin, dirty: true, fresh: child.fresh });
      this.memory += ENTRY_OVERHEAD + (child.coin ? child.coin.output.scriptPubKey.length : 0);
      return;
    }
    if (child.coin === null && mine.fresh) {
      this.entries.delete(id);
      this.memory -= ENTRY_OVERHEAD;
      return;
    }
    mine.coin = child.coin;
    mine.dirty = true;
  }

  /** The changes to persist; afterwards the cache holds only clean entries (or nothing, with `clear`). */
  takeDelta(clear: boolean): CoinsDelta {
    const delta: CoinsDelta = { puts: [], deletes: [] };
    for (const [id, entry] of this.entries) {
      if (entry.dirty) {
        if (entry.coin) delta.puts.push({ key: entry.key, coin: entry.coin });
        else delta.deletes.push(entry.key);
        entry.dirty = false;
        entry.fresh = false;
      }
      if (clear || entry.coin === null) this.entries.delete(id);
    }
    if (clear) this.memory = 0;
    return delta;
  }

  /** Forgets everything (after a failed flush the caller reloads from the store). */
  reset(): void {
    this.entries.clear();
    this.memory = 0;
  }
}
