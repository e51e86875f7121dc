/**
 * The coordinator's life: RPC table and HTTP front-ends up first (so clients get -28
 * while loading), then the services in order with their init messages, then "Done
 * loading"; on RPC stop, SIGTERM or SIGINT: replies in flight go out, front-ends stop,
 * services stop in reverse order, the cookie is removed, exit code 0.
 */
import { controlMethods, RpcRegistry, RpcServer } from '../rpc/index.js';
import type { BindAddress, NodeState, TipEvent } from '../ipc/index.js';
import type { NodeClock } from './clock.js';
import { InitError, type NodeConfig } from './config.js';
import { deleteAuthCookie, writeAuthCookie, type AuthCookie } from './cookie.js';
import { discardSpareFrontends } from './frontend-spares.js';
import { FrontendPool, FrontendStartError } from './frontends.js';
import { HTTP_START_FAILED, setupHttp } from './http-settings.js';
import { logCategoriesString } from './log-categories.js';
import type { Logger } from './logging.js';
import { canBindExclusively } from './port-probe.js';
import type { NodeContext, NodeService } from './services.js';
import { nodeFacts } from './node-facts.js';
import { PushJournal } from './push-journal.js';
import { NodeScheduler } from './scheduler.js';
import { NodeWarnings } from './warnings.js';
import { runCommand } from './run-command.js';
import { removePidFile } from './datadir-lock.js';
import { nodeRpcMethods } from './node-rpc.js';

export const PRODUCT_NAME = 'tsbtcd';
/** How long shutdown waits for calls in flight before stopping the front-ends anyway. */
const INFLIGHT_GRACE_MS = 5000;

export class Coordinator {
  private shutdownRequested = false;
  private wakeShutdown!: () => void;
  private readonly shutdownSignal = new Promise<void>((resolve) => (this.wakeShutdown = resolve));
  private readonly registry = new RpcRegistry();
  private readonly server = new RpcServer(this.registry);
  private pool: FrontendPool | undefined;
  private cookie: AuthCookie | undefined;
  private tip: TipEvent | null = null;
  private nodeState: NodeState = { ibd: true, mocktime: 0, warnings: [] };
  private readonly started: NodeService[] = [];
  /** -websocket: the numbered push events the front-ends serve on /ws. */
  private readonly push: PushJournal | undefined;
  /** The coordinator's periodic tasks (Core's CScheduler); mockscheduler moves them. */
  private readonly scheduler = new NodeScheduler((err) => this.log.error(`scheduled task failed: ${(err as Error).stack ?? String(err)}`));

  /** The node's warnings: a change goes to every front-end with the rest of the node state. */
  private readonly warnings: NodeWarnings;

  constructor(
    private readonly config: NodeConfig,
    private readonly log: Logger,
    private readonly clock: NodeClock,
    private readonly services: readonly NodeService[],
  ) {
    this.warnings = new NodeWarnings(config.args.getArg('alertnotify') || undefined, (m) => log.info(m), () => this.pushNodeState({ ...this.nodeState }));
    this.push = config.websocket ? new PushJournal((events) => this.pool?.broadcast({ t: 'push', events })) : undefined;
  }

  requestShutdown(): void {
    if (this.shutdownRequested) return;
    this.shutdownRequested = true;
    for (const service of this.started) service.interrupt?.();
    this.wakeShutdown();
  }

  /** Runs the node until it is asked to stop; resolves to the exit code. */
  async run(): Promise<number> {
    let code = 0;
    try {
      await this.startUp();
      if (!this.shutdownRequested) {
        this.initMessage('Done loading');
        this.server.setWarmupFinished();
        this.pool?.setWarmup(null);
        // Core's StartupNotify: the last step of start-up, left to run free.
        const startupNotify = this.config.args.getArg('startupnotify');
        if (startupNotify) void runCommand(startupNotify, (m) => this.log.info(m));
      }
      // A pending promise does not keep Node running: without -server (no front-end
      // pipes) nothing else did, and the node exited right after "Done loading".
      const keepRunning = setInterval(() => undefined, 1 << 30);
      try {
        await this.shutdownSignal;
      } finally {
        clearInterval(keepRunning);
      }
    } catch (err) {
      if (!(err instanceof InitError)) throw err;
      for (const m of err.messages) {
        if (err.question) this.log.info(m);
        else this.log.error(m);
      }
      process.stderr.write(err.printed);
      code = 1;
    }
    await this.shutDown();
    return code;
  }

  private pushNodeState(state: Omit<NodeState, 'warnings'>): void {
    this.nodeState = { ibd: state.ibd, mocktime: state.mocktime, warnings: this.warnings.messages() };
    this.pool?.broadcast({ t: 'nodestate', state: this.nodeState });
  }

  private initMessage(message: string): void {
    this.log.info(`init message: ${message}`);
    this.server.setWarmupStatus(message);
    if (this.server.warmupStatus !== undefined) this.pool?.setWarmup(message);
  }

  private context(): NodeContext {
    const self = this;
    return {
      config: this.config,
      log: this.log,
      clock: this.clock,
      rpc: this.registry,
      initMessage: (m) => this.initMessage(m),
      requestShutdown: () => this.requestShutdown(),
      get shutdownRequested() {
        return self.shutdownRequested;
      },
      setSnapshotSource: (source) => this.server.setSnapshotSource(source),
      notifyNodeState: (state) => this.pushNodeState(state),
      warnings: this.warnings,
      notifyTip: (tip) => {
        this.tip = tip;
        this.pool?.notifyTip(tip);
      },
      pushJournal: this.push,
      scheduler: this.scheduler,
    };
  }

