/**
 * Core's IsWellFormedPackage (policy/packages.cpp) for a package test-accept: at most 25
 * transactions and 404,000 weight units, no duplicates, parents before children, and no
 * two transactions spending the same output. Returns Core's package-error or null.
 */
import { hashToHex, type Transaction } from '../primitives/index.js';

const MAX_PACKAGE_COUNT = 25;
const MAX_PACKAGE_WEIGHT = 404_000;

export function packageFormError(txs: readonly Transaction[]): string | null {
  if (txs.length > MAX_PACKAGE_COUNT) return 'package-too-many-transactions';
  if (txs.reduce((sum, tx) => sum + tx.weight, 0) > MAX_PACKAGE_WEIGHT) return 'package-too-large';
  const ids = txs.map((tx) => tx.txidHex);
  if (new Set(ids).size !== ids.length) return 'package-contains-duplicates';
  const later = new Set(ids);
  for (const tx of txs) {
    later.delete(tx.txidHex);
    for (const input of tx.inputs) if (later.has(hashToHex(input.prevout.txid))) return 'package-not-sorted';
  }
  const spent = new Set<string>();
  for (const tx of txs) {
    for (const input of tx.inputs) {
      const key = `${hashToHex(input.prevout.txid)}:${input.prevout.vout}`;
      if (spent.has(key)) return 'conflict-in-package';
      spent.add(key);
    }
  }
  return null;
}
