/**
 * Core's MemPoolAccept::PreChecks for one transaction (v31): everything short of running
 * scripts, in Core's order and with its reject reasons — context-free checks,
 * standardness, finality, duplicates, conflicts, inputs (UTXO set or pool), BIP68 locks,
 * input amounts, input and witness standardness, sigops, dust and fee floors, cluster
 * limits and replacement rules. Synchronous and pure over the pool and a chain view.
 */
import {
  checkTransaction,
  checkTxInputs,
  calculateSequenceLocks,
  evaluateSequenceLocks,
  isFinalTx,
  LOCKTIME_VERIFY_SEQUENCE,
  type Coin,
  type IndexedHeader,
} from '../consensus/index.js';
import type { OutPoint, Transaction, TxOut } from '../primitives/index.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS, transactionSigOpCost } from '../script/index.js';
import type { MempoolEntry } from './entry.js';
import { adjustedWeight, feeForSize, virtualSize } from './fee-rate.js';
import { MAX_STANDARD_TX_SIGOPS_COST, MIN_STANDARD_TX_NONWITNESS_SIZE } from './policy-limits.js';
import type { MempoolPolicyOptions } from './policy-options.js';
import { MEMPOOL_HEIGHT, poolCoin } from './pool-coins.js';
import type { TxMempool } from './pool.js';
import { clusterLimitsExceeded, replacementChecks } from './replacement.js';
import { areInputsStandard, isWitnessStandard } from './standard-inputs.js';
import { dustOutputs, isStandardTx } from './standard-tx.js';
import { singleTrucChecks } from './truc-policy.js';

/** The chain as acceptance needs it: the tip the next block builds on, and the UTXO set. */
export interface ChainContext {
  readonly tip: IndexedHeader;
  coin(outpoint: OutPoint): Coin | undefined;
}

export interface AcceptArgs {
  readonly policy: MempoolPolicyOptions;
  /** Node time (mockable), the entry's time. */
  readonly now: number;
  /** Transactions from disconnected blocks skip the fee floors (Core's bypass_limits). */
  readonly bypassLimits: boolean;
  readonly unbroadcast: boolean;
  /** False for package test-accepts: a conflict is refused instead of evaluated for replacement. */
  readonly allowReplacement: boolean;
  /** The pool's GetMinFee (sat/kvB), asked only when the check is reached: asking decays it. */
  readonly mempoolMinFee?: () => bigint;
  /**
   * One of several transactions checked together (Core's AcceptMultipleTransactions): no
   * TRUC sibling eviction, and replacement and cluster limits are left to the package checks.
   */
  readonly packageMember?: boolean;
  /** The fee floors are checked on the package's feerate instead (Core's m_package_feerates). */
  readonly packageFeerates?: boolean;
  /** Submitted as part of a package (submitpackage): the fee estimator leaves it out. */
  readonly packageSubmission?: boolean;
  /** Core's client maxfeerate (sat/kvB): a higher modified feerate is refused ("max feerate exceeded"). */
  readonly clientMaxFeerate?: bigint;
}

/** A refusal with Core's TxValidationResult where callers depend on it. */
export interface AcceptFailure {
  readonly ok: false;
  /** TX_MISSING_INPUTS: sendrawtransaction answers -25, testmempoolaccept "missing-inputs". */
  readonly missingInputs: boolean;
  readonly reason: string;
  readonly debug: string;
}

/** A transaction that passed every check but its scripts. */
export interface PrecheckedTx {
  readonly ok: true;
  readonly entry: MempoolEntry;
  readonly spentOutputs: readonly TxOut[];
  /** Pool entries the replacement evicts (direct conflicts and their descendants). */
  readonly evicted: readonly MempoolEntry[];
  /** The pool transactions it conflicts with directly (and a TRUC sibling it would evict). */
  readonly conflicts: ReadonlySet<MempoolEntry>;
}

export function refuse(reason: string, debug = '', missingInputs = false): AcceptFailure {
  return { ok: false, missingInputs, reason, debug };
}

/**
 * Core's CheckFeeRate: the fee floors a transaction — or a package, on its total size and
 * modified fees — must meet: the pool's minimum fee (GetMinFee, sat/kvB; asking for it
 * decays it, so callers ask only here), then -minrelaytxfee.
 */
export function feeRateFailure(policy: MempoolPolicyOptions, vsize: number, modifiedFee: bigint, mempoolMinFee = 0n): AcceptFailure | null {
  const rejectFee = feeForSize(mempoolMinFee, vsize);
  if (rejectFee > 0n && modifiedFee < rejectFee) return refuse('mempool min fee not met', `${modifiedFee} < ${rejectFee}`);
  const minFee = feeForSize(policy.minRelayTxFee, vsize);
  return modifiedFee < minFee ? refuse('min relay fee not met', `${modifiedFee} < ${minFee}`) : null;
}

