/**
 * Everything the node keeps about one connected peer (Core's CNode, Peer and CNodeState
 * together): how the connection came about, what the peer said in its version message,
 * the ping clock, what we know of its chain and what we asked it for, and its transaction
 * relay state. The logic that changes these lives in the peer manager.
 */
import type { BlockIndexEntry } from '../chain/index.js';
import type { PeerAddress } from './addresses.js';
import type { ServiceAddress } from './addrman.js';
import type { ChainSyncTimeoutState } from './chain-sync-timeout.js';
import type { Handshake } from './handshake.js';
import type { HeadersSyncState } from './headers-sync.js';
import type { PeerConnection } from './peer-connection.js';

/** Core's ConnectionType, as getpeerinfo names it. */
export type ConnectionType = 'inbound' | 'outbound-full-relay' | 'manual' | 'feeler' | 'block-relay-only' | 'addr-fetch';

/** Core's NetPermissionFlags names, in the order getpeerinfo lists them. */
export const PERMISSION_NAMES = ['bloomfilter', 'noban', 'forcerelay', 'relay', 'mempool', 'download', 'addr'] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

export interface BlockInFlight {
  readonly entry: BlockIndexEntry;
}

/** A bounded set that forgets its oldest members (Core's rolling bloom filters, exact here). */
export class RecentSet {
  readonly #items = new Set<string>();
  constructor(private readonly capacity: number) {}

