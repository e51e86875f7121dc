/**
 * The node's connections (Core's CConnman): listening sockets, outbound connections to
 * -connect and -addnode peers (and the addnode RPC's), the inbound slot limit with Core's
 * eviction, bans and discouragement at accept time, the handshake timeout, inactivity
 * checks, the network-active switch, byte totals, automatic outbound connections (with an
 * extra one when the tip looks stale), the 45-second outbound-peer check, and the 100 ms
 * message-handler tick that lets the peer manager send what it has queued.
 *
 * Sockets live in the coordinator, beside the chainstate (see README, "P2P"): a block's
 * script checks run on the worker pool and its connect yields to the event loop every
 * 25 ms, so pings, headers and other peers' traffic keep flowing while it validates.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import type { Chainstate } from '../chain/index.js';
import type { ChainParams } from '../consensus/index.js';
import type { NodeMempool } from '../mempool/index.js';
import { join } from 'node:path';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { PeerAddress } from './addresses.js';
import { ADDRESS_TIME_INIT, AddrMan, addressNetwork, formatAddress, formatAddressPort, internalAddress, isValidAddress, NET_CJDNS, NET_I2P, NET_IPV4, NET_IPV6, NET_ONION, netGroup, networkName, parseAddress, type NetAddress, type Network } from './addrman.js';
import { loadAddrman, writePeersDat } from './addrman-file.js';
import { ANCHORS_FILENAME, MAX_BLOCK_RELAY_ONLY_ANCHORS, readAnchors, writeAnchors } from './anchors.js';
import { convertSeeds, reachableEmptyNetworks, seedsForNetworks } from './fixed-seeds.js';
import { BanManager } from './ban-manager.js';
import { AutomaticOutboundSchedule, MAX_AUTOMATIC_OUTBOUND, MAX_BLOCK_RELAY_ONLY } from './automatic-outbound.js';
import type { BlockFilterLookup } from './compact-filters.js';
import { selectPeerToEvict } from './eviction.js';
import { Handshake } from './handshake.js';
import { formatAddrPort, networkClass, plainIp, splitHostPort } from './net-address.js';
import { PeerConnection } from './peer-connection.js';
import { randomProxyCredentials, socks5Connect } from './socks5.js';
import { PeerManager, type NetLog } from './peer-manager.js';
import { Peer, type ConnectionType, type PermissionName } from './peer.js';
import { UploadTarget } from './upload-target.js';
import { NODE_NETWORK, NODE_NETWORK_LIMITED, NODE_WITNESS } from './protocol.js';
import { isBadPort } from './bad-ports.js';
import { EXTRA_PEER_CHECK_INTERVAL_MS } from './stale-tip.js';
import type { MessageCapture } from './message-capture.js';

/** Core's MAX_ADDNODE_CONNECTIONS. */
export const MAX_ADDNODE_CONNECTIONS = 8;
/** Core's DEFAULT_MAX_PEER_CONNECTIONS. */
export const DEFAULT_MAX_PEER_CONNECTIONS = 125;
/** Milliseconds: Core's DEFAULT_CONNECT_TIMEOUT (-timeout). */
const CONNECT_TIMEOUT_MS = 5000;
/** Core's DEFAULT_PEER_CONNECT_TIMEOUT (-peertimeout), seconds. */
export const DEFAULT_PEER_CONNECT_TIMEOUT_S = 60;
/** Core's TIMEOUT_INTERVAL: no traffic either way for this long ends a connection. */
const INACTIVITY_TIMEOUT_S = 20 * 60;
const TICK_MS = 100;
/** Core's DUMP_PEERS_INTERVAL: peers.dat is rewritten every 15 minutes. */
const DUMP_PEERS_INTERVAL_MS = 15 * 60 * 1000;
/** Core's wait before querying DNS seeds when peers.dat already holds addresses. */
const DNS_SEED_DELAY_MS = 11_000;
/** Milliseconds between automatic outbound attempts (Core's ThreadOpenConnections loop sleeps 500 ms). */
const AUTOMATIC_CONNECT_INTERVAL_MS = 500;
/** Seconds Core gives DNS seeds, -seednode and -addnode to fill an empty network before the fixed seeds. */
const FIXED_SEEDS_DELAY_S = 60;
/** Core's SeedsServiceFlags() prefix of a DNS seed query: "x9." asks for NODE_NETWORK | NODE_WITNESS nodes. */
const DNS_SEED_SERVICE_PREFIX = 'x9.';

export interface WhitelistEntry {
  readonly subnet: { readonly bytes: readonly number[]; readonly prefix: number };
  readonly permissions: readonly PermissionName[];
}

