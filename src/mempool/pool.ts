/**
 * The pool itself (Core's CTxMemPool without the policy): entries by txid and wtxid, the
 * outpoints they spend (mapNextTx), parent/child links, the mempool sequence counter, and
 * a journal of additions and removals that the owner commits into the LMDB mempool table
 * together with the chain change that caused them.
 */
import { hashToHex, hexToHash, type OutPoint } from '../primitives/index.js';
import type { MempoolEntryRecord } from '../storage/index.js';
import { inRemovalOrder, outpointId, type MempoolEntry } from './entry.js';
import { PoolUsage, type PoolCluster } from './pool-usage.js';
import { MempoolAddressJournal, type MempoolAddressChanges } from './pool-addresses.js';

/** Changes to mirror into the mempool table. */
export interface MempoolTableChanges {
  readonly puts: { txid: Uint8Array; record: MempoolEntryRecord }[];
  readonly deletes: Uint8Array[];
  /** The pool's mempool_sequence after these changes. */
  readonly sequence: number;
  /** The `mempooladdr` mirror's changes, when addresses are tracked (-addressindex). */
  readonly addresses?: MempoolAddressChanges;
  /** Prioritisations set (the summed delta) or forgotten (null). */
  readonly deltas: { txid: Uint8Array; delta: bigint | null }[];
}

