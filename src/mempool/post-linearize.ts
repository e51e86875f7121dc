/**
 * Core's PostLinearize (cluster_linearize.h), which txgraph runs on every new
 * linearization: two passes, back to front and then front to back, each moving a
 * transaction's group ahead of (or, backwards, behind) the group before it while it pays
 * strictly more — merging the two when one depends on the other, swapping them when not.
 * It never changes an optimal linearization's chunks, only the order inside and between
 * equal-feerate ones.
 */
import { compareFeerate } from './fee-fraction.js';

interface Group {
  txs: number[];
  /** Everything the group depends on (ancestors forward, descendants backward), itself included. */
  deps: Set<number>;
  fee: bigint;
  weight: number;
}

/** Each transaction's closure along `edges` (parents: ancestors; children: descendants), itself included. */
export function closures(edges: readonly (readonly number[])[]): Set<number>[] {
  return edges.map((_, t) => {
    const seen = new Set([t]);
    const todo = [t];
    while (todo.length > 0) {
      for (const next of edges[todo.pop()!]!) {
        if (!seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    return seen;
  });
}

/** `ancestors`: each transaction's ancestors, itself included (closures of the parents). */
export function postLinearize(order: readonly number[], fees: readonly bigint[], weights: readonly number[], ancestors: readonly Set<number>[]): number[] {
  const descendants: Set<number>[] = ancestors.map(() => new Set());
  ancestors.forEach((as, t) => as.forEach((a) => descendants[a]!.add(t)));
  let current = [...order];
  for (const backward of [true, false]) {
    const groups: Group[] = [];
    const sequence = backward ? [...current].reverse() : current;
    for (const t of sequence) {
      // Backwards, "depends on" means "is depended on by" and a lower feerate counts as higher.
      let group: Group = { txs: [t], deps: new Set(backward ? descendants[t] : ancestors[t]), fee: backward ? -fees[t]! : fees[t]!, weight: weights[t]! };
      let at = groups.length;
      while (at > 0 && compareFeerate(group, groups[at - 1]!) > 0) {
        const prev = groups[at - 1]!;
        if (prev.txs.some((x) => group.deps.has(x))) {
          for (const d of prev.deps) group.deps.add(d);
          group = { txs: [...prev.txs, ...group.txs], deps: group.deps, fee: group.fee + prev.fee, weight: group.weight + prev.weight };
          groups.splice(at - 1, 1);
        }
        at--;
      }
      groups.splice(at, 0, group);
    }
    const flat = groups.flatMap((g) => g.txs);
    current = backward ? flat.reverse() : flat;
  }
  return current;
}
