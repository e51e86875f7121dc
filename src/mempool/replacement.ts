/**
 * Core v31's replacement rules (full RBF, cluster mempool) and cluster limits: a
 * conflicting transaction may evict what it conflicts with, and their descendants, when
 * it touches at most 100 clusters, pays at least their fees plus its own relay at the
 * incremental rate, keeps every cluster within -limitclustercount / -limitclustersize,
 * and strictly improves the feerate diagram of the clusters involved.
 */
import { formatMoney } from '../consensus/index.js';
import type { MempoolEntry } from './entry.js';
import { feeForSize } from './fee-rate.js';
import { chunkGraph, type Chunk, type GraphTx } from './linearize.js';
import { MAX_REPLACEMENT_CANDIDATES } from './policy-limits.js';
import type { MempoolPolicyOptions } from './policy-options.js';
import type { TxMempool } from './pool.js';
import type { AcceptFailure } from './prechecks.js';

/** The entries connected to `starts` by spending, leaving out `excluded` (a cluster after removals). */
function connected(starts: Iterable<MempoolEntry>, excluded: ReadonlySet<MempoolEntry>): Set<MempoolEntry> {
  const seen = new Set<MempoolEntry>();
  const todo: MempoolEntry[] = [];
  for (const s of starts) {
    if (!excluded.has(s) && !seen.has(s)) {
      seen.add(s);
      todo.push(s);
    }
  }
  while (todo.length > 0) {
    const e = todo.pop()!;
    for (const next of [...e.parents, ...e.children]) {
      if (!excluded.has(next) && !seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return seen;
}

/**
 * Core's txgraph oversize test for a cluster of `count` transactions weighing `weight`
 * (sigop-adjusted): more than -limitclustercount only counts when clusters merge (a lone
 * transaction always fits the count), and the size limit is -limitclustersize in weight
 * units held unsigned (a negative setting wraps to no limit).
 */
export function clusterTooLarge(count: number, weight: number, policy: MempoolPolicyOptions): boolean {
  const sizeLimit = BigInt.asUintN(64, BigInt(policy.limitClusterSizeVbytes) * 4n);
  return (count > 1 && count > policy.limitClusterCount) || BigInt(weight) > sizeLimit;
}

/** Whether adding `entry` (after evicting `evicted`) makes its cluster too large. */
export function clusterLimitsExceeded(entry: MempoolEntry, evicted: ReadonlySet<MempoolEntry>, policy: MempoolPolicyOptions): boolean {
  const cluster = connected(entry.parents, evicted);
  let weight = entry.adjustedWeight;
  for (const member of cluster) weight += member.adjustedWeight;
  return clusterTooLarge(cluster.size + 1, weight, policy);
}

function graphOf(entries: Iterable<MempoolEntry>, extra: readonly MempoolEntry[] = []): Map<string, GraphTx> {
  const graph = new Map<string, GraphTx>();
  const add = (e: MempoolEntry) =>
    graph.set(e.txid, { id: e.txid, fee: e.modifiedFee, weight: e.adjustedWeight, parents: [...e.parents].map((p) => p.txid) });
  for (const e of entries) add(e);
  for (const e of extra) add(e);
  for (const [id, tx] of graph) graph.set(id, { ...tx, parents: tx.parents.filter((p) => graph.has(p)) });
  return graph;
}

/** A feerate diagram: cumulative (weight, fee) points from the origin, chunks by decreasing feerate. */
function diagram(chunks: readonly Chunk[][]): { weight: bigint; fee: bigint }[] {
  const all = chunks.flat().sort((a, b) => {
    const lhs = b.fee * BigInt(a.weight);
    const rhs = a.fee * BigInt(b.weight);
    return lhs > rhs ? 1 : lhs < rhs ? -1 : 0;
  });
  const points = [{ weight: 0n, fee: 0n }];
  for (const c of all) {
    const last = points[points.length - 1]!;
    points.push({ weight: last.weight + BigInt(c.weight), fee: last.fee + c.fee });
  }
  return points;
}

/** The diagram's fee at `x` as a fraction (num/den), flat past its end. */
function feeAt(points: readonly { weight: bigint; fee: bigint }[], x: bigint): [bigint, bigint] {
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    if (x <= b.weight) {
      const span = b.weight - a.weight;
      if (span === 0n) return [b.fee, 1n];
      return [a.fee * span + (x - a.weight) * (b.fee - a.fee), span];
    }
  }
  return [points[points.length - 1]!.fee, 1n];
}

/** Core's CompareChunks: 1 when `next` is at least `old` everywhere and above it somewhere, else 0 or -1. */
function improves(old: ReturnType<typeof diagram>, next: ReturnType<typeof diagram>): boolean {
  let better = false;
  for (const x of [...old, ...next].map((p) => p.weight)) {
    const [on, od] = feeAt(old, x);
    const [nn, nd] = feeAt(next, x);
    const cmp = nn * od - on * nd;
    if (cmp < 0n) return false;
    if (cmp > 0n) better = true;
  }
  return better;
}

/** The distinct clusters the direct conflicts belong to (Core's GetEntriesForConflicts counts them, rule 5). */
function conflictClusters(pool: TxMempool, conflicts: ReadonlySet<MempoolEntry>): Set<Set<MempoolEntry>> {
  const clusters = new Set<Set<MempoolEntry>>();
  const seen = new Set<MempoolEntry>();
  for (const c of conflicts) {
    if (seen.has(c)) continue;
    const cluster = pool.cluster(c);
    for (const m of cluster) seen.add(m);
    clusters.add(cluster);
  }
  return clusters;
}

/** Rule 5's debug string when the conflicts touch too many clusters, else null. */
export function tooManyReplacements(pool: TxMempool, txid: string, conflicts: ReadonlySet<MempoolEntry>): string | null {
  const count = conflictClusters(pool, conflicts).size;
  return count > MAX_REPLACEMENT_CANDIDATES ? `rejecting replacement ${txid}; too many conflicting clusters (${count} > ${MAX_REPLACEMENT_CANDIDATES})` : null;
}

/** Everything a replacement evicts: the direct conflicts and their descendants. */
export function evictedBy(pool: TxMempool, conflicts: ReadonlySet<MempoolEntry>): Set<MempoolEntry> {
  const evicted = new Set<MempoolEntry>();
  for (const c of conflicts) for (const d of pool.descendants(c)) evicted.add(d);
  return evicted;
}

/** Core's PaysForRBF (rules 3 and 4): the debug string when the replacement pays too little, else null. */
export function paysForRbfFailure(conflictingFees: bigint, fees: bigint, vsize: number, policy: MempoolPolicyOptions, txid: string): string | null {
  if (fees < conflictingFees) return `rejecting replacement ${txid}, less fees than conflicting txs; ${formatMoney(fees)} < ${formatMoney(conflictingFees)}`;
  const additional = fees - conflictingFees;
  const relayFee = feeForSize(policy.incrementalRelayFee, vsize);
  if (additional < relayFee) return `rejecting replacement ${txid}, not enough additional fees to relay; ${formatMoney(additional)} < ${formatMoney(relayFee)}`;
  return null;
}

/**
 * Core's ImprovesFeerateDiagram: the clusters the replacement touches (the conflicts' and
 * the new transactions' in-pool parents'), chunked before and after, must improve.
 */
export function improvesFeerateDiagram(pool: TxMempool, added: readonly MempoolEntry[], conflicts: ReadonlySet<MempoolEntry>, evicted: ReadonlySet<MempoolEntry>): boolean {
  const before = new Set<MempoolEntry>();
  for (const cluster of conflictClusters(pool, conflicts)) for (const m of cluster) before.add(m);
  for (const entry of added) {
    for (const parent of entry.parents) if (pool.get(parent.txid) === parent) for (const m of pool.cluster(parent)) before.add(m);
  }
  const after = [...before].filter((m) => !evicted.has(m));
  return improves(diagram(chunkGraph(graphOf(before))), diagram(chunkGraph(graphOf(after, added))));
}

/**
 * Core's ReplacementChecks for one transaction; `siblingEviction` marks reasons when the
 * conflicts include a TRUC sibling the transaction would evict.
 */
export function replacementChecks(
  pool: TxMempool,
  entry: MempoolEntry,
  conflicts: ReadonlySet<MempoolEntry>,
  policy: MempoolPolicyOptions,
  siblingEviction = false,
): AcceptFailure | { ok: true; evicted: MempoolEntry[] } {
  const fail = (reason: string, debug: string): AcceptFailure => ({ ok: false, missingInputs: false, reason, debug });
  const suffix = siblingEviction ? ' (including sibling eviction)' : '';
  const tooMany = tooManyReplacements(pool, entry.txid, conflicts);
  if (tooMany) return fail(`too many potential replacements${suffix}`, tooMany);
  const evicted = evictedBy(pool, conflicts);
  let conflictingFees = 0n;
  for (const e of evicted) conflictingFees += e.modifiedFee;
  const underpaid = paysForRbfFailure(conflictingFees, entry.modifiedFee, entry.vsize, policy, entry.txid);
  if (underpaid) return fail(`insufficient fee${suffix}`, underpaid);
  if (clusterLimitsExceeded(entry, evicted, policy)) return fail('too-large-cluster', '');
  if (!improvesFeerateDiagram(pool, [entry], conflicts, evicted)) return fail('replacement-failed', 'insufficient feerate: does not improve feerate diagram');
  return { ok: true, evicted: [...evicted] };
}
