/**
 * The UTXO view used while connecting blocks: a write-back cache over a backing source
 * (the LMDB coins table, or another cache). Connecting a block works in a child cache
 * that is merged into its parent only when the whole block is valid, so a failed block
 * leaves no trace. Entries remember whether they are dirty (must be written) and fresh
 * (absent from the parent), so a coin created and spent between flushes never reaches disk.
 *
 * Every input and every new output of a block goes through here, so the table is keyed
 * without allocating: a salted 30-bit number from the txid and output index (a small
 * integer Map key), with the few outpoints that share one chained behind it. Hex-string
 * keys cost more than the rest of the cache together. The salt is random per process, as
 * Core's SaltedOutpointHasher, so nobody can grind txids into one long chain.
 */
import { randomBytes } from 'node:crypto';
import type { Coin } from '../consensus/index.js';
import { toHex, type OutPoint } from '../primitives/index.js';
import { outpointKey } from './outpoint-key.js';

export interface CoinsSource {
  /** The unspent coin at this outpoint, or undefined. */
  fetchCoin(txid: Uint8Array, vout: number): Coin | undefined;
}

interface CacheEntry {
  readonly txid: Uint8Array;
  readonly vout: number;
  /** null: spent (always dirty then: absences are not cached, as in Core). */
  coin: Coin | null;
  dirty: boolean;
  fresh: boolean;
  /** The next entry whose outpoint has the same slot number. */
  next: CacheEntry | undefined;
}

/** Changes to write to the backing store: new or changed coins, and spent keys. */
export interface CoinsDelta {
  puts: { key: Uint8Array; coin: Coin }[];
  deletes: Uint8Array[];
}

/** Rough per-entry memory cost in bytes (map slot, entry, coin object), for the -dbcache bound. */
const ENTRY_OVERHEAD = 160;

const salt = new Int32Array(randomBytes(12).buffer);
const SALT0 = salt[0]!;
const SALT1 = salt[1]!;
const SALT2 = salt[2]!;

