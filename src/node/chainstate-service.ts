/**
 * The chainstate as a node service: opens the block files and LMDB chainstate in the
 * network directory, starts the script-check pool (-par), loads the block index
 * (-reindex, -reindex-chainstate), reports the tip to the front-ends, imports
 * -loadblock files in the background once start-up is done (as Core's import thread),
 * and flushes and closes everything at shutdown.
 */
import { availableParallelism } from 'node:os';
import { ADDRESS_INDEX_NAME, AddressIndex, TXOSPENDER_INDEX_NAME, TxoSpenderIndex, BASIC_FILTER_INDEX_NAME, BlockFilterIndex, Chainstate, CoinStatsIndex, COINSTATS_INDEX_NAME, type ChainEvents, ChainSystemError, importBlockFile, LmdbChainStore, PoolScriptChecker, ScriptExecutionCache, TxIndex, verifyDb, type PruneMode, type ScriptCaches } from '../chain/index.js';
import { DEFAULT_MEMPOOL_POLICY, formatFeeRate, maxMempoolSizeError, MempoolAddressJournal, NodeMempool } from '../mempool/index.js';
import { mempoolFeeArgsError } from './mempool-fee-args.js';
import { policyOptionsError } from './mempool-options.js';
import { blockWeightOptionsError } from './block-weight-options.js';
import { MAX_FUTURE_BLOCK_TIME } from '../consensus/index.js';
import { hexToHash } from '../primitives/index.js';
import { SignatureCache } from '../script/index.js';
import { blockchainBlockMethods, blockchainMethods, blockchainReadMethods, blockFilterMethods, descriptorActivityMethods, mempoolMethods, miningMethods, psbtUpdateMethods, signRawTransactionMethods, TipWaiters, waitMethods, type ChainAccess } from '../rpc/index.js';
import { dumpTxOutSetMethods, feeMethods, mempoolPersistMethods, mempoolSubmitMethods, prioritisationMethods, scanBlocksMethods, scanTxOutSetMethods, type NetworkSwitch, type SnapshotSource } from '../rpc/index.js';
import { ScriptCheckPool } from '../../workers/index.js';
import type { NodeConfig } from './config.js';
import { InitError } from './config.js';
import { FeeEstimation } from './fee-estimation.js';
import { MempoolPersist } from './mempool-persist.js';
import { nodeFacts } from './node-facts.js';
import { runCommand } from './run-command.js';
import type { NodeContext, NodeService } from './services.js';

/** How often the node checks whether the periodic flush of initial sync is due. */
const PERIODIC_FLUSH_CHECK_MS = 10_000;

/** Core's -par: 0 = one thread per core, negative = leave that many cores free, 1 = no parallel checks. */
export function scriptCheckThreads(par: number): number {
  const cores = availableParallelism();
  const threads = par <= 0 ? cores + par : par;
  return Math.max(1, Math.min(threads, 64));
}

/**
 * Core's ValidationCache: the signature cache (shared with the worker threads) and the
 * script-execution cache, each given half of -maxsigcachesize, logged as Core logs them.
 */
function validationCaches(bytesEach: number, log: (message: string) => void): ScriptCaches & { signatures: SignatureCache } {
  const signatures = SignatureCache.create(bytesEach);
  const scriptExecution = new ScriptExecutionCache(bytesEach);
  const MiB = 1024 * 1024;
  log(`Using ${Math.floor(signatures.set.byteLength / MiB)} MiB out of ${Math.floor(bytesEach / MiB)} MiB requested for signature cache, able to store ${signatures.capacity} elements`);
  log(`Using ${Math.floor(scriptExecution.set.byteLength / MiB)} MiB out of ${Math.floor(bytesEach / MiB)} MiB requested for script execution cache, able to store ${scriptExecution.capacity} elements`);
  return { signatures, scriptExecution };
}

