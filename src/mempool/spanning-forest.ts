/**
 * Core v31's cluster linearization (cluster_linearize.h, spanning-forest linearization):
 * each dependency is active or not, and the chunks are the groups the active ones connect
 * (always a forest). From a topological start, a chunk holding an active dependency whose
 * top part pays strictly more than the chunk is split there and the parts are merged
 * again with their lowest-feerate parent chunks or highest-feerate child chunks, until no
 * such dependency is left (an optimal state); then chunks are split further into their
 * smallest equal-feerate parts (a minimal state). The optimal minimal chunking of a
 * cluster is unique, so the random choices Core makes on the way (here from a fixed seed)
 * cannot change it; the output order is Core's GetLinearization: chunks by feerate, then
 * smaller first, then by their greatest transaction in the fallback order, each chunk's
 * transactions by their own feerate, then smaller first, then the fallback order —
 * parents always before children — and then Core's PostLinearize.
 *
 * Runs to the end, with no cost budget: Core's budget only cuts short clusters far
 * harder than a pool's real ones (getmempoolinfo's `optimal` stays true).
 */
import { compareFeerate, type FeeFraction } from './fee-fraction.js';
import { closures, postLinearize } from './post-linearize.js';

/** A cluster with positions 0..n-1: each transaction's fee, weight and in-cluster parents. */
export interface ClusterGraph {
  readonly fees: readonly bigint[];
  readonly weights: readonly number[];
  readonly parents: readonly (readonly number[])[];
  /** The strong order that breaks every remaining tie (negative: a first). */
  readonly fallback: (a: number, b: number) => number;
}

interface ForestChunk {
  readonly txs: number[];
  readonly fee: bigint;
  readonly weight: number;
}

