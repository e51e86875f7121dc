/**
 * The wallets in the coordinator (Core's WalletInit and WalletLoader): the wallet RPC
 * methods, the wallets named by -wallet and settings.json loaded at start (after the chain,
 * before the network, as Core's init orders them), every loaded wallet kept in step with
 * the chain's blocks and the mempool, and each closed cleanly at shutdown.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { selectParams } from '../consensus/index.js';
import { MiniMiner, outpointId } from '../mempool/index.js';
import type { BlockIndexEntry } from '../chain/index.js';
import { hashToHex, hexToHash, type Transaction } from '../primitives/index.js';
import {
  RPC_WALLET_ERROR,
  RpcError,
  walletCoinHandlers,
  walletForRequest,
  walletHistoryHandlers,
  walletKeyHandlers,
  walletManageHandlers,
  walletSendHandlers,
  walletPsbtHandlers,
  walletFundHandlers,
  walletImportHandlers,
  walletBumpHandlers,
  walletSendAllHandlers,
  walletSignerHandlers,
  walletStubMethods,
  type RpcMethod,
  type WalletRpcDeps,
} from '../rpc/index.js';
import { listWalletDatabases, WalletFileError, WalletManager, type Wallet, type WalletChain, type WalletSpendSettings, type WalletTx } from '../wallet/index.js';
import type { ChainstateService } from './chainstate-service.js';
import { InitError, type NodeConfig } from './config.js';
import { settingsFilePath, writeSettingsFile } from './datadir.js';
import { PRODUCT_NAME } from './coordinator.js';
import { walletDir } from './node-rpc.js';
import { readWalletOptions, type WalletOptions } from './wallet-options.js';
import { runCommand, shellEscape } from './run-command.js';
import type { NodeContext, NodeService } from './services.js';

/** How often the loaded wallets look whether their resend time has come (Core's scheduleEvery 1min). */
const RESEND_CHECK_INTERVAL_MS = 60_000;