/** Core's -prune rules: 0 off, 1 manual, at least 550 MiB for an automatic target. */
function pruneMode(config: NodeConfig): PruneMode {
  const prune = config.prune;
  if (prune < 0) throw new InitError('Prune cannot be configured with a negative value.');
  if (prune === 0) return 'off';
  if (prune === 1) return 'manual';
  if (prune < 550) throw new InitError('Prune configured below the minimum of 550 MiB.  Please use a higher number.');
  return { targetBytes: prune * 1024 * 1024 };
}

function assumeValidHash(config: NodeConfig): Uint8Array | null {
  const value = config.assumeValid ?? config.network.defaultAssumeValid;
  if (!value || /^0+$/.test(value)) return null;
  if (!/^[0-9a-fA-F]{1,64}$/.test(value)) throw new InitError(`Invalid assumevalid hash: ${value}`);
  return hexToHash(value.padStart(64, '0'));
}

export class ChainstateService implements NodeService {
  readonly name = 'chainstate';
  readonly rpcMethods;
  private chain: Chainstate | undefined;
  private store: LmdbChainStore | undefined;
  private scripts: PoolScriptChecker | undefined;
  private importing: Promise<void> | undefined;
  private txindex: TxIndex | undefined;
  private blockfilter: BlockFilterIndex | undefined;
  private coinstats: CoinStatsIndex | undefined;
  private addressIndex: AddressIndex | undefined;
  private txoSpender: TxoSpenderIndex | undefined;
  private mempool: NodeMempool | undefined;
  /** mempool.dat and the mempool tables at start-up and shutdown, savemempool, importmempool. */
  private mempoolFile: MempoolPersist | undefined;
  /** The fee estimator (none with -blocksonly, as in Core). */
  private fees: FeeEstimation | undefined;
  /** Long polls that reach the coordinator itself. */
  private readonly tipWaiters = new TipWaiters();
  private ctx: NodeContext | undefined;
  /** The coordinator's snapshots, for scantxoutset (which flushes first, as Core does). */
  private snapshots: SnapshotSource | undefined;
  private flushTimer: NodeJS.Timeout | undefined;

  /** Further listeners of the chain's events (the P2P layer). */
  readonly chainListeners: ChainEvents[] = [];

  /** The loaded chainstate (undefined before start). */
  get chainstate(): Chainstate | undefined {
    return this.chain;
  }

  get nodeMempool(): NodeMempool | undefined {
    return this.mempool;
  }

  /** The fee estimator (none with -blocksonly). */
  get feeEstimator(): FeeEstimation['estimator'] | undefined {
    return this.fees?.estimator;
  }

  /** The basic block filter index (-blockfilterindex), once started. */
  get blockFilterIndex(): BlockFilterIndex | undefined {
    return this.blockfilter;
  }

