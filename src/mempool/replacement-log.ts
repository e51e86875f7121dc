/**
 * Core's debug lines for a replacement (MemPoolAccept::FinalizeSubpackage and the
 * summaries after it, category mempool): one line per evicted transaction naming what
 * replaced it — the transaction, or the package by Core's package hash — and a summary of
 * the fees and size gained.
 */
import { concatBytes, hashToHex, hexToHash, sha256 } from '../primitives/index.js';
import type { MempoolEntry } from './entry.js';

/** Core's GetPackageHash: SHA256 of the wtxids sorted by their hex. */
export function packageHash(wtxids: readonly string[]): string {
  return hashToHex(sha256(concatBytes(...[...wtxids].sort().map(hexToHash))));
}

export function replacementLogLines(evicted: readonly MempoolEntry[], added: readonly MempoolEntry[]): string[] {
  if (evicted.length === 0) return [];
  const fees = added.reduce((sum, e) => sum + e.modifiedFee, 0n);
  const vsize = added.reduce((sum, e) => sum + e.vsize, 0);
  const single = added.length === 1 ? added[0]! : undefined;
  const replacement = single
    ? `New tx ${single.txid} (wtxid=${single.tx.wtxidHex}, fees=${fees}, vsize=${vsize})`
    : `New package ${packageHash(added.map((e) => e.tx.wtxidHex))} with ${added.length} txs, fees=${fees}, vsize=${vsize}`;
  const lines = evicted.map((e) => `replacing mempool tx ${e.txid} (wtxid=${e.tx.wtxidHex}, fees=${e.fee}, vsize=${e.vsize}). ${replacement}`);
  const conflictingFees = evicted.reduce((sum, e) => sum + e.modifiedFee, 0n);
  const conflictingSize = evicted.reduce((sum, e) => sum + e.vsize, 0);
  const what = single ? '1 new transaction' : `${added.length} new one(s)`;
  lines.push(`replaced ${evicted.length} mempool transactions with ${what} for ${fees - conflictingFees} additional fees, ${vsize - conflictingSize} delta bytes`);
  return lines;
}
