/**
 * Core's TRUC policy (BIP431, policy/truc_policy.cpp, v31): a version 3 transaction is at
 * most 10,000 vB; it may have one unconfirmed parent and one unconfirmed child at most,
 * both version 3, and as a child at most 1,000 vB; version 3 and other transactions may
 * not spend each other's unconfirmed outputs. A second child of a TRUC parent may evict
 * the first (sibling eviction) under the replacement rules. Returns Core's debug strings
 * (the reject reason is "TRUC-violation").
 */
import { hashToHex, type Transaction } from '../primitives/index.js';
import type { MempoolEntry } from './entry.js';
import type { TxMempool } from './pool.js';

export const TRUC_VERSION = 3;
export const TRUC_MAX_VSIZE = 10_000;
export const TRUC_CHILD_MAX_VSIZE = 1_000;

const ids = (tx: Transaction): string => `${tx.txidHex} (wtxid=${tx.wtxidHex})`;

const tooManyAncestors = (tx: Transaction): string => `tx ${ids(tx)} would have too many ancestors`;
const descendantLimit = (parent: Transaction): string => `tx ${ids(parent)} would exceed descendant count limit`;
const cannotSpendNonTruc = (tx: Transaction, parent: Transaction): string => `version=3 tx ${ids(tx)} cannot spend from non-version=3 tx ${ids(parent)}`;
const cannotSpendTruc = (tx: Transaction, parent: Transaction): string => `non-version=3 tx ${ids(tx)} cannot spend from version=3 tx ${ids(parent)}`;
const tooBig = (tx: Transaction, vsize: number): string => `version=3 tx ${ids(tx)} is too big: ${vsize} > ${TRUC_MAX_VSIZE} virtual bytes`;
const childTooBig = (tx: Transaction, vsize: number): string => `version=3 child tx ${ids(tx)} is too big: ${vsize} > ${TRUC_CHILD_MAX_VSIZE} virtual bytes`;

const ancestorCount = (pool: TxMempool, entry: MempoolEntry): number => pool.ancestors(entry).length;
const descendantCount = (pool: TxMempool, entry: MempoolEntry): number => pool.descendants(entry).length;

/**
 * Core's SingleTRUCChecks, against the transaction's in-pool parents: the debug string of
 * the violation, with the sibling whose eviction may be considered instead; null when none.
 */
export function singleTrucChecks(
  pool: TxMempool,
  tx: Transaction,
  poolParents: readonly MempoolEntry[],
  directConflicts: ReadonlySet<string>,
  vsize: number,
): { readonly debug: string; readonly sibling?: MempoolEntry } | null {
  for (const parent of poolParents) {
    if (tx.version !== TRUC_VERSION && parent.tx.version === TRUC_VERSION) return { debug: cannotSpendTruc(tx, parent.tx) };
    if (tx.version === TRUC_VERSION && parent.tx.version !== TRUC_VERSION) return { debug: cannotSpendNonTruc(tx, parent.tx) };
  }
  if (tx.version !== TRUC_VERSION) return null;
  if (vsize > TRUC_MAX_VSIZE) return { debug: tooBig(tx, vsize) };
  if (poolParents.length + 1 > 2) return { debug: tooManyAncestors(tx) };
  if (poolParents.length === 0) return null;
  const parent = poolParents[0]!;
  if (ancestorCount(pool, parent) + 1 > 2) return { debug: tooManyAncestors(tx) };
  if (vsize > TRUC_CHILD_MAX_VSIZE) return { debug: childTooBig(tx, vsize) };
  const descendants = pool.descendants(parent).filter((d) => d !== parent);
  const childWillBeReplaced = descendants.some((d) => directConflicts.has(d.txid));
  if (descendants.length + 1 + 1 > 2 && !childWillBeReplaced) {
    // Only a lone child without descendants of its own can be weighed for eviction.
    const considerSibling = descendants.length === 1 && ancestorCount(pool, descendants[0]!) === 2;
    return { debug: descendantLimit(parent.tx), ...(considerSibling ? { sibling: descendants[0]! } : {}) };
  }
  return null;
}

/**
 * Core's PackageTRUCChecks for one transaction of a package, once every member's size is
 * known: the in-pool parents and the package's parents of it together. Null when none.
 */
export function packageTrucChecks(pool: TxMempool, tx: Transaction, vsize: number, pkg: readonly Transaction[], poolParents: readonly MempoolEntry[]): string | null {
  const inputTxids = new Set(tx.inputs.map((input) => hashToHex(input.prevout.txid)));
  const packageParents: Transaction[] = [];
  for (const member of pkg) {
    if (member === tx) break;
    if (inputTxids.has(member.txidHex)) packageParents.push(member);
  }
  if (tx.version !== TRUC_VERSION) {
    for (const parent of poolParents) if (parent.tx.version === TRUC_VERSION) return cannotSpendTruc(tx, parent.tx);
    for (const parent of packageParents) if (parent.version === TRUC_VERSION) return cannotSpendTruc(tx, parent);
    return null;
  }
  if (vsize > TRUC_MAX_VSIZE) return tooBig(tx, vsize);
  if (poolParents.length + packageParents.length + 1 > 2) return tooManyAncestors(tx);
  if (poolParents.length > 0 && ancestorCount(pool, poolParents[0]!) + packageParents.length + 1 > 2) return tooManyAncestors(tx);
  if (poolParents.length + packageParents.length === 0) return null;
  if (vsize > TRUC_CHILD_MAX_VSIZE) return childTooBig(tx, vsize);
  const parent = poolParents[0]?.tx ?? packageParents[0]!;
  const parentHasPoolDescendant = poolParents.length > 0 && descendantCount(pool, poolParents[0]!) > 1;
  if (parent.version !== TRUC_VERSION) return cannotSpendNonTruc(tx, parent);
  for (const member of pkg) {
    if (member === tx) continue;
    for (const input of member.inputs) {
      const spent = hashToHex(input.prevout.txid);
      // A sibling in the package, or a child of this one while it has a parent.
      if (spent === parent.txidHex) return descendantLimit(parent);
      if (spent === tx.txidHex) return tooManyAncestors(member);
    }
  }
  if (parentHasPoolDescendant) return descendantLimit(parent);
  return null;
}