  constructor(
    private readonly config: NodeConfig,
    /** Connected peers (getblocktemplate refuses to work without any off regtest). */
    peerCount: () => number = () => 0,
    /** The P2P network, which dumptxoutset suspends while it rolls the chain back. */
    network: () => NetworkSwitch | undefined = () => undefined,
  ) {
    const self = this;
    const access: ChainAccess = {
      txindex: () => this.txindex,
      chain: () => {
        if (!this.chain) throw new ChainSystemError('chainstate is not loaded');
        return this.chain;
      },
      network: config.network,
      clock: () => ({
        now: () => this.ctx!.clock.now(),
        get mocktime() {
          return self.ctx!.clock.mocktime;
        },
        setMockTime: (seconds: number) => {
          this.ctx!.clock.setMockTime(seconds);
          // IBD depends on the node's clock: front-ends must hear about it.
          this.pushNodeState();
        },
      }),
      log: (m) => this.ctx?.log.info(m),
      mempool: () => this.mempool,
      node: nodeFacts(config, () => (this.ctx?.shutdownRequested ?? false) || (this.chain?.interrupted ?? false), peerCount, () => this.ctx?.warnings.messages() ?? []),
    };
    this.rpcMethods = [...blockchainReadMethods(), ...blockchainBlockMethods(access.node!.deprecatedRpc), ...blockFilterMethods(), ...descriptorActivityMethods(), ...mempoolMethods(), ...blockchainMethods(access), ...miningMethods(access), ...waitMethods(() => this.tipWaiters), ...signRawTransactionMethods(config.chain), ...psbtUpdateMethods(config.chain)];
    const mempool = (): NodeMempool => {
      if (!this.mempool) throw new ChainSystemError('mempool is not loaded');
      return this.mempool;
    };
    const mempoolFile = (): MempoolPersist => {
      if (!this.mempoolFile) throw new ChainSystemError('mempool is not loaded');
      return this.mempoolFile;
    };
    this.rpcMethods.push(
      ...mempoolSubmitMethods(mempool),
      ...prioritisationMethods(mempool),
      ...mempoolPersistMethods({
        loaded: () => this.mempoolFile?.loaded() ?? false,
        initialBlockDownload: () => access.chain().isInitialBlockDownload(),
        save: () => mempoolFile().save(),
        import: (file, options) => mempoolFile().import(file, options),
      }),
      ...scanTxOutSetMethods({ chain: config.chain, flush: async () => this.chain?.flushNow(), snapshots: () => this.snapshots, node: access.node! }),
      ...dumpTxOutSetMethods({ access, netDir: config.netDir, flush: async () => this.chain?.flushNow(), snapshots: () => this.snapshots, network }),
      ...scanBlocksMethods({ chain: config.chain, snapshots: () => this.snapshots, node: access.node! }),
      // Core's floor: the mempool's minimum fee (GetMinFee, which decays it) or -minrelaytxfee.
      ...feeMethods({
        estimator: () => this.fees?.estimator,
        minFeeRate: () => {
          const minRelay = config.mempoolPolicy.minRelayTxFee;
          const poolMin = this.mempool?.minFee() ?? 0n;
          return poolMin > minRelay ? poolMin : minRelay;
        },
      }),
    );
  }

