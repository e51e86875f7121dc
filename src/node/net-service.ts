/**
 * The P2P layer as a node service (Core's step 12, "Starting network threads"): after the
 * chainstate is loaded, the connection manager binds its listening sockets (a bind that
 * fails stops start-up with Core's messages), joins the chain's events (announcements,
 * punishment of invalid blocks) and starts connecting to -connect / -addnode peers. It
 * registers the Network RPC methods, answered from the running connection manager.
 */
import { ConnectionManager, DEFAULT_PEER_CONNECT_TIMEOUT_S, MessageCapture, filterLookupFromView, NET_INTERNAL, NET_IPV4, NET_IPV6, NET_UNROUTABLE, parseNetworkName, type NetLogCategory } from '../net/index.js';
import { networkMethods, peerMethods, type PeerNetwork } from '../rpc/index.js';
import type { ChainstateService } from './chainstate-service.js';
import { InitError, type NodeConfig } from './config.js';
import { PRODUCT_NAME } from './coordinator.js';
import { nodeFacts } from './node-facts.js';
import { networkFacts } from './node-rpc.js';
import { netOptions } from './net-options.js';
import { peerNetworkOf } from './peer-network-adapter.js';
import type { NodeContext, NodeService } from './services.js';
import type { NodeWarnings } from './warnings.js';

export class NetService implements NodeService {
  readonly name = 'net';
  readonly rpcMethods;
  #manager: ConnectionManager | undefined;
  #network: PeerNetwork | undefined;
  /** The node's warnings (getnetworkinfo's), known once started. */
  #warnings: NodeWarnings | undefined;

  constructor(
    private readonly config: NodeConfig,
    private readonly chainstate: ChainstateService,
  ) {
    const deprecated = new Set(config.args.getArgs('deprecatedrpc'));
    const facts = nodeFacts(config, () => false, () => this.peerCount(), () => this.#warnings?.messages() ?? []);
    this.rpcMethods = [...networkMethods(networkFacts(config), facts, () => this.#network), ...peerMethods(() => this.#network, (name) => deprecated.has(name))];
  }

  /** The running P2P network (undefined before start). */
  get peerNetwork(): PeerNetwork | undefined {
    return this.#network;
  }

  peerCount(): number {
    if (!this.#manager) return 0;
    let n = 0;
    for (const peer of this.#manager.peers()) if (peer.disconnectReason === undefined) n++;
    return n;
  }

  async start(ctx: NodeContext): Promise<void> {
    this.#warnings = ctx.warnings;
    const chain = this.chainstate.chainstate;
    if (!chain) return;
    const config = this.config;
    const options = netOptions(config);
    const facts = networkFacts(config);
    const policy = config.mempoolPolicy;
    // Core's g_reachable_nets starts with every network, unroutable (loopback, private ranges)
    // and internal ones too; -onlynet empties it and adds back only those named.
    const reachableNetworks = [...facts.reachable].flatMap((name) => parseNetworkName(name) ?? []);
    if (!config.args.isArgSet('onlynet')) reachableNetworks.push(NET_UNROUTABLE, NET_INTERNAL);
    // Core's AppInitMain: an explicit -dnsseed=1 cannot be honoured when -onlynet rules out IPv4 and IPv6.
    if (config.args.getBoolArg('dnsseed') === true && !reachableNetworks.includes(NET_IPV4) && !reachableNetworks.includes(NET_IPV6)) {
      throw new InitError('Incompatible options: -dnsseed=1 was explicitly specified, but -onlynet forbids connections to IPv4/IPv6');
    }
    const automaticOutbound = options.connect.length === 0 && !config.args.isArgSet('connect');
    const manager = new ConnectionManager({
      params: config.network,
      chain,
      mempool: this.chainstate.nodeMempool,
      log: {
        info: (m) => ctx.log.info(m),
        debug: (category: NetLogCategory, m) => ctx.log.debug(category, m),
        enabled: (category: NetLogCategory) => ctx.log.willLog(category, 'debug'),
      },
      now: () => ctx.clock.now(),
      nowMs: () => ctx.clock.nowMs(),
      // Core's GetTime<microseconds>: the mock second itself while mocked.
      ...(config.args.getBoolArg('capturemessages', false) ? { capture: new MessageCapture(config.netDir, () => (ctx.clock.mocktime ? BigInt(ctx.clock.mocktime) * 1_000_000n : BigInt(Date.now()) * 1000n)) } : {}),
      localServices: facts.localServices,
      blocksOnly: options.blocksOnly,
      userAgent: facts.subversion,
      minRelayFee: policy.minRelayTxFee,
      listen: options.listen,
      binds: options.binds,
      connect: options.connect,
      addNodes: options.addNodes,
      maxConnections: options.maxConnections,
      networkActive: options.networkActive,
      whitelist: options.whitelist,
      maxUploadTarget: options.maxUploadTarget,
      automaticOutbound,
      reachableNetworks,
      deterministicAddrman: config.args.getArgs('test').includes('addrman'),
      seedNodes: config.args.getArgs('seednode'),
      // Core: -peertimeout below 1 is an init error; the functional tests pass a huge one with mock time.
      peerTimeout: config.args.getIntArg('peertimeout', DEFAULT_PEER_CONNECT_TIMEOUT_S),
      localAddresses: facts.localAddresses ?? [],
      // Core's -dnsseed: on by default, off with -connect.
      dnsSeed: config.args.getBoolArg('dnsseed', !config.args.isArgSet('connect')),
      fixedSeeds: config.args.getBoolArg('fixedseeds', true),
      filterIndex: () => {
        const index = this.chainstate.blockFilterIndex;
        return index ? filterLookupFromView(index.view) : undefined;
      },
      ...(options.proxy ? { proxy: options.proxy } : {}),
      dataDir: config.netDir,
    });
    try {
      manager.loadAddresses();
    } catch (err) {
      throw new InitError((err as Error).message);
    }
    // Core reads anchors.dat just before "Starting network threads…".
    manager.loadAnchors();
    ctx.initMessage('Starting network threads…');
    try {
      await manager.start();
    } catch (err) {
      await manager.stop();
      const bind = options.binds.find((b) => b.host === '0.0.0.0') ?? options.binds[0]!;
      const where = bind.host.includes(':') ? `[${bind.host}]:${bind.port}` : `${bind.host}:${bind.port}`;
      const code = (err as NodeJS.ErrnoException).code;
      const first = code === 'EADDRINUSE' ? `Unable to bind to ${where} on this computer. ${PRODUCT_NAME} is probably already running.` : `Unable to bind to ${where} on this computer (bind returned error ${(err as Error).message})`;
      throw new InitError([first, 'Failed to listen on any port. Use -listen=0 if you want this.']);
    }
    this.#manager = manager;
    this.#network = peerNetworkOf(manager, () => ctx.clock.now(), facts.localServices, config.chain === 'regtest', (seconds) => ctx.scheduler.mockForward(seconds));
    this.chainstate.chainListeners.push({
      tipChanged: (tip) => manager.peerManager.tipChanged(tip),
      blockChecked: (hash, verdict) => manager.peerManager.blockChecked(hash, verdict),
      blockConnected: () => manager.peerManager.blockConnected(),
    });
  }

  async stop(): Promise<void> {
    await this.#manager?.stop();
  }
}
