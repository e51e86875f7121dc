/**
 * The node's mempool: the pool, kept in step with the chainstate, and the operations
 * the RPCs need. Every operation runs inside the chainstate's queue (Core's cs_main), so
 * the UTXO set and tip cannot move while a transaction is checked; every change is
 * journalled by the pool and committed into the LMDB mempool table — with the block
 * commit for block-driven changes, on its own for submissions.
 */
import type { BlockIndexEntry, Chainstate, ChainMempoolSync, MempoolCommit } from '../chain/index.js';
import { blockScriptFlags } from '../consensus/index.js';
import { hashToHex, parseTransaction, type ParsedBlock, type Transaction } from '../primitives/index.js';
import type { MempoolEntryRecord, MempoolStatsRecord } from '../storage/index.js';
import { selectForBlock, type BlockSelection } from './block-selection.js';
import { formatFeeRate } from './fee-rate.js';
import type { MempoolEntry } from './entry.js';
import type { MempoolPolicyOptions } from './policy-options.js';
import { TxMempool } from './pool.js';
import { preChecks, type AcceptArgs, type AcceptFailure, type ChainContext } from './prechecks.js';
import { minableAfterReorg } from './reorg-filter.js';
import { packageFormError } from './package-form.js';
import { consensusScriptChecks, policyScriptChecks } from './script-checks.js';
import type { MempoolEventListener } from './pool-events.js';
import { RollingMinFee } from './rolling-min-fee.js';
import { trimToSize } from './trim.js';

/** Core's MAX_FEE_ESTIMATION_TIP_AGE: with an older tip the node is not current for fee estimation. */
const MAX_FEE_ESTIMATION_TIP_AGE_SECONDS = 3 * 60 * 60;

export type AcceptResult = { readonly ok: true; readonly entry: MempoolEntry } | AcceptFailure;

export interface PackageTestResult {
  /** Core's package-error (a package that is not well formed): then no transaction has a result. */
  readonly packageError?: string;
  readonly results: readonly (AcceptResult | undefined)[];
}

export class NodeMempool implements ChainMempoolSync {
  readonly pool = new TxMempool();
  /** Transactions of disconnected blocks, earliest first (Core's DisconnectedBlockTransactions). */
  private disconnected: Transaction[] = [];
  /**
   * Told of every transaction a submission asks to be relayed: one a peer sent that entered
   * the pool, and one sendrawtransaction broadcast (also when it was already pooled, as
   * Core's BroadcastTransaction relays it again). The P2P layer announces them.
   */
  readonly relayListeners: ((entry: MempoolEntry) => void)[] = [];
  /** Told of additions, removals and block confirmations (the fee estimator). */
  readonly eventListeners: MempoolEventListener[] = [];
  /** Core's rollingMinimumFeeRate and its bookkeeping. */
  private readonly rollingMinFee = new RollingMinFee();
  /** The stats last handed to the table (none yet: the first commit writes them). */
  private storedStats: MempoolStatsRecord | undefined;

  constructor(
    private readonly chain: Chainstate,
    readonly policy: MempoolPolicyOptions,
    private readonly log: (message: string) => void = () => {},
    /** Debug-category lines (Core's LogDebug), when the node logs them. */
    private readonly debugLog?: (category: string, message: string) => void,
  ) {}

  private context(): ChainContext {
    const coins = this.chain.coins;
    return { tip: this.chain.tip!, coin: (outpoint) => coins.getCoin(outpoint) };
  }

  private args(overrides: Partial<AcceptArgs> = {}): AcceptArgs {
    return { policy: this.policy, now: this.chain.now(), bypassLimits: false, unbroadcast: false, allowReplacement: true, mempoolMinFee: () => this.minFee(), ...overrides };
  }

  /** Core's GetMinFee (sat/kvB): the rolling minimum fee, decayed as of now. Call it inside the chain's queue. */
  minFee(): bigint {
    return this.rollingMinFee.minFee({
      now: this.chain.now(),
      usage: this.pool.dynamicMemoryUsage(),
      maxMempoolBytes: this.policy.maxMempoolBytes,
      incrementalRelayFee: this.policy.incrementalRelayFee,
    });
  }

  /**
   * Core's IsCurrentForFeeEstimation: out of initial block download, a tip less than three
   * hours old and no more than one block behind the best header.
   */
  private currentForFeeEstimation(): boolean {
    const tip = this.chain.tip!;
    if (this.chain.isInitialBlockDownload()) return false;
    if (tip.time < this.chain.now() - MAX_FEE_ESTIMATION_TIP_AGE_SECONDS) return false;
    const bestHeader = this.chain.tree.bestHeader;
    if (bestHeader && tip.height < bestHeader.height - 1) return false;
    return true;
  }

