/**
 * Core's package shapes (policy/packages.cpp): IsWellFormedPackage — at most 25
 * transactions and 404,000 weight units, no duplicates, parents before children, no two
 * transactions spending the same output — and the child-with-parents topologies
 * submitpackage takes.
 */
import { hashToHex, type Transaction } from '../primitives/index.js';

export const MAX_PACKAGE_COUNT = 25;
export const MAX_PACKAGE_WEIGHT = 404_000;

/** Core's IsWellFormedPackage: its package-error, or null. */
export function packageFormError(txs: readonly Transaction[]): string | null {
  if (txs.length > MAX_PACKAGE_COUNT) return 'package-too-many-transactions';
  // A lone transaction's weight is better reported by its own standardness check.
  if (txs.length > 1 && txs.reduce((sum, tx) => sum + tx.weight, 0) > MAX_PACKAGE_WEIGHT) return 'package-too-large';
  const ids = txs.map((tx) => tx.txidHex);
  if (new Set(ids).size !== ids.length) return 'package-contains-duplicates';
  const later = new Set(ids);
  for (const tx of txs) {
    for (const input of tx.inputs) if (later.has(hashToHex(input.prevout.txid))) return 'package-not-sorted';
    later.delete(tx.txidHex);
  }
  const spent = new Set<string>();
  for (const tx of txs) {
    // Without inputs consistency cannot be judged; duplicate inputs within one transaction are CheckTransaction's to report.
    if (tx.inputs.length === 0) return 'conflict-in-package';
    const keys = tx.inputs.map((input) => `${hashToHex(input.prevout.txid)}:${input.prevout.vout}`);
    if (keys.some((key) => spent.has(key))) return 'conflict-in-package';
    for (const key of keys) spent.add(key);
  }
  return null;
}

/** Core's IsChildWithParents: at least two transactions, each before the last one a parent of it. */
export function isChildWithParents(txs: readonly Transaction[]): boolean {
  if (txs.length < 2) return false;
  const child = txs[txs.length - 1]!;
  const inputTxids = new Set(child.inputs.map((input) => hashToHex(input.prevout.txid)));
  return txs.slice(0, -1).every((tx) => inputTxids.has(tx.txidHex));
}

/** Core's IsChildWithParentsTree: child-with-parents where no parent spends another. */
export function isChildWithParentsTree(txs: readonly Transaction[]): boolean {
  if (!isChildWithParents(txs)) return false;
  const parentTxids = new Set(txs.slice(0, -1).map((tx) => tx.txidHex));
  return txs.slice(0, -1).every((tx) => tx.inputs.every((input) => !parentTxids.has(hashToHex(input.prevout.txid))));
}
