/**
 * The node's mempool: the pool, kept in step with the chainstate, and the operations
 * the RPCs need. Every operation runs inside the chainstate's queue (Core's cs_main), so
 * the UTXO set and tip cannot move while a transaction is checked; every change is
 * journalled by the pool and committed into the LMDB mempool table — with the block
 * commit for block-driven changes, on its own for submissions.
 */
import type { BlockIndexEntry, Chainstate, ChainMempoolSync, MempoolCommit } from '../chain/index.js';
import { blockScriptFlags, formatMoney } from '../consensus/index.js';
import { compareBytes, hashToHex, hexToHash, parseTransaction, type ParsedBlock, type Transaction, type TxOut } from '../primitives/index.js';
import type { MempoolEntryRecord, MempoolStatsRecord } from '../storage/index.js';
import type { MempoolFileContent } from './mempool-file.js';
import { loadMempoolFile, type ImportMempoolOptions, type MempoolLoadReport } from './mempool-load.js';
import { dustOutputs } from './standard-tx.js';
import { selectForBlock, type BlockSelection, type BlockWeightLimits } from './block-selection.js';
import { formatFeeRate } from './fee-rate.js';
import { inRemovalOrder, type MempoolEntry } from './entry.js';
import type { MempoolPolicyOptions } from './policy-options.js';
import { TxMempool } from './pool.js';
import { preChecks, refuse, type AcceptArgs, type AcceptFailure, type ChainContext } from './prechecks.js';
import { minableAfterReorg } from './reorg-filter.js';
import { acceptMultiple, acceptPackage, type PackageHost, type PackageOutcome, type SingleAcceptResult } from './package-accept.js';
import { ephemeralSpendsFailure } from './ephemeral-policy.js';
import { feeRatePerKvB } from './fee-rate.js';
import { replacementLogLines } from './replacement-log.js';
import { consensusScriptChecks, policyScriptChecks } from './script-checks.js';
import type { MempoolEventListener } from './pool-events.js';
import { RollingMinFee } from './rolling-min-fee.js';
import { trimToSize } from './trim.js';

/** Core's MAX_FEE_ESTIMATION_TIP_AGE: with an older tip the node is not current for fee estimation. */
const MAX_FEE_ESTIMATION_TIP_AGE_SECONDS = 3 * 60 * 60;