export function preChecks(pool: TxMempool, tx: Transaction, chain: ChainContext, args: AcceptArgs): AcceptFailure | PrecheckedTx {
  const policy = args.policy;
  const failure = checkTransaction(tx);
  if (failure) return refuse(failure);
  // A coinbase is only valid in a block.
  if (tx.isCoinbase()) return refuse('coinbase');
  if (policy.requireStandard) {
    const reason = isStandardTx(tx, policy);
    if (reason) return refuse(reason);
  }
  // Transactions of 64 bytes could pass for inner merkle nodes (CVE-2017-12842).
  if (tx.baseSize < MIN_STANDARD_TX_NONWITNESS_SIZE) return refuse('tx-size-small');
  const tip = chain.tip;
  const nextHeight = tip.height + 1;
  // Only transactions the next block could include: nLockTime against the tip's median time past.
  if (!isFinalTx(tx, nextHeight, tip.medianTimePast())) return refuse('non-final');
  if (pool.hasWtxid(tx.wtxidHex)) return refuse('txn-already-in-mempool');
  if (pool.get(tx.txidHex)) return refuse('txn-same-nonwitness-data-in-mempool');

  const conflicts = new Set<MempoolEntry>();
  for (const input of tx.inputs) {
    const spender = pool.spenderOf(input.prevout);
    if (!spender) continue;
    if (!args.allowReplacement) return refuse('bip125-replacement-disallowed');
    conflicts.add(spender);
  }

  const coins: Coin[] = [];
  for (const input of tx.inputs) {
    const coin = poolCoin(pool, input.prevout) ?? chain.coin(input.prevout);
    if (!coin) {
      // Missing inputs because the transaction itself is already confirmed?
      for (let vout = 0; vout < tx.outputs.length; vout++) {
        if (chain.coin({ txid: tx.txid, vout })) return refuse('txn-already-known');
      }
      return refuse('bad-txns-inputs-missingorspent', '', true);
    }
    coins.push(coin);
  }

  const prevHeights = coins.map((coin) => (coin.height === MEMPOOL_HEIGHT ? nextHeight : coin.height));
  if (!evaluateSequenceLocks(tip, calculateSequenceLocks(tx, LOCKTIME_VERIFY_SEQUENCE, prevHeights, tip))) return refuse('non-BIP68-final');

  const inputs = checkTxInputs(tx, coins, nextHeight);
  if (!inputs.ok) return refuse(inputs.reason, inputs.debug, inputs.result === 'missing-inputs');
  const fee = inputs.fee;
  // Core's ApplyDelta: prioritisetransaction's delta counts in every policy check below.
  const modifiedFee = fee + pool.deltaOf(tx.txidHex);
  const spentOutputs = coins.map((coin) => coin.output);

  if (policy.requireStandard && !areInputsStandard(tx, spentOutputs)) return refuse('bad-txns-nonstandard-inputs');
  if (tx.hasWitness && policy.requireStandard && !isWitnessStandard(tx, spentOutputs)) return refuse('bad-witness-nonstandard');

  const sigOpCost = transactionSigOpCost(tx, spentOutputs, STANDARD_SCRIPT_VERIFY_FLAGS);
  const vsize = virtualSize(tx.weight, sigOpCost, policy.bytesPerSigop);
  // Ephemeral dust: a dust output is only allowed in a transaction with no incentive to mine it alone.
  if (policy.requireStandard && (fee !== 0n || modifiedFee !== 0n) && dustOutputs(tx, policy.dustRelayFee).length > 0) {
    return refuse('dust', 'tx with dust output must be 0-fee');
  }
  if (sigOpCost > MAX_STANDARD_TX_SIGOPS_COST) return refuse('bad-txns-too-many-sigops', `${sigOpCost}`);
  // A package's members are held to the floors on the package feerate instead.
  if (!args.bypassLimits && !args.packageFeerates) {
    const floor = feeRateFailure(policy, vsize, modifiedFee, args.mempoolMinFee?.());
    if (floor) return floor;
  }

  const parents = pool.parentsOf(tx.inputs.map((input) => input.prevout));
  const entry: MempoolEntry = {
    tx,
    txid: tx.txidHex,
    fee,
    modifiedFee,
    vsize,
    adjustedWeight: adjustedWeight(tx.weight, sigOpCost, policy.bytesPerSigop),
    sigOpCost,
    time: args.now,
    height: tip.height,
    sequence: args.bypassLimits ? 0 : pool.sequence,
    spentOutputs,
    spendsCoinbase: coins.some((coin) => coin.coinbase),
    unbroadcast: args.unbroadcast,
    parents,
    children: new Set(),
  };

  let siblingEviction = false;
  if (!args.bypassLimits) {
    const truc = singleTrucChecks(pool, tx, [...parents], new Set([...conflicts].map((c) => c.txid)), vsize);
    if (truc) {
      if (!truc.sibling || !args.allowReplacement || args.packageMember) return refuse('TRUC-violation', truc.debug);
      conflicts.add(truc.sibling);
      siblingEviction = true;
    }
  }

  // Spending an output of a transaction it replaces would make it depend on its own conflict
  // (package RBF refuses any pooled ancestor instead).
  if (conflicts.size > 0 && !args.packageMember) {
    const conflictIds = new Set([...conflicts].map((c) => c.txid));
    for (const parent of parents) {
      for (const ancestor of pool.ancestors(parent)) {
        if (conflictIds.has(ancestor.txid)) {
          return refuse('bad-txns-spends-conflicting-tx', `${entry.txid} spends conflicting transaction ${ancestor.txid}`);
        }
      }
    }
  }

  if (args.packageMember) return { ok: true, entry, spentOutputs, evicted: [], conflicts };
  if (conflicts.size === 0) {
    if (clusterLimitsExceeded(entry, new Set(), policy)) return refuse('too-large-cluster');
    return { ok: true, entry, spentOutputs, evicted: [], conflicts };
  }
  const replacement = replacementChecks(pool, entry, conflicts, policy, siblingEviction);
  if (!replacement.ok) return replacement;
  return { ok: true, entry, spentOutputs, evicted: replacement.evicted, conflicts };
}
