/**
 * What the P2P RPCs (getpeerinfo, addnode, setban, ...) need from the node's network
 * layer, as plain data: rpc/ formats Core's JSON from these records and never touches
 * sockets. The node implements it over src/net's connection manager.
 */

/** One connected peer, Core's CNodeStats and CNodeStateStats together. */
export interface PeerInfoRecord {
  readonly id: number;
  /** Core's m_addr_name: the string it was added as (outbound), or "ip:port". */
  readonly addr: string;
  readonly addrbind: string;
  readonly network: string;
  readonly services: bigint;
  readonly relaytxes: boolean;
  readonly lastInvSequence: number;
  readonly invToSend: number;
  /** Seconds since the epoch. */
  readonly lastsend: number;
  readonly lastrecv: number;
  readonly lastTransaction: number;
  readonly lastBlock: number;
  readonly bytessent: number;
  readonly bytesrecv: number;
  readonly conntime: number;
  readonly timeoffset: number;
  /** Seconds; undefined when there is none. */
  readonly pingtime: number | undefined;
  readonly minping: number | undefined;
  readonly pingwait: number | undefined;
  readonly version: number;
  readonly subver: string;
  readonly inbound: boolean;
  readonly bip152HbTo: boolean;
  readonly bip152HbFrom: boolean;
  readonly startingheight: number;
  readonly presyncedHeaders: number;
  readonly syncedHeaders: number;
  readonly syncedBlocks: number;
  readonly inflight: readonly number[];
  readonly addrRelayEnabled: boolean;
  readonly addrProcessed: number;
  readonly addrRateLimited: number;
  /** Core's NetPermissions::ToStrings order. */
  readonly permissions: readonly string[];
  /** Satoshis per kvB. */
  readonly minfeefilter: bigint;
  /** Message type → bytes, only non-zero entries; any order (the RPC sorts them as Core's std::map does). */
  readonly bytessentPerMsg: ReadonlyMap<string, number>;
  readonly bytesrecvPerMsg: ReadonlyMap<string, number>;
  readonly connectionType: string;
  /** "detecting", "v1" or "v2". */
  readonly transportProtocolType: string;
  readonly sessionId: string;
}

export interface AddedNodeRecord {
  readonly addednode: string;
  readonly connected: boolean;
  /** Present when connected: "ip:port" and whether the connection is inbound. */
  readonly address?: { readonly address: string; readonly inbound: boolean };
}

export interface BannedRecord {
  /** "1.2.3.4/32", "10.0.0.0/8". */
  readonly address: string;
  readonly banCreated: number;
  readonly bannedUntil: number;
}

export interface UploadTargetRecord {
  readonly timeframe: number;
  readonly target: number;
  readonly targetReached: boolean;
  readonly serveHistoricalBlocks: boolean;
  readonly bytesLeftInCycle: number;
  readonly timeLeftInCycle: number;
}

export interface OrphanRecord {
  readonly txid: string;
  readonly wtxid: string;
  readonly bytes: number;
  readonly vsize: number;
  readonly weight: number;
  readonly from: readonly number[];
  readonly hex: string;
}

/** One address manager entry where it sits, as getrawaddrman lists it. */
export interface AddrmanTableEntry {
  readonly bucket: number;
  readonly position: number;
  readonly address: string;
  readonly port: number;
  readonly services: bigint;
  readonly time: number;
  readonly network: string;
  readonly source: string;
  readonly sourceNetwork: string;
}

export interface PeerNetwork {
  peerInfo(): PeerInfoRecord[];
  connectionCounts(): { inbound: number; outbound: number };
  /** Seconds: the median clock offset of recent outbound peers (getnetworkinfo's timeoffset). */
  timeOffset(): number;
  totals(): { received: number; sent: number };
  uploadTarget(): UploadTargetRecord;
  readonly networkActive: boolean;
  setNetworkActive(active: boolean): void;
  /** Whether local services include NODE_P2P_V2 (addnode's v2transport check). */
  readonly v2TransportEnabled: boolean;
  /** addnode add: false when the node is already in the list. */
  addNode(node: string): boolean;
  /** addnode remove: false when it was not in the list. */
  removeNode(node: string): boolean;
  /** addnode onetry: one connection attempt, not awaited. */
  tryNode(node: string): void;
  addedNodes(): AddedNodeRecord[];
  /** disconnectnode: false when no such peer is connected. */
  disconnectByAddress(address: string): boolean;
  disconnectById(id: number): boolean;
  /** setban add: 'invalid' for a bad address, 'exists' when already banned. */
  ban(subnet: string, seconds: number, absolute: boolean): 'ok' | 'invalid' | 'exists';
  /** setban remove. */
  unban(subnet: string): 'ok' | 'invalid' | 'not-banned';
  listBanned(): BannedRecord[];
  clearBanned(): void;
  /** ping: every peer gets a ping at its next send round. */
  pingAll(): void;
  /** getblockfrompeer: undefined when scheduled, else Core's error text. */
  fetchBlockFromPeer(hashHex: string, peerId: number): { code: number; message: string } | undefined;
  orphans(): OrphanRecord[];
  /** addconnection (regtest): opens an outbound connection of this type; false when at capacity for it. */
  addConnection(address: string, type: 'outbound-full-relay' | 'block-relay-only' | 'addr-fetch' | 'feeler'): boolean;
  /** Whether the node runs regtest (addconnection is refused elsewhere). */
  readonly regtest: boolean;
  /** mockscheduler (regtest): the node's scheduled tasks fall due this many seconds earlier. */
  mockScheduler(seconds: number): void;
  /** getnodeaddresses: up to `count` (0: all) known addresses, of one network or all, as the address manager filters them. */
  nodeAddresses(count: number, network: string | undefined): { time: number; services: bigint; address: string; port: number; network: string }[];
  /** addpeeraddress: 'invalid-ip' when the text is not an IP address; else whether it went in (and to tried when asked). */
  addPeerAddress(address: string, port: number, tried: boolean): 'invalid-ip' | 'ok' | 'failed-adding-to-new' | 'failed-adding-to-tried';
  /** getaddrmaninfo: new/tried/total per network and for all networks, in Core's key order. */
  addrmanInfo(): Record<string, { new: number; tried: number; total: number }>;
  /** getrawaddrman: every entry of one table, bucket by bucket and position by position. */
  addrmanTable(tried: boolean): AddrmanTableEntry[];
  /** sendmsgtopeer: queues one message (type and body as given) to a connected peer; false when there is none with this id. */
  sendToPeer(id: number, messageType: string, body: Uint8Array): boolean;
  /** Seconds since the epoch (mock time where set), for listbanned's durations. */
  now(): number;
}