/** A salted 30-bit mix of the txid's first 8 bytes and the output index (a Smi on every platform). */
function slotOf(txid: Uint8Array, vout: number): number {
  let h = (txid[0]! | (txid[1]! << 8) | (txid[2]! << 16) | (txid[3]! << 24)) ^ SALT0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h ^= (txid[4]! | (txid[5]! << 8) | (txid[6]! << 16) | (txid[7]! << 24)) ^ SALT1;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= Math.imul(vout ^ SALT2, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

function sameOutpoint(entry: CacheEntry, txid: Uint8Array, vout: number): boolean {
  if (entry.vout !== vout) return false;
  const a = entry.txid;
  if (a === txid) return true;
  for (let i = 0; i < 32; i++) if (a[i] !== txid[i]) return false;
  return true;
}

export class CoinsCache implements CoinsSource {
  private readonly slots = new Map<number, CacheEntry>();
  private count = 0;
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
    return this.count;
  }

  get memoryUsage(): number {
    return this.memory;
  }

  private find(txid: Uint8Array, vout: number, slot: number): CacheEntry | undefined {
    for (let entry = this.slots.get(slot); entry; entry = entry.next) if (sameOutpoint(entry, txid, vout)) return entry;
    return undefined;
  }

  private insert(slot: number, txid: Uint8Array, vout: number, coin: Coin | null, dirty: boolean, fresh: boolean): CacheEntry {
    const entry: CacheEntry = { txid, vout, coin, dirty, fresh, next: this.slots.get(slot) };
    this.slots.set(slot, entry);
    this.count++;
    this.memory += ENTRY_OVERHEAD + (coin ? coin.output.scriptPubKey.length : 0);
    return entry;
  }

  private remove(slot: number, entry: CacheEntry): void {
    const head = this.slots.get(slot)!;
    if (head === entry) {
      if (entry.next) this.slots.set(slot, entry.next);
      else this.slots.delete(slot);
    } else {
      let before = head;
      while (before.next !== entry) before = before.next!;
      before.next = entry.next;
    }
    this.count--;
    this.memory -= ENTRY_OVERHEAD + (entry.coin ? entry.coin.output.scriptPubKey.length : 0);
  }

  /** The cached entry, or one cached from the base when it holds the coin; undefined when nobody has it. */
  private lookup(txid: Uint8Array, vout: number, slot: number): CacheEntry | undefined {
    const entry = this.find(txid, vout, slot);
    if (entry) return entry;
    const coin = this.base.fetchCoin(txid, vout);
    return coin ? this.insert(slot, txid, vout, coin, false, false) : undefined;
  }

  fetchCoin(txid: Uint8Array, vout: number): Coin | undefined {
    return this.lookup(txid, vout, slotOf(txid, vout))?.coin ?? undefined;
  }

  getCoin(outpoint: OutPoint): Coin | undefined {
    return this.fetchCoin(outpoint.txid, outpoint.vout);
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
    const { txid, vout } = outpoint;
    const slot = slotOf(txid, vout);
    const entry = this.find(txid, vout, slot);
    if (!entry) {
      this.insert(slot, txid, vout, coin, true, !possibleOverwrite);
      return;
    }
    if (entry.coin && !possibleOverwrite) throw new Error(`attempted to overwrite an unspent coin ${toHex(txid)}:${vout}`);
    // Not fresh if a spend of this key is still unwritten: the spend must reach the parent.
    const fresh = !possibleOverwrite && !entry.dirty;
    this.memory += coin.output.scriptPubKey.length - (entry.coin ? entry.coin.output.scriptPubKey.length : 0);
    entry.coin = coin;
    entry.dirty = true;
    entry.fresh = entry.fresh || fresh;
  }

  /** Spends an output; returns the coin (for undo data) or undefined when it was not there. */
  spendCoin(outpoint: OutPoint): Coin | undefined {
    const { txid, vout } = outpoint;
    const slot = slotOf(txid, vout);
    const entry = this.lookup(txid, vout, slot);
    const coin = entry?.coin;
    if (!entry || !coin) return undefined;
    if (entry.fresh) {
      this.remove(slot, entry);
    } else {
      this.memory -= coin.output.scriptPubKey.length;
      entry.coin = null;
      entry.dirty = true;
    }
    return coin;
  }

  /** Merges this (child) cache's changes into `parent`, preserving freshness. */
  mergeInto(parent: CoinsCache): void {
    for (const head of this.slots.values()) {
      for (let entry: CacheEntry | undefined = head; entry; ) {
        // Read before applyChild: it may move the entry itself into the parent's chains.
        const next: CacheEntry | undefined = entry.next;
        if (entry.dirty) parent.applyChild(entry);
        entry = next;
      }
    }
    this.slots.clear();
    this.count = 0;
    this.memory = 0;
  }

  /** Takes one dirty entry of a child that is being emptied: an entry new here is moved over, not copied. */
  private applyChild(child: CacheEntry): void {
    const slot = slotOf(child.txid, child.vout);
    const mine = this.find(child.txid, child.vout, slot);
    if (!mine) {
      // Absent here: fresh in the child means fresh here too.
      if (child.coin === null && child.fresh) return;
      child.next = this.slots.get(slot);
      this.slots.set(slot, child);
      this.count++;
      this.memory += ENTRY_OVERHEAD + (child.coin ? child.coin.output.scriptPubKey.length : 0);
      return;
    }
    if (child.coin === null && mine.fresh) {
      this.remove(slot, mine);
      return;
    }
    this.memory += (child.coin ? child.coin.output.scriptPubKey.length : 0) - (mine.coin ? mine.coin.output.scriptPubKey.length : 0);
    mine.coin = child.coin;
    mine.dirty = true;
  }

  /** The changes to persist; afterwards the cache holds only clean entries (or nothing, with `clear`). */
  takeDelta(clear: boolean): CoinsDelta {
    const delta: CoinsDelta = { puts: [], deletes: [] };
    for (const [slot, head] of this.slots) {
      let kept: CacheEntry | undefined;
      let last: CacheEntry | undefined;
      for (let entry: CacheEntry | undefined = head; entry; ) {
        const next: CacheEntry | undefined = entry.next;
        if (entry.dirty) {
          if (entry.coin) delta.puts.push({ key: outpointKey(entry), coin: entry.coin });
          else delta.deletes.push(outpointKey(entry));
          entry.dirty = false;
          entry.fresh = false;
        }
        if (clear || entry.coin === null) {
          this.count--;
          this.memory -= ENTRY_OVERHEAD + (entry.coin ? entry.coin.output.scriptPubKey.length : 0);
        } else {
          entry.next = undefined;
          if (last) last.next = entry;
          else kept = entry;
          last = entry;
        }
        entry = next;
      }
      if (!clear && kept !== head) {
        if (kept) this.slots.set(slot, kept);
        else this.slots.delete(slot);
      }
    }
    if (clear) this.reset();
    return delta;
  }

  /** Forgets everything (after a failed flush the caller reloads from the store). */
  reset(): void {
    this.slots.clear();
    this.count = 0;
    this.memory = 0;
  }
}
