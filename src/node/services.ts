/**
 * The coordinator's services (chainstate, mempool, net, ...), started in order while the
 * node is warming up and stopped in reverse order at shutdown. A service reports its
 * steps with ctx.initMessage("Loading block index…"): each is logged as Core logs it and
 * is the -28 message RPC clients get until start-up is done.
 */
import type { NodeState, TipEvent } from '../ipc/index.js';
import type { RpcMethod, RpcRegistry, SnapshotSource } from '../rpc/index.js';
import type { NodeClock } from './clock.js';
import type { NodeConfig } from './config.js';
import type { Logger } from './logging.js';
import { ChainstateService } from './chainstate-service.js';
import { WalletService } from './wallet-service.js';
import { ZmqService } from './zmq-service.js';
import { PushService } from './push-service.js';
import type { PushJournal } from './push-journal.js';
import type { NodeScheduler } from './scheduler.js';
import type { NodeWarnings } from './warnings.js';
import { NetService } from './net-service.js';

export interface NodeContext {
  readonly config: NodeConfig;
  readonly log: Logger;
  readonly clock: NodeClock;
  /** Further methods may be registered here; those known up front go in NodeService.rpcMethods. */
  readonly rpc: RpcRegistry;
  /** Reports a start-up step ("init message: <msg>" in debug.log, the -28 text over RPC). */
  initMessage(message: string): void;
  /** Asks for a clean shutdown, as RPC `stop` and SIGTERM do. */
  requestShutdown(): void;
  /** True once shutdown was requested; a long start() should return early when it is. */
  readonly shutdownRequested: boolean;
  /** Where the coordinator's own snapshot-reading RPC methods read the chain. */
  setSnapshotSource(source: SnapshotSource): void;
  /** Tells every front-end the coordinator state behind read-only answers (IBD, mock time; the coordinator adds the warnings). */
  notifyNodeState(state: Omit<NodeState, 'warnings'>): void;
  /** The node's warnings; setting one runs -alertnotify and tells the front-ends. */
  readonly warnings: NodeWarnings;
  /** Tells every front-end the new tip (for waitfornewblock and friends). */
  notifyTip(tip: TipEvent): void;
  /** -websocket: where push events are numbered and handed to the front-ends. */
  readonly pushJournal: PushJournal | undefined;
  /** Periodic tasks (Core's CScheduler); mockscheduler brings them forward. */
  readonly scheduler: NodeScheduler;
}

export interface NodeService {
  readonly name: string;
  /** Registered before any service starts, so `help` lists them during warm-up. */
  readonly rpcMethods?: readonly RpcMethod[];
  start(ctx: NodeContext): Promise<void>;
  /**
   * Called the moment shutdown is requested (Core's m_interrupt), before calls in flight
   * are waited for: long operations (generate loops, chain activation, imports) end at
   * their next step instead of running on through the grace period. stop() follows.
   */
  interrupt?(): void;
  stop(): Promise<void>;
}

/**
 * Test-only (-testwarmupms=N): holds start-up in warm-up for N ms, so tests can watch
 * RPC answer -28. Reports its own init message, not one of Core's.
 */
export function testWarmupService(ms: number): NodeService {
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  return {
    name: 'test warm-up delay',
    start(ctx) {
      ctx.initMessage('Test warm-up delay…');
      return new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, ms);
      });
    },
    async stop() {
      clearTimeout(timer);
      wake?.();
    },
  };
}

/** The services this node runs, in start order. New services are added to this list. */
export function nodeServices(config: NodeConfig): NodeService[] {
  const services: NodeService[] = [];
  if (config.testWarmupMs > 0) services.push(testWarmupService(config.testWarmupMs));
  // The chainstate counts peers for getblocktemplate through the net service started after it.
  let net: NetService | undefined;
  const chainstate = new ChainstateService(config, () => net?.peerCount() ?? 0, () => net?.peerNetwork);
  net = new NetService(config, chainstate);
  // Core loads wallets after the chain and before the network starts.
  services.push(chainstate);
  if (!config.args.getBoolArg('disablewallet', false)) services.push(new WalletService(config, chainstate));
  // Core's ZMQ notification interface is registered before the network starts.
  services.push(new ZmqService(config, chainstate));
  if (config.websocket) services.push(new PushService(config, chainstate));
  services.push(net);
  return services;
}
