/**
 * getrawmempool's bodies (REST mempool/contents.json) from the mempool table of one
 * snapshot: the txid array, the {txids, mempool_sequence} object, or the verbose object
 * txid → entry with v31's fields in Core's order (entryToJSON).
 *
 * The mempool itself does not exist yet, so the table is empty and these bodies are
 * `{}`, `[]` and `{"txids":[],"mempool_sequence":1}` (a fresh pool's sequence is 1). For
 * a non-empty table the entries are derived from the stored records: ancestors and
 * descendants from in-pool parents, each transaction its own chunk (cluster linearization
 * belongs to the mempool), modified fee = base fee, nothing unbroadcast; the sequence is
 * one past the newest entry's. The mempool issue replaces this with the pool's own view.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { hashToHex, parseTransaction, type Transaction } from '../primitives/index.js';
import { amountJson, type ResultObject } from '../rpc/index.js';
import type { MempoolEntryRecord } from '../storage/index.js';

interface PoolTx {
  readonly txid: string;
  readonly tx: Transaction;
  readonly record: MempoolEntryRecord;
  readonly parents: Set<string>;
  readonly children: Set<string>;
}

function loadPool(snapshot: SnapshotChainView): Map<string, PoolTx> {
  const pool = new Map<string, PoolTx>();
  for (const { txid, entry } of snapshot.reader.mempoolEntries()) {
    const hex = hashToHex(txid);
    pool.set(hex, { txid: hex, tx: parseTransaction(entry.tx), record: entry, parents: new Set(), children: new Set() });
  }
  for (const p of pool.values()) {
    for (const input of p.tx.inputs) {
      const parent = pool.get(hashToHex(input.prevout.txid));
      if (!parent) continue;
      p.parents.add(parent.txid);
      parent.children.add(p.txid);
    }
  }
  return pool;
}

/** The transaction and everything reachable from it along `edge` (itself included). */
function closure(pool: Map<string, PoolTx>, start: PoolTx, edge: 'parents' | 'children'): PoolTx[] {
  const seen = new Map<string, PoolTx>([[start.txid, start]]);
  const todo = [start];
  while (todo.length > 0) {
    for (const next of todo.pop()![edge]) {
      if (seen.has(next)) continue;
      const p = pool.get(next)!;
      seen.set(next, p);
      todo.push(p);
    }
  }
  return [...seen.values()];
}

/** BIP125 opt-in: any input with nSequence < 0xfffffffe. */
function signalsRbf(tx: Transaction): boolean {
  return tx.inputs.some((input) => input.sequence >>> 0 < 0xfffffffe);
}

function entryJson(pool: Map<string, PoolTx>, p: PoolTx): ResultObject {
  const ancestors = closure(pool, p, 'parents');
  const descendants = closure(pool, p, 'children');
  const sum = (set: PoolTx[], f: (x: PoolTx) => bigint) => set.reduce((a, x) => a + f(x), 0n);
  return {
    vsize: p.record.vsize,
    weight: p.tx.weight,
    time: p.record.time,
    height: p.record.height,
    descendantcount: descendants.length,
    descendantsize: descendants.reduce((a, x) => a + x.record.vsize, 0),
    ancestorcount: ancestors.length,
    ancestorsize: ancestors.reduce((a, x) => a + x.record.vsize, 0),
    chunkweight: p.tx.weight,
    wtxid: p.tx.wtxidHex,
    fees: {
      base: amountJson(p.record.fee),
      modified: amountJson(p.record.fee),
      ancestor: amountJson(sum(ancestors, (x) => x.record.fee)),
      descendant: amountJson(sum(descendants, (x) => x.record.fee)),
      chunk: amountJson(p.record.fee),
    },
    depends: [...p.parents].sort(),
    spentby: [...p.children].sort(),
    'bip125-replaceable': ancestors.some((a) => signalsRbf(a.tx)),
    unbroadcast: false,
  };
}

/** Core's MempoolToJSON(pool, verbose, include_mempool_sequence). */
export function mempoolContentsJson(snapshot: SnapshotChainView, verbose: boolean, withSequence: boolean): unknown {
  const pool = loadPool(snapshot);
  if (verbose) {
    const out: ResultObject = {};
    for (const p of pool.values()) out[p.txid] = entryJson(pool, p);
    return out;
  }
  const txids = [...pool.keys()];
  if (!withSequence) return txids;
  let newest = 0;
  for (const p of pool.values()) newest = Math.max(newest, p.record.sequence);
  return { txids, mempool_sequence: newest + 1 };
}