export interface ConnectionManagerOptions {
  readonly params: ChainParams;
  /** -capturemessages: where each peer's messages are written. */
  readonly capture?: MessageCapture;
  readonly chain: Chainstate;
  readonly mempool: NodeMempool | undefined;
  readonly log: NetLog;
  /** The node's clock, seconds (mockable). */
  now(): number;
  /** The node's clock in milliseconds (mockable: the mock time's second when set). */
  nowMs(): number;
  readonly localServices: bigint;
  readonly blocksOnly: boolean;
  readonly userAgent: string;
  readonly minRelayFee: bigint;
  readonly listen: boolean;
  /** Addresses to listen on (host may be '::' or '0.0.0.0'). */
  readonly binds: readonly { host: string; port: number; permissions?: readonly PermissionName[]; optional?: boolean }[];
  /** -connect: the only peers to connect to (no automatic outbound). */
  readonly connect: readonly string[];
  /** -addnode entries. */
  readonly addNodes: readonly string[];
  readonly maxConnections: number;
  readonly networkActive: boolean;
  readonly whitelist: readonly WhitelistEntry[];
  /** -proxy: every outbound connection goes through this SOCKS5 proxy. */
  readonly proxy?: { host: string; port: number; randomizeCredentials: boolean };
  /** The basic block filter index for BIP157 requests. */
  filterIndex?(): BlockFilterLookup | undefined;
  /** -peertimeout: seconds before a connection's inactivity is checked. */
  readonly peerTimeout: number;
  /** Our own addresses (-externalip) to announce while listening. */
  readonly localAddresses?: readonly { address: string; port: number }[];
  /** -seednode: peers asked for addresses once at start (addr-fetch connections). */
  readonly seedNodes?: readonly string[];
  /** -dnsseed: query the network's DNS seeds when the address manager has too few addresses. */
  readonly dnsSeed?: boolean;
  /** -fixedseeds (default on): fall back to the network's fixed seeds when a reachable network has no address. */
  readonly fixedSeeds?: boolean;
  /** Whether to keep automatic outbound connections from the address manager (no -connect). */
  readonly automaticOutbound?: boolean;
  /**
   * Core's g_reachable_nets (-onlynet, the proxies, -cjdnsreachable): the networks automatic
   * connections, anchors and fixed seeds may use and whose gossiped addresses are stored.
   * Every network when absent. Manual connections are not limited by it.
   */
  readonly reachableNetworks?: readonly Network[];
  /** -test=addrman: Core's deterministic address manager (key uint256{1}, a zero-keyed random context). */
  readonly deterministicAddrman?: boolean;
  /** -maxuploadtarget in bytes per 24 hours (0: none). */
  readonly maxUploadTarget: number;
  /** Where banlist.json lives (undefined: not persisted). */
  readonly dataDir: string | undefined;
}

export interface AddedNode {
  readonly text: string;
  /** Milliseconds of the last connection attempt. */
  lastAttempt: number;
}

export class ConnectionManager {
  readonly peerManager: PeerManager;
  readonly bans: BanManager;
  readonly uploadTarget: UploadTarget;
  /** Known peer addresses (peers.dat); an empty one until start() loads the file. */
  addrman: AddrMan;
  #lastAddrmanDump = Date.now();
  readonly #peers = new Map<number, Peer>();
  readonly #servers: Server[] = [];
  readonly #pending = new Set<string>();
  readonly #ownNonces = new Set<bigint>();
  readonly addedNodes: AddedNode[] = [];
  #nextId = 0;
  #networkActive: boolean;
  #timer: NodeJS.Timeout | undefined;
  #connectLoop = 0;
  #nextConnectAt = 0;
  #nextAddedNodesAt = 0;
  #stopped = false;
  /** Core's m_anchors: last run's block-relay-only peers, tried first (the last one first). */
  #anchors: PeerAddress[] = [];
  /** Whether the fixed seeds may still be added this run (Core's add_fixed_seeds). */
  #addFixedSeeds: boolean;
  /** When automatic connections started: milliseconds (real) and seconds (node clock, mockable). */
  #startedAtMs = 0;
  #startedAt = 0;
  totalBytesReceived = 0;
  totalBytesSent = 0;
  /** The addresses we listen on, as bound. */
  readonly listening: { host: string; port: number }[] = [];

  constructor(private readonly options: ConnectionManagerOptions) {
    this.#networkActive = options.networkActive;
    this.#addFixedSeeds = options.fixedSeeds ?? true;
    this.#automatic = new AutomaticOutboundSchedule(options.nowMs(), (m) => options.log.debug('net', m));
    this.bans = new BanManager(options.dataDir, options.now, (m) => options.log.info(m));
    this.uploadTarget = new UploadTarget(options.maxUploadTarget, options.now);
    this.addrman = new AddrMan({ now: options.now, deterministic: options.deterministicAddrman ?? false });
    this.peerManager = new PeerManager({
      params: options.params,
      chain: options.chain,
      mempool: options.mempool,
      localServices: options.localServices,
      blocksOnly: options.blocksOnly,
      userAgent: options.userAgent,
      minRelayFee: options.minRelayFee,
      log: options.log,
      now: options.now,
      nowMs: options.nowMs,
      disconnect: (peer, reason) => this.disconnect(peer, reason),
      discourage: (peer) => this.bans.discourage(plainIp(peer.connection.socket.remoteAddress ?? '')),
      peers: () => this.#peers.values(),
      ownNonces: this.#ownNonces,
      uploadTarget: this.uploadTarget,
      filterIndex: () => options.filterIndex?.(),
      addrman: () => this.addrman,
      isReachable: (network) => this.isReachable(network),
      localAddresses: options.listen ? (options.localAddresses ?? []) : [],
      connections: {
        networkActive: () => this.#networkActive,
        automaticOutbound: options.automaticOutbound ?? false,
        tryNewOutboundPeer: () => this.#automatic.tryNewOutboundPeer,
        setTryNewOutboundPeer: (flag) => this.#automatic.setTryNewOutboundPeer(flag),
        startExtraBlockRelayPeers: () => this.#automatic.startExtraBlockRelayPeers(),
      },
      multipleManualOrFullOutbound: (peer) => this.#manualOrFullOutboundOn(connectionNetwork(peer)) > 1,
    });
    for (const text of options.addNodes) this.addedNodes.push({ text, lastAttempt: 0 });
  }