/** xorshift32 from a fixed seed: the same cluster always takes the same path. */
function seededUint32(): () => number {
  let state = 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

class SpanningForest {
  private readonly children: number[][];
  /** Each transaction's neighbours over active dependencies (either direction). */
  private readonly active: Set<number>[];
  private readonly chunkOf: number[];
  readonly chunks = new Map<number, ForestChunk>();
  private nextChunkId = 0;
  private readonly random = seededUint32();
  /** Chunks that may still hold a dependency worth splitting (Core's m_suboptimal_chunks). */
  private readonly suboptimal: number[] = [];

  constructor(private readonly graph: ClusterGraph) {
    const n = graph.fees.length;
    this.children = Array.from({ length: n }, () => []);
    graph.parents.forEach((ps, child) => ps.forEach((p) => this.children[p]!.push(child)));
    this.active = Array.from({ length: n }, () => new Set());
    this.chunkOf = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) this.newChunk([i]);
  }

  private newChunk(txs: number[]): number {
    const id = this.nextChunkId++;
    let fee = 0n;
    let weight = 0;
    for (const t of txs) {
      fee += this.graph.fees[t]!;
      weight += this.graph.weights[t]!;
      this.chunkOf[t] = id;
    }
    this.chunks.set(id, { txs, fee, weight });
    return id;
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.random() % items.length]!;
  }

  /** The chunk to merge `id` with: the lowest-feerate parent chunk not above it (upward), or the highest-feerate child chunk not below it. */
  private mergeCandidate(id: number, downward: boolean): number | undefined {
    const chunk = this.chunks.get(id)!;
    let best: FeeFraction = chunk;
    let bestId: number | undefined;
    let bestTiebreak = 0;
    const seen = new Set<number>([id]);
    for (const t of chunk.txs) {
      for (const r of downward ? this.children[t]! : this.graph.parents[t]!) {
        const rid = this.chunkOf[r]!;
        if (seen.has(rid)) continue;
        seen.add(rid);
        const reached = this.chunks.get(rid)!;
        const cmp = downward ? compareFeerate(best, reached) : compareFeerate(reached, best);
        if (cmp > 0) continue;
        const tiebreak = this.random();
        if (cmp < 0 || tiebreak >= bestTiebreak) {
          best = reached;
          bestId = rid;
          bestTiebreak = tiebreak;
        }
      }
    }
    return bestId;
  }

  /** Activates one dependency from chunk `top` to chunk `bottom`; returns the merged chunk. */
  private merge(top: number, bottom: number): number {
    const upper = this.chunks.get(top)!;
    const lower = this.chunks.get(bottom)!;
    const deps: [number, number][] = [];
    for (const p of upper.txs) for (const c of this.children[p]!) if (this.chunkOf[c] === bottom) deps.push([p, c]);
    const [p, c] = this.pick(deps);
    this.active[p]!.add(c);
    this.active[c]!.add(p);
    this.chunks.delete(top);
    this.chunks.delete(bottom);
    return this.newChunk([...upper.txs, ...lower.txs]);
  }

  private mergeStep(id: number, downward: boolean): number | undefined {
    const other = this.mergeCandidate(id, downward);
    if (other === undefined) return undefined;
    return downward ? this.merge(id, other) : this.merge(other, id);
  }

  private mergeSequence(id: number, downward: boolean): void {
    for (let next = this.mergeStep(id, downward); next !== undefined; next = this.mergeStep(id, downward)) id = next;
    this.suboptimal.push(id);
  }

  /** Core's LoadLinearization: each transaction in a topological order merged upward as far as it goes. */
  loadTopological(order: readonly number[]): void {
    for (const t of order) {
      let id = this.chunkOf[t]!;
      for (let next = this.mergeStep(id, false); next !== undefined; next = this.mergeStep(id, false)) id = next;
    }
  }

  /** The transactions on the parent's side of an active dependency. */
  private topOf(parent: number, child: number): number[] {
    const top = [parent];
    const seen = new Set(top);
    for (let i = 0; i < top.length; i++) {
      const t = top[i]!;
      for (const next of this.active[t]!) {
        if ((t === parent && next === child) || seen.has(next)) continue;
        seen.add(next);
        top.push(next);
      }
    }
    return top;
  }

  private feeOf(txs: readonly number[]): FeeFraction {
    let fee = 0n;
    let weight = 0;
    for (const t of txs) {
      fee += this.graph.fees[t]!;
      weight += this.graph.weights[t]!;
    }
    return { fee, weight };
  }

  /** The active dependencies of a chunk with their top sets. */
  private activeDeps(chunk: ForestChunk): { parent: number; child: number; top: number[]; feerate: FeeFraction }[] {
    const deps = [];
    for (const p of chunk.txs) {
      for (const c of this.active[p]!) {
        if (!this.children[p]!.includes(c)) continue;
        const top = this.topOf(p, c);
        deps.push({ parent: p, child: c, top, feerate: this.feeOf(top) });
      }
    }
    return deps;
  }

  /** Splits the chunk at an active dependency; returns the top and bottom chunks. */
  private deactivate(parent: number, child: number): [number, number] {
    const chunkId = this.chunkOf[parent]!;
    const chunk = this.chunks.get(chunkId)!;
    const top = this.topOf(parent, child);
    this.active[parent]!.delete(child);
    this.active[child]!.delete(parent);
    const inTop = new Set(top);
    this.chunks.delete(chunkId);
    return [this.newChunk(top), this.newChunk(chunk.txs.filter((t) => !inTop.has(t)))];
  }

  /** Whether chunk `a` spends from chunk `b`. */
  private dependsOn(a: number, b: number): boolean {
    return this.chunks.get(a)!.txs.some((t) => this.graph.parents[t]!.some((p) => this.chunkOf[p] === b));
  }

  /** Core's Improve: split, then merge the parts back into a topological state. */
  private improve(parent: number, child: number): void {
    const [top, bottom] = this.deactivate(parent, child);
    if (this.dependsOn(top, bottom)) {
      this.suboptimal.push(this.merge(bottom, top));
    } else {
      this.mergeSequence(top, false);
      this.mergeSequence(bottom, true);
    }
  }

  optimize(): void {
    this.suboptimal.push(...this.chunks.keys());
    while (this.suboptimal.length > 0) {
      const id = this.suboptimal.shift()!;
      const chunk = this.chunks.get(id);
      if (!chunk) continue;
      const splittable = this.activeDeps(chunk).filter((d) => compareFeerate(d.feerate, chunk) > 0);
      if (splittable.length === 0) continue;
      const dep = this.pick(splittable);
      this.improve(dep.parent, dep.child);
    }
  }

  /** Core's MinimizeStep loop: equal-feerate splits, found with a pivot moved up, then down (or the reverse). */
  minimize(): void {
    const queue: [number, number, number][] = [];
    for (const [id, chunk] of this.chunks) queue.push([id, this.pick(chunk.txs), this.random() & 1]);
    while (queue.length > 0) {
      const [id, pivot, flags] = queue.shift()!;
      const chunk = this.chunks.get(id)!;
      const moveDown = (flags & 1) !== 0;
      const equal = this.activeDeps(chunk).filter((d) => compareFeerate(d.feerate, chunk) >= 0);
      if (equal.length === 0) continue;
      const candidates = equal.filter((d) => d.top.includes(pivot) !== moveDown);
      if (candidates.length === 0) {
        if ((flags & 2) === 0) queue.push([id, pivot, flags ^ 3]);
        continue;
      }
      const dep = this.pick(candidates);
      const [top, bottom] = this.deactivate(dep.parent, dep.child);
      if (this.dependsOn(top, bottom)) {
        queue.push([this.merge(bottom, top), pivot, flags]);
        continue;
      }
      const fresh = (c: number): [number, number, number] => [c, this.pick(this.chunks.get(c)!.txs), this.random() & 1];
      const parts: [number, number, number][] = moveDown ? [fresh(top), [bottom, pivot, flags]] : [[top, pivot, flags], fresh(bottom)];
      if (this.random() & 1) parts.reverse();
      queue.push(...parts);
    }
  }

  /** Core's GetLinearization. */
  linearization(): number[] {
    const { fees, weights, parents, fallback } = this.graph;
    const n = fees.length;
    const txDeps = parents.map((ps) => ps.length);
    const chunkDeps = new Map<number, number>();
    for (const id of this.chunks.keys()) chunkDeps.set(id, 0);
    for (let t = 0; t < n; t++) {
      const id = this.chunkOf[t]!;
      for (const p of parents[t]!) if (this.chunkOf[p] !== id) chunkDeps.set(id, chunkDeps.get(id)! + 1);
    }
    const maxTx = (id: number) => this.chunks.get(id)!.txs.reduce((a, b) => (fallback(b, a) > 0 ? b : a));
    const chunkFirst = (a: number, b: number): boolean => {
      const ca = this.chunks.get(a)!;
      const cb = this.chunks.get(b)!;
      const cmp = compareFeerate(ca, cb);
      if (cmp !== 0) return cmp > 0;
      if (ca.weight !== cb.weight) return ca.weight < cb.weight;
      return fallback(maxTx(a), maxTx(b)) < 0;
    };
    const txFirst = (a: number, b: number): boolean => {
      const cmp = compareFeerate({ fee: fees[a]!, weight: weights[a]! }, { fee: fees[b]!, weight: weights[b]! });
      if (cmp !== 0) return cmp > 0;
      if (weights[a] !== weights[b]) return weights[a]! < weights[b]!;
      return fallback(a, b) < 0;
    };
    const takeBest = (ready: number[], first: (a: number, b: number) => boolean): number => {
      let best = 0;
      for (let i = 1; i < ready.length; i++) if (first(ready[i]!, ready[best]!)) best = i;
      return ready.splice(best, 1)[0]!;
    };
    const readyChunks = [...chunkDeps].filter(([, d]) => d === 0).map(([id]) => id);
    const order: number[] = [];
    while (readyChunks.length > 0) {
      const id = takeBest(readyChunks, chunkFirst);
      const members = new Set(this.chunks.get(id)!.txs);
      const readyTxs = [...members].filter((t) => txDeps[t] === 0);
      while (readyTxs.length > 0) {
        const t = takeBest(readyTxs, txFirst);
        order.push(t);
        for (const c of this.children[t]!) {
          if (--txDeps[c]! === 0 && members.has(c)) readyTxs.push(c);
          const cid = this.chunkOf[c]!;
          if (cid !== id) {
            chunkDeps.set(cid, chunkDeps.get(cid)! - 1);
            if (chunkDeps.get(cid) === 0) readyChunks.push(cid);
          }
        }
      }
    }
    return order;
  }
}

/** The optimal linearization of a connected cluster with minimal chunks, in Core's order (post-linearized, as txgraph does). */
export function optimalLinearization(graph: ClusterGraph): number[] {
  if (graph.fees.length === 1) return [0];
  const ancestors = closures(graph.parents);
  // Core's AppendTopo: fewer ancestors first, then position.
  const topological = ancestors.map((_, t) => t).sort((a, b) => ancestors[a]!.size - ancestors[b]!.size || a - b);
  const forest = new SpanningForest(graph);
  forest.loadTopological(topological);
  forest.optimize();
  forest.minimize();
  return postLinearize(forest.linearization(), graph.fees, graph.weights, ancestors);
}