  async start(ctx: NodeContext): Promise<void> {
    this.ctx = ctx;
    const config = this.config;
    const params = config.network;
    if (config.prune !== 0 && config.txindex) throw new InitError('Prune mode is incompatible with -txindex.');
    if (config.prune !== 0 && config.txoSpenderIndex) throw new InitError('Prune mode is incompatible with -txospenderindex.');
    // The address index answers for every block since genesis and rewinds from undo data.
    if (config.prune !== 0 && config.addressIndex) throw new InitError('Prune mode is incompatible with -addressindex.');
    // Core checks the block weights first (AppInitParameterInteraction), then the mempool's options.
    const mempoolArgsError =
      blockWeightOptionsError(config.args) ?? mempoolFeeArgsError(config.args) ?? policyOptionsError(config.args, config.chain) ?? maxMempoolSizeError(config.mempoolPolicy);
    if (mempoolArgsError) throw new InitError(mempoolArgsError);
    if (!config.args.isArgSet('minrelaytxfee') && config.mempoolPolicy.minRelayTxFee > DEFAULT_MEMPOOL_POLICY.minRelayTxFee) {
      ctx.log.info(`Increasing minrelaytxfee to ${formatFeeRate(config.mempoolPolicy.minRelayTxFee)} to match incrementalrelayfee`);
    }
    const acceptStaleFees = config.args.getBoolArg('acceptstalefeeestimates', false);
    if (acceptStaleFees && config.chain !== 'regtest') throw new InitError(`acceptstalefeeestimates is not supported on ${config.chain} chain.`);
    // Core creates the estimator (reading fee_estimates.dat) before the chainstate loads; -blocksonly has none.
    if (!config.args.getBoolArg('blocksonly', false)) {
      this.fees = new FeeEstimation(config.netDir, ctx.log);
      this.fees.load(acceptStaleFees);
    }
    ctx.initMessage('Loading block index…');
    const prune = pruneMode(config);
    // -fastprune: 64 KiB block files, so pruning can be exercised on small test chains.
    const fastprune = config.args.getBoolArg('fastprune', false);
    this.store = LmdbChainStore.open(config.netDir, params, { blocksXor: config.blocksXor, blocksDir: config.blocksDir, ...(fastprune ? { maxBlockFileSize: 0x10000 } : {}) });
    const threads = scriptCheckThreads(config.par);
    const caches = validationCaches(config.sigCacheBytesEach, (m) => ctx.log.info(m));
    this.scripts = new PoolScriptChecker(threads > 1 ? new ScriptCheckPool({ threads, signatureCache: caches.signatures }) : null, caches);
    ctx.log.info(`Script verification uses ${threads} thread${threads === 1 ? '' : 's'}`);
    const blockNotify = config.args.getArg('blocknotify') || undefined;
    const chain = new Chainstate({
      params,
      store: this.store,
      scripts: this.scripts,
      assumeValid: assumeValidHash(config),
      coinsCacheBytes: Math.max(4, config.dbcache) * 1024 * 1024,
      now: () => ctx.clock.now(),
      log: (m) => ctx.log.info(m),
      bench: { enabled: () => ctx.log.willLog('bench', 'debug'), log: (m) => ctx.log.debug('bench', m) },
      stopAtHeight: config.stopAtHeight > 0 ? config.stopAtHeight : undefined,
      maxTipAge: config.args.getIntArg('maxtipage', params.maxTipAge),
      prune,
      events: {
        blockConnected: (block, entry) => {
          this.txindex?.blockConnected(block, entry);
          this.blockfilter?.blockConnected(block, entry);
          this.coinstats?.blockConnected(block, entry);
          this.addressIndex?.blockConnected(block, entry);
          this.txoSpender?.blockConnected(block, entry);
          for (const l of this.chainListeners) l.blockConnected?.(block, entry);
        },
        blockDisconnected: (block, entry) => {
          for (const l of this.chainListeners) l.blockDisconnected?.(block, entry);
        },
        updatedBlockTip: (tip, ibd) => {
          for (const l of this.chainListeners) l.updatedBlockTip?.(tip, ibd);
        },
        blockTip: (tip, ibd) => {
          // Core's -blocknotify: each new tip once out of initial block download.
          if (blockNotify && !ibd) void runCommand(blockNotify.replaceAll('%s', tip.hashHex), (m) => ctx.log.info(m));
        },
        tipChanged: (tip) => {
          const event = { hash: tip.hashHex, height: tip.height };
          this.tipWaiters.update(event);
          this.pushNodeState();
          ctx.notifyTip(event);
          for (const l of this.chainListeners) l.tipChanged?.(tip);
        },
        blockChecked: (hash, verdict) => {
          for (const l of this.chainListeners) l.blockChecked?.(hash, verdict);
        },
        warning: (kind, message) => (message === undefined ? ctx.warnings.unset(kind) : ctx.warnings.set(kind, message)),
        stopHeightReached: () => ctx.requestShutdown(),
      },
    });
    if (config.reindex) ctx.initMessage('Reindexing blocks…');
    await chain.load({ reindex: config.reindex, reindexChainstate: config.reindexChainstate });
    this.chain = chain;
    ctx.setSnapshotSource(
      (this.snapshots = this.store.snapshotSource(
        params,
        () => ({
          ibd: chain.isInitialBlockDownload(),
          now: () => ctx.clock.now(),
          deprecatedRpc: config.args.getArgs('deprecatedrpc'),
          warnings: ctx.warnings.messages(),
          pruneTarget: config.pruneTarget,
          mempoolPolicy: config.mempoolPolicy,
          coinsCacheBytes: config.coinsCacheBytes,
        }),
        () => this.txindex,
        () => this.blockfilter?.view,
        () => this.coinstats?.view,
        () => this.addressIndex?.view,
        () => this.txoSpender,
      )),
    );
    ctx.initMessage('Verifying blocks…');
    // Core's VerifyLoadedChainstate refuses a tip more than two hours ahead of the clock
    // (a wrong system date), once the coins database holds anything (past genesis).
    const loadedTip = chain.tip;
    if (loadedTip && loadedTip.height > 0 && loadedTip.time > ctx.clock.now() + MAX_FUTURE_BLOCK_TIME) {
      throw new InitError(
        "The block database contains a block which appears to be from the future. This may be due to your computer's date and time being set incorrectly. " +
          "Only rebuild the block database if you are sure that your computer's date and time are correct.\nPlease restart with -reindex or -reindex-chainstate to recover.",
        true,
      );
    }
    const verified = await chain.exclusive(() => verifyDb(chain, config.checkLevel, config.checkBlocks, (m) => ctx.log.info(m)));
    if (verified === 'corrupted') throw new InitError('Corrupted block database detected.\nPlease restart with -reindex or -reindex-chainstate to recover.', true);
    const tip = chain.tip!;
    ctx.log.info(`Loaded best chain: hashBestChain=${tip.hashHex} height=${tip.height}`);
    await this.loadMempool(chain, ctx);
    this.pushNodeState();
    ctx.notifyTip({ hash: tip.hashHex, height: tip.height });
    this.tipWaiters.update({ hash: tip.hashHex, height: tip.height });
    // -reindex wipes both indexes (Core's f_wipe); -reindex-chainstate keeps them.
    if (config.txindex) this.txindex = TxIndex.open(config.netDir, chain, (m) => ctx.log.info(m), { wipe: config.reindex, logError: (m) => ctx.log.error(m) });
    if (config.blockFilterIndex) {
      this.blockfilter = BlockFilterIndex.open(config.netDir, chain, (m) => ctx.log.info(m), { wipe: config.reindex, logError: (m) => ctx.log.error(m) });
    }
    if (config.coinStatsIndex) this.coinstats = CoinStatsIndex.open(config.netDir, chain, (m) => ctx.log.info(m), { wipe: config.reindex, logError: (m) => ctx.log.error(m) });
    if (config.addressIndex) this.addressIndex = AddressIndex.open(config.netDir, chain, (m) => ctx.log.info(m), { wipe: config.reindex, logError: (m) => ctx.log.error(m) });
    if (config.txoSpenderIndex) this.txoSpender = TxoSpenderIndex.open(config.netDir, chain, (m) => ctx.log.info(m), { wipe: config.reindex, logError: (m) => ctx.log.error(m) });
    const indexes = [this.txindex, this.coinstats, this.txoSpender, this.blockfilter, this.addressIndex];
    // Core's index Init (step 8): a best block the block index does not know stops start-up.
    for (const index of indexes) {
      const error = index?.initError();
      if (error) throw new InitError(error);
    }
    // Core's StartIndexBackgroundSync: no index starts while one cannot catch up over pruned blocks.
    for (const index of indexes) {
      const violation = index?.pruneViolation();
      if (violation) throw new InitError([violation, 'A fatal internal error occurred, see debug.log for details: Failed to start indexes, shutting down..']);
    }
    void this.txindex?.start();
    if (this.coinstats) {
      ctx.log.info(`${COINSTATS_INDEX_NAME} thread start`);
      void this.coinstats.start();
    }
    if (this.txoSpender) {
      ctx.log.info(`${TXOSPENDER_INDEX_NAME} thread start`);
      void this.txoSpender.start();
    }
    if (this.blockfilter) {
      ctx.log.info(`${BASIC_FILTER_INDEX_NAME} thread start`);
      void this.blockfilter.start();
    }
    if (this.addressIndex) {
      ctx.log.info(`${ADDRESS_INDEX_NAME} thread start`);
      void this.addressIndex.start();
    }
    // Core's -stopafterblockimport: shut down once -reindex and -loadblock's imports are done.
    const stopAfterImport = config.args.getBoolArg('stopafterblockimport', false);
    if (config.loadBlock.length > 0 || stopAfterImport) {
      this.importing = this.importFiles(chain, config.loadBlock, ctx).then(() => {
        if (!stopAfterImport || ctx.shutdownRequested) return;
        ctx.log.info('Stopping after block import');
        ctx.requestShutdown();
      });
    }
    this.flushTimer = setInterval(() => void chain.flushIfDue(), PERIODIC_FLUSH_CHECK_MS);
    this.flushTimer.unref();
  }

