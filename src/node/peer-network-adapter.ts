/**
 * The running connection manager seen through the RPC layer's PeerNetwork interface:
 * peers as Core's CNodeStats records, the added-node list, bans, and block fetches.
 */
import { addressNetClass, addressNetwork, BanManager, maybeFlipIPv6ToCjdns, NET_CJDNS, formatAddress, MAX_BLOCK_RELAY_ONLY, MAX_OUTBOUND_FULL_RELAY, MAX_UPLOAD_TIMEFRAME_S, MSG_WITNESS_BLOCK, NODE_NETWORK, NODE_P2P_V2, NODE_WITNESS, networkName, parseAddress, parseNetworkName, type ConnectionManager, type Peer } from '../net/index.js';
import type { PeerInfoRecord, PeerNetwork } from '../rpc/index.js';


function peerInfo(manager: ConnectionManager, peer: Peer, nowMs: number): PeerInfoRecord {
  const pm = manager.peerManager;
  const synced = pm.syncedHeights(peer);
  const c = peer.connection;
  return {
    id: peer.id,
    addr: peer.addedAs ?? peer.address,
    addrbind: peer.bindAddress,
    network: peer.network,
    services: peer.services,
    relaytxes: peer.relayTransactions,
    lastInvSequence: peer.lastInvSequence,
    invToSend: peer.txToAnnounce.size,
    lastsend: c.lastSend,
    lastrecv: c.lastReceive,
    lastTransaction: peer.lastTransactionTime,
    lastBlock: peer.lastBlockTime,
    bytessent: c.bytesSent,
    bytesrecv: c.bytesReceived,
    conntime: peer.connectedAt,
    timeoffset: peer.timeOffset,
    pingtime: peer.lastPingTime,
    minping: peer.minPingTime,
    pingwait: peer.pingNonceSent !== 0n ? (nowMs - peer.pingStart) / 1000 : undefined,
    version: peer.version,
    subver: peer.userAgent,
    inbound: peer.inbound,
    bip152HbTo: peer.highBandwidthTo,
    bip152HbFrom: peer.wantsHighBandwidthCompact,
    startingheight: peer.startingHeight,
    presyncedHeaders: synced.presync,
    syncedHeaders: synced.headers,
    syncedBlocks: synced.blocks,
    inflight: pm.inflightHeights(peer),
    addrRelayEnabled: peer.addrRelayEnabled,
    addrProcessed: peer.addrProcessed,
    addrRateLimited: peer.addrRateLimited,
    permissions: [...peer.permissions],
    minfeefilter: peer.feeFilterReceived,
    bytessentPerMsg: c.sentPerMessage,
    bytesrecvPerMsg: c.receivedPerMessage,
    connectionType: peer.connectionType,
    // An inbound peer is "detecting" until its first message shows the transport.
    transportProtocolType: peer.inbound && c.bytesReceived === 0 ? 'detecting' : 'v1',
    sessionId: '',
  };
}