  private removed(entries: readonly MempoolEntry[]): void {
    for (const entry of entries) for (const l of this.eventListeners) l.transactionRemoved(entry);
  }

  /** The entry and its descendants leave the pool; listeners hear of each (Core's removeRecursive). */
  private removeWithDescendantsNotified(entry: MempoolEntry): void {
    const gone = this.pool.descendants(entry);
    for (const e of gone) this.pool.remove(e);
    this.removed(gone);
  }

  /**
   * MemPoolAccept for one transaction; `testOnly` stops before changing the pool, and a
   * trial addition (`announce` false) is not told to the listeners. Caller holds the chain queue.
   */
  private async acceptLocked(tx: Transaction, args: AcceptArgs, testOnly: boolean, announce = true): Promise<AcceptResult> {
    const pre = preChecks(this.pool, tx, this.context(), args);
    if (!pre.ok) return pre;
    const scripts = await policyScriptChecks(this.chain.scriptChecker, tx, pre.spentOutputs);
    if (scripts) return scripts;
    const tipFlags = blockScriptFlags(this.chain.tip!, this.chain.params);
    const consensus = await consensusScriptChecks(this.chain.scriptChecker, tx, pre.spentOutputs, tipFlags, this.log);
    if (consensus) return consensus;
    if (!testOnly) {
      for (const e of pre.evicted) this.pool.remove(e);
      this.pool.add(pre.entry);
      if (announce) this.removed(pre.evicted);
      // Core's Finalize: a single acceptance limits the pool at once, and fails if that took it.
      if (announce && !args.bypassLimits) {
        this.limitMempoolSize();
        if (this.pool.get(pre.entry.txid) !== pre.entry) {
          this.pool.unannouncedAddition();
          return { ok: false, missingInputs: false, reason: 'mempool full', debug: '' };
        }
      }
      if (announce && this.eventListeners.length > 0) {
        const event = {
          entry: pre.entry,
          limitsBypassed: args.bypassLimits,
          submittedInPackage: false,
          chainstateIsCurrent: this.currentForFeeEstimation(),
          hasNoPoolParents: pre.entry.parents.size === 0,
        };
        for (const l of this.eventListeners) l.transactionAdded(event);
      }
    }
    return { ok: true, entry: pre.entry };
  }

  /**
   * testmempoolaccept: one transaction is tested alone (replacements allowed); several are a
   * package — well-formed, parents first, no conflicts — each tested with the earlier ones
   * provisionally in the pool. As in Core, a failure reports only the failing transaction.
   */
  testAcceptPackage(txs: readonly Transaction[]): Promise<PackageTestResult> {
    return this.chain.exclusive(async () => {
      if (txs.length === 1) return { results: [await this.acceptLocked(txs[0]!, this.args(), true)] };
      const packageError = packageFormError(txs);
      if (packageError) return { packageError, results: [] };
      const checkpoint = this.pool.checkpoint();
      const added: MempoolEntry[] = [];
      const results: (AcceptResult | undefined)[] = [];
      try {
        for (let i = 0; i < txs.length; i++) {
          const result = await this.acceptLocked(txs[i]!, this.args({ allowReplacement: false }), false, false);
          if (!result.ok) {
            const only: (AcceptResult | undefined)[] = txs.map(() => undefined);
            only[i] = result;
            return { results: only };
          }
          added.push(result.entry);
          results.push(result);
        }
        return { results };
      } finally {
        this.pool.rollback(added, checkpoint);
      }
    });
  }

  /**
   * Core's BroadcastTransaction without peers: 'in-utxo-set' when an output of the
   * transaction is unspent in the chain, the pool's copy when the txid is already there,
   * otherwise acceptance — first as a test when `maxFee` is set, refusing a fee above it.
   */
  broadcast(tx: Transaction, maxFee: bigint): Promise<AcceptResult | { ok: false; alreadyInUtxoSet: true } | { ok: false; maxFeeExceeded: true }> {
    return this.chain.exclusive(async () => {
      const coins = this.chain.coins;
      for (let vout = 0; vout < tx.outputs.length; vout++) {
        if (coins.getCoin({ txid: tx.txid, vout })) return { ok: false as const, alreadyInUtxoSet: true as const };
      }
      const pooled = this.pool.get(tx.txidHex);
      if (pooled) {
        this.relay(pooled);
        return { ok: true as const, entry: pooled };
      }
      const args = this.args({ unbroadcast: true });
      if (maxFee > 0n) {
        const test = await this.acceptLocked(tx, args, true);
        if (!test.ok) return test;
        if (test.entry.fee > maxFee) return { ok: false as const, maxFeeExceeded: true as const };
      }
      const result = await this.acceptLocked(tx, args, false);
      this.chain.commitMempoolChanges();
      if (result.ok) this.relay(result.entry);
      return result;
    });
  }