  /**
   * The mempool joins the chainstate and is reloaded from its tables, then from mempool.dat
   * (Core's LoadMempool; nothing with -persistmempool=0), each entry re-checked.
   */
  private async loadMempool(chain: Chainstate, ctx: NodeContext): Promise<void> {
    const mempool = new NodeMempool(chain, this.config.mempoolPolicy, (m) => ctx.log.info(m), (category, m) => ctx.log.debug(category, m));
    chain.mempoolSync = mempool;
    this.mempool = mempool;
    // The address mirror is rebuilt from the reloaded pool (stale rows of a crash or of a
    // run with -addressindex go first).
    this.store!.clearMempoolAddresses();
    if (this.config.addressIndex) mempool.pool.addressJournal = new MempoolAddressJournal();
    if (this.fees) {
      mempool.eventListeners.push(this.fees.listener());
      this.fees.startPeriodicFlush();
    }
    this.mempoolFile = new MempoolPersist(mempool, this.store!, {
      netDir: this.config.netDir,
      persist: this.config.persistMempool,
      writeV1: this.config.args.getBoolArg('persistmempoolv1', false),
      log: (m) => ctx.log.info(m),
      initialBlockDownload: () => chain.isInitialBlockDownload(),
      interrupted: () => ctx.shutdownRequested || chain.interrupted,
    });
    await this.mempoolFile.start();
  }

