/**
 * Core v31's package acceptance (validation.cpp AcceptPackage, AcceptSubPackage,
 * AcceptMultipleTransactions; package RBF in package-rbf.ts): several transactions checked together —
 * each one's PreChecks with the earlier ones' outputs available, then the package's TRUC
 * rules, the fee floors on the package feerate (CPFP), package RBF, cluster limits,
 * ephemeral dust spends and scripts — and, for submitpackage, the child-with-parents
 * evaluation: transactions already pooled are left out, each other one is tried alone
 * first, and only those failing on their feerate (or on inputs a failed parent would have
 * made) are retried together. The caller holds the chain queue.
 */
import type { Coin } from '../consensus/index.js';
import { hashToHex, type Transaction, type TxOut } from '../primitives/index.js';
import { outpointId, type MempoolEntry } from './entry.js';
import { ephemeralSpendsFailure } from './ephemeral-policy.js';
import { feeRatePerKvB } from './fee-rate.js';
import { isChildWithParents, packageFormError } from './package-form.js';
import type { MempoolPolicyOptions } from './policy-options.js';
import { MEMPOOL_HEIGHT } from './pool-coins.js';
import type { TxMempool } from './pool.js';
import { feeRateFailure, preChecks, refuse, type AcceptArgs, type AcceptFailure, type ChainContext, type PrecheckedTx } from './prechecks.js';
import { packageClustersWithinLimits, packageRbfFailure, policyState, type PackageState } from './package-rbf.js';
import { packageTrucChecks } from './truc-policy.js';

export type { PackageState } from './package-rbf.js';

/** One transaction's acceptance, as NodeMempool's single-transaction path answers it. */
export type SingleAcceptResult = { readonly ok: true; readonly entry: MempoolEntry; readonly replaced: readonly MempoolEntry[] } | AcceptFailure;

/** Core's MempoolAcceptResult for a package member. */
export type PackageTxResult =
  | {
      readonly kind: 'valid';
      readonly entry: MempoolEntry;
      readonly replaced: readonly MempoolEntry[];
      /** sat/kvB: the package feerate, or the transaction's own modified feerate. */
      readonly effectiveFeerate: bigint;
      /** The wtxids whose fees and sizes the effective feerate counts. */
      readonly effectiveIncludes: readonly string[];
    }
  | { readonly kind: 'mempool-entry'; readonly vsize: number; readonly fee: bigint }
  | { readonly kind: 'different-witness'; readonly otherWtxid: string }
  | { readonly kind: 'invalid'; readonly failure: AcceptFailure };

export interface PackageOutcome {
  /** Null when the package is valid (Core's PCKG_RESULT_UNSET). */
  readonly state: PackageState | null;
  /** By wtxid; members that were not evaluated have none. */
  readonly results: ReadonlyMap<string, PackageTxResult>;
}

/** What package acceptance needs of the node mempool. */
export interface PackageHost {
  readonly pool: TxMempool;
  readonly policy: MempoolPolicyOptions;
  context(): ChainContext;
  args(overrides?: Partial<AcceptArgs>): AcceptArgs;
  /** The single-transaction path (Core's AcceptSingleTransaction) with these arguments. */
  acceptSingle(tx: Transaction, args: AcceptArgs, testOnly: boolean): Promise<SingleAcceptResult>;
  /** Policy, then consensus, script checks: the failure or null. */
  scriptChecks(tx: Transaction, spentOutputs: readonly TxOut[]): Promise<AcceptFailure | null>;
  /** Evicts `evicted`, adds `entries` (parents first) and tells the listeners. */
  submit(entries: readonly MempoolEntry[], evicted: readonly MempoolEntry[], args: AcceptArgs): void;
  /** Core's LimitMempoolSize. */
  limit(): void;
}

export interface MultipleMode {
  readonly testOnly: boolean;
  /** submitpackage: fee floors on the package feerate, replacements allowed (package RBF). */
  readonly packageFeerates: boolean;
  /** Core's client maxfeerate (sat/kvB) on each transaction's own modified feerate. */
  readonly clientMaxFeerate?: bigint;
}

const TX_FAILED: PackageState = { level: 'tx', reason: 'transaction failed', debug: '' };
const invalid = (failure: AcceptFailure): PackageTxResult => ({ kind: 'invalid', failure });

/** Core's TX_RECONSIDERABLE: refusals on feerate alone, which a package's feerate may undo. */
const RECONSIDERABLE_REASONS = new Set(['min relay fee not met', 'mempool min fee not met', 'insufficient fee', 'mempool full', 'replacement-failed']);