/** `mockForward`: the coordinator's own scheduled tasks, which mockscheduler moves with the network's. */
export function peerNetworkOf(manager: ConnectionManager, now: () => number, localServices: bigint, regtest: boolean, mockForward: (seconds: number) => void): PeerNetwork {
  const live = (): Peer[] => [...manager.peers()].filter((p) => p.disconnectReason === undefined);
  return {
    peerInfo: () => {
      const nowMs = performance.timeOrigin + performance.now();
      return live()
        .sort((a, b) => a.id - b.id)
        .map((p) => peerInfo(manager, p, nowMs));
    },
    connectionCounts: () => {
      const peers = live();
      const inbound = peers.filter((p) => p.inbound).length;
      return { inbound, outbound: peers.length - inbound };
    },
    timeOffset: () => manager.peerManager.medianTimeOffset(),
    totals: () => ({ received: manager.totalBytesReceived, sent: manager.totalBytesSent }),
    uploadTarget: () => {
      const u = manager.uploadTarget;
      return { timeframe: MAX_UPLOAD_TIMEFRAME_S, target: u.limit, targetReached: u.reached(false), serveHistoricalBlocks: !u.reached(true), bytesLeftInCycle: u.bytesLeft(), timeLeftInCycle: u.timeLeftInCycle() };
    },
    get networkActive() {
      return manager.networkActive;
    },
    setNetworkActive: (active) => manager.setNetworkActive(active),
    v2TransportEnabled: (localServices & NODE_P2P_V2) !== 0n,
    addNode: (node) => {
      if (manager.addedNodes.some((n) => n.text === node)) return false;
      manager.addedNodes.push({ text: node, lastAttempt: 0 });
      manager.wakeAddedNodes();
      return true;
    },
    removeNode: (node) => {
      const index = manager.addedNodes.findIndex((n) => n.text === node);
      if (index === -1) return false;
      manager.addedNodes.splice(index, 1);
      return true;
    },
    tryNode: (node) => void manager.openManual(node),
    addedNodes: () =>
      manager.addedNodes.map((n) => {
        const peer = manager.findPeer(n.text);
        return peer ? { addednode: n.text, connected: true, address: { address: peer.address, inbound: peer.inbound } } : { addednode: n.text, connected: false };
      }),
    disconnectByAddress: (address) => {
      const peer = manager.findPeer(address);
      if (!peer) return false;
      manager.disconnect(peer, 'disconnectnode');
      return true;
    },
    disconnectById: (id) => {
      const peer = live().find((p) => p.id === id);
      if (!peer) return false;
      manager.disconnect(peer, 'disconnectnode');
      return true;
    },
    ban: (text, seconds, absolute) => {
      const subnet = BanManager.parse(text);
      if (!subnet) return 'invalid';
      if (!manager.bans.ban(subnet, seconds, absolute)) return 'exists';
      manager.disconnectSubnet((ip) => BanManager.matches(subnet, ip), 'banned');
      return 'ok';
    },
    unban: (text) => {
      const subnet = BanManager.parse(text);
      if (!subnet) return 'invalid';
      return manager.bans.unban(subnet) ? 'ok' : 'not-banned';
    },
    listBanned: () => manager.bans.list().map((b) => ({ address: b.address, banCreated: b.created, bannedUntil: b.until })),
    clearBanned: () => manager.bans.clear(),
    pingAll: () => {
      for (const p of live()) p.pingQueued = true;
    },
    fetchBlockFromPeer: (hashHex, peerId) => {
      const entry = manager.peerManager.lookupBlock(hashHex);
      if (!entry) return { code: -1, message: 'Block header missing' };
      if (entry.hasData) return { code: -1, message: 'Block already downloaded' };
      const peer = live().find((p) => p.id === peerId);
      if (!peer) return { code: -1, message: 'Peer does not exist' };
      if (!peer.servesWitnesses) return { code: -1, message: 'Pre-SegWit peer' };
      manager.peerManager.requestBlocks(peer, [entry], MSG_WITNESS_BLOCK);
      return undefined;
    },
    orphans: () =>
      [...manager.peerManager.txRelay.orphanage.entries()].map((o) => ({
        txid: o.tx.txidHex,
        wtxid: o.tx.wtxidHex,
        bytes: o.tx.toBytes().length,
        vsize: o.tx.vsize,
        weight: o.tx.weight,
        from: [...o.announcers],
        hex: Buffer.from(o.tx.toBytes()).toString('hex'),
      })),
    nodeAddresses: (count, network) => {
      const net = network === undefined ? null : (parseNetworkName(network) ?? null);
      return manager.addrman.getAddr(count, 0, net, true).map((a) => ({
        time: a.time,
        services: a.services,
        address: formatAddress(a),
        port: a.port,
        network: networkName(addressNetwork(a)),
      }));
    },
    addPeerAddress: (text, port, tried) => {
      const written = parseAddress(text.replace(/^\[(.*)\]$/, '$1'));
      if (!written) return 'invalid-ip';
      const parsed = maybeFlipIPv6ToCjdns(written, manager.isReachable(NET_CJDNS));
      // Core's addpeeraddress: a full node announcing itself (source = the address itself).
      const address = { time: now(), services: NODE_NETWORK | NODE_WITNESS, network: parsed.network, address: parsed.address, port };
      if (!manager.addrman.add([address], parsed)) return 'failed-adding-to-new';
      if (tried && !manager.addrman.good(address)) return 'failed-adding-to-tried';
      return 'ok';
    },
    addrmanInfo: () => manager.addrman.info(),
    addrmanTable: (tried) =>
      manager.addrman.getEntries(tried).map(({ entry, position }) => ({
        bucket: position.bucket,
        position: position.position,
        address: formatAddress(entry.address),
        port: entry.address.port,
        services: entry.address.services,
        time: entry.address.time,
        network: networkName(addressNetClass(entry.address)),
        source: formatAddress(entry.source),
        sourceNetwork: networkName(addressNetClass(entry.source)),
      })),
    sendToPeer: (id, messageType, body) => {
      const peer = live().find((p) => p.id === id);
      if (!peer) return false;
      peer.connection.sendUnchecked(messageType, body);
      return true;
    },
    regtest,
    mockScheduler: (seconds) => {
      manager.mockScheduler(seconds);
      mockForward(seconds);
    },
    addConnection: (address, type) => {
      // Core's AddConnection: full-relay and block-relay-only slots are limited; addr-fetch and feelers are not.
      const limit = type === 'outbound-full-relay' ? MAX_OUTBOUND_FULL_RELAY : type === 'block-relay-only' ? MAX_BLOCK_RELAY_ONLY : Infinity;
      if (live().filter((p) => p.connectionType === type).length >= limit) return false;
      // Core's AddConnection also takes a slot of the outbound semaphore.
      if (!manager.hasOutboundSlot()) return false;
      void manager.openManual(address, type);
      return true;
    },
    now,
  };
}

