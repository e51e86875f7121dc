/**
 * Core's ephemeral dust (policy/ephemeral_policy.cpp, v31): a transaction may carry a
 * dust output only when it pays no fee (PreChecks refuses it otherwise), and every child
 * of such a transaction — in the same package or submitted later against the pool — must
 * spend all of its parents' dust, so the dust never outlives the package.
 */
import { hashToHex, type Transaction } from '../primitives/index.js';
import { outpointId } from './entry.js';
import type { TxMempool } from './pool.js';
import { isDust } from './standard-tx.js';
import { refuse, type AcceptFailure } from './prechecks.js';

/** Core's CheckEphemeralSpends: the first transaction leaving a parent's dust unspent, with Core's failure; null when none does. */
export function ephemeralSpendsFailure(pkg: readonly Transaction[], dustRelayFee: bigint, pool: TxMempool): { tx: Transaction; failure: AcceptFailure } | null {
  const byTxid = new Map(pkg.map((tx) => [tx.txidHex, tx]));
  for (const tx of pkg) {
    const unspentDust = new Set<string>();
    const seen = new Set<string>();
    for (const input of tx.inputs) {
      const parentId = hashToHex(input.prevout.txid);
      if (seen.has(parentId)) continue;
      seen.add(parentId);
      const parent = byTxid.get(parentId) ?? pool.get(parentId)?.tx;
      parent?.outputs.forEach((output, vout) => {
        if (isDust(output, dustRelayFee)) unspentDust.add(outpointId(parentId, vout));
      });
    }
    if (unspentDust.size === 0) continue;
    for (const input of tx.inputs) unspentDust.delete(outpointId(hashToHex(input.prevout.txid), input.prevout.vout));
    if (unspentDust.size > 0) {
      return { tx, failure: refuse('missing-ephemeral-spends', `tx ${tx.txidHex} (wtxid=${tx.wtxidHex}) did not spend parent's ephemeral dust`) };
    }
  }
  return null;
}