/** A single transaction's acceptance; on success with the pool transactions it replaced. */
export type AcceptResult = SingleAcceptResult;

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
    const gone = inRemovalOrder(this.pool.descendants(entry));
    for (const e of gone) this.pool.remove(e);
    this.removed(gone);
  }

  /** Policy, then consensus (the tip's flags), script checks: Core's PolicyScriptChecks and ConsensusScriptChecks. */
  private async scriptChecks(tx: Transaction, spentOutputs: readonly TxOut[]): Promise<AcceptFailure | null> {
    const policy = await policyScriptChecks(this.chain.scriptChecker, tx, spentOutputs);
    if (policy) return policy;
    return consensusScriptChecks(this.chain.scriptChecker, tx, spentOutputs, blockScriptFlags(this.chain.tip!, this.chain.params), this.log);
  }

  /**
   * MemPoolAccept for one transaction (Core's AcceptSingleTransaction); `testOnly` stops
   * before changing the pool. Caller holds the chain queue.
   */
  private async acceptLocked(tx: Transaction, args: AcceptArgs, testOnly: boolean): Promise<AcceptResult> {
    const pre = preChecks(this.pool, tx, this.context(), args);
    if (!pre.ok) return pre;
    if (args.clientMaxFeerate !== undefined && feeRatePerKvB(pre.entry.modifiedFee, pre.entry.vsize) > args.clientMaxFeerate) return refuse('max feerate exceeded');
    if (this.policy.requireStandard) {
      const dust = ephemeralSpendsFailure([tx], this.policy.dustRelayFee, this.pool);
      if (dust) return dust.failure;
    }
    const scripts = await this.scriptChecks(tx, pre.spentOutputs);
    if (scripts) return scripts;
    if (!testOnly) {
      // Core's RemoveStaged of the conflicts: in txid order, which their R notifications follow.
      const evicted = inRemovalOrder(pre.evicted);
      for (const e of evicted) this.pool.remove(e);
      this.pool.add(pre.entry);
      this.logReplacement(pre.evicted, [pre.entry]);
      this.removed(evicted);
      // Core's Finalize: a single acceptance (not a package's) limits the pool at once, and fails if that took it.
      if (!args.bypassLimits && !args.packageSubmission) {
        this.limitMempoolSize();
        if (this.pool.get(pre.entry.txid) !== pre.entry) return refuse('mempool full');
      }
      const mempoolSequence = this.pool.announceAddition();
      if (this.eventListeners.length > 0) {
        const event = {
          entry: pre.entry,
          limitsBypassed: args.bypassLimits,
          submittedInPackage: args.packageSubmission ?? false,
          chainstateIsCurrent: this.currentForFeeEstimation(),
          hasNoPoolParents: pre.entry.parents.size === 0,
          mempoolSequence,
        };
        for (const l of this.eventListeners) l.transactionAdded(event);
      }
    }
    return { ok: true, entry: pre.entry, replaced: pre.evicted };
  }

  /** What package acceptance uses of this mempool (inside the chain queue). */
  private packageHost(): PackageHost {
    return {
      pool: this.pool,
      policy: this.policy,
      context: () => this.context(),
      args: (overrides) => this.args(overrides),
      acceptSingle: (tx, args, testOnly) => this.acceptLocked(tx, args, testOnly),
      scriptChecks: (tx, spentOutputs) => this.scriptChecks(tx, spentOutputs),
      submit: (entries, evicted, args) => this.submitPackageEntries(entries, evicted, args),
      limit: () => this.limitMempoolSize(),
    };
  }

  private logReplacement(evicted: readonly MempoolEntry[], added: readonly MempoolEntry[]): void {
    if (this.debugLog) for (const line of replacementLogLines(evicted, added)) this.debugLog('mempool', line);
  }

  /** A validated package enters: what it replaces leaves, its transactions enter parents first, the listeners hear of each. */
  private submitPackageEntries(entries: readonly MempoolEntry[], replaced: readonly MempoolEntry[], args: AcceptArgs): void {
    const evicted = inRemovalOrder(replaced);
    for (const e of evicted) this.pool.remove(e);
    this.logReplacement(evicted, entries);
    this.removed(evicted);
    const chainstateIsCurrent = this.currentForFeeEstimation();
    for (const entry of entries) {
      this.pool.add(entry);
      const event = { entry, limitsBypassed: args.bypassLimits, submittedInPackage: true, chainstateIsCurrent, hasNoPoolParents: entry.parents.size === 0, mempoolSequence: this.pool.announceAddition() };
      for (const l of this.eventListeners) l.transactionAdded(event);
    }
  }

  /**
   * testmempoolaccept: one transaction is tested alone (replacements allowed); several are
   * Core's package test-accept (AcceptMultipleTransactions): well formed, each on its own
   * feerate, no replacements, package TRUC and dust rules; the pool is not changed.
   */
  testAcceptPackage(txs: readonly Transaction[]): Promise<PackageOutcome> {
    return this.chain.exclusive(async (): Promise<PackageOutcome> => {
      if (txs.length > 1) return acceptMultiple(this.packageHost(), txs, { testOnly: true, packageFeerates: false });
      const tx = txs[0]!;
      const result = await this.acceptLocked(tx, this.args(), true);
      if (!result.ok) return { state: { level: 'tx', reason: 'transaction failed', debug: '' }, results: new Map([[tx.wtxidHex, { kind: 'invalid', failure: result }]]) };
      const effectiveFeerate = feeRatePerKvB(result.entry.modifiedFee, result.entry.vsize);
      return { state: null, results: new Map([[tx.wtxidHex, { kind: 'valid', entry: result.entry, replaced: result.replaced, effectiveFeerate, effectiveIncludes: [tx.wtxidHex] }]]) };
    });
  }

  /**
   * submitpackage (Core's ProcessNewPackage and the RPC's broadcast): the package is
   * accepted as far as it goes, the changes are committed, and every package transaction
   * in the pool afterwards is relayed. `clientMaxFeerate` (sat/kvB) is Core's maxfeerate.
   */
  submitPackage(txs: readonly Transaction[], clientMaxFeerate: bigint | undefined): Promise<PackageOutcome> {
    return this.chain.exclusive(async () => {
      const outcome = await acceptPackage(this.packageHost(), txs, clientMaxFeerate);
      this.chain.commitMempoolChanges();
      for (const tx of txs) {
        const pooled = this.pool.get(tx.txidHex);
        if (pooled) this.relay(pooled);
      }
      return outcome;
    });
  }

  /**
   * A parent and child from a peer (Core's 1-parent-1-child package relay: a parent refused
   * on its feerate and an orphan child of it), accepted as submitpackage would; the
   * transactions that entered are relayed.
   */
  acceptPackageFromPeer(txs: readonly Transaction[]): Promise<PackageOutcome> {
    return this.chain.exclusive(async () => {
      const outcome = await acceptPackage(this.packageHost(), txs, undefined);
      this.chain.commitMempoolChanges();
      for (const result of outcome.results.values()) if (result.kind === 'valid') this.relay(result.entry);
      return outcome;
    });
  }

  /**
   * Core's BroadcastTransaction without peers: 'in-utxo-set' when an output of the
   * transaction is unspent in the chain, the pool's copy when the txid is already there,
   * otherwise acceptance — first as a test when `maxFee` is set, refusing a fee above it.
   * Without `relay` (a wallet's resubmission at load, Core's MEMPOOL_NO_BROADCAST) it is only
   * pooled: not announced and not marked unbroadcast.
   */
  broadcast(tx: Transaction, maxFee: bigint, relay = true): Promise<AcceptResult | { ok: false; alreadyInUtxoSet: true } | { ok: false; maxFeeExceeded: true }> {
    return this.chain.exclusive(async () => {
      const coins = this.chain.coins;
      for (let vout = 0; vout < tx.outputs.length; vout++) {
        if (coins.getCoin({ txid: tx.txid, vout })) return { ok: false as const, alreadyInUtxoSet: true as const };
      }
      const pooled = this.pool.get(tx.txidHex);
      if (pooled) {
        if (relay) this.relay(pooled);
        return { ok: true as const, entry: pooled, replaced: [] };
      }
      const args = this.args({ unbroadcast: relay });
      if (maxFee > 0n) {
        const test = await this.acceptLocked(tx, args, true);
        if (!test.ok) return test;
        if (test.entry.fee > maxFee) return { ok: false as const, maxFeeExceeded: true as const };
      }
      const result = await this.acceptLocked(tx, args, false);
      this.chain.commitMempoolChanges();
      if (result.ok && relay) this.relay(result.entry);
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
  selectForBlockLocked(blockMinTxFee: bigint, limits?: BlockWeightLimits): BlockSelection {
    return selectForBlock(this.pool, blockMinTxFee, limits);
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

  /**
   * Core's MaybeUpdateMempoolForReorg: the disconnected transactions are offered back
   * (limits bypassed) unless `addToMempool` is false (a deep invalidateblock), in which case
   * they and whatever spent them are gone; then every entry is re-checked against the new tip.
   */
  async reorgFinished(addToMempool = true): Promise<void> {
    const queued = this.disconnected;
    this.disconnected = [];
    for (const tx of queued) {
      const result = addToMempool ? await this.acceptLocked(tx, this.args({ bypassLimits: true }), false) : undefined;
      if (!result?.ok) this.removeSpendersOf(tx);
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

  // ------------------------------------------------------------ prioritisation

  /**
   * prioritisetransaction (Core's PrioritiseTransaction with the RPC's dust refusal): a
   * pooled transaction with a dust output keeps its fee under standardness, as it could
   * not have entered with a non-zero one. The change is committed to the tables at once.
   */
  prioritise(txidHex: string, delta: bigint): Promise<'dust' | undefined> {
    return this.chain.exclusive(() => {
      const pooled = this.pool.get(txidHex);
      if (this.policy.requireStandard && pooled && dustOutputs(pooled.tx, this.policy.dustRelayFee).length > 0) return 'dust';
      this.prioritiseLocked(txidHex, delta);
      this.chain.commitMempoolChanges();
      return undefined;
    });
  }

  private prioritiseLocked(txidHex: string, delta: bigint): void {
    this.pool.prioritise(txidHex, delta);
    const inPool = this.pool.get(txidHex) !== undefined;
    this.log(`PrioritiseTransaction: ${txidHex} (${inPool ? '' : 'not '}in mempool) fee += ${formatMoney(delta)}, new delta=${formatMoney(this.pool.deltaOf(txidHex))}`);
  }

  /** Every prioritisation in Core's order (its std::map: txids' internal bytes), with the pooled entry if any. */
  prioritisations(): { txid: string; delta: bigint; entry: MempoolEntry | undefined }[] {
    return [...this.pool.prioritisations()]
      .map(([txid, delta]) => ({ txid, key: hexToHash(txid), delta, entry: this.pool.get(txid) }))
      .sort((a, b) => compareBytes(a.key, b.key))
      .map(({ txid, delta, entry }) => ({ txid, delta, entry }));
  }

  // ------------------------------------------------------------ persistence

  /** Runs `fn` in the chain's queue once the pool's pending changes are in the tables. */
  committed<T>(fn: () => T): Promise<T> {
    return this.chain.exclusive(() => {
      this.chain.commitMempoolChanges();
      return fn();
    });
  }

  /**
   * What Core's DumpMempool writes: the pool parents first with entry times and deltas,
   * the prioritisations of transactions not pooled, the unbroadcast txids.
   */
  fileContent(): MempoolFileContent {
    const entries = parentsFirst([...this.pool.entries()].map((entry) => ({ txid: entry.tx.txid, entry, sequence: entry.sequence, tx: entry.tx })));
    const deltas = [...this.pool.prioritisations()].filter(([txid]) => !this.pool.get(txid)).map(([txid, delta]) => ({ txid: hexToHash(txid), delta }));
    return {
      txs: entries.map(({ entry }) => ({ tx: entry.tx, time: entry.time, feeDelta: entry.modifiedFee - entry.fee })),
      deltas,
      unbroadcast: entries.filter(({ entry }) => entry.unbroadcast).map(({ entry }) => entry.tx.txid),
    };
  }

  /** Core's LoadMempool of a mempool.dat's bytes; undefined when the file is unusable (logged). */
  loadFile(file: Uint8Array, options: ImportMempoolOptions, interrupted: () => boolean = () => false): Promise<MempoolLoadReport | undefined> {
    return this.chain.exclusive(async () => {
      try {
        return await loadMempoolFile(
          {
            now: () => this.chain.now(),
            expirySeconds: this.policy.expirySeconds,
            accept: async (tx, time) => (await this.acceptLocked(tx, this.args({ now: time }), false)).ok,
            has: (txid) => this.pool.get(txid) !== undefined,
            prioritise: (txid, delta) => this.prioritiseLocked(txid, delta),
            markUnbroadcast: (txid) => this.pool.markUnbroadcast(this.pool.get(txid)!),
            interrupted,
          },
          file,
          options,
          this.log,
        );
      } finally {
        // What entered before a damaged byte stays, as in Core.
        this.chain.commitMempoolChanges();
      }
    });
  }

  /**
   * Start-up: the tables' prioritisations restored and their entries offered to the pool
   * again (Core's LoadMempool), parents first, each re-checked against the chainstate with
   * its original time; what fails is dropped from the tables. With `load` false
   * (-persistmempool=0) the tables are emptied.
   */
  reload(saved: SavedPool, load: boolean): Promise<{ accepted: number; failed: number; expired: number }> {
    return this.chain.exclusive(async () => {
      let accepted = 0;
      let failed = 0;
      let expired = 0;
      // The tables are rewritten to exactly the reloaded pool: every saved entry goes unless it comes back.
      this.pool.markDropped(saved.entries.map((s) => hashToHex(s.txid)));
      this.pool.markDeltasDropped(saved.deltas.map((d) => hashToHex(d.txid)));
      if (load) {
        // Prioritisations first, as Core's LoadMempool prioritises before acceptance; an entry
        // from before the prioritisation table existed brings its own delta.
        for (const { txid, delta } of saved.deltas) this.pool.prioritise(hashToHex(txid), delta);
        for (const { txid, record } of saved.entries) {
          if (record.feeDelta !== 0n && !this.pool.prioritisations().has(hashToHex(txid))) this.pool.prioritise(hashToHex(txid), record.feeDelta);
        }
        const cutoff = this.chain.now() - this.policy.expirySeconds;
        const ordered = parentsFirst(saved.entries.map(({ txid, record }) => ({ txid, record, sequence: record.sequence, tx: parseTransaction(record.tx) })));
        for (const { record, tx } of ordered) {
          // Core's LoadMempool: an entry past -mempoolexpiry is counted, not offered.
          if (record.time <= cutoff) {
            expired++;
            continue;
          }
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

/** The mempool tables as saved: entries and prioritisations. */
export interface SavedPool {
  readonly entries: readonly { txid: Uint8Array; record: MempoolEntryRecord }[];
  readonly deltas: readonly { txid: Uint8Array; delta: bigint }[];
}

/** Transactions ordered so every in-set parent comes before its children (entry order otherwise). */
function parentsFirst<T extends { txid: Uint8Array; sequence: number; tx: Transaction }>(saved: readonly T[]): T[] {
  const byId = new Map(saved.map((s) => [hashToHex(s.txid), s]));
  const sorted = [...saved].sort((a, b) => a.sequence - b.sequence);
  const out: T[] = [];
  const done = new Set<string>();
  const visit = (s: T): void => {
    const id = hashToHex(s.txid);
    if (done.has(id)) return;
    done.add(id);
    for (const input of s.tx.inputs) {
      const parent = byId.get(hashToHex(input.prevout.txid));
      if (parent) visit(parent);
    }
    out.push(s);
  };
  for (const s of sorted) visit(s);
  return out;
}
