/**
 * What the node does with its peers' messages and what it sends them on its own (Core's
 * PeerManagerImpl in net_processing.cpp): the version handshake, pings, headers-first
 * sync with parallel block download, serving headers and blocks, block announcements
 * (headers, inv or BIP152 compact blocks) and, through TxRelay, transactions; outbound
 * peers that fall behind our chain are dropped (ChainSyncTimeouts) and extra outbound
 * peers evicted, with a watch on a stale tip (StaleTipCheck). A malformed payload is
 * logged and dropped as Core does; protocol violations Core punishes get the peer
 * discouraged and disconnected.
 */
import { randomBytes } from 'node:crypto';
import { BlockStatus, lastCommonAncestor, type BlockIndexEntry, type Chainstate, type Rejection } from '../chain/index.js';
import { blockProof, checkProofOfWork, moneyRange, type ChainParams } from '../consensus/index.js';
import { DEFAULT_MEMPOOL_POLICY, type NodeMempool } from '../mempool/index.js';
import { bytesEqual, DecodeError, hashToHex, parseBlock, serializeBlock, sipHash24, sipKeyFromBytes, type Block, type BlockHeader } from '../primitives/index.js';
import { MAX_BLOCK_RELAY_ONLY, MAX_OUTBOUND_FULL_RELAY } from './automatic-outbound.js';
import { findNextBlocksToDownload, MAX_BLOCKS_IN_TRANSIT_PER_PEER } from './block-download.js';
import { ChainSyncTimeouts } from './chain-sync-timeout.js';
import { CompactBlockRelay } from './compact-relay.js';
import { AVG_FEEFILTER_BROADCAST_INTERVAL_MS, FeeFilterRounder, MAX_FEEFILTER_CHANGE_DELAY_MS, poissonDelayMs } from './fee-filter.js';
import type { Frame } from './frame.js';
import { activeChainFrom, findForkInGlobalIndex } from './headers-serving.js';
import { decodeBlockTransactions, decodeCompactBlock } from './compact-blocks.js';
import { BIP155_NETWORK, decodeAddr, decodeAddrV2, encodeAddr, encodeAddrV2, type PeerAddress } from './addresses.js';
import { addressNetwork, isRoutableAddress, parseAddress, type AddrMan, type Network } from './addrman.js';
import { plainIp } from './net-address.js';
import {
  decodeFeeFilter,
  decodeHeaders,
  decodeInventory,
  decodeLocatorRequest,
  decodeNonce,
  decodeSendCmpct,
  encodeFeeFilter,
  encodeHeaders,
  encodeInventory,
  encodeLocatorRequest,
  encodeNonce,
  encodeSendCmpct,
  encodeVersion,
  type InventoryItem,
} from './messages.js';
import type { Peer } from './peer.js';
import { MAX_ADDR_TO_SEND, MAX_HEADERS_RESULTS, MAX_INV_SZ, MAX_LOCATOR_SZ, MSG_BLOCK, MSG_CMPCT_BLOCK, MSG_TX, MSG_WITNESS_BLOCK, MSG_WITNESS_FLAG, MSG_WTX, NODE_BLOOM, NODE_COMPACT_FILTERS, NODE_NETWORK, NODE_NETWORK_LIMITED, NODE_WITNESS, PROTOCOL_VERSION } from './protocol.js';
import { TxRelay } from './tx-relay.js';
import { HeadersSyncState, headersSyncParams } from './headers-sync.js';
import { answerFilterRequest, blockRequestAllowed, type BlockFilterLookup } from './compact-filters.js';
import { HISTORICAL_BLOCK_AGE_S, type UploadTarget } from './upload-target.js';
import { StaleTipCheck, type OutboundConnectionControl } from './stale-tip.js';

/** Core's AVG_LOCAL_ADDRESS_BROADCAST_INTERVAL. */
const AVG_LOCAL_ADDRESS_BROADCAST_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Core's AVG_ADDRESS_BROADCAST_INTERVAL. */
const AVG_ADDRESS_BROADCAST_INTERVAL_MS = 30_000;
/** Core's MAX_PCT_ADDR_TO_SEND, MAX_ADDR_RATE_PER_SECOND and MAX_ADDR_PROCESSING_TOKEN_BUCKET. */
const MAX_PCT_ADDR_TO_SEND = 23;
const MAX_ADDR_RATE_PER_SECOND = 0.1;
const MAX_ADDR_PROCESSING_TOKEN_BUCKET = MAX_ADDR_TO_SEND;
/**
 * Received blocks waiting for the chain beyond which no more are requested (bounds memory in
 * initial sync). Small on purpose: a parsed block waiting here outlives young-generation
 * collections, which copy it; at 16 rather than 64, bench-ibd's scavenges took 340 ms, not 430.
 */
const MAX_QUEUED_BLOCKS = 16;
/**
 * Received blocks stored and connected together, at most. Parsed blocks are live from
 * their store to their connect, and a scavenge in between copies them: four at a time
 * halved bench-ibd's scavenge time (400 ms to 200) and took -assumevalid from 2.8 s to
 * 2.3 s, while the script checks of every-script syncs still overlap across the four.
 */
const DRAIN_BATCH = 4;
/** Core's PING_INTERVAL and TIMEOUT_INTERVAL, in milliseconds. */
const PING_INTERVAL_MS = 2 * 60 * 1000;
const TIMEOUT_INTERVAL_MS = 20 * 60 * 1000;
/** Core's HEADERS_RESPONSE_TIME: a getheaders is not repeated within this many milliseconds. */
const HEADERS_RESPONSE_TIME_MS = 2 * 60 * 1000;
/** Core's MAX_BLOCKS_TO_ANNOUNCE: more new blocks than this are announced by inv. */
const MAX_BLOCKS_TO_ANNOUNCE = 8;
/** Core's MAX_BLOCKS_TO_ANNOUNCE for getblocks answers. */
const GETBLOCKS_LIMIT = 500;
/** Core's BLOCK_STALLING_TIMEOUT_DEFAULT and _MAX, in milliseconds. */
const BLOCK_STALLING_TIMEOUT_DEFAULT_MS = 2000;
const BLOCK_STALLING_TIMEOUT_MAX_MS = 64_000;
/** Core's BLOCK_DOWNLOAD_TIMEOUT_BASE and _PER_PEER, in units of the block interval. */
const BLOCK_DOWNLOAD_TIMEOUT_BASE = 1;
const BLOCK_DOWNLOAD_TIMEOUT_PER_PEER = 0.5;
/** Core's HEADERS_DOWNLOAD_TIMEOUT_BASE and _PER_HEADER, in milliseconds. */
const HEADERS_DOWNLOAD_TIMEOUT_BASE_MS = 15 * 60 * 1000;
const HEADERS_DOWNLOAD_TIMEOUT_PER_HEADER_MS = 1;
/** Core's SENDHEADERS_VERSION, SHORT_IDS_BLOCKS_VERSION, FEEFILTER_VERSION, BIP0031_VERSION. */
const SENDHEADERS_VERSION = 70012;
const SHORT_IDS_BLOCKS_VERSION = 70014;
const FEEFILTER_VERSION = 70013;
const BIP0031_VERSION = 60000;
/** Core's CMPCTBLOCKS_VERSION. */
export const CMPCTBLOCKS_VERSION = 2n;

export interface NetLog {
  info(message: string): void;
  debug(category: NetLogCategory, message: string): void;
  /** Whether debug lines of this category are written (to skip costly formatting). */
  enabled(category: NetLogCategory): boolean;
}

export type NetLogCategory = 'net' | 'mempool' | 'mempoolrej' | 'cmpctblock' | 'validation';

export interface PeerManagerOptions {
  readonly params: ChainParams;
  readonly chain: Chainstate;
  readonly mempool: NodeMempool | undefined;
  readonly localServices: bigint;
  /** -blocksonly: we neither ask for nor accept transactions (relay permission aside). */
  readonly blocksOnly: boolean;
  readonly userAgent: string;
  /** -minrelaytxfee, satoshis per kvB. */
  readonly minRelayFee: bigint;
  readonly log: NetLog;
  /** The node's clock in seconds (mockable). */
  now(): number;
  /** The node's clock in milliseconds (mockable), for transaction request times. */
  nowMs(): number;
  /** Ends a connection (the connection manager does the bookkeeping). */
  disconnect(peer: Peer, reason: string): void;
  /** Discourages a peer's address after misbehaviour (the ban manager's Discourage). */
  discourage(peer: Peer): void;
  /** The connected peers. */
  peers(): Iterable<Peer>;
  /** Core's CConnman nonces: a version nonce that is ours means we connected to ourselves. */
  readonly ownNonces: Set<bigint>;
  /** -maxuploadtarget accounting. */
  readonly uploadTarget: UploadTarget;
  /** The address manager (replaced when peers.dat is loaded, hence a getter). */
  addrman(): AddrMan;
  /** Core's g_reachable_nets.Contains (-onlynet and the proxies); every network when absent. */
  isReachable?(network: Network): boolean;
  /** Our own addresses to announce (-externalip) while listening; none when not listening. */
  readonly localAddresses?: readonly { address: string; port: number }[];
  /** The basic block filter index, for BIP157 requests (undefined without -blockfilterindex). */
  filterIndex?(): BlockFilterLookup | undefined;
  /** The connection manager's switches for extra outbound connections. */
  readonly connections: OutboundConnectionControl;
  /** Core's MultipleManualOrFullOutboundConns: more than one manual or full-relay connection on this peer's network. */
  multipleManualOrFullOutbound(peer: Peer): boolean;
}