  /** Core's g_reachable_nets.Contains. */
  isReachable(network: Network): boolean {
    return this.options.reachableNetworks === undefined || this.options.reachableNetworks.includes(network);
  }

  #peersDatPath(): string | undefined {
    return this.options.dataDir === undefined ? undefined : join(this.options.dataDir, 'peers.dat');
  }

  /** Loads peers.dat (Core's LoadAddrman: a missing file is created, a corrupt one stops start-up). */
  loadAddresses(): void {
    const path = this.#peersDatPath();
    if (!path) return;
    const started = Date.now();
    const { addrman } = loadAddrman(path, this.options.params.messageStart, { now: this.options.now, deterministic: this.options.deterministicAddrman ?? false });
    this.addrman = addrman;
    this.options.log.info(`Loaded ${addrman.size()} addresses from peers.dat  ${Date.now() - started}ms`);
  }

  /** Core's DumpAddresses: peers.dat rewritten whole. */
  dumpAddresses(): void {
    const path = this.#peersDatPath();
    if (!path) return;
    const started = Date.now();
    writePeersDat(path, this.addrman, this.options.params.messageStart);
    this.#lastAddrmanDump = Date.now();
    this.options.log.debug('net', `Flushed ${this.addrman.size()} addresses to peers.dat  ${Date.now() - started}ms`);
  }

  #anchorsPath(): string | undefined {
    return this.options.dataDir === undefined ? undefined : join(this.options.dataDir, ANCHORS_FILENAME);
  }

  /**
   * Core's CConnman::Start with automatic connections (no -connect): anchors.dat is read and
   * deleted, and at most two of its addresses become the first connections to make.
   */
  loadAnchors(): void {
    const path = this.#anchorsPath();
    if (!this.options.automaticOutbound || !path) return;
    const read = readAnchors(path, this.options.params.messageStart);
    if (read) this.options.log.info(`Loaded ${read.length} addresses from "${ANCHORS_FILENAME}"`);
    this.#anchors = (read ?? []).slice(0, MAX_BLOCK_RELAY_ONLY_ANCHORS);
    this.options.log.info(`${this.#anchors.length} block-relay-only anchors will be tried for connections.`);
  }

  /** Core's DumpAnchors at a clean shutdown: the block-relay-only peers, up to two, in connection order. */
  #dumpAnchors(peers: readonly Peer[]): void {
    const path = this.#anchorsPath();
    if (!path) return;
    const anchors = peers.flatMap((p) => (p.connectionType === 'block-relay-only' && p.addr ? [p.addr] : [])).slice(0, MAX_BLOCK_RELAY_ONLY_ANCHORS);
    const started = Date.now();
    const title = `DumpAnchors: Flush ${anchors.length} outbound block-relay-only peer addresses to ${ANCHORS_FILENAME}`;
    this.options.log.info(`${title} started`);
    writeAnchors(path, anchors, this.options.params.messageStart);
    this.options.log.info(`${title} completed (${((Date.now() - started) / 1000).toFixed(2)}s)`);
  }

  /** Binds the listening sockets (Core's "Bound to" lines); throws the bind error. */
  async start(): Promise<void> {
    if (this.options.listen) {
      for (const bind of this.options.binds) {
        try {
          await this.#listen(bind.host, bind.port, bind.permissions ?? []);
        } catch (err) {
          // Core does not insist on "::": the host may have no IPv6.
          if (!bind.optional) throw err;
          this.options.log.info(`Unable to bind to ${formatAddrPort(bind.host, bind.port)} on this computer (${(err as Error).message})`);
        }
      }
    }
    this.#startedAtMs = Date.now();
    this.#startedAt = this.options.now();
    if (this.options.automaticOutbound && !this.#addFixedSeeds) this.options.log.info('Fixed seeds are disabled');
    this.#nextPeerCheckAt = Date.now() + EXTRA_PEER_CHECK_INTERVAL_MS;
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    // Core's connection threads make their first attempts at once, not a tick later.
    setImmediate(() => this.#tick());
    // Core's -seednode: an addr-fetch connection to each, made by the outbound-connection
    // loop, which runs with -connect peers or automatic connections (not with -connect=0).
    if (this.options.automaticOutbound || this.options.connect.length > 0) {
      for (const seed of this.options.seedNodes ?? []) void this.openManual(seed, 'addr-fetch');
    }
    if (this.options.dnsSeed) this.#dnsSeedTimer = setTimeout(() => void this.#queryDnsSeeds(), this.addrman.size() > 0 ? DNS_SEED_DELAY_MS : 0);
  }

  #dnsSeedTimer: NodeJS.Timeout | undefined;

  /**
   * Core's ThreadDNSAddressSeed: with addresses known, wait 11 s and skip the seeds once two
   * outbound peers are up; otherwise ask each of the network's DNS seeds and add what they
   * answer, dated three to seven days back, with the seed as the source.
   */
  async #queryDnsSeeds(): Promise<void> {
    if (this.#stopped) return;
    if (!this.#networkActive) {
      // Core holds off on the seeds while the P2P network is switched off.
      this.options.log.info('Waiting for network to be reactivated before querying DNS seeds.');
      while (!this.#networkActive) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (this.#stopped) return;
      }
    }
    const outbound = [...this.#peers.values()].filter((p) => p.connectionType === 'outbound-full-relay' && p.successfullyConnected).length;
    if (this.addrman.size() > 0 && outbound >= 2) {
      this.options.log.info('P2P peers available. Skipped DNS seeding.');
      return;
    }
    let found = 0;
    for (const seed of this.options.params.dnsSeeds) {
      if (this.#stopped) return;
      if (this.options.proxy) {
        // Through a proxy names cannot be resolved here: the seed becomes an addr-fetch peer (Core's AddAddrFetch).
        void this.openManual(seed, 'addr-fetch');
        continue;
      }
      // Core asks for nodes with the services it wants ("x9." + seed), with that name as the
      // source; a seed that cannot answer it (or a -signetseednode "host:port") becomes an
      // addr-fetch peer instead.
      const host = `${DNS_SEED_SERVICE_PREFIX}${seed}`;
      let ips: { address: string; family: number }[];
      try {
        ips = (await dnsLookup(host, { all: true })).slice(0, 32);
      } catch {
        ips = [];
      }
      if (ips.length === 0) {
        void this.openManual(seed, 'addr-fetch');
        continue;
      }
      const now = this.options.now();
      const entries = ips.flatMap((r) => {
        const parsed = parseAddress(r.address);
        if (!parsed) return [];
        return [{ time: now - 3 * 24 * 3600 - Math.floor(Math.random() * 4 * 24 * 3600), services: NODE_NETWORK | NODE_WITNESS, network: parsed.network, address: parsed.address, port: this.options.params.defaultPort }];
      });
      if (entries.length > 0) {
        this.addrman.add(entries, internalAddress(host));
        found += entries.length;
      }
    }
    this.options.log.info(`${found} addresses found from DNS seeds`);
  }

  #listen(host: string, port: number, permissions: readonly PermissionName[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = createServer({ noDelay: true }, (socket) => this.#accept(socket, permissions));
      server.once('error', reject);
      server.listen({ host, port, ipv6Only: host.includes(':') }, () => {
        server.off('error', reject);
        server.on('error', (err) => this.options.log.info(`listening socket error: ${err.message}`));
        this.#servers.push(server);
        this.listening.push({ host, port });
        this.options.log.info(`Bound to ${formatAddrPort(host, port)}`);
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    const wasRunning = this.#timer !== undefined;
    this.#stopped = true;
    clearInterval(this.#timer);
    clearTimeout(this.#dnsSeedTimer);
    // Core's StopNodes: the block-relay-only peers are noted before the connections close.
    const connected = [...this.#peers.values()];
    for (const server of this.#servers) server.close();
    for (const peer of connected) this.disconnect(peer, 'shutdown');
    if (wasRunning) {
      this.dumpAddresses();
      // Anchors only from a clean shutdown, and only with automatic connections (no -connect).
      if (this.options.automaticOutbound) this.#dumpAnchors(connected);
    }
  }

  peers(): IterableIterator<Peer> {
    return this.#peers.values();
  }

  get networkActive(): boolean {
    return this.#networkActive;
  }

  /** setnetworkactive: off disconnects everyone and refuses new connections. */
  setNetworkActive(active: boolean): void {
    if (this.#networkActive === active) return;
    this.#networkActive = active;
    this.options.log.info(`SetNetworkActive: ${active}`);
    if (!active) for (const peer of [...this.#peers.values()]) this.disconnect(peer, 'network deactivated');
  }

  /** Core's m_max_inbound. */
  get maxInbound(): number {
    return Math.max(0, this.options.maxConnections - MAX_AUTOMATIC_OUTBOUND);
  }

  /**
   * Core's m_network_conn_counts: the manual and full-relay connections on `network` (a
   * GetNetworkName). The extra-peer eviction keeps a network's only one, and the
   * network-specific extra connection goes where there is none.
   */
  #manualOrFullOutboundOn(network: string): number {
    let n = 0;
    for (const p of this.#peers.values()) if ((p.connectionType === 'manual' || p.connectionType === 'outbound-full-relay') && connectionNetwork(p) === network) n++;
    return n;
  }

  /** Automatic outbound connections by type, with those being opened, and how many outbound slots they hold. */
  #automaticCounts(): { fullRelay: number; blockRelay: number; slotsInUse: number } {
    let fullRelay = this.#pendingByType.get('outbound-full-relay')!;
    let blockRelay = this.#pendingByType.get('block-relay-only')!;
    let slotsInUse = fullRelay + blockRelay + this.#pendingByType.get('feeler')!;
    for (const p of this.#peers.values()) {
      if (p.connectionType === 'outbound-full-relay') fullRelay++;
      else if (p.connectionType === 'block-relay-only') blockRelay++;
      else if (p.connectionType !== 'feeler' && p.connectionType !== 'addr-fetch') continue;
      slotsInUse++;
    }
    return { fullRelay, blockRelay, slotsInUse };
  }

  /** Whether Core's outbound semaphore has a slot left (addconnection takes one too). */
  hasOutboundSlot(): boolean {
    return this.#automaticCounts().slotsInUse < MAX_AUTOMATIC_OUTBOUND;
  }

  /**
   * Core's mockscheduler: the scheduled tasks (the outbound-peer check, the peers.dat dump)
   * fall due `seconds` earlier; any now due runs at the next tick.
   */
  mockScheduler(seconds: number): void {
    this.#nextPeerCheckAt -= seconds * 1000;
    this.#lastAddrmanDump -= seconds * 1000;
  }

  #permissionsFor(ip: string, listenerPermissions: readonly PermissionName[]): PermissionName[] {
    const out = new Set<PermissionName>(listenerPermissions);
    for (const entry of this.options.whitelist) {
      if (BanManager.matches(entry.subnet, ip)) for (const p of entry.permissions) out.add(p);
    }
    return [...out];
  }

  #accept(socket: Socket, listenerPermissions: readonly PermissionName[]): void {
    const ip = plainIp(socket.remoteAddress ?? '');
    const from = formatAddrPort(ip, socket.remotePort ?? 0);
    if (this.#stopped || !this.#networkActive) {
      this.options.log.debug('net', `connection from ${from} dropped: not accepting new connections`);
      socket.destroy();
      return;
    }
    const permissions = this.#permissionsFor(ip, listenerPermissions);
    const noban = permissions.includes('noban');
    if (!noban && this.bans.isBanned(ip)) {
      this.options.log.debug('net', `connection from ${from} dropped (banned)`);
      socket.destroy();
      return;
    }
    const inbound = [...this.#peers.values()].filter((p) => p.inbound).length;
    const discouraged = !noban && this.bans.isDiscouraged(ip);
    if (discouraged && inbound + 1 >= this.maxInbound) {
      this.options.log.debug('net', `connection from ${from} dropped (discouraged)`);
      socket.destroy();
      return;
    }
    if (inbound >= this.maxInbound) {
      const victim = selectPeerToEvict([...this.#peers.values()], (p) => this.bans.isDiscouraged(plainIp(p.connection.socket.remoteAddress ?? '')));
      if (!victim) {
        this.options.log.debug('net', 'failed to find an eviction candidate - connection dropped (full)');
        socket.destroy();
        return;
      }
      this.options.log.debug('net', `selected peer=${victim.id} for eviction`);
      this.disconnect(victim, 'evicted');
    }
    this.#addPeer(socket, 'inbound', undefined, permissions);
  }

  /**
   * `destination`: for an outbound connection to a literal address, that address — the
   * peer's address, network and group (Core's CNode::addr), which through a -proxy is not
   * the socket's remote end.
   */
  #addPeer(socket: Socket, type: ConnectionType, addedAs: string | undefined, permissions: readonly PermissionName[], destination?: { ip: string; port: number }): Peer {
    const id = this.#nextId++;
    const ip = destination?.ip ?? plainIp(socket.remoteAddress ?? '');
    const address = formatAddrPort(ip, destination?.port ?? socket.remotePort ?? 0);
    const bindAddress = formatAddrPort(socket.localAddress ?? '', socket.localPort ?? 0);
    let peer!: Peer;
    const connection = new PeerConnection(
      socket,
      this.options.params.messageStart,
      {
        message: (frame) => this.peerManager.receive(peer, frame),
        closed: (reason) => this.#removed(peer, reason),
        ...(this.options.capture ? { capture: (type: string, payload: Uint8Array, incoming: boolean) => this.options.capture!.record(address, type, payload, incoming) } : {}),
        corrupt: (error) => this.options.log.debug('net', `Header error: Wrong checksum (${error.command}, ${(error.messageBytes ?? 24) - 24} bytes), peer=${peer.id}`),
        bytes: (direction, count) => {
          if (direction === 'sent') {
            this.totalBytesSent += count;
            this.uploadTarget.recordSent(count);
          }
          else this.totalBytesReceived += count;
        },
      },
      this.options.now,
    );
    const inbound = type === 'inbound';
    const nonce = this.peerManager.newNonce();
    const version = this.peerManager.versionPayload({ inbound, blockRelayOnly: type === 'block-relay-only', hasRelayPermission: permissions.includes('relay') }, nonce);
    const handshake = new Handshake({
      outbound: !inbound,
      ourVersion: version,
      isOwnNonce: (n) => this.#ownNonces.has(n) && n !== nonce,
      // Core wants full nodes with witness support from automatic outbound peers only.
      requiredServices: type === 'outbound-full-relay' || type === 'block-relay-only' ? NODE_NETWORK | NODE_WITNESS : 0n,
    });
    const parsed = parseAddress(ip);
    peer = new Peer(id, connection, handshake, type, address, bindAddress, networkClass(ip), parsed ? groupKey(parsed) : address, addedAs, permissions, this.options.now());
    this.#peers.set(id, peer);
    connection.onClose(() => this.#ownNonces.delete(nonce));
    this.options.log.debug('net', `Added connection${inbound ? ` to ${address}` : ''} peer=${id}`);
    const opening = handshake.opening();
    if (opening.kind === 'send') for (const m of opening.messages) peer.send(m.command, m.payload);
    return peer;
  }

  disconnect(peer: Peer, reason: string): void {
    if (peer.disconnectReason !== undefined) return;
    peer.disconnectReason = reason;
    this.options.log.debug('net', `disconnecting peer=${peer.id}: ${reason}`);
    peer.connection.close(reason);
  }

  #removed(peer: Peer, reason: string): void {
    peer.disconnectReason ??= reason;
    if (!this.#peers.delete(peer.id)) return;
    this.peerManager.peerDisconnected(peer);
    this.options.log.debug('net', `Cleared nodestate for peer=${peer.id}`);
  }

  /**
   * Opens an outbound connection to "host[:port]": manual ones (-connect, -addnode, addnode
   * add/onetry) and, with `addr` (the address with its time and services), automatic ones.
   * Resolves when it is up or failed.
   */
  async openManual(text: string, type: ConnectionType = 'manual', addr?: PeerAddress): Promise<Peer | undefined> {
    if (this.#stopped || !this.#networkActive) return undefined;
    if (this.#pending.has(text) || this.findPeer(text)) return undefined;
    const target = splitHostPort(text, this.options.params.defaultPort);
    if (!target) return undefined;
    this.#pending.add(text);
    let socket: Socket;
    try {
      socket = await this.#dial(target.host, target.port);
    } catch (err) {
      this.options.log.debug('net', `connection to ${text} failed: ${(err as Error).message}`);
      return undefined;
    } finally {
      this.#pending.delete(text);
    }
    if (this.#stopped || !this.#networkActive) {
      socket.destroy();
      return undefined;
    }
    const ip = plainIp(socket.remoteAddress ?? '');
    const peer = this.#addPeer(socket, type, text, this.#permissionsFor(ip, []), parseAddress(target.host) ? { ip: plainIp(target.host), port: target.port } : undefined);
    // Core's CNode::addr: a name dialled has no time or services (CAddress(resolved, NODE_NONE)).
    const dialled = parseAddress(target.host) ?? parseAddress(ip);
    peer.addr = addr ?? (dialled ? { ...dialled, time: ADDRESS_TIME_INIT, services: 0n, port: target.port } : undefined);
    return peer;
  }

  /** A connected socket to host:port, directly or through the -proxy. */
  #dial(host: string, port: number): Promise<Socket> {
    const proxy = this.options.proxy;
    if (proxy) return socks5Connect(proxy, host, port, proxy.randomizeCredentials ? randomProxyCredentials() : undefined, CONNECT_TIMEOUT_MS);
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host, port, noDelay: true });
      const timer = setTimeout(() => socket.destroy(new Error('connection timeout')), CONNECT_TIMEOUT_MS);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  /** A connected peer by the address string it was added as, or by its "ip:port". */
  findPeer(text: string): Peer | undefined {
    const target = splitHostPort(text, this.options.params.defaultPort);
    const normalized = target ? formatAddrPort(target.host, target.port) : text;
    for (const peer of this.#peers.values()) {
      if (peer.disconnectReason !== undefined) continue;
      if (peer.addedAs === text || peer.address === text || peer.address === normalized) return peer;
    }
    return undefined;
  }

  /** Peers whose address a subnet covers (setban disconnects them). */
  disconnectSubnet(matches: (ip: string) => boolean, reason: string): void {
    for (const peer of [...this.#peers.values()]) {
      if (matches(plainIp(peer.connection.socket.remoteAddress ?? ''))) this.disconnect(peer, reason);
    }
  }

  #nextAutomaticAt = 0;

  /**
   * Core's InactivityCheck, on the node's (mockable) clock, once a connection is older than
   * -peertimeout: nothing sent or received yet, nothing sent or received for 20 minutes, or
   * no completed handshake.
   */
  #inactivity(peer: Peer, now: number): string | undefined {
    if (peer.connectedAt + this.options.peerTimeout >= now) return undefined;
    const { lastSend, lastReceive } = peer.connection;
    if (lastSend === 0 || lastReceive === 0) return `socket no message in first ${this.options.peerTimeout} seconds, ${lastReceive !== 0 ? 1 : 0} ${lastSend !== 0 ? 1 : 0}`;
    if (now > lastSend + INACTIVITY_TIMEOUT_S) return `socket sending timeout: ${now - lastSend}s`;
    if (now > lastReceive + INACTIVITY_TIMEOUT_S) return `socket receive timeout: ${now - lastReceive}s`;
    if (!peer.successfullyConnected) return 'version handshake timeout';
    return undefined;
  }

  /**
   * Core's ThreadOpenConnections without -connect: anchors from anchors.dat first (as
   * block-relay-only), then MAX_OUTBOUND_FULL_RELAY outbound peers from the address manager,
   * then block-relay-only ones, an extra one when asked for, feelers now and then (the
   * choice is the AutomaticOutboundSchedule's); one new attempt per round, never two in one
   * IPv4/IPv6 network group, never to an address we are connected to or of a network we
   * cannot reach, banned or discouraged ones skipped.
   */
  #openAutomatic(nowMs: number): void {
    if (!this.options.automaticOutbound || nowMs < this.#nextAutomaticAt) return;
    this.#nextAutomaticAt = nowMs + AUTOMATIC_CONNECT_INTERVAL_MS;
    const peers = [...this.#peers.values()];
    const counts = this.#automaticCounts();
    // Core's order: the anchors take the block-relay-only slots before anything else.
    const anchor = this.#anchors.length > 0 && counts.blockRelay < MAX_BLOCK_RELAY_ONLY && counts.slotsInUse < MAX_AUTOMATIC_OUTBOUND;
    const choice = anchor ? { type: 'block-relay-only' as const } : this.#automatic.next(counts, this.options.nowMs(), () => this.#pickPreferredNetwork());
    if (choice === undefined) return;
    const { type, preferredNetwork } = choice;
    // Core's outbound_ipv46_peer_netgroups: manual and automatic long-lived peers; Tor, I2P and
    // CJDNS groups say nothing about the route, so those peers do not count.
    const groups = new Set(
      peers
        .flatMap((p) => ((p.connectionType === 'manual' || p.connectionType === 'outbound-full-relay' || p.connectionType === 'block-relay-only') && p.addr && !PRIVACY_NETWORKS.has(addressNetwork(p.addr)) ? [groupKey(p.addr)] : [])),
    );
    while (anchor && this.#anchors.length > 0) {
      const a = this.#anchors.pop()!;
      if (!isValidAddress(a) || this.#isLocal(a) || !this.isReachable(addressNetwork(a)) || !hasDesirableServices(a.services) || groups.has(groupKey(a))) continue;
      const text = formatAddressPort(a);
      this.options.log.debug('net', `Trying to make an anchor connection to ${text}`);
      this.#connectAutomatic(text, type, a);
      return;
    }
    // A network-specific extra connection takes an address of that network only.
    const networks = preferredNetwork !== undefined ? [preferredNetwork] : (this.options.reachableNetworks ?? []);
    const now = this.options.now();
    // Core counts its tries from one, before the checks that compare with them.
    for (let tries = 1; tries <= 100; tries++) {
      // A feeler tests an address from the new table.
      const selected = this.addrman.select(type === 'feeler', networks);
      if (!selected) return;
      const a = selected.address;
      const text = formatAddressPort(a);
      const ip = formatAddress(a);
      // Feelers may share a network group with a peer; other connections may not.
      if (type !== 'feeler' && groups.has(groupKey(a))) continue;
      // An invalid or local address ends the round (Core's break).
      if (!isValidAddress(a) || this.#isLocal(a)) return;
      if (!this.isReachable(addressNetwork(a))) continue;
      // Addresses tried in the last 10 minutes only after 30 tries.
      if (now - selected.lastTry < RECENT_TRY_SECONDS && tries < 30) continue;
      // Full nodes with witness support; a feeler only needs one that may have addresses.
      if (type !== 'feeler' ? !hasDesirableServices(a.services) : (a.services & (NODE_NETWORK | NODE_NETWORK_LIMITED)) === 0n) continue;
      if (tries < 50 && (addressNetwork(a) === NET_IPV4 || addressNetwork(a) === NET_IPV6) && isBadPort(a.port)) continue;
      if (this.addedNodes.some((n) => n.text === ip || n.text === text)) {
        // Slots for automatic connections are not spent on -addnode peers, which keep their protections.
        this.options.log.debug('net', `Not making automatic ${preferredNetwork !== undefined ? 'network-specific ' : ''}${type} connection to ${networkName(addressNetwork(a))} peer selected for manual (addnode) connection`);
        continue;
      }
      if (this.findPeer(text) || this.#pending.has(text) || this.bans.isBanned(ip) || this.bans.isDiscouraged(ip)) continue;
      this.addrman.attempt(a, true);
      if (preferredNetwork !== undefined) this.options.log.debug('net', `Making network specific connection to ${text} on ${networkName(preferredNetwork)}.`);
      this.#connectAutomatic(text, type, a);
      return;
    }
  }

  /**
   * Core's MaybePickPreferredNetwork: a reachable network, in random order, that the address
   * manager has addresses of and that none of our full-relay or manual peers is on.
   */
  #pickPreferredNetwork(): Network | undefined {
    const candidates = [NET_IPV4, NET_IPV6, NET_ONION, NET_I2P, NET_CJDNS];
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    return candidates.find((net) => this.isReachable(net) && this.#manualOrFullOutboundOn(networkName(net)) === 0 && this.addrman.size(net) > 0);
  }

  #connectAutomatic(text: string, type: ConnectionType, a: PeerAddress): void {
    this.#pendingByType.set(type, this.#pendingByType.get(type)! + 1);
    void this.openManual(text, type, a).then((peer) => {
      this.#pendingByType.set(type, this.#pendingByType.get(type)! - 1);
      if (!peer) return;
      peer.addrmanAddress = a;
    });
  }

  /** Core's IsLocal(CService): one of our own addresses (-externalip). */
  #isLocal(a: PeerAddress): boolean {
    const text = formatAddress(a);
    return (this.options.localAddresses ?? []).some((l) => l.address === text && l.port === a.port);
  }

  /**
   * Core's fallback to the fixed seeds in ThreadOpenConnections (-fixedseeds): while a
   * reachable network has no address, the seeds are added at once when nothing else could
   * bring addresses (-dnsseed=0, no -seednode, no added nodes), otherwise once 60 seconds
   * (node clock) have passed; only the seeds of such networks, with the internal name
   * "fixedseeds" as their source. Once a run. Core does it whether or not the network is active.
   */
  #maybeAddFixedSeeds(nowMs: number, now: number): void {
    if (!this.#addFixedSeeds || !this.options.automaticOutbound || nowMs < this.#startedAtMs + AUTOMATIC_CONNECT_INTERVAL_MS) return;
    const networks = reachableEmptyNetworks(this.addrman, (n) => this.isReachable(n));
    if (networks.size === 0) return;
    if (now > this.#startedAt + FIXED_SEEDS_DELAY_S) {
      this.options.log.info('Adding fixed seeds as 60 seconds have passed and addrman is empty for at least one reachable network');
    } else if (!this.options.dnsSeed && (this.options.seedNodes ?? []).length === 0 && this.addedNodes.length === 0) {
      this.options.log.info('Adding fixed seeds as -dnsseed=0 (or IPv4/IPv6 connections are disabled via -onlynet) and neither -addnode nor -seednode are provided');
    } else {
      return;
    }
    const seeds = convertSeeds(this.options.params.fixedSeeds, now);
    if (this.options.log.enabled('net')) for (const seed of seeds) this.options.log.debug('net', `Added hardcoded seed: ${formatAddressPort(seed)}`);
    // Unreachable networks' seeds are left out: no connection could be made to them.
    const wanted = seedsForNetworks(seeds, networks);
    this.addrman.add(wanted, internalAddress('fixedseeds'));
    this.#addFixedSeeds = false;
    this.options.log.info(`Added ${wanted.length} fixed seeds from reachable networks.`);
  }

  readonly #pendingByType = new Map<ConnectionType, number>([
    ['outbound-full-relay', 0],
    ['block-relay-only', 0],
    ['feeler', 0],
  ]);
  /** Which automatic connection comes next (with the stale-tip and extra block-relay-only switches). */
  readonly #automatic: AutomaticOutboundSchedule;
  /** Wall-clock ms of the next outbound-peer check (Core schedules it every 45 s). */
  #nextPeerCheckAt = Infinity;

  /** Wakes the added-node loop (addnode add). */
  wakeAddedNodes(): void {
    this.#nextAddedNodesAt = 0;
  }

  #tick(): void {
    if (this.#stopped) return;
    const nowMs = Date.now();
    const now = this.options.now();
    for (const peer of [...this.#peers.values()]) {
      if (peer.disconnectReason !== undefined) continue;
      const reason = this.#inactivity(peer, now);
      if (reason) {
        this.options.log.debug('net', `${reason}, disconnecting peer=${peer.id}`);
        this.disconnect(peer, reason);
      }
    }
    this.peerManager.txRelay.tick();
    this.peerManager.sendMessagesToAll();
    if (nowMs >= this.#nextPeerCheckAt) {
      this.#nextPeerCheckAt = nowMs + EXTRA_PEER_CHECK_INTERVAL_MS;
      this.peerManager.checkForStaleTipAndEvictPeers();
    }
    if (nowMs - this.#lastAddrmanDump > DUMP_PEERS_INTERVAL_MS) this.dumpAddresses();
    this.#maybeAddFixedSeeds(nowMs, now);
    if (!this.#networkActive) return;
    this.#openAutomatic(nowMs);
    if (this.options.connect.length > 0 && nowMs >= this.#nextConnectAt) {
      // Core's -connect loop: each address in turn, waiting longer between rounds up to 5 s.
      this.#connectLoop++;
      for (const text of this.options.connect) void this.openManual(text);
      this.#nextConnectAt = nowMs + 500 * (1 + Math.min(10, this.#connectLoop) * this.options.connect.length);
    }
    if (this.addedNodes.length > 0 && nowMs >= this.#nextAddedNodesAt) {
      // Core's ThreadOpenAddedConnections: retry after 60 s if something was tried, else 2 s.
      let tried = false;
      const manual = [...this.#peers.values()].filter((p) => p.connectionType === 'manual').length;
      for (const node of this.addedNodes) {
        if (manual >= MAX_ADDNODE_CONNECTIONS) break;
        if (this.findPeer(node.text) || this.#pending.has(node.text)) continue;
        tried = true;
        node.lastAttempt = nowMs;
        void this.openManual(node.text);
      }
      this.#nextAddedNodesAt = nowMs + (tried ? 60_000 : 2000);
    }
  }
}

/** The network an outbound connection is on: its Core address's (CNode::addr), else its socket's. */
function connectionNetwork(peer: Peer): string {
  return peer.addr ? networkName(addressNetwork(peer.addr)) : peer.network;
}

/** Core's "only consider very recently tried nodes after 30 failed attempts": 10 minutes. */
const RECENT_TRY_SECONDS = 10 * 60;

/** Networks whose address groups are random, without relation to the route (Core's IsTor/IsI2P/IsCJDNS). */
const PRIVACY_NETWORKS: ReadonlySet<Network> = new Set([NET_ONION, NET_I2P, NET_CJDNS]);

/**
 * Core's HasAllDesirableServiceFlags for an automatic connection: a full node with witness
 * support (NODE_NETWORK_LIMITED would do near the tip in Core, but the handshake here asks
 * every automatic outbound peer for NODE_NETWORK | NODE_WITNESS).
 */
function hasDesirableServices(services: bigint): boolean {
  return (services & (NODE_NETWORK | NODE_WITNESS)) === (NODE_NETWORK | NODE_WITNESS);
}

/** Core's network group of an address (NetGroupManager::GetGroup), as a map key. */
function groupKey(address: NetAddress): string {
  return Buffer.from(netGroup(address)).toString('hex');
}
