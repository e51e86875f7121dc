/**
 * Core v31's PackageRBFChecks: a package may replace what it conflicts with only as one
 * parent and its child with no pooled ancestors, touching at most 100 clusters, paying for
 * what it evicts plus its own relay, forming a chunk of its own (the package feerate above
 * the parent's), within the cluster limits, and improving the feerate diagram. Also the
 * cluster limits of a package's transactions together.
 */
import { COIN } from '../consensus/index.js';
import type { Transaction } from '../primitives/index.js';
import type { MempoolEntry } from './entry.js';
import { feeRatePerKvB } from './fee-rate.js';
import { isChildWithParents } from './package-form.js';
import type { MempoolPolicyOptions } from './policy-options.js';
import type { TxMempool } from './pool.js';
import type { PrecheckedTx } from './prechecks.js';
import { clusterTooLarge, evictedBy, improvesFeerateDiagram, paysForRbfFailure, tooManyReplacements } from './replacement.js';

/** Core's PackageValidationState when invalid: PCKG_POLICY (the package as such) or PCKG_TX (a member failed). */
export interface PackageState {
  readonly level: 'policy' | 'tx';
  readonly reason: string;
  readonly debug: string;
}

export const policyState = (reason: string, debug = ''): PackageState => ({ level: 'policy', reason, debug });

/** Core's CFeeRate::ToString: BTC/kvB with eight decimals. */
function feerateText(satPerKvB: bigint): string {
  return `${satPerKvB / COIN}.${(satPerKvB % COIN).toString().padStart(8, '0')} BTC/kvB`;
}

/**
 * Whether the package's clusters (the members, linked to each other and to the pool, with
 * `evicted` gone) stay within -limitclustercount and -limitclustersize.
 */
export function packageClustersWithinLimits(entries: readonly MempoolEntry[], evicted: ReadonlySet<MempoolEntry>, policy: MempoolPolicyOptions): boolean {
  const packageChildren = new Map<MempoolEntry, MempoolEntry[]>();
  for (const e of entries) for (const p of e.parents) packageChildren.set(p, [...(packageChildren.get(p) ?? []), e]);
  const seen = new Set<MempoolEntry>();
  for (const start of entries) {
    if (seen.has(start)) continue;
    let count = 0;
    let weight = 0;
    const todo = [start];
    seen.add(start);
    while (todo.length > 0) {
      const e = todo.pop()!;
      count++;
      weight += e.adjustedWeight;
      for (const next of [...e.parents, ...e.children, ...(packageChildren.get(e) ?? [])]) {
        if (!evicted.has(next) && !seen.has(next)) {
          seen.add(next);
          todo.push(next);
        }
      }
    }
    if (clusterTooLarge(count, weight, policy)) return false;
  }
  return true;
}

/** Core's PackageRBFChecks: the package state when the package may not replace what it conflicts with. */
export function packageRbfFailure(pool: TxMempool, txs: readonly Transaction[], checked: readonly PrecheckedTx[], totalFee: bigint, totalVsize: number, policy: MempoolPolicyOptions): { state: PackageState } | { evicted: Set<MempoolEntry>; conflicts: Set<MempoolEntry> } {
  if (checked.length !== 2 || !isChildWithParents(txs)) return { state: policyState('package RBF failed: package must be 1-parent-1-child') };
  for (const c of checked) {
    if ([...c.entry.parents].some((p) => pool.get(p.txid) === p)) return { state: policyState('package RBF failed: new transaction cannot have mempool ancestors') };
  }
  const conflicts = new Set<MempoolEntry>();
  for (const c of checked) for (const e of c.conflicts) conflicts.add(e);
  const [parent, child] = checked as [PrecheckedTx, PrecheckedTx];
  const tooMany = tooManyReplacements(pool, child.entry.txid, conflicts);
  if (tooMany) return { state: policyState('package RBF failed: too many potential replacements', tooMany) };
  const evicted = evictedBy(pool, conflicts);
  let conflictingFees = 0n;
  for (const e of evicted) conflictingFees += e.modifiedFee;
  const underpaid = paysForRbfFailure(conflictingFees, totalFee, totalVsize, policy, child.entry.txid);
  if (underpaid) return { state: policyState('package RBF failed: insufficient anti-DoS fees', underpaid) };
  const parentRate = feeRatePerKvB(parent.entry.modifiedFee, parent.entry.vsize);
  const packageRate = feeRatePerKvB(totalFee, totalVsize);
  if (packageRate <= parentRate) {
    return {
      state: policyState(
        'package RBF failed: package feerate is less than or equal to parent feerate',
        `package feerate ${feerateText(packageRate)} <= parent feerate is ${feerateText(parentRate)}`,
      ),
    };
  }
  if (!packageClustersWithinLimits([parent.entry, child.entry], evicted, policy)) return { state: policyState('too-large-cluster') };
  if (!improvesFeerateDiagram(pool, [parent.entry, child.entry], conflicts, evicted)) {
    return { state: policyState('package RBF failed: insufficient feerate: does not improve feerate diagram') };
  }
  return { evicted, conflicts };
}