export function reconsiderable(failure: AcceptFailure): boolean {
  return RECONSIDERABLE_REASONS.has(failure.reason.replace(' (including sibling eviction)', ''));
}

/**
 * Core's AcceptMultipleTransactions: testmempoolaccept's packages (`testOnly`, each
 * transaction on its own feerate, no replacement) and submitpackage's package evaluation.
 */
export async function acceptMultiple(host: PackageHost, txs: readonly Transaction[], mode: MultipleMode): Promise<PackageOutcome> {
  const form = packageFormError(txs);
  if (form) return { state: policyState(form), results: new Map() };
  const { pool, policy } = host;
  const chain = host.context();
  // Core's PackageAddTransaction: each member's outputs are coins for the members after it.
  const created = new Map<string, Coin>();
  const context: ChainContext = { tip: chain.tip, coin: (o) => created.get(outpointId(hashToHex(o.txid), o.vout)) ?? chain.coin(o) };
  const args = host.args({ allowReplacement: !mode.testOnly, packageMember: true, packageFeerates: mode.packageFeerates });
  const checked: PrecheckedTx[] = [];
  const byTxid = new Map<string, MempoolEntry>();
  for (const tx of txs) {
    const pre = preChecks(pool, tx, context, args);
    if (!pre.ok) return { state: TX_FAILED, results: new Map([[tx.wtxidHex, invalid(pre)]]) };
    if (mode.clientMaxFeerate !== undefined && feeRatePerKvB(pre.entry.modifiedFee, pre.entry.vsize) > mode.clientMaxFeerate) {
      return { state: TX_FAILED, results: new Map([[tx.wtxidHex, invalid(refuse('max feerate exceeded'))]]) };
    }
    // Members spending earlier members: linked now, so cluster and diagram checks see the package's edges.
    for (const input of tx.inputs) {
      const parent = byTxid.get(hashToHex(input.prevout.txid));
      if (parent) pre.entry.parents.add(parent);
    }
    tx.outputs.forEach((output, vout) => created.set(outpointId(tx.txidHex, vout), { output, height: MEMPOOL_HEIGHT, coinbase: false }));
    byTxid.set(tx.txidHex, pre.entry);
    checked.push(pre);
  }
  for (const c of checked) {
    const poolParents = [...c.entry.parents].filter((p) => pool.get(p.txid) === p);
    const truc = packageTrucChecks(pool, c.entry.tx, c.entry.vsize, txs, poolParents);
    if (truc) return { state: policyState('TRUC-violation', truc), results: new Map() };
  }
  const totalVsize = checked.reduce((sum, c) => sum + c.entry.vsize, 0);
  const totalFee = checked.reduce((sum, c) => sum + c.entry.modifiedFee, 0n);
  const packageRate = feeRatePerKvB(totalFee, totalVsize);
  const allWtxids = txs.map((tx) => tx.wtxidHex);
  if (mode.packageFeerates) {
    const floor = feeRateFailure(policy, totalVsize, totalFee, args.mempoolMinFee?.());
    if (floor) return { state: TX_FAILED, results: new Map([[txs[txs.length - 1]!.wtxidHex, invalid(floor)]]) };
  }
  let evicted = new Set<MempoolEntry>();
  if (checked.some((c) => c.conflicts.size > 0)) {
    const rbf = packageRbfFailure(pool, txs, checked, totalFee, totalVsize, policy);
    if ('state' in rbf) return { state: rbf.state, results: new Map() };
    evicted = rbf.evicted;
  }
  const entries = checked.map((c) => c.entry);
  if (!packageClustersWithinLimits(entries, evicted, policy)) return { state: policyState('too-large-cluster'), results: new Map() };
  if (policy.requireStandard) {
    const dust = ephemeralSpendsFailure(txs, policy.dustRelayFee, pool);
    if (dust) return { state: { level: 'tx', reason: 'unspent-dust', debug: '' }, results: new Map([[dust.tx.wtxidHex, invalid(dust.failure)]]) };
  }
  const results = new Map<string, PackageTxResult>();
  const replaced = [...evicted];
  for (const c of checked) {
    const scripts = await host.scriptChecks(c.entry.tx, c.spentOutputs);
    if (scripts) {
      results.set(c.entry.tx.wtxidHex, invalid(scripts));
      return { state: TX_FAILED, results };
    }
    results.set(c.entry.tx.wtxidHex, {
      kind: 'valid',
      entry: c.entry,
      replaced: results.size === 0 ? replaced : [],
      effectiveFeerate: mode.packageFeerates ? packageRate : feeRatePerKvB(c.entry.modifiedFee, c.entry.vsize),
      effectiveIncludes: mode.packageFeerates ? allWtxids : [c.entry.tx.wtxidHex],
    });
  }
  if (!mode.testOnly) host.submit(entries, replaced, args);
  return { state: null, results };
}

