/**
 * The cluster linearization against exhaustive search on small random clusters: its
 * chunks have the optimal feerate diagram (each chunk is a highest-feerate closed subset
 * of what remains) and are minimal (no chunk holds a smaller closed part of the same
 * feerate), parents always come first; and a 64-transaction cluster linearizes quickly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkGraph, compareFeerate, miningOrder, type Chunk, type GraphTx } from '../../src/mempool/index.js';
import { seededRandom } from '../support/wallet.js';

function txid(i: number): string {
  return i.toString(16).padStart(64, '0');
}

/** A random connected graph of `n` transactions with small fees and weights (many exact ties). */
function randomCluster(random: () => number, n: number): Map<string, GraphTx> {
  const graph = new Map<string, GraphTx>();
  for (let i = 0; i < n; i++) {
    const parents = new Set<string>();
    if (i > 0) parents.add(txid(Math.floor(random() * i)));
    while (i > 1 && random() < 0.3) parents.add(txid(Math.floor(random() * i)));
    graph.set(txid(i), { id: txid(i), fee: BigInt(Math.floor(random() * 4) * 100), weight: 100 * (1 + Math.floor(random() * 3)), parents: [...parents] });
  }
  return graph;
}

/** Whether `set` holds every in-`within` parent of its members. */
function closed(graph: Map<string, GraphTx>, set: Set<string>, within: Set<string>): boolean {
  for (const id of set) for (const p of graph.get(id)!.parents) if (within.has(p) && !set.has(p)) return false;
  return true;
}

function subsets(ids: readonly string[]): Set<string>[] {
  const out: Set<string>[] = [];
  for (let mask = 1; mask < 1 << ids.length; mask++) out.push(new Set(ids.filter((_, i) => mask & (1 << i))));
  return out;
}

function feeOf(graph: Map<string, GraphTx>, set: Iterable<string>): { fee: bigint; weight: number } {
  let fee = 0n;
  let weight = 0;
  for (const id of set) {
    fee += graph.get(id)!.fee;
    weight += graph.get(id)!.weight;
  }
  return { fee, weight };
}

test('chunks are optimal and minimal, in topological order, on random clusters with ties', () => {
  const random = seededRandom(31);
  for (let round = 0; round < 300; round++) {
    const graph = randomCluster(random, 2 + Math.floor(random() * 7));
    const [chunks] = chunkGraph(graph) as [Chunk[]];
    const remaining = new Set(graph.keys());
    const done = new Set<string>();
    for (const chunk of chunks) {
      for (const id of chunk.ids) {
        for (const p of graph.get(id)!.parents) assert.ok(done.has(p), 'parent first');
        done.add(id);
      }
      const all = subsets([...remaining]).filter((s) => closed(graph, s, remaining));
      for (const s of all) assert.ok(compareFeerate(feeOf(graph, s), chunk) <= 0, `round ${round}: a closed subset pays more than chunk ${chunk.ids}`);
      const members = new Set(chunk.ids);
      for (const s of subsets(chunk.ids)) {
        if (s.size === members.size || !closed(graph, s, remaining)) continue;
        assert.ok(compareFeerate(feeOf(graph, s), chunk) < 0, `round ${round}: chunk ${chunk.ids} is not minimal`);
      }
      for (const id of chunk.ids) remaining.delete(id);
    }
  }
});

test('equal-feerate chunks across clusters go by equal-feerate prefix, then greatest txid in Core order', () => {
  const tx = (id: string, fee: number, weight: number, parents: string[] = []): GraphTx => ({ id, fee: BigInt(fee), weight, parents });
  const p = 'a1'.padStart(64, '0');
  const c = 'a2'.padStart(64, '0');
  const s = '01'.padEnd(64, '0');
  const graph = new Map([p, c, s].map((id) => [id, id === p ? tx(p, 10, 10) : id === c ? tx(c, 10, 10, [p]) : tx(s, 20, 20)]));
  const order = miningOrder(chunkGraph(graph)).map((ch) => ch.ids);
  // p closes 10 weight units of that feerate; c and s 20 each, and s's txid is lower in Core's byte order.
  assert.deepEqual(order, [[p], [s], [c]]);
});

test('a 64-transaction cluster linearizes in well under a second', () => {
  const random = seededRandom(64);
  const graph = randomCluster(random, 64);
  const start = performance.now();
  const [chunks] = chunkGraph(graph) as [Chunk[]];
  assert.equal(chunks.reduce((n, ch) => n + ch.ids.length, 0), 64);
  assert.ok(performance.now() - start < 1000, `took ${performance.now() - start} ms`);
});