/** The chain and mempool as a wallet sees them (Core's interfaces::Chain). */
function walletChainOf(chainstate: ChainstateService, policy: NodeConfig['mempoolPolicy'], now: () => number): WalletChain {
  const chain = () => chainstate.chainstate!;
  const maxTimes = new Map<string, number>();
  const maxTimeOf = (entry: BlockIndexEntry): number => {
    const known = maxTimes.get(entry.hashHex);
    if (known !== undefined) return known;
    // Iterative from the highest ancestor already known, so a long chain does not recurse.
    const path: BlockIndexEntry[] = [];
    let walk: BlockIndexEntry | undefined = entry;
    while (walk && !maxTimes.has(walk.hashHex)) {
      path.push(walk);
      walk = walk.prev;
    }
    let max = walk ? maxTimes.get(walk.hashHex)! : 0;
    for (let i = path.length - 1; i >= 0; i--) {
      max = Math.max(max, path[i]!.header.time);
      maxTimes.set(path[i]!.hashHex, max);
    }
    return max;
  };
  const activeAt = (height: number): BlockIndexEntry => {
    const entry = chain().chain.at(height);
    if (!entry) throw new Error(`no active block at height ${height}`);
    return entry;
  };
  return {
    tip: () => {
      const tip = chain().tip!;
      return { height: tip.height, hash: tip.hash };
    },
    activeHeightOf: (hash) => {
      const entry = chain().lookup(hashToHex(hash));
      return entry && chain().chain.contains(entry) ? entry.height : undefined;
    },
    hashAt: (height) => chain().chain.at(height)?.hash,
    blockAt: (height) => chain().readBlock(activeAt(height)),
    blockTimes: (height) => {
      const entry = activeAt(height);
      return { time: entry.header.time, maxTime: maxTimeOf(entry), medianTimePast: entry.medianTimePast() };
    },
    blockInfo: (hash) => {
      const entry = chain().lookup(hashToHex(hash));
      return entry && { height: entry.height, prevHash: entry.prev?.hash, active: chain().chain.contains(entry) };
    },
    blockByHash: (hash) => {
      const entry = chain().lookup(hashToHex(hash));
      try {
        return entry ? chain().readBlock(entry) : undefined;
      } catch {
        return undefined;
      }
    },
    locator: () => chain().chain.locator(),
    forkHeight: (locator) => {
      for (const hash of locator) {
        const entry = chain().lookup(hashToHex(hash));
        if (entry && chain().chain.contains(entry)) return entry.height;
      }
      return -1;
    },
    isInMempool: (txid) => chainstate.nodeMempool?.pool.get(txid) !== undefined,
    isRbfOptIn: (tx: Transaction) => {
      // Core's IsRBFOptIn: signalling itself, else through an unconfirmed ancestor in the pool.
      if (tx.inputs.some((i) => i.sequence >>> 0 < 0xfffffffe)) return 'yes';
      const pool = chainstate.nodeMempool?.pool;
      const entry = pool?.get(tx.txidHex);
      if (!pool || !entry) return 'unknown';
      return pool.ancestors(entry).some((a) => a.tx.inputs.some((i) => i.sequence >>> 0 < 0xfffffffe)) ? 'yes' : 'no';
    },
    mempoolTransactions: () => [...(chainstate.nodeMempool?.pool.entries() ?? [])].map((e) => e.tx),
    mempoolAncestry: (txid) => {
      const pool = chainstate.nodeMempool?.pool;
      const entry = pool?.get(txid);
      if (!pool || !entry) return undefined;
      const ancestors = pool.ancestors(entry);
      return { count: ancestors.length, size: ancestors.reduce((s, a) => s + a.vsize, 0), fees: ancestors.reduce((s, a) => s + a.modifiedFee, 0n) };
    },
    individualBumpFees: (outpoints, feeRate) => {
      const pool = chainstate.nodeMempool?.pool;
      if (!pool) return new Map(outpoints.map((o) => [outpointId(hashToHex(o.txid), o.vout), 0n]));
      return new MiniMiner(pool, outpoints).calculateBumpFees(feeRate);
    },
    combinedBumpFee: (outpoints, feeRate) => {
      const pool = chainstate.nodeMempool?.pool;
      return pool ? new MiniMiner(pool, outpoints).calculateTotalBumpFees(feeRate) : 0n;
    },
    estimateSmartFee: (target, conservative) => {
      const estimator = chainstate.feeEstimator;
      if (!estimator) return { feeRate: 0n, reason: 'None' };
      const calc = { reason: 'None' } as Parameters<typeof estimator.estimateSmartFee>[2] & { reason: string };
      const feeRate = estimator.estimateSmartFee(target, conservative, calc);
      return { feeRate: BigInt(Math.round(feeRate)), reason: calc.reason };
    },
    estimateMaxBlocks: () => chainstate.feeEstimator?.highestTargetTracked('long') ?? 0,
    mempoolMinFee: () => chainstate.nodeMempool?.minFee() ?? 0n,
    relayMinFee: () => policy.minRelayTxFee,
    relayDustFee: () => policy.dustRelayFee,
    relayIncrementalFee: () => policy.incrementalRelayFee,
    hasDescendantsInMempool: (txid) => {
      const pool = chainstate.nodeMempool?.pool;
      const entry = pool?.get(txid);
      return entry !== undefined && pool!.descendants(entry).length > 1;
    },
    findCoin: (txid, vout) => {
      const pool = chainstate.nodeMempool?.pool;
      const outpoint = { txid: hexToHash(txid), vout };
      const pooled = pool?.get(txid);
      if (pooled) return pooled.tx.outputs[vout];
      const coin = chain().coins.getCoin(outpoint);
      return coin?.output;
    },
    isInitialBlockDownload: () => chain().isInitialBlockDownload(),
    broadcast: async (tx, maxFee, relay = true) => {
      const mempool = chainstate.nodeMempool;
      if (!mempool) return { ok: false, error: 'mempool is not loaded' };
      const result = await mempool.broadcast(tx, maxFee, relay);
      if (result.ok) return { ok: true };
      if ('alreadyInUtxoSet' in result) return { ok: false, error: 'Transaction outputs already in utxo set' };
      if ('maxFeeExceeded' in result) return { ok: false, error: 'Fee exceeds maximum configured by user (e.g. -paytxfee, -maxtxfee)' };
      return { ok: false, error: result.debug ? `${result.reason}, ${result.debug}` : result.reason };
    },
    now,
  };
}

/**
 * -walletnotify (Core's AddToWallet): the command with %s the txid, %b the block hash or
 * "unconfirmed", %h its height or -1, %w the wallet's name shell-escaped, run by the shell
 * without waiting for it (Core's detached runCommand thread).
 */
function runWalletNotify(command: string, wallet: Wallet, wtx: WalletTx, log: (m: string) => void): void {
  const confirmed = wtx.state.kind === 'confirmed' ? wtx.state : undefined;
  const text = command
    .replaceAll('%s', wtx.txid)
    .replaceAll('%b', confirmed ? hashToHex(confirmed.blockHash) : 'unconfirmed')
    .replaceAll('%h', confirmed ? String(confirmed.blockHeight) : '-1')
    .replaceAll('%w', shellEscape(wallet.name));
  void runCommand(text, log);
}

export class WalletService implements NodeService {
  readonly name = 'wallet';
  readonly rpcMethods: readonly RpcMethod[];
  #manager: WalletManager | undefined;
  #options: WalletOptions | undefined;