  /**
   * A transaction a peer relayed (Core's ProcessTransaction from net_processing): accepted
   * under the same rules as a submission, without the unbroadcast mark; on success the
   * relay listeners hear of it.
   */
  acceptFromPeer(tx: Transaction): Promise<AcceptResult> {
    return this.chain.exclusive(async () => {
      const result = await this.acceptLocked(tx, this.args(), false);
      // A refusal may have changed the pool too (a trim that took the newcomer).
      if (result.ok || this.pool.dirty) this.chain.commitMempoolChanges();
      if (result.ok) this.relay(result.entry);
      return result;
    });
  }

  /**
   * Core's LimitMempoolSize: expired transactions leave (-mempoolexpiry), then the worst
   * chunks while the pool is over -maxmempool, each raising the rolling minimum fee.
   * Listeners hear of every removal (Core's EXPIRY and SIZELIMIT reasons).
   */
  private limitMempoolSize(): void {
    const expired = this.pool.expire(this.chain.now() - this.policy.expirySeconds);
    if (expired.length > 0) {
      this.removed(expired);
      this.debugLog?.('mempool', `Expired ${expired.length} transactions from the memory pool`);
    }
    const trimmed = trimToSize(this.pool, this.policy.maxMempoolBytes, this.policy.incrementalRelayFee, this.rollingMinFee);
    if (trimmed.removed.length === 0) return;
    this.removed(trimmed.removed);
    if (trimmed.maxRemovedRate > 0n) {
      this.debugLog?.('mempool', `Removed ${trimmed.removed.length} txn, rolling minimum fee bumped to ${formatFeeRate(trimmed.maxRemovedRate)}`);
    }
  }

  private relay(entry: MempoolEntry): void {
    for (const listener of this.relayListeners) listener(entry);
  }

  /** Block template selection from the pool as it is now; call it inside the chain's queue. */
  selectForBlockLocked(blockMinTxFee: bigint): BlockSelection {
    return selectForBlock(this.pool, blockMinTxFee);
  }

  // ------------------------------------------------------------ chain sync (ChainMempoolSync)

  /**
   * Core's removeForBlock: confirmed transactions leave, and whatever spent their inputs
   * with them (conflicts, told to the listeners first); then the listeners hear of the
   * block with the pool transactions it confirmed — every block, as the fee estimator
   * counts blocks even when none of its transactions were pooled.
   */
  blockConnected(block: ParsedBlock, entry: BlockIndexEntry): void {
    const confirmedEntries: MempoolEntry[] = [];
    // Nothing pooled and no reorg pending: nothing to remove (every block of an IBD or an
    // import; the lookups below cost a txid-to-hex per transaction).
    if (this.pool.size > 0 || this.disconnected.length > 0 || this.pool.prioritisations().size > 0) {
      const confirmed = new Set<string>();
      for (const tx of block.transactions) {
        confirmed.add(tx.txidHex);
        this.pool.clearPrioritisation(tx.txidHex);
        const pooled = this.pool.get(tx.txidHex);
        if (pooled) {
          this.pool.remove(pooled);
          confirmedEntries.push(pooled);
        }
        if (tx.isCoinbase()) continue;
        for (const input of tx.inputs) {
          const spender = this.pool.spenderOf(input.prevout);
          if (spender && spender.txid !== tx.txidHex) this.removeWithDescendantsNotified(spender);
        }
      }
      if (this.disconnected.length > 0) this.disconnected = this.disconnected.filter((tx) => !confirmed.has(tx.txidHex));
    }
    for (const l of this.eventListeners) l.removedForBlock(confirmedEntries, entry.height);
    // Core's removeForBlock: the rolling minimum fee may decay from now on.
    this.rollingMinFee.blockConnected(this.chain.now());
  }

