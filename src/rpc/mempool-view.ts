/**
 * The mempool as one LMDB snapshot holds it (the table the coordinator mirrors): the
 * entries with their in-pool parents and children, ancestor and descendant sets, chunks
 * of each cluster, the mempool_sequence, and the pool's outputs and spends. Every
 * read-only mempool answer — getrawmempool, getmempoolentry, ancestors/descendants,
 * getmempoolinfo, gettxout, REST mempool and getutxos — is built from this view, so RPC
 * served by any process and REST agree by construction.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { chunkGraph, MEMPOOL_HEIGHT, miningOrder, type Chunk, type GraphTx } from '../mempool/index.js';
import { hashToHex, parseTransaction, type OutPoint, type Transaction, type TxOut } from '../primitives/index.js';
import { CHAINSTATE_META, type MempoolEntryRecord } from '../storage/index.js';

export interface ViewedEntry {
  readonly txid: string;
  readonly tx: Transaction;
  readonly record: MempoolEntryRecord;
  readonly parents: Set<string>;
  readonly children: Set<string>;
}

/**
 * The sigop-adjusted weight behind a stored (sigop-adjusted) vsize: the weight itself
 * unless sigops dominated the virtual size.
 */
function adjustedWeightOf(tx: Transaction, vsize: number): number {
  return Math.ceil(tx.weight / 4) === vsize ? tx.weight : vsize * 4;
}

/** The last view this process built, with the pool version it was built from. */
let lastView: { version: bigint; sequence: number; view: MempoolView } | undefined;

export class MempoolView {
  readonly entries = new Map<string, ViewedEntry>();
  /** Core's mempool sequence as of the snapshot (1 for a pool that never changed). */
  readonly sequence: number;
  private chunkedClusters: Chunk[][] | undefined;
  private chunks: Map<string, Chunk> | undefined;
  private spenders: Map<string, ViewedEntry> | undefined;

  /**
   * The pool as `snapshot` holds it. Reading and parsing every entry costs milliseconds on a
   * pool of thousands, so the view (and what it computes lazily: chunks, spenders) is kept
   * per process and reused while the snapshot's pool version and sequence are the ones it
   * was built from: every batch that changes the pool tables moves the version.
   */
  static of(snapshot: SnapshotChainView): MempoolView {
    const version = snapshot.reader.meta(CHAINSTATE_META.mempoolVersion) ?? 0n;
    const sequence = Number(snapshot.reader.meta(CHAINSTATE_META.mempoolSequence) ?? 1n);
    if (lastView && lastView.version === version && lastView.sequence === sequence) return lastView.view;
    const view = new MempoolView(snapshot, sequence);
    lastView = { version, sequence, view };
    return view;
  }

  private constructor(snapshot: SnapshotChainView, sequence: number) {
    this.sequence = sequence;
    for (const { txid, entry } of snapshot.reader.mempoolEntries()) {
      const hex = hashToHex(txid);
      this.entries.set(hex, { txid: hex, tx: parseTransaction(entry.tx), record: entry, parents: new Set(), children: new Set() });
    }
    for (const e of this.entries.values()) {
      for (const input of e.tx.inputs) {
        const parent = this.entries.get(hashToHex(input.prevout.txid));
        if (!parent) continue;
        e.parents.add(parent.txid);
        parent.children.add(e.txid);
      }
    }
  }

  get(txid: string): ViewedEntry | undefined {
    return this.entries.get(txid);
  }

  /** The entry and everything reachable along `edge` (itself included). */
  closure(start: ViewedEntry, edge: 'parents' | 'children'): ViewedEntry[] {
    const seen = new Map<string, ViewedEntry>([[start.txid, start]]);
    const todo = [start];
    while (todo.length > 0) {
      for (const next of todo.pop()![edge]) {
        if (seen.has(next)) continue;
        const e = this.entries.get(next)!;
        seen.set(next, e);
        todo.push(e);
      }
    }
    return [...seen.values()];
  }

  /** Every cluster linearized and chunked, once per view. */
  private clusters(): Chunk[][] {
    if (!this.chunkedClusters) {
      const graph = new Map<string, GraphTx>();
      for (const e of this.entries.values()) {
        graph.set(e.txid, { id: e.txid, fee: e.record.fee + e.record.feeDelta, weight: adjustedWeightOf(e.tx, e.record.vsize), parents: [...e.parents] });
      }
      this.chunkedClusters = chunkGraph(graph);
    }
    return this.chunkedClusters;
  }

  /** The chunk each transaction belongs to in its cluster's linearization. */
  chunkOf(txid: string): Chunk {
    if (!this.chunks) {
      this.chunks = new Map();
      for (const cluster of this.clusters()) for (const chunk of cluster) for (const id of chunk.ids) this.chunks.set(id, chunk);
    }
    return this.chunks.get(txid)!;
  }

  /** The chunks of the cluster holding `txid`, in its linearization's order. */
  clusterChunks(txid: string): Chunk[] {
    return this.clusters().find((cluster) => cluster.some((chunk) => chunk.ids.includes(txid)))!;
  }

  /**
   * The entries in mining order (Core's GetSortedScoreWithTopology, which getrawmempool and
   * REST mempool/contents list by): chunks as blocks would take them, each chunk's
   * transactions in linearization order.
   */
  inMiningOrder(): ViewedEntry[] {
    return miningOrder(this.clusters()).flatMap((chunk) => chunk.ids.map((id) => this.entries.get(id)!));
  }

  /** Whether a pool transaction spends the outpoint (Core's mempool.isSpent). */
  isSpent(outpoint: OutPoint): boolean {
    return this.spender(outpoint) !== undefined;
  }

  /** The pool transaction spending the outpoint (Core's mempool.GetConflictTx). */
  spender(outpoint: OutPoint): ViewedEntry | undefined {
    return this.spenderOf(hashToHex(outpoint.txid), outpoint.vout);
  }

  /** spender() for a txid already in display hex (a caller looking up both spender and output converts once). */
  spenderOf(txidHex: string, vout: number): ViewedEntry | undefined {
    if (!this.spenders) {
      this.spenders = new Map();
      for (const e of this.entries.values()) for (const input of e.tx.inputs) this.spenders.set(`${hashToHex(input.prevout.txid)}:${input.prevout.vout}`, e);
    }
    return this.spenders.get(`${txidHex}:${vout}`);
  }

  /** A pool transaction's output (null: the transaction is pooled, the output does not exist), undefined when not pooled. */
  output(outpoint: OutPoint): { output: TxOut; height: number } | null | undefined {
    return this.outputOf(hashToHex(outpoint.txid), outpoint.vout);
  }

  /** output() for a txid already in display hex. */
  outputOf(txidHex: string, vout: number): { output: TxOut; height: number } | null | undefined {
    const e = this.entries.get(txidHex);
    if (!e) return undefined;
    const output = e.tx.outputs[vout];
    return output ? { output, height: MEMPOOL_HEIGHT } : null;
  }
}

/** The output an input spends, as Core's CCoinsViewMemPool sees it: the pool's first (even when the pool spends it), else the UTXO set. */
export function spentOutput(snapshot: SnapshotChainView, pool: MempoolView, outpoint: OutPoint): TxOut | undefined {
  const pooled = pool.output(outpoint);
  if (pooled !== undefined) return pooled?.output;
  return snapshot.coin(outpoint)?.output;
}