export function entryRecord(entry: MempoolEntry): MempoolEntryRecord {
  return {
    tx: entry.tx.toBytes(),
    fee: entry.fee,
    vsize: entry.vsize,
    time: entry.time,
    height: entry.height,
    sequence: entry.sequence,
    unbroadcast: entry.unbroadcast,
    feeDelta: entry.modifiedFee - entry.fee,
  };
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Core's SaturatingAdd on CAmount: sums clamp to the int64 range. */
function saturatingAdd(a: bigint, b: bigint): bigint {
  const sum = a + b;
  return sum > INT64_MAX ? INT64_MAX : sum < INT64_MIN ? INT64_MIN : sum;
}

export class TxMempool {
  private readonly byTxid = new Map<string, MempoolEntry>();
  private readonly byWtxid = new Map<string, MempoolEntry>();
  private readonly spenders = new Map<string, MempoolEntry>();
  /** Core's m_sequence_number: starts at 1, one step per addition and per removal. */
  private sequenceNumber = 1;
  private readonly journal = new Map<string, MempoolEntry | null>();
  /** Set with -addressindex: additions and removals journaled for the `mempooladdr` mirror. */
  addressJournal: MempoolAddressJournal | undefined;
  /** Bumped on every change (Core's nTransactionsUpdated, for getblocktemplate long polls). */
  transactionsUpdated = 0;
  /**
   * prioritisetransaction's deltas by txid (Core's mapDeltas): kept for transactions not in
   * the pool too, applied when they enter, cleared when a block confirms them.
   */
  private readonly deltas = new Map<string, bigint>();
  /** Core's DynamicMemoryUsage, kept as entries come and go, and the clusters it is counted over. */
  private readonly memory = new PoolUsage();
  private readonly isPooled = (entry: MempoolEntry): boolean => this.byTxid.get(entry.txid) === entry;
  /** Prioritisations changed since the last takeChanges: the new sum, or null when forgotten. */
  private readonly deltaJournal = new Map<string, bigint | null>();

  get size(): number {
    return this.byTxid.size;
  }

  get sequence(): number {
    return this.sequenceNumber;
  }

  entries(): IterableIterator<MempoolEntry> {
    return this.byTxid.values();
  }

  get(txidHex: string): MempoolEntry | undefined {
    return this.byTxid.get(txidHex);
  }

  hasWtxid(wtxidHex: string): boolean {
    return this.byWtxid.has(wtxidHex);
  }

  getByWtxid(wtxidHex: string): MempoolEntry | undefined {
    return this.byWtxid.get(wtxidHex);
  }

  /** The pool transaction spending `outpoint` (Core's GetConflictTx). */
  spenderOf(outpoint: OutPoint): MempoolEntry | undefined {
    return this.spenders.get(outpointId(hashToHex(outpoint.txid), outpoint.vout));
  }

  /** The in-pool parents a transaction spending these outpoints would have. */
  parentsOf(prevouts: readonly OutPoint[]): Set<MempoolEntry> {
    const parents = new Set<MempoolEntry>();
    for (const prevout of prevouts) {
      const parent = this.byTxid.get(hashToHex(prevout.txid));
      if (parent) parents.add(parent);
    }
    return parents;
  }

  /** Core's DynamicMemoryUsage: what getmempoolinfo reports as usage and -maxmempool limits. */
  dynamicMemoryUsage(): number {
    return this.memory.usage(this.isPooled, this.deltas.size);
  }

  /** The pool's clusters, each linearized and chunked. */
  clusters(): ReadonlySet<PoolCluster> {
    return this.memory.allClusters(this.isPooled);
  }

  /** The cluster holding the pool's worst chunk in mining order (Core's GetWorstMainChunk's cluster). */
  worstCluster(): PoolCluster | undefined {
    return this.memory.worstCluster(this.isPooled);
  }

  /** The fee delta prioritisetransaction set for a txid (0 when none). */
  deltaOf(txidHex: string): bigint {
    return this.deltas.get(txidHex) ?? 0n;
  }

  /** Every prioritisation, txid → delta (Core's GetPrioritisedTransactions). */
  prioritisations(): ReadonlyMap<string, bigint> {
    return this.deltas;
  }

  /**
   * Core's PrioritiseTransaction: the delta adds (saturating) to any earlier one (a sum of
   * 0 forgets the txid); a pooled transaction's modified fee follows at once.
   */
  prioritise(txidHex: string, delta: bigint): void {
    const sum = saturatingAdd(this.deltaOf(txidHex), delta);
    if (sum === 0n) this.deltas.delete(txidHex);
    else this.deltas.set(txidHex, sum);
    this.deltaJournal.set(txidHex, sum === 0n ? null : sum);
    const entry = this.byTxid.get(txidHex);
    if (entry && delta !== 0n) {
      entry.modifiedFee = saturatingAdd(entry.modifiedFee, delta);
      this.memory.touched(entry);
      this.transactionsUpdated++;
      this.journal.set(entry.txid, entry);
    }
  }

  /** Core's ClearPrioritisation: a confirmed transaction's delta is dropped. */
  clearPrioritisation(txidHex: string): void {
    if (this.deltas.delete(txidHex)) this.deltaJournal.set(txidHex, null);
  }

  /** Marks a pooled transaction as not yet announced (an imported unbroadcast set). */
  markUnbroadcast(entry: MempoolEntry): void {
    if (entry.unbroadcast || this.byTxid.get(entry.txid) !== entry) return;
    entry.unbroadcast = true;
    this.journal.set(entry.txid, entry);
  }

  /** Adds an accepted entry (its parents already linked by the caller's `parents`). */
  add(entry: MempoolEntry): void {
    this.byTxid.set(entry.txid, entry);
    this.byWtxid.set(entry.tx.wtxidHex, entry);
    for (const input of entry.tx.inputs) this.spenders.set(outpointId(hashToHex(input.prevout.txid), input.prevout.vout), entry);
    for (const parent of entry.parents) parent.children.add(entry);
    // Children already in the pool (re-added parents after a reorg) link up too.
    entry.tx.outputs.forEach((_, vout) => {
      const child = this.spenders.get(outpointId(entry.txid, vout));
      if (child && child !== entry) {
        child.parents.add(entry);
        entry.children.add(child);
      }
    });
    this.memory.added(entry);
    this.transactionsUpdated++;
    this.journal.set(entry.txid, entry);
    this.addressJournal?.added(entry);
  }

  /**
   * Core's GetAndIncrementSequence as TransactionAddedToMempool takes it: an addition takes
   * its number when it is announced, after the conflicts it replaced and whatever the size
   * limit removed took theirs (one the limit evicted is never announced).
   */
  announceAddition(): number {
    return this.sequenceNumber++;
  }

  /** Core's removeUnchecked: one entry, its links dropped both ways. */
  remove(entry: MempoolEntry): void {
    if (this.byTxid.get(entry.txid) !== entry) return;
    this.byTxid.delete(entry.txid);
    this.byWtxid.delete(entry.tx.wtxidHex);
    for (const input of entry.tx.inputs) {
      const key = outpointId(hashToHex(input.prevout.txid), input.prevout.vout);
      if (this.spenders.get(key) === entry) this.spenders.delete(key);
    }
    for (const parent of entry.parents) parent.children.delete(entry);
    for (const child of entry.children) child.parents.delete(entry);
    this.memory.removed(entry);
    entry.removalSequence = this.sequenceNumber;
    this.sequenceNumber++;
    this.transactionsUpdated++;
    this.journal.set(entry.txid, null);
    this.addressJournal?.removed(entry);
  }

  /**
   * Core's Expire: every entry that entered before `cutoff` (Unix seconds), with its
   * descendants, leaves. Returns those that left.
   */
  expire(cutoff: number): MempoolEntry[] {
    const stage = new Set<MempoolEntry>();
    for (const entry of this.byTxid.values()) {
      if (entry.time < cutoff && !stage.has(entry)) for (const e of this.descendants(entry)) stage.add(e);
    }
    const removed = inRemovalOrder(stage);
    for (const e of removed) this.remove(e);
    return removed;
  }

  /** Core's removeRecursive: the entry and every in-pool descendant. */
  removeWithDescendants(entry: MempoolEntry): void {
    for (const e of inRemovalOrder(this.descendants(entry))) this.remove(e);
  }

  /** The entry and everything reachable along `edge`, the entry first. */
  closure(entry: MempoolEntry, edge: 'parents' | 'children'): MempoolEntry[] {
    const seen = new Set<MempoolEntry>([entry]);
    const todo = [entry];
    while (todo.length > 0) {
      for (const next of todo.pop()![edge]) {
        if (!seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    return [...seen];
  }

  descendants(entry: MempoolEntry): MempoolEntry[] {
    return this.closure(entry, 'children');
  }

  ancestors(entry: MempoolEntry): MempoolEntry[] {
    return this.closure(entry, 'parents');
  }

  /** The cluster of an entry: everything connected to it by spending in either direction. */
  cluster(entry: MempoolEntry): Set<MempoolEntry> {
    const seen = new Set<MempoolEntry>([entry]);
    const todo = [entry];
    while (todo.length > 0) {
      const e = todo.pop()!;
      for (const next of [...e.parents, ...e.children]) {
        if (!seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    return seen;
  }

  /** Whether the journal holds changes not yet committed to the table. */
  get dirty(): boolean {
    return this.journal.size > 0 || this.deltaJournal.size > 0 || this.addressJournal?.dirty === true;
  }

  /** The journal as table changes; it is emptied (the caller commits them). */
  takeChanges(): MempoolTableChanges {
    const puts: MempoolTableChanges['puts'] = [];
    const deletes: Uint8Array[] = [];
    for (const [txid, entry] of this.journal) {
      if (entry) puts.push({ txid: hexToHash(txid), record: entryRecord(entry) });
      else deletes.push(hexToHash(txid));
    }
    this.journal.clear();
    const deltas = [...this.deltaJournal].map(([txid, delta]) => ({ txid: hexToHash(txid), delta }));
    this.deltaJournal.clear();
    const addresses = this.addressJournal?.take();
    return { puts, deletes, sequence: this.sequenceNumber, deltas, ...(addresses ? { addresses } : {}) };
  }

  /** Journals table deletions for transactions the pool never held (stale table entries at start-up). */
  markDropped(txids: readonly string[]): void {
    for (const txid of txids) if (!this.byTxid.has(txid)) this.journal.set(txid, null);
  }

  /** Journals table deletions for prioritisations the pool does not hold (stale ones at start-up). */
  markDeltasDropped(txids: readonly string[]): void {
    for (const txid of txids) if (!this.deltas.has(txid)) this.deltaJournal.set(txid, null);
  }
}
