/**
 * Transactions whose parents we do not have yet (Core's TxOrphanage): kept with the peers
 * that sent them, so that when a parent arrives the children get another try, and bounded
 * so a peer cannot fill memory with them. Core v31 bounds announcements (3,000) and weight
 * (404,000 per peer); the oldest orphans go first when either is exceeded here.
 */
import { hashToHex, type Transaction } from '../primitives/index.js';

/** Core's DEFAULT_MAX_ORPHANAGE_LATENCY_SCORE: announcements kept in all. */
export const MAX_ORPHAN_ANNOUNCEMENTS = 3000;
/** Core's DEFAULT_RESERVED_ORPHAN_WEIGHT_PER_PEER. */
export const RESERVED_ORPHAN_WEIGHT_PER_PEER = 404_000;
/** Core's MAX_STANDARD_TX_WEIGHT: a larger orphan is not kept at all. */
const MAX_STANDARD_TX_WEIGHT = 400_000;

export interface Orphan {
  readonly tx: Transaction;
  /** Peer ids that sent it, first sender first. */
  readonly announcers: Set<number>;
}

export class TxOrphanage {
  /** By wtxid, oldest first (Map keeps insertion order). */
  readonly #byWtxid = new Map<string, Orphan>();
  /** Parent txid → wtxids of orphans spending it. */
  readonly #byParent = new Map<string, Set<string>>();
  #weight = 0;
  #announcements = 0;

  get size(): number {
    return this.#byWtxid.size;
  }

  /** Whether an orphan has this wtxid or txid. */
  has(idHex: string): boolean {
    if (this.#byWtxid.has(idHex)) return true;
    for (const o of this.#byWtxid.values()) if (o.tx.txidHex === idHex) return true;
    return false;
  }

  entries(): IterableIterator<Orphan> {
    return this.#byWtxid.values();
  }

  /** Keeps an orphan from a peer; false when it is too large to keep. */
  add(tx: Transaction, peer: number): boolean {
    if (tx.weight > MAX_STANDARD_TX_WEIGHT) return false;
    const known = this.#byWtxid.get(tx.wtxidHex);
    if (known) {
      if (!known.announcers.has(peer)) {
        known.announcers.add(peer);
        this.#announcements++;
      }
      return true;
    }
    this.#byWtxid.set(tx.wtxidHex, { tx, announcers: new Set([peer]) });
    this.#weight += tx.weight;
    this.#announcements++;
    for (const input of tx.inputs) {
      const parent = hashToHex(input.prevout.txid);
      let children = this.#byParent.get(parent);
      if (!children) this.#byParent.set(parent, (children = new Set()));
      children.add(tx.wtxidHex);
    }
    this.#limit();
    return this.#byWtxid.has(tx.wtxidHex);
  }

  #limit(): void {
    const peers = new Set<number>();
    for (const o of this.#byWtxid.values()) for (const p of o.announcers) peers.add(p);
    const maxWeight = RESERVED_ORPHAN_WEIGHT_PER_PEER * Math.max(1, peers.size);
    while (this.#announcements > MAX_ORPHAN_ANNOUNCEMENTS || this.#weight > maxWeight) {
      const oldest = this.#byWtxid.keys().next();
      if (oldest.done) return;
      this.eraseTx(oldest.value);
    }
  }

  /** Orphans spending an output of this txid. */
  childrenOf(txidHex: string): Orphan[] {
    const wtxids = this.#byParent.get(txidHex);
    if (!wtxids) return [];
    return [...wtxids].map((w) => this.#byWtxid.get(w)).filter((o): o is Orphan => o !== undefined);
  }

  eraseTx(wtxidHex: string): void {
    const orphan = this.#byWtxid.get(wtxidHex);
    if (!orphan) return;
    this.#byWtxid.delete(wtxidHex);
    this.#weight -= orphan.tx.weight;
    this.#announcements -= orphan.announcers.size;
    for (const input of orphan.tx.inputs) {
      const parent = hashToHex(input.prevout.txid);
      const children = this.#byParent.get(parent);
      children?.delete(wtxidHex);
      if (children?.size === 0) this.#byParent.delete(parent);
    }
  }

  /** A peer went away: its announcements go, and orphans only it sent. */
  erasePeer(peer: number): void {
    for (const [wtxid, orphan] of [...this.#byWtxid]) {
      if (!orphan.announcers.delete(peer)) continue;
      this.#announcements--;
      if (orphan.announcers.size === 0) this.eraseTx(wtxid);
    }
  }
}