export class PeerManager {
  readonly txRelay: TxRelay;
  readonly compact: CompactBlockRelay;
  readonly #chainSync: ChainSyncTimeouts;
  readonly #staleTip: StaleTipCheck;
  readonly #feeRounder: FeeFilterRounder;
  /** Blocks requested and not yet received: hash (hex) → peer id (Core's mapBlocksInFlight). */
  readonly #blocksInFlight = new Map<string, number>();
  /** Where a block came from, to punish the peer if it turns out invalid (Core's mapBlockSource). */
  readonly #blockSource = new Map<string, { peer: number; mayPunish: boolean }>();
  readonly #blockQueue: { peer: Peer; block: Block; bytes: Uint8Array | undefined; forceProcessing: boolean; mayPunish: boolean; resolve: () => void; reject: (err: unknown) => void }[] = [];
  #draining = false;
  /** Blocks received and queued for the chain, not yet stored (Core processes them under cs_main at once). */
  readonly #received = new Set<string>();
  readonly #outboundTimeOffsets: number[] = [];
  readonly #addrResponseCache = new Map<string, { addresses: PeerAddress[]; expires: number }>();
  /** Key of the deterministic address-relay choice (Core's RANDOMIZER_ID_ADDRESS_RELAY randomizer). */
  readonly #addrRelayKey = sipKeyFromBytes(randomBytes(16));
  #syncStarted = 0;
  #preferredDownloadPeers = 0;
  #peersDownloading = 0;
  #stallingTimeoutMs = BLOCK_STALLING_TIMEOUT_DEFAULT_MS;
  /** Peers with a SendMessages queued by #sendSoon. */
  readonly #sendScheduled = new Set<Peer>();
  /** The last block hash an inv triggered a getheaders for before sync started (Core's m_last_block_inv_triggering_headers_sync). */
  #lastInvTriggeringSync: string | undefined;
  readonly #invTriggeredBeforeSync = new Set<number>();
  #announcedTip: BlockIndexEntry | undefined;