/** Core's AcceptSubPackage: one transaction goes the single path (sibling eviction allowed), several together. */
async function acceptSubPackage(host: PackageHost, txs: readonly Transaction[], clientMaxFeerate: bigint | undefined): Promise<PackageOutcome> {
  if (txs.length > 1) return acceptMultiple(host, txs, { testOnly: false, packageFeerates: true, clientMaxFeerate });
  const tx = txs[0]!;
  const single = await host.acceptSingle(tx, host.args({ packageSubmission: true, clientMaxFeerate }), false);
  if (!single.ok) return { state: TX_FAILED, results: new Map([[tx.wtxidHex, invalid(single)]]) };
  return { state: null, results: new Map([[tx.wtxidHex, validSingle(single.entry, single.replaced)]]) };
}

function validSingle(entry: MempoolEntry, replaced: readonly MempoolEntry[]): PackageTxResult {
  return { kind: 'valid', entry, replaced, effectiveFeerate: feeRatePerKvB(entry.modifiedFee, entry.vsize), effectiveIncludes: [entry.tx.wtxidHex] };
}

const MEMPOOL_FULL = (): PackageTxResult => invalid(refuse('mempool full'));

/** Core's AcceptPackage (submitpackage): a single transaction, or a child with some of its unconfirmed parents. */
export async function acceptPackage(host: PackageHost, txs: readonly Transaction[], clientMaxFeerate: bigint | undefined): Promise<PackageOutcome> {
  const form = packageFormError(txs);
  if (form) return { state: policyState(form), results: new Map() };
  if (txs.length > 1 && !isChildWithParents(txs)) return { state: policyState('package-not-child-with-parents'), results: new Map() };
  const { pool } = host;
  const final = new Map<string, PackageTxResult>();
  const individual = new Map<string, PackageTxResult>();
  let quitEarly = false;
  const retry: Transaction[] = [];
  for (const tx of txs) {
    const pooled = pool.getByWtxid(tx.wtxidHex);
    const sameTxid = pool.get(tx.txidHex);
    if (pooled) {
      final.set(tx.wtxidHex, { kind: 'mempool-entry', vsize: pooled.vsize, fee: pooled.fee });
    } else if (sameTxid) {
      final.set(tx.wtxidHex, { kind: 'different-witness', otherWtxid: sameTxid.tx.wtxidHex });
    } else {
      const single = await acceptSubPackage(host, [tx], clientMaxFeerate);
      const result = single.results.get(tx.wtxidHex)!;
      if (result.kind === 'valid') {
        final.set(tx.wtxidHex, result);
      } else {
        individual.set(tx.wtxidHex, result);
        const failure = (result as { failure: AcceptFailure }).failure;
        // Only a feerate failure, or inputs a failed parent would have made, can change in a package.
        if (txs.length === 1 || !(reconsiderable(failure) || failure.missingInputs)) quitEarly = true;
        else retry.push(tx);
      }
    }
  }
  const together: PackageOutcome = quitEarly ? { state: TX_FAILED, results: new Map() } : retry.length === 0 ? { state: null, results: new Map() } : await acceptSubPackage(host, retry, clientMaxFeerate);
  let state = together.state;
  host.limit();
  const results = new Map<string, PackageTxResult>();
  for (const tx of txs) {
    const wtxid = tx.wtxidHex;
    const evaluated = together.results.get(wtxid);
    const earlier = final.get(wtxid);
    if (evaluated) {
      const evictedSince = evaluated.kind === 'valid' && !pool.hasWtxid(wtxid);
      if (evictedSince) state = TX_FAILED;
      results.set(wtxid, evictedSince ? MEMPOOL_FULL() : evaluated);
    } else if (earlier) {
      const evictedSince = !pool.get(tx.txidHex);
      if (evictedSince) state = TX_FAILED;
      results.set(wtxid, evictedSince ? MEMPOOL_FULL() : earlier);
    } else {
      const alone = individual.get(wtxid);
      if (alone) results.set(wtxid, alone);
    }
  }
  return { state, results };
}

/** Core's PackageValidationState::ToString: the reason, then ", <debug>" when there is one. */
export function packageStateText(state: PackageState): string {
  return state.debug ? `${state.reason}, ${state.debug}` : state.reason;
}