  blockDisconnected(block: ParsedBlock): void {
    // Blocks leave tip first: each one's transactions go before those of the blocks after it.
    this.disconnected = [...block.transactions.filter((tx) => !tx.isCoinbase()), ...this.disconnected];
  }

  /** Core's MaybeUpdateMempoolForReorg(fAddToMempool=true). */
  async reorgFinished(): Promise<void> {
    const queued = this.disconnected;
    this.disconnected = [];
    for (const tx of queued) {
      const result = await this.acceptLocked(tx, this.args({ bypassLimits: true }), false);
      if (!result.ok) this.removeSpendersOf(tx);
    }
    const context = this.context();
    for (const entry of [...this.pool.entries()]) {
      if (this.pool.get(entry.txid) === entry && !minableAfterReorg(this.pool, entry, context)) this.removeWithDescendantsNotified(entry);
    }
    // Core's MaybeUpdateMempoolForReorg ends with LimitMempoolSize.
    this.limitMempoolSize();
  }

  /** A transaction that did not come back: pool transactions spending it are orphans now. */
  private removeSpendersOf(tx: Transaction): void {
    tx.outputs.forEach((_, vout) => {
      const spender = this.pool.spenderOf({ txid: tx.txid, vout });
      if (spender) this.removeWithDescendantsNotified(spender);
    });
  }

  /** The pool's table changes with its usage and rolling fee state, when any of them changed. */
  takeChanges(): MempoolCommit | undefined {
    const rolling = this.rollingMinFee.state;
    const stats: MempoolStatsRecord = {
      usage: this.pool.dynamicMemoryUsage(),
      rollingMinFeeRate: rolling.rate,
      lastRollingFeeUpdate: rolling.lastUpdate,
      blockSinceLastRollingFeeBump: rolling.blockSinceBump,
    };
    const stored = this.storedStats;
    const statsChanged =
      !stored ||
      stored.usage !== stats.usage ||
      stored.rollingMinFeeRate !== stats.rollingMinFeeRate ||
      stored.lastRollingFeeUpdate !== stats.lastRollingFeeUpdate ||
      stored.blockSinceLastRollingFeeBump !== stats.blockSinceLastRollingFeeBump;
    if (!this.pool.dirty && !statsChanged) return undefined;
    this.storedStats = stats;
    return { ...this.pool.takeChanges(), stats };
  }

  // ------------------------------------------------------------ persistence

  /**
   * Start-up: the table's entries offered to the pool again (Core's LoadMempool), parents
   * first, each re-checked against the chainstate with its original time; what fails is
   * dropped from the table. With `load` false (-persistmempool=0) the table is emptied.
   */
  reload(saved: readonly { txid: Uint8Array; record: MempoolEntryRecord }[], load: boolean): Promise<{ accepted: number; failed: number; expired: number }> {
    return this.chain.exclusive(async () => {
      let accepted = 0;
      let failed = 0;
      let expired = 0;
      // The table is rewritten to exactly the reloaded pool: every saved entry goes unless it comes back.
      this.pool.markDropped(saved.map((s) => hashToHex(s.txid)));
      if (load) {
        const cutoff = this.chain.now() - this.policy.expirySeconds;
        for (const { record } of parentsFirst(saved)) {
          // Core's LoadMempool: an entry past -mempoolexpiry is counted, not offered.
          if (record.time <= cutoff) {
            expired++;
            continue;
          }
          const tx = parseTransaction(record.tx);
          const result = await this.acceptLocked(tx, this.args({ now: record.time, unbroadcast: record.unbroadcast }), false);
          if (result.ok) accepted++;
          else failed++;
        }
      }
      this.chain.commitMempoolChanges();
      return { accepted, failed, expired };
    });
  }
}

/** Saved entries ordered so every in-set parent comes before its children (entry order otherwise). */
function parentsFirst<T extends { txid: Uint8Array; record: MempoolEntryRecord }>(saved: readonly T[]): T[] {
  const byId = new Map(saved.map((s) => [hashToHex(s.txid), s]));
  const sorted = [...saved].sort((a, b) => a.record.sequence - b.record.sequence);
  const out: T[] = [];
  const done = new Set<string>();
  const visit = (s: T): void => {
    const id = hashToHex(s.txid);
    if (done.has(id)) return;
    done.add(id);
    for (const input of parseTransaction(s.record.tx).inputs) {
      const parent = byId.get(hashToHex(input.prevout.txid));
      if (parent) visit(parent);
    }
    out.push(s);
  };
  for (const s of sorted) visit(s);
  return out;
}