  constructor(
    private readonly config: NodeConfig,
    private readonly chainstate: ChainstateService,
  ) {
    const messageStart = selectParams(config.chain).messageStart;
    const self = this;
    const deps: WalletRpcDeps = {
      manager: () => this.#manager,
      keypool: Math.max(config.args.getIntArg('keypool', 1000), 0),
      signer: config.args.getArg('signer') ?? '',
      chainName: config.chain,
      // Read at start; a bad one makes each wallet load fail (WalletManager's optionCheck).
      get spendSettings(): WalletSpendSettings {
        return self.#options!.settings;
      },
    };
    this.rpcMethods = walletStubMethods({
      walletDir: () => walletDir(config),
      listWalletDatabases: () => listWalletDatabases(walletDir(config), messageStart),
      handlers: { ...walletManageHandlers(deps), ...walletKeyHandlers(deps), ...walletCoinHandlers(deps), ...walletHistoryHandlers(deps), ...walletSendHandlers(deps), ...walletPsbtHandlers(deps), ...walletFundHandlers(deps), ...walletImportHandlers(deps), ...walletBumpHandlers(deps), ...walletSendAllHandlers(deps), ...walletSignerHandlers(deps) },
      notBuilt: (ctx, method) => {
        walletForRequest(deps, ctx);
        throw new RpcError(RPC_WALLET_ERROR, `${method} is not available in this version of tsbtcd yet`);
      },
    });
  }

  async start(ctx: NodeContext): Promise<void> {
    const config = this.config;
    const configured = config.args.getArg('walletdir');
    if (configured !== undefined) {
      const resolved = path.resolve(configured);
      if (!fs.existsSync(resolved)) throw new InitError(`Specified -walletdir "${configured}" does not exist`);
      if (!fs.statSync(resolved).isDirectory()) throw new InitError(`Specified -walletdir "${configured}" is not a directory`);
    }
    const options = readWalletOptions(config);
    this.#options = options;
    const notifyCommand = config.args.getArg('walletnotify');
    const chainstate = this.chainstate;
    const manager = new WalletManager({
      chainName: config.chain,
      messageStart: selectParams(config.chain).messageStart,
      walletDir: () => walletDir(config),
      chain: walletChainOf(chainstate, config.mempoolPolicy, () => ctx.clock.now()),
      keypool: Math.max(config.args.getIntArg('keypool', 1000), 0),
      broadcastTransactions: config.args.getBoolArg('walletbroadcast', true),
      log: (m) => ctx.log.info(m),
      updateStartupSetting: (name, load) => this.#updateStartupSetting(name, load),
      optionCheck: () => options,
      ...(notifyCommand ? { notifyTransaction: (wallet: Wallet, wtx: WalletTx) => runWalletNotify(notifyCommand, wallet, wtx, (m) => ctx.log.info(m)) } : {}),
    });
    ctx.initMessage('Loading wallet…');
    const seen = new Set<string>();
    for (const name of config.args.getArgs('wallet')) {
      if (seen.has(name)) {
        ctx.log.info(`Warning: Ignoring duplicate -wallet ${name}.`);
        continue;
      }
      seen.add(name);
      try {
        const { warnings } = manager.load(name, undefined, true);
        for (const warning of warnings) ctx.log.info(`Warning: ${warning}`);
      } catch (err) {
        if (err instanceof WalletFileError && err.code === -18 && err.message.includes('Path does not exist')) {
          ctx.log.info(`Warning: Skipping -wallet path that doesn't exist. ${err.message}`);
          continue;
        }
        if (err instanceof WalletFileError) throw new InitError(err.message);
        throw err;
      }
    }
    chainstate.chainListeners.push({
      blockConnected: (block, entry) => manager.blockConnected(block, entry.height, entry.hash),
      blockDisconnected: (block, entry) => manager.blockDisconnected(block, entry.height, entry.prev!.hash),
    });
    chainstate.nodeMempool?.eventListeners.push({
      transactionAdded: (event) => manager.transactionAddedToMempool(event.entry.tx),
      transactionRemoved: (entry) => manager.transactionRemovedFromMempool(entry.tx),
      removedForBlock: () => undefined,
    });
    this.#manager = manager;
    // Core's postInitProcess: each loaded wallet's unconfirmed transactions go back to the pool, not to peers.
    for (const wallet of manager.list()) await wallet.resubmitWalletTransactions(options.settings.maxTxFee, false, true);
    // Core's StartWallets: MaybeResendWalletTxs every minute.
    ctx.scheduler.every(RESEND_CHECK_INTERVAL_MS, async () => {
      for (const wallet of manager.list()) await wallet.maybeResend(options.settings.maxTxFee);
    });
  }

  /** Core's AddWalletSetting / RemoveWalletSetting: settings.json's `wallet` list, written at once. */
  #updateStartupSetting(name: string, load: boolean): boolean {
    if (settingsFilePath(this.config) === undefined) return false;
    const rw = this.config.args.settings.rw;
    const current = rw.get('wallet');
    const list = (Array.isArray(current) ? current : current === undefined ? [] : [current]).map(String);
    const next = load ? (list.includes(name) ? list : [...list, name]) : list.filter((n) => n !== name);
    rw.set('wallet', next);
    try {
      writeSettingsFile(this.config, PRODUCT_NAME);
      return true;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    this.#manager?.closeAll();
    this.#manager = undefined;
  }
}