  private async importFiles(chain: Chainstate, files: readonly string[], ctx: NodeContext): Promise<void> {
    for (const file of files) {
      if (ctx.shutdownRequested) return;
      ctx.log.info(`Importing blocks file ${file}...`);
      try {
        const report = await importBlockFile(chain, file, (m) => ctx.log.info(m), () => ctx.shutdownRequested);
        ctx.log.info(`Loaded ${report.loaded} blocks from external file ${file}`);
      } catch (err) {
        ctx.log.error(`Importing ${file} failed: ${(err as Error).message}`);
      }
    }
  }

  /** Sends front-ends the coordinator state their read-only answers need. */
  private pushNodeState(): void {
    if (!this.ctx || !this.chain) return;
    this.ctx.notifyNodeState({ ibd: this.chain.isInitialBlockDownload(), mocktime: this.ctx.clock.mocktime });
  }

  /** A shutdown request stops generate loops and chain activation between blocks, as Core's m_interrupt. */
  interrupt(): void {
    if (this.chain) this.chain.interrupted = true;
  }

  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    this.tipWaiters.close();
    if (this.chain) this.chain.interrupted = true;
    await this.importing?.catch(() => undefined);
    // Core's Shutdown dumps the mempool before flushing the estimator and the chainstate.
    await this.mempoolFile?.shutdown();
    // Core's Shutdown flushes the estimator (pool transactions counted unconfirmed) before the chainstate.
    if (this.chain) await this.chain.exclusive(() => this.fees?.shutdown());
    else this.fees?.shutdown();
    await this.txindex?.close();
    await this.blockfilter?.close();
    await this.coinstats?.close();
    await this.addressIndex?.close();
    await this.txoSpender?.close();
    await this.chain?.shutdown();
    await this.scripts?.close();
    await this.store?.close();
  }
}