  add(key: string): void {
    if (this.#items.has(key)) return;
    this.#items.add(key);
    if (this.#items.size > this.capacity) this.#items.delete(this.#items.values().next().value!);
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  clear(): void {
    this.#items.clear();
  }
}

export class Peer {
  // -------------------------------------------------------- the connection
  /** Seconds since the epoch. */
  readonly connectedAt: number;
  /** Wall-clock milliseconds, for deadlines mock time must not move. */
  readonly connectedAtMs = Date.now();
  /** Set once version and verack are both in (Core's fSuccessfullyConnected). */
  successfullyConnected = false;
  /** Why we are ending the connection (Core's fDisconnect), once decided. */
  disconnectReason: string | undefined;
  /** Core's m_should_discourage: misbehaviour seen, the peer is to be discouraged. */
  shouldDiscourage = false;
  readonly permissions: Set<PermissionName>;

  // -------------------------------------------------------- its version message
  services = 0n;
  version = 0;
  userAgent = '';
  startingHeight = -1;
  /** BIP37 fRelay and not block-relay-only: we announce transactions to it. */
  relayTransactions = false;
  /** Seconds: their clock minus ours, at version time. */
  timeOffset = 0;

  // -------------------------------------------------------- ping
  pingNonceSent = 0n;
  /** Milliseconds since the epoch when the outstanding (or last) ping was sent. */
  pingStart = 0;
  /** Seconds, as getpeerinfo reports them (undefined before the first pong). */
  lastPingTime: number | undefined;
  minPingTime: number | undefined;
  pingQueued = false;

  // -------------------------------------------------------- headers and blocks (CNodeState)
  bestKnownBlock: BlockIndexEntry | undefined;
  /** A block hash the peer announced that we did not know yet (hex). */
  lastUnknownBlock: string | undefined;
  lastCommonBlock: BlockIndexEntry | undefined;
  /** The newest block we sent this peer a header for, or it told us it has. */
  bestHeaderSent: BlockIndexEntry | undefined;
  syncStarted = false;
  /** Milliseconds since the epoch; 0 once headers sync is past its deadline check. */
  headersSyncTimeout = 0;
  preferredDownload = false;
  readonly blocksInFlight: BlockInFlight[] = [];
  /** Milliseconds: when this peer became the one holding up the download window (0: not). */
  stallingSince = 0;
  /** Milliseconds: when the head of blocksInFlight became the peer's oldest request. */
  downloadingSince = 0;
  /** Milliseconds: the last getheaders we sent (they are rate limited). */
  lastGetheadersAt = 0;
  /** A low-work headers sync in progress with this peer (Core's m_headers_sync). */
  headersSync: HeadersSyncState | undefined;
  /** BIP130: the peer asked for header announcements. */
  preferHeaders = false;
  /** We sent sendheaders. */
  sentSendHeaders = false;
  /** BIP152: the peer sent sendcmpct version 2. */
  providesCompactBlocks = false;
  /** BIP152: the peer asked us to push compact blocks unasked (getpeerinfo bip152_hb_from). */
  wantsHighBandwidthCompact = false;
  /** BIP152: we asked the peer to push compact blocks (bip152_hb_to). */
  highBandwidthTo = false;
  /** Blocks connected since the last announcement round, oldest first. */
  readonly blocksToAnnounce: BlockIndexEntry[] = [];
  /** Hash (hex) to announce with an inv once the peer fetched the block a getblocks answer ended on. */
  continueHash: string | undefined;
  /** Seconds: the last time the peer gave us a new block / a new mempool transaction. */
  lastBlockTime = 0;
  lastTransactionTime = 0;
  /** Seconds: the last time the peer announced a header with more work than our tip (Core's m_last_block_announcement). */
  lastBlockAnnouncement = 0;
  /** Whether an outbound peer keeps up with our chain (Core's ChainSyncTimeoutState). */
  readonly chainSync: ChainSyncTimeoutState = { timeout: 0, workHeader: undefined, sentGetheaders: false, protect: false };

  // -------------------------------------------------------- transaction relay
  /** BIP133: the peer's fee filter, satoshis per kvB. */
  feeFilterReceived = 0n;
  /** What we told the peer in our last feefilter (-1n: none yet). */
  feeFilterSent = -1n;
  /** Milliseconds: when the next feefilter may go out. */
  nextFeeFilterAt = 0;
  /** Transaction ids (hex; wtxids for wtxid-relay peers) waiting for the next inv. */
  readonly txToAnnounce = new Set<string>();
  /** Transaction ids the peer knows of (sent by it, or announced to it). */
  readonly knownTransactions = new RecentSet(50_000);
  /** Milliseconds: the next transaction announcement round (Poisson spaced). */
  nextInvAt = 0;
  /** Core's m_last_inv_sequence: the mempool sequence at our last announcement round. */
  lastInvSequence = 1;
  /** Core's m_addr_relay_enabled and the getpeerinfo counters. */
  addrRelayEnabled = false;
  addrProcessed = 0;
  addrRateLimited = 0;
  sentGetaddr = false;
  /** A getaddr of ours awaits its full answer (Core's m_getaddr_sent): its addresses are not relayed on. */
  getaddrPending = false;
  /** Addresses queued for our next addr message to this peer, and those it knows (Core's m_addrs_to_send, m_addr_known). */
  readonly addrsToSend: PeerAddress[] = [];
  readonly addrKnown = new RecentSet(5000);
  /** Milliseconds: the next addr message round (Poisson spaced, 30 s on average). */
  nextAddrSendAt = 0;
  /** Milliseconds on the node's clock: the next announcement of our own address. */
  nextLocalAddrSendAt = 0;
  answeredGetaddr = false;
  /** The address manager's entry this automatic connection was made to (Good after the handshake). */
  addrmanAddress: ServiceAddress | undefined;
  /**
   * Core's CNode::addr for an outbound connection: the address dialled, with the time and
   * services known when it was chosen (the address manager's or anchors.dat's entry; for a
   * manual connection TIME_INIT and no services). anchors.dat keeps it as it is.
   */
  addr: PeerAddress | undefined;
  /** Core's addr rate limiter: tokens for addresses we will still process, and when last refilled (ms). */
  addrTokenBucket = 1;
  addrTokenTimestamp = Date.now();

  constructor(
    readonly id: number,
    readonly connection: PeerConnection,
    readonly handshake: Handshake,
    readonly connectionType: ConnectionType,
    /** "ip:port" of the peer, as getpeerinfo's addr. */
    readonly address: string,
    /** "ip:port" of our end. */
    readonly bindAddress: string,
    readonly network: string,
    /** Core's network group of the peer's address (NetGroupManager::GetGroup), hex: eviction and outbound diversity. */
    readonly netGroup: string,
    /** The -addnode / -connect / addnode RPC string this connection came from. */
    readonly addedAs: string | undefined,
    permissions: Iterable<PermissionName>,
    now: number,
  ) {
    this.connectedAt = now;
    this.permissions = new Set(permissions);
  }

  get inbound(): boolean {
    return this.connectionType === 'inbound';
  }

  get blockRelayOnly(): boolean {
    return this.connectionType === 'block-relay-only';
  }

  hasPermission(name: PermissionName): boolean {
    return this.permissions.has(name);
  }

  /** Whether the peer announced NODE_WITNESS. */
  get servesWitnesses(): boolean {
    return (this.services & (1n << 3n)) !== 0n;
  }

  /** A full node (NODE_NETWORK or NODE_NETWORK_LIMITED): it can serve blocks. */
  get servesBlocks(): boolean {
    return (this.services & ((1n << 0n) | (1n << 10n))) !== 0n;
  }

  send(command: string, payload: Uint8Array = new Uint8Array(0)): void {
    this.connection.send(command, payload);
  }
}