  private async startUp(): Promise<void> {
    const log = this.log;
    this.registry.register(
      ...controlMethods({
        registry: this.registry,
        server: this.server,
        productName: PRODUCT_NAME,
        startTime: Math.floor(Date.now() / 1000),
        now: () => this.clock.now(),
        logPath: log.filePath ?? '',
        logging: {
          categoriesString: logCategoriesString(),
          categoryStatus: () => log.categoryStatus(),
          enableCategory: (name) => this.changedCategories(log.enableCategory(name)),
          disableCategory: (name) => this.changedCategories(log.disableCategory(name)),
        },
        requestShutdown: () => this.requestShutdown(),
      }),
    );
    this.registry.register(...nodeRpcMethods(this.config, nodeFacts(this.config, () => this.shutdownRequested, undefined, () => this.warnings.messages())));
    for (const s of this.services) this.registry.register(...(s.rpcMethods ?? []));

    try {
      if (this.config.server) await this.startHttp();
    } finally {
      // Whatever the config file said, the spares not adopted by now never will be.
      discardSpareFrontends();
    }

    const ctx = this.context();
    for (const service of this.services) {
      if (this.shutdownRequested) return;
      this.started.push(service);
      const starting = service.start(ctx);
      try {
        await Promise.race([starting, this.shutdownSignal]);
      } catch (err) {
        // A service's own InitError carries Core's exact text.
        if (err instanceof InitError) throw err;
        throw new InitError(`${service.name}: ${(err as Error).message}`);
      }
    }
  }

  private changedCategories(ok: boolean): boolean {
    const debugCategories = Object.entries(this.log.categoryStatus())
      .filter(([, on]) => on)
      .map(([c]) => c);
    this.pool?.broadcast({ t: 'logconfig', debugCategories });
    return ok;
  }

  private async startHttp(): Promise<void> {
    const setup = setupHttp(this.config, this.log);
    const binds: BindAddress[] = [];
    for (const bind of setup.binds) {
      if (await canBindExclusively(bind)) binds.push(bind);
      else this.log.info(`Binding RPC on address ${bind.host} port ${bind.port} failed.`);
    }
    if (binds.length === 0) {
      this.log.error('Unable to bind any endpoint for RPC server');
      throw new InitError(HTTP_START_FAILED);
    }
    const pool = new FrontendPool({
      count: this.config.rpcFrontends,
      server: this.server,
      log: this.log,
      settings: (index) => ({
        index,
        binds,
        allowSubnets: setup.allowSubnets,
        credentials: setup.credentials,
        whitelists: setup.whitelists,
        whitelistDefault: setup.whitelistDefault,
        rest: this.config.rest,
        serverTimeout: this.config.rpcServerTimeout,
        requestBound: this.config.rpcRequestBound,
        warmup: this.server.warmupStatus ?? null,
        tip: this.tip,
        debugCategories: Object.entries(this.log.categoryStatus())
          .filter(([, on]) => on)
          .map(([c]) => c),
        netDir: this.config.netDir,
        blocksDir: this.config.blocksDir,
        nodeState: this.nodeState,
        txindex: this.config.txindex,
        blockfilterindex: this.config.blockFilterIndex,
        coinstatsindex: this.config.coinStatsIndex,
        addressindex: this.config.addressIndex,
        txospenderindex: this.config.txoSpenderIndex,
        esplora: this.config.esplora,
        ...(this.push ? { push: this.push.backlog() } : {}),
        deprecatedRpc: this.config.args.getArgs('deprecatedrpc'),
        pruneTarget: this.config.pruneTarget,
        mempoolPolicy: this.config.mempoolPolicy,
        coinsCacheBytes: this.config.coinsCacheBytes,
        sigBackend: this.config.sigBackend,
        chain: this.config.chain,
        chainArgs: this.config.chainArgs,
      }),
    });
    this.pool = pool;
    try {
      await pool.start();
    } catch (err) {
      if (!(err instanceof FrontendStartError)) throw err;
      this.log.error(err.message);
      throw new InitError(HTTP_START_FAILED);
    }
    // As in Core, the cookie appears only once the RPC port is bound.
    if (setup.cookie) {
      try {
        writeAuthCookie(setup.cookie);
      } catch {
        this.log.error(`Unable to open cookie authentication file ${setup.cookie.path}.tmp for writing`);
        throw new InitError(HTTP_START_FAILED);
      }
      this.cookie = setup.cookie;
    }
    this.log.info(`HTTP front-ends started: ${pool.pids().length} (pids ${pool.pids().join(', ')})`);
  }

  private async shutDown(): Promise<void> {
    // Core's ShutdownNotify (in Interrupt, before anything stops): every -shutdownnotify, waited for.
    await Promise.all(this.config.args.getArgs('shutdownnotify').map((command) => runCommand(command, (m) => this.log.info(m))));
    this.log.info('Shutdown: In progress...');
    this.scheduler.stop();
    const pool = this.pool;
    if (pool) {
      // Replies to calls being executed (the `stop` call itself among them) go out first.
      const deadline = Date.now() + INFLIGHT_GRACE_MS;
      while (pool.callsInFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await pool.stop();
    }
    for (const service of this.started.reverse()) {
      try {
        await service.stop();
      } catch (err) {
        this.log.error(`Stopping ${service.name} failed: ${(err as Error).message}`);
      }
    }
    if (this.cookie) deleteAuthCookie(this.cookie);
    removePidFile((m) => this.log.info(m));
    this.log.info('Shutdown: done');
  }
}