  constructor(private readonly options: PeerManagerOptions) {
    // Core builds its rounder from DEFAULT_MIN_RELAY_TX_FEE, whatever the options say.
    this.#feeRounder = new FeeFilterRounder(DEFAULT_MEMPOOL_POLICY.minRelayTxFee);
    this.txRelay = new TxRelay({
      mempool: options.mempool,
      log: options.log,
      clockMs: () => options.nowMs(),
      nowSeconds: () => options.now(),
      peers: () => options.peers(),
      blocksOnly: options.blocksOnly,
      isInitialBlockDownload: () => options.chain.isInitialBlockDownload(),
      misbehaving: (peer, reason) => this.misbehaving(peer, reason),
      disconnect: (peer, reason) => options.disconnect(peer, reason),
    });
    this.compact = new CompactBlockRelay({
      chain: options.chain,
      mempool: options.mempool,
      log: options.log,
      peers: () => options.peers(),
      misbehaving: (peer, reason) => this.misbehaving(peer, reason),
      acceptHeader: (peer, header) => this.#acceptAnnouncedHeader(peer, header),
      processBlock: (peer, block, bytes) => this.processBlock(peer, block, bytes, true, true),
      requestBlock: (peer, entry) => this.requestBlocks(peer, [entry], MSG_WITNESS_BLOCK),
      markReceived: (hashHex) => this.#removeBlockRequest(hashHex, undefined),
      inFlightFrom: (hashHex) => this.#blocksInFlight.get(hashHex),
      markInFlight: (peer, entry) => this.#markInFlight(peer, entry),
      canDirectFetch: () => this.#canDirectFetch(),
    });
    this.#chainSync = new ChainSyncTimeouts({
      log: options.log,
      tip: () => this.chain.chain.tip!,
      now: () => options.now(),
      isInitialBlockDownload: () => this.chain.isInitialBlockDownload(),
      minimumChainWork: options.params.minimumChainWork,
      maybeSendGetHeaders: (peer, from) => void this.maybeSendGetHeaders(peer, from),
      disconnect: (peer, reason) => options.disconnect(peer, reason),
    });
    this.#staleTip = new StaleTipCheck({
      log: options.log,
      peers: () => options.peers(),
      now: () => options.now(),
      maxFullRelay: MAX_OUTBOUND_FULL_RELAY,
      maxBlockRelay: MAX_BLOCK_RELAY_ONLY,
      multipleManualOrFullOutbound: (peer) => options.multipleManualOrFullOutbound(peer),
      disconnect: (peer, reason) => options.disconnect(peer, reason),
      targetSpacing: options.params.targetSpacing,
      blocksInFlight: () => this.#blocksInFlight.size,
      loadingBlocks: () => this.chain.importing,
      canDirectFetch: () => this.#canDirectFetch(),
      connections: options.connections,
    });
    this.#announcedTip = options.chain.chain.tip;
  }

  private get chain(): Chainstate {
    return this.options.chain;
  }

  // ------------------------------------------------------------------ connection life

  /** Our version message for a new connection (Core's PushNodeVersion). */
  versionPayload(peer: { inbound: boolean; blockRelayOnly: boolean; hasRelayPermission: boolean }, nonce: bigint): Uint8Array {
    const txRelay = !(this.options.blocksOnly && !peer.hasRelayPermission) && !peer.blockRelayOnly;
    const zero = { services: 0n, ip: new Uint8Array(16), port: 0 };
    return encodeVersion({
      version: PROTOCOL_VERSION,
      services: this.options.localServices,
      timestamp: BigInt(this.options.now()),
      // Core names the peer's address only when it is routable (never on loopback).
      receiver: zero,
      sender: { ...zero, services: this.options.localServices },
      nonce,
      userAgent: this.options.userAgent,
      startHeight: this.chain.chain.height,
      relay: txRelay,
    });
  }

  /** A new nonce for a version message, remembered to spot connections to ourselves. */
  newNonce(): bigint {
    for (;;) {
      const nonce = randomBytes(8).readBigUInt64LE(0);
      if (nonce !== 0n && !this.options.ownNonces.has(nonce)) {
        this.options.ownNonces.add(nonce);
        return nonce;
      }
    }
  }

  /** Core's FinalizeNode: what the peer had in flight goes back to the pool of work. */
  peerDisconnected(peer: Peer): void {
    if (peer.syncStarted) this.#syncStarted--;
    if (peer.preferredDownload) this.#preferredDownloadPeers--;
    if (peer.blocksInFlight.length > 0) this.#peersDownloading--;
    for (const flight of peer.blocksInFlight) {
      if (this.#blocksInFlight.get(flight.entry.hashHex) === peer.id) this.#blocksInFlight.delete(flight.entry.hashHex);
    }
    peer.blocksInFlight.length = 0;
    this.#invTriggeredBeforeSync.delete(peer.id);
    this.#chainSync.peerDisconnected(peer);
    this.txRelay.peerDisconnected(peer);
    this.compact.peerDisconnected(peer);
    if (this.#peersDownloading === 0) this.#stallingTimeoutMs = BLOCK_STALLING_TIMEOUT_DEFAULT_MS;
  }

  /** Core's Misbehaving: the peer will be discouraged and disconnected (unless exempt). */
  misbehaving(peer: Peer, reason: string): void {
    this.options.log.debug('net', `Misbehaving: peer=${peer.id}: ${reason}`);
    peer.shouldDiscourage = true;
    this.#maybeDiscourageAndDisconnect(peer);
  }

  /** Core's MaybeDiscourageAndDisconnect. */
  #maybeDiscourageAndDisconnect(peer: Peer): void {
    if (!peer.shouldDiscourage) return;
    peer.shouldDiscourage = false;
    if (peer.hasPermission('noban')) {
      this.options.log.info(`Warning: not punishing noban peer ${peer.id}!`);
      return;
    }
    if (peer.connectionType === 'manual') {
      this.options.log.info(`Warning: not punishing manually connected peer ${peer.id}!`);
      return;
    }
    if (!peer.address.startsWith('127.') && !peer.address.startsWith('[::1]')) this.options.discourage(peer);
    else this.options.log.debug('net', `Warning: disconnecting but not discouraging local peer ${peer.id}!`);
    this.options.disconnect(peer, 'discouraged');
  }

  // ------------------------------------------------------------------ receiving

  /** A message from a peer, in order of arrival. */
  receive(peer: Peer, frame: Frame): void {
    if (peer.disconnectReason !== undefined) return;
    const action = peer.handshake.receive(frame.command, frame.payload);
    switch (action.kind) {
      case 'disconnect':
        this.options.disconnect(peer, action.reason);
        return;
      case 'ignore':
        this.options.log.debug('net', `${action.reason}, peer=${peer.id}`);
        return;
      case 'send':
        if (frame.command === 'version') this.#versionReceived(peer);
        for (const m of action.messages) peer.send(m.command, m.payload);
        if (peer.handshake.complete && !peer.successfullyConnected) {
          this.#handshakeComplete(peer);
          // Core's SendMessages follows the verack: the header sync starts now, not on the next tick.
          this.#sendSoon(peer);
        }
        return;
      case 'deliver':
        break;
    }
    try {
      this.#process(peer, frame.command, frame.payload);
    } catch (err) {
      if (!(err instanceof DecodeError) && !(err instanceof RangeError)) throw err;
      // Core catches the deserialization exception, logs it and keeps the connection.
      this.options.log.debug('net', `ProcessMessages(${frame.command}, ${frame.payload.length} bytes): Exception '${err.message}' caught, peer=${peer.id}`);
    }
  }

  #versionReceived(peer: Peer): void {
    const v = peer.handshake.peerVersion!;
    peer.services = v.services;
    peer.version = Math.min(v.version, PROTOCOL_VERSION);
    peer.userAgent = v.userAgent;
    peer.startingHeight = v.startHeight;
    peer.relayTransactions = v.relay && !peer.blockRelayOnly;
    peer.timeOffset = Number(v.timestamp) - this.options.now();
    // Core's TimeOffsets: the last 50 outbound peers' offsets, for getnetworkinfo's median.
    if (!peer.inbound) {
      this.#outboundTimeOffsets.push(peer.timeOffset);
      if (this.#outboundTimeOffsets.length > 50) this.#outboundTimeOffsets.shift();
    }
    this.options.log.debug('net', `receive version message: ${v.userAgent}: version ${v.version}, blocks=${v.startHeight}, us=${peer.bindAddress}, txrelay=${v.relay ? 1 : 0}, peer=${peer.id}`);
  }

  #handshakeComplete(peer: Peer): void {
    peer.successfullyConnected = true;
    // Core's fPreferredDownload: outbound full peers (and noban ones) are preferred for blocks.
    peer.preferredDownload = (!peer.inbound || peer.hasPermission('noban')) && peer.connectionType !== 'addr-fetch' && peer.connectionType !== 'feeler';
    if (peer.preferredDownload) this.#preferredDownloadPeers++;
    peer.addrRelayEnabled = !peer.blockRelayOnly;
    this.options.log.info(
      `New ${peer.connectionType} v1 peer connected: version: ${peer.version}, blocks=${peer.startingHeight}, peer=${peer.id}`,
    );
    if (peer.version >= SHORT_IDS_BLOCKS_VERSION) peer.send('sendcmpct', encodeSendCmpct(false, CMPCTBLOCKS_VERSION));
    if (peer.addrmanAddress && (peer.connectionType === 'outbound-full-relay' || peer.connectionType === 'block-relay-only' || peer.connectionType === 'feeler')) {
      // A working outbound peer: its address moves to the tried table, with the services it offers.
      const addrman = this.options.addrman();
      addrman.good(peer.addrmanAddress);
      addrman.setServices(peer.addrmanAddress, peer.services);
    }
    if (peer.connectionType === 'feeler') {
      // A feeler only tests that the address answers.
      this.options.disconnect(peer, 'feeler connection completed');
      return;
    }
    if (!peer.inbound && peer.addrRelayEnabled && !peer.sentGetaddr) {
      // Core asks outbound peers for addresses once, right after the handshake, and takes up to a full answer.
      peer.sentGetaddr = true;
      peer.getaddrPending = true;
      peer.addrTokenBucket += MAX_ADDR_TO_SEND;
      peer.send('getaddr');
    }
  }

  #process(peer: Peer, command: string, payload: Uint8Array): void {
    switch (command) {
      case 'ping':
        if (peer.version > BIP0031_VERSION) peer.send('pong', encodeNonce(decodeNonce(payload)));
        return;
      case 'pong':
        return this.#pong(peer, payload);
      case 'sendheaders':
        peer.preferHeaders = true;
        return;
      case 'sendcmpct': {
        const { highBandwidth, version } = decodeSendCmpct(payload);
        if (version !== CMPCTBLOCKS_VERSION) return;
        peer.providesCompactBlocks = true;
        peer.wantsHighBandwidthCompact = highBandwidth;
        return;
      }
      case 'feefilter': {
        const fee = decodeFeeFilter(payload);
        if (moneyRange(fee)) peer.feeFilterReceived = fee;
        return;
      }
      case 'getheaders':
        return this.#getheaders(peer, payload);
      case 'getblocks':
        return this.#getblocks(peer, payload);
      case 'headers':
        this.#spawn(peer, 'headers', this.#headers(peer, decodeHeaders(payload)));
        return;
      case 'inv':
        return this.#inv(peer, payload);
      case 'getdata':
        return this.#getdata(peer, payload);
      case 'notfound':
        return this.txRelay.notFound(peer, decodeInventory(payload));
      case 'block':
        return this.#block(peer, payload);
      case 'tx':
        return this.txRelay.transactionReceived(peer, payload);
      case 'mempool':
        return this.#mempoolRequest(peer);
      case 'getaddr':
        return this.#getaddr(peer);
      case 'addr':
      case 'addrv2':
        return this.#addr(peer, command, command === 'addr' ? decodeAddr(payload) : decodeAddrV2(payload));
      case 'getcfilters':
      case 'getcfheaders':
      case 'getcfcheckpt': {
        const answer = answerFilterRequest(command, payload, {
          servingFilters: (this.options.localServices & NODE_COMPACT_FILTERS) !== 0n,
          chain: this.chain,
          index: this.options.filterIndex?.(),
          log: (m) => this.options.log.debug('net', m),
        });
        if ('disconnect' in answer) {
          this.options.log.debug('net', `${answer.disconnect}, disconnecting peer=${peer.id}`);
          this.options.disconnect(peer, answer.disconnect);
        } else {
          for (const m of answer.send) peer.send(m.command, m.payload);
        }
        return;
      }
      case 'cmpctblock':
        this.#spawn(peer, command, this.compact.compactBlockReceived(peer, decodeCompactBlock(payload), payload.length));
        return;
      case 'getblocktxn':
        return this.compact.getBlockTxnReceived(peer, payload);
      case 'blocktxn':
        this.#spawn(peer, command, this.compact.blockTxnReceived(peer, decodeBlockTransactions(payload)));
        return;
      default:
        // Core ignores message types it does not know.
        this.options.log.debug('net', `Unknown message type "${command}" from peer=${peer.id}`);
    }
  }

  /** Runs a message's asynchronous part; a failure there is logged, never thrown at the socket. */
  #spawn(peer: Peer, command: string, work: Promise<void>): void {
    work.catch((err: unknown) => {
      this.options.log.info(`ProcessMessages(${command}): peer=${peer.id}: ${(err as Error).stack ?? String(err)}`);
    });
  }

  /** Core's GETADDR handling: inbound peers only, one answer per connection, from a cached sample. */
  #getaddr(peer: Peer): void {
    if (!peer.inbound) {
      this.options.log.debug('net', `Ignoring "getaddr" from ${peer.connectionType} connection. peer=${peer.id}`);
      return;
    }
    if (peer.answeredGetaddr) {
      this.options.log.debug('net', `Ignoring repeated "getaddr". peer=${peer.id}`);
      return;
    }
    peer.answeredGetaddr = true;
    peer.addrRelayEnabled = true;
    const addrman = this.options.addrman();
    let addresses: PeerAddress[];
    if (peer.hasPermission('addr')) {
      addresses = addrman.getAddr(MAX_ADDR_TO_SEND, MAX_PCT_ADDR_TO_SEND, null, true);
    } else {
      // Core's GetAddresses cache: one sample per requesting network, kept 21 to 27 hours, so
      // repeated requests cannot map the whole table.
      const nowMs = Date.now();
      const key = peer.network;
      let cached = this.#addrResponseCache.get(key);
      if (!cached || cached.expires < nowMs) {
        cached = { addresses: addrman.getAddr(MAX_ADDR_TO_SEND, MAX_PCT_ADDR_TO_SEND, null, true), expires: nowMs + (21 + Math.random() * 6) * 3600_000 };
        this.#addrResponseCache.set(key, cached);
      }
      addresses = cached.addresses;
    }
    const usable = peer.handshake.addrV2 ? addresses : addresses.filter((a) => a.network === BIP155_NETWORK.IPV4 || a.network === BIP155_NETWORK.IPV6);
    if (usable.length === 0) return;
    for (const a of usable) peer.addrKnown.add(addressKey(a));
    peer.send(peer.handshake.addrV2 ? 'addrv2' : 'addr', peer.handshake.addrV2 ? encodeAddrV2(usable) : encodeAddr(usable));
  }

  /** Core's ProcessAddrs: rate limited, full nodes only, times clamped, into the address manager with a 2-hour penalty. */
  #addr(peer: Peer, command: string, addresses: PeerAddress[]): void {
    if (peer.blockRelayOnly) {
      this.options.log.debug('net', `ignoring ${command} message from ${peer.connectionType} peer=${peer.id}`);
      return;
    }
    if (addresses.length > MAX_ADDR_TO_SEND) return this.misbehaving(peer, `${command} message size = ${addresses.length}`);
    peer.addrRelayEnabled = true;
    const nowMs = Date.now();
    if (peer.addrTokenBucket < MAX_ADDR_PROCESSING_TOKEN_BUCKET) {
      const increment = (Math.max(nowMs - peer.addrTokenTimestamp, 0) / 1000) * MAX_ADDR_RATE_PER_SECOND;
      peer.addrTokenBucket = Math.min(peer.addrTokenBucket + increment, MAX_ADDR_PROCESSING_TOKEN_BUCKET);
    }
    peer.addrTokenTimestamp = nowMs;
    const rateLimited = !peer.hasPermission('addr');
    const now = this.options.now();
    const accepted: PeerAddress[] = [];
    let processed = 0;
    let limited = 0;
    for (const original of shuffled(addresses)) {
      if (peer.addrTokenBucket < 1) {
        if (rateLimited) {
          limited++;
          continue;
        }
      } else {
        peer.addrTokenBucket -= 1;
      }
      // Only full nodes are worth remembering.
      if ((original.services & (NODE_NETWORK | NODE_NETWORK_LIMITED)) === 0n && (original.services & (NODE_NETWORK | NODE_WITNESS)) !== (NODE_NETWORK | NODE_WITNESS)) continue;
      const time = original.time <= 100_000_000 || original.time > now + 600 ? now - 5 * 24 * 3600 : original.time;
      const address = time === original.time ? original : { ...original, time };
      peer.addrKnown.add(addressKey(address));
      processed++;
      const reachable = this.options.isReachable?.(addressNetwork(address)) ?? true;
      // Fresh self-announcements and small gossip (not a getaddr answer) travel on to other peers.
      if (time > now - 600 && !peer.getaddrPending && addresses.length <= 10 && isRoutableAddress(address)) this.#relayAddress(peer.id, address, reachable);
      // Core: "Do not store addresses outside our network" (-onlynet); they are still relayed.
      if (reachable) accepted.push(address);
    }
    peer.addrProcessed += processed;
    peer.addrRateLimited += limited;
    this.options.log.debug('net', `Received addr: ${addresses.length} addresses (${processed} processed, ${limited} rate-limited) from peer=${peer.id}`);
    const source = parseAddress(plainIp(peer.connection.socket.remoteAddress ?? ''));
    if (source && accepted.length > 0) this.options.addrman().add(accepted, source, 2 * 3600);
    if (addresses.length < MAX_ADDR_TO_SEND) peer.getaddrPending = false;
    if (peer.connectionType === 'addr-fetch' && addresses.length > 1) this.options.disconnect(peer, 'addrfetch connection completed');
  }

  /**
   * Core's RelayAddress: an address goes to two addr-relaying peers other than its sender,
   * chosen by a keyed hash of the address, the peer and the 24-hour window, so repeating an
   * address to us does not spread it further. An address of a network we cannot reach goes
   * to one or two, as a keyed hash of the address and the window decides (Core's
   * nRelayNodes: "Unreachable addresses are relayed randomly to 1 or 2 peers").
   */
  #relayAddress(originator: number, address: PeerAddress, reachable: boolean): void {
    const key = addressKey(address);
    const window = Math.floor((this.options.now() + Number(sipHash24(this.#addrRelayKey, new TextEncoder().encode(key)) % 86_400n)) / 86_400);
    const relayNodes = reachable || (sipHash24(this.#addrRelayKey, new TextEncoder().encode(`${key}|${window}`)) & 1n) === 1n ? 2 : 1;
    const best: { score: bigint; peer: Peer }[] = [];
    for (const peer of this.options.peers()) {
      if (!peer.addrRelayEnabled || peer.id === originator || !peer.successfullyConnected) continue;
      if (!peer.handshake.addrV2 && address.network !== BIP155_NETWORK.IPV4 && address.network !== BIP155_NETWORK.IPV6) continue;
      const score = sipHash24(this.#addrRelayKey, new TextEncoder().encode(`${key}|${window}|${peer.id}`));
      best.push({ score, peer });
    }
    best.sort((a, b) => (b.score > a.score ? 1 : b.score < a.score ? -1 : 0));
    for (const { peer } of best.slice(0, relayNodes)) this.#pushAddress(peer, address);
  }

  /** Core's PushAddress: queued unless the peer knows it; a full queue replaces a random entry. */
  #pushAddress(peer: Peer, address: PeerAddress): void {
    if (peer.addrKnown.has(addressKey(address))) return;
    if (peer.addrsToSend.length >= MAX_ADDR_TO_SEND) peer.addrsToSend[Math.floor(Math.random() * peer.addrsToSend.length)] = address;
    else peer.addrsToSend.push(address);
  }

  /** Core's MaybeSendAddr: queued addresses every 30 s on average, in addr or addrv2 as negotiated. */
  #maybeSendAddr(peer: Peer): void {
    // On the node's clock, as Core's (setmocktime moves it).
    const clockMs = this.options.now() * 1000;
    if (!peer.addrRelayEnabled || clockMs < peer.nextAddrSendAt) return;
    peer.nextAddrSendAt = clockMs + poissonDelayMs(AVG_ADDRESS_BROADCAST_INTERVAL_MS);
    // Core's self-announcement: about daily, our address for the peer's network (not during IBD).
    const locals = this.options.localAddresses ?? [];
    if (locals.length > 0 && !this.chain.isInitialBlockDownload() && clockMs >= peer.nextLocalAddrSendAt) {
      if (peer.nextLocalAddrSendAt !== 0) peer.addrKnown.clear();
      const wanted = peer.network === 'ipv6' ? BIP155_NETWORK.IPV6 : BIP155_NETWORK.IPV4;
      const local = locals.map((l) => ({ parsed: parseAddress(l.address), port: l.port })).find((l) => l.parsed?.network === wanted) ?? locals.map((l) => ({ parsed: parseAddress(l.address), port: l.port })).find((l) => l.parsed);
      if (local?.parsed) this.#pushAddress(peer, { time: this.options.now(), services: this.options.localServices, network: local.parsed.network, address: local.parsed.address, port: local.port });
      peer.nextLocalAddrSendAt = clockMs + poissonDelayMs(AVG_LOCAL_ADDRESS_BROADCAST_INTERVAL_MS);
    }
    const queued = peer.addrsToSend.splice(0).filter((a) => !peer.addrKnown.has(addressKey(a)));
    if (queued.length === 0) return;
    for (const a of queued) peer.addrKnown.add(addressKey(a));
    const v2 = peer.handshake.addrV2;
    const sendable = v2 ? queued : queued.filter((a) => a.network === BIP155_NETWORK.IPV4 || a.network === BIP155_NETWORK.IPV6);
    if (sendable.length > 0) peer.send(v2 ? 'addrv2' : 'addr', v2 ? encodeAddrV2(sendable) : encodeAddr(sendable));
  }

  #pong(peer: Peer, payload: Uint8Array): void {
    if (payload.length < 8) {
      if (peer.pingNonceSent !== 0n) this.options.log.debug('net', `pong peer=${peer.id}: Short payload`);
      peer.pingNonceSent = 0n;
      return;
    }
    const nonce = decodeNonce(payload.subarray(0, 8));
    if (peer.pingNonceSent === 0n) {
      this.options.log.debug('net', `pong peer=${peer.id}: Unsolicited pong without ping`);
      return;
    }
    if (nonce === peer.pingNonceSent) {
      // Core measures in whole microseconds.
      const seconds = Math.round((performance.timeOrigin + performance.now() - peer.pingStart) * 1000) / 1e6;
      peer.lastPingTime = seconds;
      peer.minPingTime = peer.minPingTime === undefined ? seconds : Math.min(peer.minPingTime, seconds);
      peer.pingNonceSent = 0n;
    } else if (nonce === 0n) {
      // A zero nonce cancels the ping.
      peer.pingNonceSent = 0n;
    } else {
      this.options.log.debug('net', `pong peer=${peer.id}: Nonce mismatch`);
    }
  }

  // ------------------------------------------------------------------ headers

  #getheaders(peer: Peer, payload: Uint8Array): void {
    const request = decodeLocatorRequest(payload);
    if (request.locator.length > MAX_LOCATOR_SZ) {
      this.options.disconnect(peer, `getheaders locator size ${request.locator.length} > ${MAX_LOCATOR_SZ}`);
      return;
    }
    const chain = this.chain.chain;
    const tip = chain.tip;
    if (!tip || (tip.chainWork < this.options.params.minimumChainWork && !peer.hasPermission('download'))) {
      // Tell the peer to go away without looking unresponsive.
      this.options.log.debug('net', `Ignoring getheaders from peer=${peer.id} because active chain has too little work; sending empty response`);
      peer.send('headers', encodeHeaders([]));
      return;
    }
    const stopHex = hashToHex(request.stop);
    let start: BlockIndexEntry | undefined;
    if (request.locator.length === 0) {
      // A bare hash: that one header, if we have it on a chain we may serve.
      start = this.chain.tree.getByHash(request.stop);
      if (!start || !this.#blockRequestAllowed(start)) return;
    } else {
      const fork = findForkInGlobalIndex(chain, this.chain.tree, request.locator);
      start = fork ? chain.next(fork) : undefined;
    }
    const entries = activeChainFrom(chain, start, MAX_HEADERS_RESULTS, stopHex);
    peer.bestHeaderSent = entries.length > 0 && entries.length === MAX_HEADERS_RESULTS ? entries[entries.length - 1] : tip;
    peer.send('headers', encodeHeaders(entries.map((e) => e.header)));
  }

  #getblocks(peer: Peer, payload: Uint8Array): void {
    const request = decodeLocatorRequest(payload);
    if (request.locator.length > MAX_LOCATOR_SZ) {
      this.options.disconnect(peer, `getblocks locator size ${request.locator.length} > ${MAX_LOCATOR_SZ}`);
      return;
    }
    const chain = this.chain.chain;
    const fork = findForkInGlobalIndex(chain, this.chain.tree, request.locator);
    const stopHex = hashToHex(request.stop);
    const items: InventoryItem[] = [];
    for (let walk = fork ? chain.next(fork) : undefined; walk; walk = chain.next(walk)) {
      if (walk.hashHex === stopHex) break;
      items.push({ type: MSG_BLOCK, hash: walk.hash });
      if (items.length === GETBLOCKS_LIMIT) {
        // When the peer fetches this last block, it gets an inv of our tip to continue.
        peer.continueHash = walk.hashHex;
        break;
      }
    }
    if (items.length > 0) peer.send('inv', encodeInventory(items));
  }

  /** Core's BlockRequestAllowed: blocks on the active chain, or valid ones within a month of the best header. */
  #blockRequestAllowed(entry: BlockIndexEntry): boolean {
    return blockRequestAllowed(entry, this.chain);
  }

  /** Core's MaybeSendGetHeaders: at most one getheaders in flight per peer. */
  maybeSendGetHeaders(peer: Peer, from: BlockIndexEntry | undefined): boolean {
    // On the node's clock, as Core's NodeClock: setmocktime moves it.
    if (this.options.nowMs() - peer.lastGetheadersAt < HEADERS_RESPONSE_TIME_MS) return false;
    this.#sendGetHeaders(peer, from);
    return true;
  }

  #sendGetHeaders(peer: Peer, from: BlockIndexEntry | undefined): void {
    peer.lastGetheadersAt = this.options.nowMs();
    const locator = from ? this.chain.chain.locator(from) : [];
    peer.send('getheaders', encodeLocatorRequest({ version: PROTOCOL_VERSION, locator, stop: new Uint8Array(32) }));
  }

  async #headers(peer: Peer, received: BlockHeader[]): Promise<void> {
    if (received.length > MAX_HEADERS_RESULTS) return this.misbehaving(peer, `headers message size = ${received.length}`);
    if (received.length === 0) {
      // An empty answer cannot be an announcement: it answers our getheaders, so another may
      // go out; a low-work sync in progress with this peer ends.
      peer.headersSync = undefined;
      peer.lastGetheadersAt = 0;
      return;
    }
    for (let i = 1; i < received.length; i++) {
      if (!bytesEqual(received[i]!.prevHash, received[i - 1]!.hash)) return this.misbehaving(peer, 'non-continuous headers sequence');
    }
    for (const header of received) {
      if (!checkProofOfWork(header.hash, header.bits, this.options.params)) return this.misbehaving(peer, 'header with invalid proof of work');
    }
    const fullMessage = received.length === MAX_HEADERS_RESULTS;
    // A low-work headers sync in progress takes them first (Core's IsContinuationOfLowWorkHeadersSync).
    let headers = received;
    let alreadyValidatedWork = false;
    if (peer.headersSync) {
      const continued = this.#continueLowWorkSync(peer, headers, fullMessage);
      headers = continued.headers;
      alreadyValidatedWork = continued.success;
      if (headers.length === 0) return;
    }
    const haveHeadersSync = peer.headersSync !== undefined;
    const tree = this.chain.tree;
    const last = headers[headers.length - 1]!;
    const chainStart = tree.getByHash(headers[0]!.prevHash);
    if (!chainStart) {
      // Core's HandleUnconnectingHeaders: ask for what connects them, remember the tip.
      if (this.maybeSendGetHeaders(peer, tree.bestHeader)) {
        this.options.log.debug('net', `received header ${last.hashHex}: missing prev block ${hashToHex(headers[0]!.prevHash)}, sending getheaders (${tree.bestHeader?.height ?? 0}) to end (peer=${peer.id})`);
      }
      this.#updateBlockAvailabilityHash(peer, last.hashHex);
      return;
    }
    // Connecting headers answer any getheaders of ours (unconnecting ones cannot).
    peer.lastGetheadersAt = 0;
    // Headers already in our best chains use no memory: no anti-DoS check for them; nor for noban peers.
    const lastKnown = tree.getByHash(last.hash);
    if (lastKnown && this.#isAncestorOfBestHeaderOrTip(lastKnown)) alreadyValidatedWork = true;
    if (peer.hasPermission('noban')) alreadyValidatedWork = true;
    if (!alreadyValidatedWork && this.#tryLowWorkHeadersSync(peer, chainStart, headers, fullMessage)) return;
    const result = await this.chain.processHeaders(headers);
    if (peer.disconnectReason !== undefined) return;
    if (result.rejection) {
      this.options.log.debug('net', `Invalid block header from peer=${peer.id}: ${result.rejection.reason}`);
      return this.#punishForRejection(peer, result.rejection, false);
    }
    const lastEntry = result.entries[result.entries.length - 1]!;
    this.#updateBlockAvailability(peer, lastEntry);
    if (fullMessage && !haveHeadersSync) {
      // The peer may have more: ask from the last one at once.
      this.#sendGetHeaders(peer, lastEntry);
      this.options.log.debug('net', `more getheaders (${lastEntry.height}) to end to peer=${peer.id} (startheight:${peer.startingHeight})`);
    }
    // A last header we did not know is a new one (Core's received_new_header).
    this.#chainSync.headersReceived(peer, lastEntry, lastKnown === undefined, fullMessage);
    if (peer.disconnectReason !== undefined) return;
    this.#headersDirectFetch(peer, lastEntry);
    this.sendMessages(peer);
  }

  /** Core's IsAncestorOfBestHeaderOrTip. */
  #isAncestorOfBestHeaderOrTip(entry: BlockIndexEntry): boolean {
    const best = this.chain.tree.bestHeader;
    const tip = this.chain.chain.tip;
    return (!!best && best.ancestor(entry.height) === entry) || (!!tip && tip.ancestor(entry.height) === entry);
  }

  /** Core's GetAntiDoSWorkThreshold: the minimum chain work, or our tip's less 144 blocks of work if higher. */
  #antiDosWorkThreshold(): bigint {
    const tip = this.chain.chain.tip;
    let nearTip = 0n;
    if (tip) {
      const buffer = 144n * blockProof(tip.bits);
      nearTip = tip.chainWork - (buffer < tip.chainWork ? buffer : tip.chainWork);
    }
    return nearTip > this.options.params.minimumChainWork ? nearTip : this.options.params.minimumChainWork;
  }

  /**
   * Core's TryLowWorkHeadersSync: headers whose chain claims less work than the threshold
   * are not stored; a full message starts a low-work sync with the peer, a short one is
   * ignored. True when the headers were taken care of here.
   */
  #tryLowWorkHeadersSync(peer: Peer, chainStart: BlockIndexEntry, headers: BlockHeader[], fullMessage: boolean): boolean {
    let work = chainStart.chainWork;
    for (const h of headers) work += blockProof(h.bits);
    const threshold = this.#antiDosWorkThreshold();
    if (work >= threshold) return false;
    if (fullMessage) {
      peer.headersSync = new HeadersSyncState(peer.id, this.options.params, headersSyncParams(this.options.params.name), chainStart, threshold, this.options.now(), (m) => this.options.log.debug('net', m));
      const continued = this.#continueLowWorkSync(peer, headers, fullMessage);
      // Headers released at once (a chain that met the threshold within this message) are stored now.
      if (continued.headers.length > 0) this.#spawn(peer, 'headers', this.#headers(peer, continued.headers));
    } else {
      this.options.log.debug('net', `Ignoring low-work chain (height=${chainStart.height + headers.length}) from peer=${peer.id}`);
    }
    return true;
  }

  /** Core's IsContinuationOfLowWorkHeadersSync: the headers the sync releases, and whether it went on. */
  #continueLowWorkSync(peer: Peer, headers: BlockHeader[], fullMessage: boolean): { headers: BlockHeader[]; success: boolean } {
    const sync = peer.headersSync!;
    const result = sync.processNextHeaders(headers, fullMessage);
    if (result.success) peer.lastGetheadersAt = 0;
    if (result.requestMore) {
      const locator = sync.nextLocator(this.chain.chain.locator(sync.chainStart));
      peer.lastGetheadersAt = this.options.nowMs();
      peer.send('getheaders', encodeLocatorRequest({ version: PROTOCOL_VERSION, locator, stop: new Uint8Array(32) }));
      this.options.log.debug('net', `more getheaders (from ${hashToHex(locator[0]!)}) to peer=${peer.id}`);
    }
    if (sync.phase === 'final') peer.headersSync = undefined;
    return { headers: result.released, success: result.success };
  }

  /**
   * A header announced in a compact block: accepted as a one-header headers message would
   * be. Undefined when it did not connect (a getheaders went out) or the peer was punished.
   */
  async #acceptAnnouncedHeader(peer: Peer, header: BlockHeader): Promise<BlockIndexEntry | undefined> {
    if (!checkProofOfWork(header.hash, header.bits, this.options.params)) {
      this.misbehaving(peer, 'invalid header received');
      return undefined;
    }
    if (!this.chain.tree.getByHash(header.prevHash)) {
      if (!this.chain.isInitialBlockDownload()) this.maybeSendGetHeaders(peer, this.chain.tree.bestHeader);
      return undefined;
    }
    const known = this.chain.tree.getByHash(header.hash) !== undefined;
    const result = await this.chain.processHeaders([header]);
    if (result.rejection) {
      this.#punishForRejection(peer, result.rejection, true);
      return undefined;
    }
    const entry = result.entries[0]!;
    this.#updateBlockAvailability(peer, entry);
    this.#chainSync.compactHeaderReceived(peer, entry, !known);
    return entry;
  }

  #markInFlight(peer: Peer, entry: BlockIndexEntry): void {
    if (this.#blocksInFlight.get(entry.hashHex) === peer.id) return;
    this.#blocksInFlight.set(entry.hashHex, peer.id);
    if (peer.blocksInFlight.length === 0) {
      peer.downloadingSince = Date.now();
      this.#peersDownloading++;
    }
    peer.blocksInFlight.push({ entry });
  }

  /** Core's HeadersDirectFetchBlocks: near the tip, fetch announced blocks straight away. */
  #headersDirectFetch(peer: Peer, last: BlockIndexEntry): void {
    const tip = this.chain.chain.tip!;
    if (!this.#canDirectFetch() || !last.isValid(BlockStatus.VALID_TREE) || last.chainWork <= tip.chainWork) return;
    const toFetch: BlockIndexEntry[] = [];
    let walk: BlockIndexEntry | undefined = last;
    while (walk && !this.chain.chain.contains(walk) && toFetch.length <= MAX_BLOCKS_IN_TRANSIT_PER_PEER) {
      if (!walk.hasData && !this.#blocksInFlight.has(walk.hashHex) && !this.#received.has(walk.hashHex) && (peer.servesWitnesses || walk.height < this.options.params.segwitHeight)) toFetch.push(walk);
      walk = walk.prev;
    }
    // Too far from our chain: leave it to the parallel download.
    if (walk && !this.chain.chain.contains(walk)) return;
    const wanted = toFetch.reverse().slice(0, MAX_BLOCKS_IN_TRANSIT_PER_PEER - peer.blocksInFlight.length);
    if (wanted.length === 0) return;
    // One new block from a compact-block peer: ask for the compact form.
    const compact = wanted.length === 1 && peer.providesCompactBlocks && wanted[0]!.prev === tip;
    this.requestBlocks(peer, wanted, compact ? MSG_CMPCT_BLOCK : MSG_WITNESS_BLOCK);
  }

  /** Core's CanDirectFetch: our tip is less than 20 block intervals old. */
  #canDirectFetch(): boolean {
    const tip = this.chain.chain.tip;
    return !!tip && tip.time > this.options.now() - this.options.params.targetSpacing * 20;
  }

  /** Core's UpdateBlockAvailability. */
  #updateBlockAvailability(peer: Peer, entry: BlockIndexEntry): void {
    this.#processBlockAvailability(peer);
    if (!peer.bestKnownBlock || entry.chainWork >= peer.bestKnownBlock.chainWork) peer.bestKnownBlock = entry;
  }

  #updateBlockAvailabilityHash(peer: Peer, hashHex: string): void {
    this.#processBlockAvailability(peer);
    const entry = this.chain.tree.get(hashHex);
    if (entry && entry.chainWork > 0n) this.#updateBlockAvailability(peer, entry);
    else peer.lastUnknownBlock = hashHex;
  }

  /** Core's ProcessBlockAvailability: a hash announced earlier may be known by now. */
  #processBlockAvailability(peer: Peer): void {
    if (peer.lastUnknownBlock === undefined) return;
    const entry = this.chain.tree.get(peer.lastUnknownBlock);
    if (entry && entry.chainWork > 0n) {
      if (!peer.bestKnownBlock || entry.chainWork >= peer.bestKnownBlock.chainWork) peer.bestKnownBlock = entry;
      peer.lastUnknownBlock = undefined;
    }
  }

  // ------------------------------------------------------------------ inv and getdata

  #inv(peer: Peer, payload: Uint8Array): void {
    const items = decodeInventory(payload);
    if (items.length > MAX_INV_SZ) return this.misbehaving(peer, `inv message size = ${items.length}`);
    let bestBlock: string | undefined;
    const txItems: InventoryItem[] = [];
    for (const item of items) {
      const type = item.type & ~MSG_WITNESS_FLAG;
      if (type === MSG_BLOCK) {
        const hashHex = hashToHex(item.hash);
        this.#updateBlockAvailabilityHash(peer, hashHex);
        if (!this.chain.tree.get(hashHex)) bestBlock = hashHex;
      } else if (type === MSG_TX || type === MSG_WTX) {
        txItems.push(item);
      }
    }
    if (txItems.length > 0) {
      this.txRelay.inventoryReceived(peer, txItems);
      if (peer.disconnectReason !== undefined) return;
    }
    if (bestBlock !== undefined) {
      const triggeredBefore = this.#invTriggeredBeforeSync.has(peer.id);
      if (peer.syncStarted || (!triggeredBefore && bestBlock !== this.#lastInvTriggeringSync)) {
        if (this.maybeSendGetHeaders(peer, this.chain.tree.bestHeader)) {
          this.options.log.debug('net', `getheaders (${this.chain.tree.bestHeader?.height ?? 0}) ${bestBlock} to peer=${peer.id}`);
        }
        if (!peer.syncStarted) {
          this.#invTriggeredBeforeSync.add(peer.id);
          this.#lastInvTriggeringSync = bestBlock;
        }
      }
    }
  }

  #getdata(peer: Peer, payload: Uint8Array): void {
    const items = decodeInventory(payload);
    if (items.length > MAX_INV_SZ) return this.misbehaving(peer, `getdata message size = ${items.length}`);
    const notFound: InventoryItem[] = [];
    for (const item of items) {
      if (peer.disconnectReason !== undefined) return;
      const type = item.type & ~MSG_WITNESS_FLAG;
      if (type === MSG_TX || type === MSG_WTX) {
        if (!this.txRelay.serveTransaction(peer, item)) notFound.push(item);
      } else if (type === MSG_BLOCK || type === MSG_CMPCT_BLOCK) {
        this.#serveBlock(peer, item);
      }
    }
    // Core tells the peer which transactions it will not get, so it can ask elsewhere.
    if (notFound.length > 0) peer.send('notfound', encodeInventory(notFound));
  }

  /** Core's ProcessGetBlockData. */
  #serveBlock(peer: Peer, item: InventoryItem): void {
    const entry = this.chain.tree.getByHash(item.hash);
    if (!entry || !entry.isValid(BlockStatus.VALID_TRANSACTIONS) || !entry.hasData) return;
    if (!this.#blockRequestAllowed(entry)) {
      this.options.log.debug('net', `ignoring request from peer=${peer.id} for old block that isn't in the main chain`);
      return;
    }
    const best = this.chain.tree.bestHeader;
    const historical = !!best && best.time - entry.time > HISTORICAL_BLOCK_AGE_S;
    if (historical && this.options.uploadTarget.reached(true) && !peer.hasPermission('download')) {
      this.options.disconnect(peer, 'historical block serving limit reached');
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = this.chain.readBlockBytes(entry);
    } catch {
      // Pruned or unreadable: Core disconnects a peer asking for a block it cannot read.
      this.options.disconnect(peer, `cannot load block from disk, disconnect peer=${peer.id}`);
      return;
    }
    if (item.type === MSG_CMPCT_BLOCK && this.chain.chain.contains(entry) && entry.height >= this.chain.chain.height - 5) {
      this.compact.sendCompactBlock(peer, entry, parseBlock(bytes));
    } else if (item.type === MSG_BLOCK) {
      peer.send('block', serializeBlock(parseBlock(bytes), false));
    } else {
      // MSG_WITNESS_BLOCK, and MSG_CMPCT_BLOCK for blocks too deep for a compact one.
      peer.send('block', bytes);
    }
    if (peer.continueHash === entry.hashHex) {
      // The end of a getblocks answer was fetched: point the peer at our tip to go on.
      const tip = this.chain.chain.tip!;
      peer.send('inv', encodeInventory([{ type: MSG_BLOCK, hash: tip.hash }]));
      peer.continueHash = undefined;
    }
  }

  #mempoolRequest(peer: Peer): void {
    if ((this.options.localServices & NODE_BLOOM) === 0n && !peer.hasPermission('mempool')) {
      if (!peer.hasPermission('noban')) this.options.disconnect(peer, 'mempool request with bloom filters disabled');
      return;
    }
    if (this.options.uploadTarget.reached(false) && !peer.hasPermission('mempool')) {
      if (!peer.hasPermission('noban')) this.options.disconnect(peer, 'mempool request with bandwidth limit reached');
      return;
    }
    this.txRelay.mempoolRequested(peer);
  }

  // ------------------------------------------------------------------ blocks

  /** Asks a peer for blocks, marking them in flight (Core's BlockRequested). */
  requestBlocks(peer: Peer, entries: readonly BlockIndexEntry[], type: number): void {
    if (entries.length === 0) return;
    for (const entry of entries) this.#markInFlight(peer, entry);
    peer.send('getdata', encodeInventory(entries.map((e) => ({ type, hash: e.hash }))));
    this.options.log.debug('net', `Requesting ${entries.length} block${entries.length === 1 ? '' : 's'} up to ${entries[entries.length - 1]!.hashHex} (${entries[entries.length - 1]!.height}) peer=${peer.id}`);
  }

  /** Core's RemoveBlockRequest; `from` limits it to one peer's request. */
  #removeBlockRequest(hashHex: string, from: number | undefined): void {
    const holder = this.#blocksInFlight.get(hashHex);
    if (holder === undefined || (from !== undefined && holder !== from)) return;
    this.#blocksInFlight.delete(hashHex);
    for (const peer of this.options.peers()) {
      if (peer.id !== holder) continue;
      const index = peer.blocksInFlight.findIndex((f) => f.entry.hashHex === hashHex);
      if (index === -1) continue;
      if (index === 0) peer.downloadingSince = Math.max(peer.downloadingSince, Date.now());
      peer.blocksInFlight.splice(index, 1);
      if (peer.blocksInFlight.length === 0) this.#peersDownloading--;
      peer.stallingSince = 0;
    }
  }

  #block(peer: Peer, payload: Uint8Array): void {
    const block = parseBlock(payload);
    const hashHex = block.header.hashHex;
    // A mutated block (Core's IsBlockMutated check here) is refused by the chain's CheckBlock
    // without being marked invalid, and its sender punished through blockChecked: the merkle
    // root is computed once, there.
    const requested = this.#blocksInFlight.has(hashHex);
    this.#removeBlockRequest(hashHex, peer.id);
    // Until the chain has stored it, the block is neither in flight nor on disk: do not ask again.
    this.#received.add(hashHex);
    this.#spawn(peer, 'block', this.processBlock(peer, block, payload, requested, true).finally(() => this.#received.delete(hashHex)));
    // Ask for the next blocks now rather than at the next tick (Core's SendMessages follows
    // each message), once for all the blocks of this read: one getdata for the blocks that
    // arrived together instead of one per block (a socket write costs more than a block's
    // bookkeeping during initial sync).
    this.#sendSoon(peer);
  }

  /** SendMessages for `peer` after the messages already read have been processed. */
  #sendSoon(peer: Peer): void {
    if (this.#sendScheduled.has(peer)) return;
    this.#sendScheduled.add(peer);
    setImmediate(() => {
      this.#sendScheduled.delete(peer);
      this.sendMessages(peer);
    });
  }

  /**
   * Core's ProcessBlock (ProcessNewBlock, then punish or credit the peer), batched: blocks
   * that arrive while earlier ones are processed are stored together and the chain is
   * activated once for them, so initial sync connects them pipelined. Resolves once the
   * block was stored and the chain activated past it.
   */
  processBlock(peer: Peer, block: Block, bytes: Uint8Array | undefined, forceProcessing: boolean, mayPunish: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#blockQueue.push({ peer, block, bytes, forceProcessing, mayPunish, resolve, reject });
      if (!this.#draining) void this.#drainBlocks();
    });
  }

  async #drainBlocks(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#blockQueue.length > 0) {
        const batch = this.#blockQueue.splice(0, DRAIN_BATCH);
        try {
          for (const item of batch) {
            const hashHex = item.block.header.hashHex;
            this.#blockSource.set(hashHex, { peer: item.peer.id, mayPunish: item.mayPunish });
            // Blocks that never get checked (stale branches) must not pile up here.
            if (this.#blockSource.size > 1000) this.#blockSource.delete(this.#blockSource.keys().next().value!);
            const stored = await this.chain.storeBlock(item.block, item.bytes, item.forceProcessing);
            if (stored.newBlock) item.peer.lastBlockTime = this.options.now();
            else this.#blockSource.delete(hashHex);
          }
          await this.chain.activateBestChain();
          for (const item of batch) item.resolve();
        } catch (err) {
          for (const item of batch) item.reject(err);
        }
        this.sendMessagesToAll();
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Blocks waiting to be stored: past this many, no new ones are requested (Core reads no more while its queue is full). */
  get #blocksQueueFull(): boolean {
    return this.#blockQueue.length >= MAX_QUEUED_BLOCKS;
  }

  /** Core's BlockChecked (the chain's event): punish the source of an invalid block, reward a fast one. */
  blockChecked(hashHex: string, verdict: Rejection | { ok: true }): void {
    const source = this.#blockSource.get(hashHex);
    if (!source) return;
    this.#blockSource.delete(hashHex);
    const peer = [...this.options.peers()].find((p) => p.id === source.peer);
    if (!peer) return;
    if (!verdict.ok) {
      if (source.mayPunish) this.#punishForRejection(peer, verdict, false);
      return;
    }
    // A peer that gave us a new block outside IBD, with nothing else in flight, may push the next ones.
    if (!this.chain.isInitialBlockDownload() && this.#blocksInFlight.size === 0) this.compact.maybeSetHighBandwidth(peer);
  }

  /** Core's MaybePunishNodeForBlock: invalid data costs the peer its connection. */
  #punishForRejection(peer: Peer, rejection: Rejection, viaCompactBlock: boolean): void {
    // A mutated copy may be a relay fault; compact blocks are not punished for consensus failures.
    if (viaCompactBlock && !rejection.mutated) return;
    if (rejection.mutated) this.options.log.debug('net', `Received mutated block from peer=${peer.id}`);
    this.misbehaving(peer, rejection.mutated ? 'mutated block' : rejection.reason);
  }

  /** A block was connected (Core's BlockConnected): the tip is not stale; rejections may no longer hold. */
  blockConnected(): void {
    this.#staleTip.blockConnected();
    this.txRelay.blockConnected();
  }

  /** Core's CheckForStaleTipAndEvictPeers (the connection manager runs it every 45 s). */
  checkForStaleTipAndEvictPeers(): void {
    this.#staleTip.run();
  }

  /** The chain has a new tip: remember what to announce (Core's UpdatedBlockTip). */
  tipChanged(tip: BlockIndexEntry): void {
    const previous = this.#announcedTip;
    this.#announcedTip = tip;
    if (this.chain.isInitialBlockDownload()) return;
    const fork = previous ? lastCommonAncestor(previous, tip) : undefined;
    const fresh: BlockIndexEntry[] = [];
    for (let walk: BlockIndexEntry | undefined = tip; walk && walk !== fork; walk = walk.prev) {
      fresh.push(walk);
      if (fresh.length === MAX_BLOCKS_TO_ANNOUNCE) break;
    }
    fresh.reverse();
    for (const peer of this.options.peers()) {
      if (!peer.successfullyConnected) continue;
      // A peer that gave us the block knows it.
      peer.blocksToAnnounce.push(...fresh.filter((e) => !(peer.bestKnownBlock && peer.bestKnownBlock.ancestor(e.height) === e)));
    }
    this.sendMessagesToAll();
  }


  /** Core's PeerHasHeader. */
  #peerHasHeader(peer: Peer, entry: BlockIndexEntry): boolean {
    if (peer.bestKnownBlock && peer.bestKnownBlock.ancestor(entry.height) === entry) return true;
    if (peer.bestHeaderSent && peer.bestHeaderSent.ancestor(entry.height) === entry) return true;
    return false;
  }

  /** Core's block announcement part of SendMessages. */
  #announceBlocks(peer: Peer): void {
    if (peer.blocksToAnnounce.length === 0) return;
    const queued = peer.blocksToAnnounce.splice(0);
    const chain = this.chain.chain;
    let revertToInv = (!peer.preferHeaders && !peer.wantsHighBandwidthCompact) || queued.length > MAX_BLOCKS_TO_ANNOUNCE;
    const headers: BlockIndexEntry[] = [];
    if (!revertToInv) {
      let foundStart = false;
      let bestIndex: BlockIndexEntry | undefined;
      for (const entry of queued) {
        if (!chain.contains(entry)) {
          revertToInv = true;
          break;
        }
        if (bestIndex && entry.prev !== bestIndex) {
          revertToInv = true;
          break;
        }
        bestIndex = entry;
        if (foundStart) headers.push(entry);
        else if (this.#peerHasHeader(peer, entry)) continue;
        else if (!entry.prev || this.#peerHasHeader(peer, entry.prev)) {
          foundStart = true;
          headers.push(entry);
        } else {
          revertToInv = true;
          break;
        }
      }
    }
    if (!revertToInv && headers.length > 0) {
      const last = headers[headers.length - 1]!;
      if (headers.length === 1 && peer.wantsHighBandwidthCompact && this.compact.sendCompactBlockFor(peer, last)) {
        peer.bestHeaderSent = last;
        return;
      }
      if (peer.preferHeaders) {
        peer.send('headers', encodeHeaders(headers.map((e) => e.header)));
        peer.bestHeaderSent = last;
        return;
      }
      revertToInv = true;
    }
    if (revertToInv) {
      // Announce only the newest block still on our chain, if the peer lacks it.
      const newest = queued[queued.length - 1]!;
      if (!chain.contains(newest)) return;
      if (!this.#peerHasHeader(peer, newest)) peer.send('inv', encodeInventory([{ type: MSG_BLOCK, hash: newest.hash }]));
    }
  }

  // ------------------------------------------------------------------ SendMessages

  sendMessagesToAll(): void {
    for (const peer of this.options.peers()) this.sendMessages(peer);
  }

  /** Core's SendMessages: what we send a peer unasked, run on every tick and after events. */
  sendMessages(peer: Peer): void {
    if (!peer.successfullyConnected || peer.disconnectReason !== undefined) return;
    const nowMs = Date.now();
    this.#maybeSendPing(peer, nowMs);
    if (peer.disconnectReason !== undefined) return;
    this.#maybeSendSendHeaders(peer);
    this.#maybeStartSync(peer, nowMs);
    this.#announceBlocks(peer);
    // Core's inv trickle runs on the node's clock (GetTime, mockable): under a frozen mock time
    // only noban peers hear of transactions, as Core's tests with noban_tx_relay expect.
    this.txRelay.announce(peer, this.options.nowMs());
    if (this.#checkTimeouts(peer, nowMs)) return;
    // Outbound peers must keep up with our chain (Core's ConsiderEviction, on the node's clock).
    this.#processBlockAvailability(peer);
    this.#chainSync.consider(peer);
    if (peer.disconnectReason !== undefined) return;
    this.#downloadBlocks(peer, nowMs);
    this.#maybeSendFeeFilter(peer, nowMs);
    this.#maybeSendAddr(peer);
  }

  #maybeSendPing(peer: Peer, nowMs: number): void {
    if (peer.pingNonceSent !== 0n && nowMs - peer.pingStart > TIMEOUT_INTERVAL_MS) {
      this.options.disconnect(peer, `ping timeout: ${((nowMs - peer.pingStart) / 1000).toFixed(6)}s`);
      return;
    }
    const due = peer.pingNonceSent === 0n && nowMs >= peer.pingStart + PING_INTERVAL_MS;
    if (!peer.pingQueued && !due) return;
    peer.pingQueued = false;
    let nonce = 0n;
    while (nonce === 0n) nonce = randomBytes(8).readBigUInt64LE(0);
    peer.pingNonceSent = nonce;
    peer.pingStart = performance.timeOrigin + performance.now();
    peer.send('ping', encodeNonce(nonce));
  }

  /** Core's MaybeSendSendHeaders: once the peer has shown a chain with enough work. */
  #maybeSendSendHeaders(peer: Peer): void {
    if (peer.sentSendHeaders || peer.version < SENDHEADERS_VERSION) return;
    const best = peer.bestKnownBlock;
    if (!best || best.chainWork < this.options.params.minimumChainWork) return;
    peer.send('sendheaders');
    peer.sentSendHeaders = true;
  }

  #maybeStartSync(peer: Peer, nowMs: number): void {
    if (peer.syncStarted || !peer.servesBlocks) return;
    const best = this.chain.tree.bestHeader;
    if (!best) return;
    const syncFromThisPeer = peer.preferredDownload || this.#preferredDownloadPeers === 0;
    const recent = best.time > this.options.now() - 24 * 60 * 60;
    if (!((this.#syncStarted === 0 && syncFromThisPeer) || recent)) return;
    // Sync from the parent of our best header, so a peer with just that header answers.
    const from = best.prev ?? best;
    // Like every getheaders, not while another to this peer awaits its answer.
    if (!this.maybeSendGetHeaders(peer, from)) return;
    peer.syncStarted = true;
    this.#syncStarted++;
    peer.headersSyncTimeout = nowMs + HEADERS_DOWNLOAD_TIMEOUT_BASE_MS + HEADERS_DOWNLOAD_TIMEOUT_PER_HEADER_MS * Math.max(0, Math.floor((nowMs / 1000 - best.time) / this.options.params.targetSpacing));
    this.options.log.debug('net', `initial getheaders (${from.height}) to peer=${peer.id} (startheight:${peer.startingHeight})`);
  }

  /** Stalling, block download timeouts and the initial headers sync deadline; true when the peer was dropped. */
  #checkTimeouts(peer: Peer, nowMs: number): boolean {
    if (peer.stallingSince !== 0 && nowMs - peer.stallingSince > this.#stallingTimeoutMs) {
      this.options.log.info(`Peer is stalling block download, disconnecting peer=${peer.id}`);
      this.options.disconnect(peer, 'stalling block download');
      // Give the next staller more time, as Core doubles its timeout.
      this.#stallingTimeoutMs = Math.min(this.#stallingTimeoutMs * 2, BLOCK_STALLING_TIMEOUT_MAX_MS);
      return true;
    }
    if (peer.blocksInFlight.length > 0) {
      const spacingMs = this.options.params.targetSpacing * 1000;
      const othersDownloading = Math.max(0, this.#peersDownloading - 1);
      const timeout = spacingMs * (BLOCK_DOWNLOAD_TIMEOUT_BASE + BLOCK_DOWNLOAD_TIMEOUT_PER_PEER * othersDownloading);
      if (nowMs > peer.downloadingSince + timeout) {
        this.options.log.info(`Timeout downloading block ${peer.blocksInFlight[0]!.entry.hashHex}, disconnecting peer=${peer.id}`);
        this.options.disconnect(peer, 'block download timeout');
        return true;
      }
    }
    if (peer.syncStarted && peer.headersSyncTimeout !== 0) {
      const best = this.chain.tree.bestHeader!;
      if (best.time > this.options.now() - 24 * 60 * 60) {
        peer.headersSyncTimeout = 0; // caught up: no deadline any more
      } else if (nowMs > peer.headersSyncTimeout && this.#syncStarted === 1 && this.#preferredDownloadPeers - (peer.preferredDownload ? 1 : 0) >= 1) {
        if (!peer.hasPermission('noban')) {
          this.options.log.info(`Timeout downloading headers from peer=${peer.id}, disconnecting`);
          this.options.disconnect(peer, 'headers download timeout');
          return true;
        }
        peer.headersSyncTimeout = 0;
      }
    }
    return false;
  }

  #downloadBlocks(peer: Peer, nowMs: number): void {
    const fetch = peer.preferredDownload || (this.#preferredDownloadPeers === 0 && peer.servesBlocks);
    if (!fetch && this.chain.isInitialBlockDownload()) return;
    if (!peer.servesBlocks || this.#blocksQueueFull) return;
    const room = MAX_BLOCKS_IN_TRANSIT_PER_PEER - peer.blocksInFlight.length;
    if (room <= 0) return;
    this.#processBlockAvailability(peer);
    const plan = findNextBlocksToDownload(peer, room, {
      chain: this.chain.chain,
      minimumChainWork: this.options.params.minimumChainWork,
      segwitHeight: this.options.params.segwitHeight,
      inFlightFrom: (hashHex) => this.#blocksInFlight.get(hashHex),
      received: (hashHex) => this.#received.has(hashHex),
    });
    this.requestBlocks(peer, plan.blocks, MSG_WITNESS_BLOCK);
    if (plan.staller !== undefined) {
      for (const staller of this.options.peers()) {
        if (staller.id === plan.staller && staller.stallingSince === 0) {
          staller.stallingSince = nowMs;
          this.options.log.debug('net', `Stall started peer=${staller.id}`);
        }
      }
    }
  }

  /** Core's MaybeSendFeefilter. */
  #maybeSendFeeFilter(peer: Peer, nowMs: number): void {
    if (peer.version < FEEFILTER_VERSION || peer.hasPermission('forcerelay') || peer.blockRelayOnly) return;
    if (this.options.blocksOnly && !peer.hasPermission('relay')) return;
    const maxFilter = this.#feeRounder.maxFilter;
    // The mempool's minimum fee (GetMinFee, which decays it as Core's does); -minrelaytxfee is the floor below.
    let currentFilter = this.options.mempool?.minFee() ?? 0n;
    if (this.chain.isInitialBlockDownload()) {
      currentFilter = 21_000_000n * 100_000_000n;
    } else {
      // Leaving IBD: lift the "send me nothing" filter at once.
      if (peer.feeFilterSent === maxFilter) peer.nextFeeFilterAt = 0;
    }
    if (nowMs > peer.nextFeeFilterAt) {
      let filter = this.#feeRounder.round(currentFilter);
      if (filter < this.options.minRelayFee) filter = this.options.minRelayFee;
      if (filter !== peer.feeFilterSent) {
        peer.send('feefilter', encodeFeeFilter(filter));
        peer.feeFilterSent = filter;
      }
      peer.nextFeeFilterAt = nowMs + poissonDelayMs(AVG_FEEFILTER_BROADCAST_INTERVAL_MS);
    } else if (
      nowMs + MAX_FEEFILTER_CHANGE_DELAY_MS < peer.nextFeeFilterAt &&
      (currentFilter < (3n * peer.feeFilterSent) / 4n || currentFilter > (4n * peer.feeFilterSent) / 3n)
    ) {
      peer.nextFeeFilterAt = nowMs + Math.random() * MAX_FEEFILTER_CHANGE_DELAY_MS;
    }
  }

  /** Core's TimeOffsets::Median: the middle of the sorted samples (0 without any). */
  medianTimeOffset(): number {
    if (this.#outboundTimeOffsets.length === 0) return 0;
    const sorted = [...this.#outboundTimeOffsets].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  /** A block index entry by display hash (getblockfrompeer). */
  lookupBlock(hashHex: string): BlockIndexEntry | undefined {
    return this.chain.tree.get(hashHex);
  }

  /** Blocks in flight, for getpeerinfo's "inflight" (heights). */
  inflightHeights(peer: Peer): number[] {
    return peer.blocksInFlight.map((f) => f.entry.height);
  }

  /** Core's CNodeStateStats sync fields (presync: the height of a low-work sync in PRESYNC, else -1). */
  syncedHeights(peer: Peer): { headers: number; blocks: number; presync: number } {
    this.#processBlockAvailability(peer);
    const presync = peer.headersSync?.phase === 'presync' ? peer.headersSync.presyncHeight : -1;
    return { headers: peer.bestKnownBlock?.height ?? -1, blocks: peer.lastCommonBlock?.height ?? -1, presync };
  }

}

/** A shuffled copy (Core shuffles a received addr message before rate limiting it). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** An address's identity for "known" filters: network, bytes and port. */
function addressKey(a: PeerAddress): string {
  return `${a.network}:${Buffer.from(a.address).toString('hex')}:${a.port}`;
}
