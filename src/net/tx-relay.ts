/**
 * Transaction relay (the transaction half of Core's net_processing with its TxRequest
 * tracker and TxOrphanage): announcements by wtxid to BIP339 peers (by txid to the rest)
 * in Poisson-spaced rounds filtered by the peer's BIP133 fee filter, requests for what
 * peers announce through the request tracker (one peer at a time per transaction, with
 * Core's delays and timeout, and at most MAX_PEER_TX_ANNOUNCEMENTS tracked per peer),
 * acceptance into the mempool, a bounded orphan pool for transactions whose parents are
 * missing, and a recent-rejects filter so nothing is downloaded twice in vain. A parent
 * refused on its feerate alone is tried again with an orphan child of it the same peer
 * sent (Core's one-parent-one-child package relay).
 */
import { reconsiderable, type MempoolEntry, type NodeMempool } from '../mempool/index.js';
import { hashToHex, hexToHash, parseTransaction, type Transaction } from '../primitives/index.js';
import { poissonDelayMs } from './fee-filter.js';
import { encodeInventory, type InventoryItem } from './messages.js';
import type { NetLog } from './peer-manager.js';
import { RecentSet, type Peer } from './peer.js';
import { MSG_TX, MSG_WITNESS_FLAG, MSG_WITNESS_TX, MSG_WTX } from './protocol.js';
import { TxOrphanage } from './tx-orphanage.js';
import { MAX_BLOCKS_IN_TRANSIT_PER_PEER } from './block-download.js';
import { TxRequestTracker } from './tx-request-tracker.js';

/** Core's INBOUND_INVENTORY_BROADCAST_INTERVAL and OUTBOUND_INVENTORY_BROADCAST_INTERVAL. */
const INBOUND_INVENTORY_INTERVAL_MS = 5000;
const OUTBOUND_INVENTORY_INTERVAL_MS = 2000;
/** Core's INVENTORY_BROADCAST_TARGET per round, and the per-second allowance on top of it. */
const INVENTORY_BROADCAST_TARGET = 70;
/** Core's GETDATA_TX_INTERVAL: a request unanswered this long goes to another announcer. */
const GETDATA_TX_INTERVAL_MS = 60_000;
/**
 * Core's MAX_PEER_TX_ANNOUNCEMENTS: announcements tracked per peer (in any state), beyond
 * which its further announcements are ignored; MAX_PEER_TX_REQUEST_IN_FLIGHT: requests
 * awaiting an answer beyond which the peer counts as overloaded.
 */
export const MAX_PEER_TX_ANNOUNCEMENTS = 5000;
export const MAX_PEER_TX_REQUEST_IN_FLIGHT = 100;
/** Core's NONPREF_PEER_TX_DELAY, TXID_RELAY_DELAY and OVERLOADED_PEER_TX_DELAY. */
const NONPREF_PEER_TX_DELAY_MS = 2000;
const TXID_RELAY_DELAY_MS = 2000;
const OVERLOADED_PEER_TX_DELAY_MS = 2000;
/** Core's MAX_GETDATA_SZ: entries per getdata we send. */
const MAX_GETDATA_SZ = 1000;

export interface TxRelayOptions {
  readonly mempool: NodeMempool | undefined;
  readonly log: NetLog;
  readonly blocksOnly: boolean;
  /** The node's clock in milliseconds, mockable as Core's GetTime (request times and expiries). */
  clockMs(): number;
  nowSeconds(): number;
  peers(): Iterable<Peer>;
  isInitialBlockDownload(): boolean;
  misbehaving(peer: Peer, reason: string): void;
  disconnect(peer: Peer, reason: string): void;
}

export class TxRelay {
  /** Core's m_lazy_recent_rejects: transactions (by wtxid and txid) not to fetch again. */
  readonly #recentRejects = new RecentSet(120_000);
  /**
   * Core's m_lazy_recent_rejects_reconsiderable: wtxids refused on their feerate alone (not
   * fetched again by announcement, but tried with an orphan child), and parent-child pairs
   * already tried together.
   */
  readonly #recentRejectsReconsiderable = new RecentSet(120_000);
  readonly orphanage = new TxOrphanage();
  /** Announcements and requests of transactions (Core's m_txrequest). */
  readonly requests = new TxRequestTracker();
  /** Peers that asked for the whole mempool (BIP35, with permission). */
  readonly #sendMempool = new Set<number>();
  /** Per network, when inbound peers next hear of transactions (Core's m_next_inv_to_inbounds_per_network_key). */
  readonly #inboundInvTimers = new Map<string, number>();

  constructor(private readonly options: TxRelayOptions) {
    options.mempool?.relayListeners.push((entry) => this.relay(entry));
  }

  /** Core's RelayTransaction: every transaction-relaying peer will hear of it. */
  relay(entry: MempoolEntry): void {
    for (const peer of this.options.peers()) {
      if (!peer.successfullyConnected || !peer.relayTransactions) continue;
      const id = peer.handshake.wtxidRelay ? entry.tx.wtxidHex : entry.txid;
      if (!peer.knownTransactions.has(id)) peer.txToAnnounce.add(id);
    }
  }

  #rejectsTransactions(peer: Peer): boolean {
    return (this.options.blocksOnly && !peer.hasPermission('relay')) || peer.blockRelayOnly;
  }

  #alreadyHave(idHex: string, byWtxid: boolean, includeReconsiderable = true): boolean {
    if (this.#recentRejects.has(idHex)) return true;
    if (includeReconsiderable && this.#recentRejectsReconsiderable.has(idHex)) return true;
    if (this.orphanage.has(idHex)) return true;
    const pool = this.options.mempool?.pool;
    if (!pool) return false;
    return byWtxid ? pool.hasWtxid(idHex) : pool.get(idHex) !== undefined;
  }

  inventoryReceived(peer: Peer, items: readonly InventoryItem[]): void {
    const wtxidPeers = this.#wtxidPeerCount();
    for (const item of items) {
      const byWtxid = item.type === MSG_WTX;
      // A BIP339 peer announces by wtxid only; the others by txid only.
      if (peer.handshake.wtxidRelay !== byWtxid) continue;
      const idHex = hashToHex(item.hash);
      peer.knownTransactions.add(idHex);
      if (this.#rejectsTransactions(peer)) {
        this.options.log.debug('net', `transaction (${idHex}) inv sent in violation of protocol, peer=${peer.id}`);
        this.options.disconnect(peer, 'transaction inv in violation of protocol');
        return;
      }
      if (this.#alreadyHave(idHex, byWtxid) || this.options.isInitialBlockDownload()) continue;
      this.#addAnnouncement(peer, idHex, byWtxid, wtxidPeers);
    }
    this.#requestFrom(peer);
  }

  /**
   * Core's AddTxAnnouncement: tracked unless the peer already has MAX_PEER_TX_ANNOUNCEMENTS
   * announcements tracked (relay permission exempts it), requestable after Core's delays:
   * for a peer not preferred for download, for a txid while wtxid peers could announce the
   * wtxid instead, and for a peer with MAX_PEER_TX_REQUEST_IN_FLIGHT requests unanswered.
   */
  #addAnnouncement(peer: Peer, idHex: string, byWtxid: boolean, wtxidPeers = this.#wtxidPeerCount()): void {
    const relayPermission = peer.hasPermission('relay');
    if (!relayPermission && this.requests.count(peer.id) >= MAX_PEER_TX_ANNOUNCEMENTS) return;
    let delay = 0;
    if (!peer.preferredDownload) delay += NONPREF_PEER_TX_DELAY_MS;
    if (!byWtxid && wtxidPeers > 0) delay += TXID_RELAY_DELAY_MS;
    if (!relayPermission && this.requests.countInFlight(peer.id) >= MAX_PEER_TX_REQUEST_IN_FLIGHT) delay += OVERLOADED_PEER_TX_DELAY_MS;
    this.requests.receivedInv(peer.id, idHex, byWtxid, peer.preferredDownload, this.options.clockMs() + delay);
  }

  /** Core's m_num_wtxid_peers: connected peers relaying by wtxid. */
  #wtxidPeerCount(): number {
    let n = 0;
    for (const p of this.options.peers()) if (p.successfullyConnected && p.disconnectReason === undefined && p.handshake.wtxidRelay) n++;
    return n;
  }

  /** Core's GetRequestsToSend and the transaction getdata of SendMessages: what the tracker chose for this peer now. */
  #requestFrom(peer: Peer): void {
    if (!peer.successfullyConnected || peer.disconnectReason !== undefined) return;
    const now = this.options.clockMs();
    const log = this.options.log;
    const logging = log.enabled('net');
    const wanted = this.requests.getRequestable(peer.id, now, (from, tx) => {
      if (logging) log.debug('net', `timeout of inflight ${tx.isWtxid ? 'wtx' : 'tx'} ${tx.txhash} from peer=${from}`);
    });
    let items: InventoryItem[] = [];
    for (const tx of wanted) {
      if (this.#alreadyHave(tx.txhash, tx.isWtxid)) {
        this.requests.forgetTxHash(tx.txhash);
        continue;
      }
      if (logging) log.debug('net', `Requesting ${tx.isWtxid ? 'wtx' : 'tx'} ${tx.txhash} peer=${peer.id}`);
      this.requests.requestedTx(peer.id, tx.txhash, now + GETDATA_TX_INTERVAL_MS);
      items.push({ type: tx.isWtxid ? MSG_WTX : peer.servesWitnesses ? MSG_WITNESS_TX : MSG_TX, hash: hexToHash(tx.txhash) });
      if (items.length >= MAX_GETDATA_SZ) {
        peer.send('getdata', encodeInventory(items));
        items = [];
      }
    }
    if (items.length > 0) peer.send('getdata', encodeInventory(items));
  }

  /** Called on every tick: each peer gets what became due (Core does this in SendMessages). */
  tick(): void {
    if (this.requests.size === 0) return;
    for (const peer of [...this.options.peers()]) this.#requestFrom(peer);
  }

  notFound(peer: Peer, items: readonly InventoryItem[]): void {
    // Core reads no transactions from a notfound longer than this (its blocks in transit count in).
    if (items.length > MAX_PEER_TX_ANNOUNCEMENTS + MAX_BLOCKS_IN_TRANSIT_PER_PEER) return;
    for (const item of items) {
      const type = item.type & ~MSG_WITNESS_FLAG;
      if (type !== MSG_TX && type !== MSG_WTX) continue;
      this.requests.receivedResponse(peer.id, hashToHex(item.hash));
    }
    this.tick();
  }

  #received(peer: Peer, tx: Transaction): void {
    for (const idHex of [tx.txidHex, tx.wtxidHex]) {
      this.requests.receivedResponse(peer.id, idHex);
      this.requests.forgetTxHash(idHex);
    }
  }

  transactionReceived(peer: Peer, payload: Uint8Array): void {
    if (this.#rejectsTransactions(peer)) {
      this.options.log.debug('net', `transaction sent in violation of protocol peer=${peer.id}`);
      this.options.disconnect(peer, 'transaction in violation of protocol');
      return;
    }
    const tx = parseTransaction(payload);
    peer.knownTransactions.add(tx.txidHex);
    peer.knownTransactions.add(tx.wtxidHex);
    this.#received(peer, tx);
    const mempool = this.options.mempool;
    if (!mempool) return;
    if (mempool.pool.hasWtxid(tx.wtxidHex)) {
      // Core relays again only for a forcerelay peer.
      if (peer.hasPermission('forcerelay')) this.relay(mempool.pool.getByWtxid(tx.wtxidHex)!);
      return;
    }
    if (this.#recentRejects.has(tx.wtxidHex) || this.#recentRejects.has(tx.txidHex)) return;
    // Refused alone on its feerate before: only worth trying again with a child.
    if (this.#recentRejectsReconsiderable.has(tx.wtxidHex)) {
      void this.#acceptWithOrphanChild(peer, tx);
      return;
    }
    void this.#accept(peer, tx);
  }

  async #accept(peer: Peer, tx: Transaction): Promise<void> {
    const mempool = this.options.mempool!;
    const result = await mempool.acceptFromPeer(tx);
    if (result.ok) {
      peer.lastTransactionTime = this.options.nowSeconds();
      this.#logAccepted(peer, tx);
      this.orphanage.eraseTx(tx.wtxidHex);
      await this.#processOrphansOf(tx);
      return;
    }
    if (result.missingInputs) {
      const parents = [...new Set(tx.inputs.map((i) => hashToHex(i.prevout.txid)))];
      // A parent we rejected dooms the child: reject it too.
      if (parents.some((p) => this.#recentRejects.has(p))) {
        this.#recentRejects.add(tx.wtxidHex);
        this.#recentRejects.add(tx.txidHex);
        return;
      }
      if (this.orphanage.add(tx, peer.id)) {
        this.options.log.debug('mempool', `stored orphan tx ${tx.txidHex} (wtxid=${tx.wtxidHex}), weight: ${tx.weight} (mapsz ${this.orphanage.size})`);
        // Ask the announcing peer for the missing parents (by txid: that is all we know).
        // A parent refused on its feerate is asked for again, to be tried with this child.
        for (const parent of parents) if (!this.#alreadyHave(parent, false, false)) this.#addAnnouncement(peer, parent, false);
        this.#requestFrom(peer);
      }
      return;
    }
    this.options.log.debug('mempoolrej', `${tx.txidHex} (wtxid=${tx.wtxidHex}) from peer=${peer.id} was not accepted: ${result.reason}${result.debug ? ` (${result.debug})` : ''}`);
    if (reconsiderable(result)) {
      this.#recentRejectsReconsiderable.add(tx.wtxidHex);
      await this.#acceptWithOrphanChild(peer, tx);
      return;
    }
    this.#rejected(tx);
  }

  #logAccepted(peer: Peer, tx: Transaction): void {
    const mempool = this.options.mempool!;
    if (this.options.log.enabled('mempool')) {
      this.options.log.debug('mempool', `AcceptToMemoryPool: peer=${peer.id}: accepted ${tx.txidHex} (wtxid=${tx.wtxidHex}) (poolsz ${mempool.pool.size} txn, ${Math.round(poolBytes(mempool) / 1000)} kB)`);
    }
  }

  #rejected(tx: Transaction): void {
    this.#recentRejects.add(tx.wtxidHex);
    // A witness-stripped copy may fail where the real one passes: keep the txid fetchable then.
    if (!tx.hasWitness) this.#recentRejects.add(tx.txidHex);
  }

  /**
   * Core's Find1P1CPackage and package evaluation: a parent refused on its feerate is tried
   * together with an orphan child the same peer sent, once per pair.
   */
  async #acceptWithOrphanChild(peer: Peer, parent: Transaction): Promise<void> {
    for (const orphan of this.orphanage.childrenOf(parent.txidHex)) {
      const pairKey = [parent.wtxidHex, orphan.tx.wtxidHex].sort().join('');
      if (!orphan.announcers.has(peer.id) || this.#recentRejectsReconsiderable.has(pairKey) || this.#recentRejects.has(orphan.tx.txidHex)) continue;
      const outcome = await this.options.mempool!.acceptPackageFromPeer([parent, orphan.tx]);
      if (outcome.state) this.#recentRejectsReconsiderable.add(pairKey);
      for (const tx of [parent, orphan.tx]) {
        const result = outcome.results.get(tx.wtxidHex);
        if (result?.kind === 'valid') {
          this.#logAccepted(peer, tx);
          this.orphanage.eraseTx(tx.wtxidHex);
          await this.#processOrphansOf(tx);
        } else if (result?.kind === 'invalid' && !result.failure.missingInputs) {
          if (reconsiderable(result.failure)) {
            this.#recentRejectsReconsiderable.add(tx.wtxidHex);
          } else {
            this.orphanage.eraseTx(tx.wtxidHex);
            this.#rejected(tx);
          }
        }
      }
      return;
    }
  }

  /** Orphans whose parents are now in the pool get another try (Core's ProcessOrphanTx). */
  async #processOrphansOf(parent: Transaction): Promise<void> {
    for (const orphan of this.orphanage.childrenOf(parent.txidHex)) {
      const mempool = this.options.mempool!;
      const result = await mempool.acceptFromPeer(orphan.tx);
      if (result.ok) {
        this.options.log.debug('mempool', `   accepted orphan tx ${orphan.tx.txidHex} (wtxid=${orphan.tx.wtxidHex})`);
        this.orphanage.eraseTx(orphan.tx.wtxidHex);
        await this.#processOrphansOf(orphan.tx);
      } else if (!result.missingInputs) {
        this.orphanage.eraseTx(orphan.tx.wtxidHex);
        this.#recentRejects.add(orphan.tx.wtxidHex);
      }
    }
  }

  /** getdata for a transaction: true when it was sent. */
  serveTransaction(peer: Peer, item: InventoryItem): boolean {
    const pool = this.options.mempool?.pool;
    if (!pool) return false;
    const idHex = hashToHex(item.hash);
    const entry = item.type === MSG_WTX ? pool.getByWtxid(idHex) : pool.get(idHex);
    if (!entry) return false;
    // Core serves only what was announced to the peer or has been pooled since before our last round.
    const announced = peer.knownTransactions.has(idHex) || entry.sequence < peer.lastInvSequence;
    if (!announced) return false;
    const witness = item.type === MSG_WTX || (item.type & MSG_WITNESS_FLAG) !== 0;
    peer.send('tx', witness ? entry.tx.toBytes() : entry.tx.toBytesNoWitness());
    return true;
  }

  mempoolRequested(peer: Peer): void {
    this.#sendMempool.add(peer.id);
  }

  /**
   * Core's NextInvToInbounds: inbound peers of one network share one inv schedule, so the
   * timing of announcements does not tell them apart (m_next_inv_to_inbounds_per_network_key).
   */
  #nextInvToInbounds(nowMs: number, network: string): number {
    const timer = this.#inboundInvTimers.get(network) ?? 0;
    if (timer >= nowMs) return timer;
    const next = nowMs + poissonDelayMs(INBOUND_INVENTORY_INTERVAL_MS);
    this.#inboundInvTimers.set(network, next);
    return next;
  }

  /**
   * The transaction part of Core's SendMessages: an inv round when one is due, and at every
   * round for a noban peer (fSendTrickle), which Core's tests rely on under mock time.
   */
  announce(peer: Peer, nowMs: number): void {
    if (!peer.relayTransactions) return;
    let due = peer.hasPermission('noban');
    if (peer.nextInvAt < nowMs) {
      due = true;
      peer.nextInvAt = peer.inbound ? this.#nextInvToInbounds(nowMs, peer.network) : nowMs + poissonDelayMs(OUTBOUND_INVENTORY_INTERVAL_MS);
    }
    if (!due) return;
    const pool = this.options.mempool?.pool;
    if (!pool) return;
    const wtxid = peer.handshake.wtxidRelay;
    const type = wtxid ? MSG_WTX : MSG_TX;
    const items: InventoryItem[] = [];
    const passesFilter = (entry: MempoolEntry): boolean => peer.feeFilterReceived === 0n || (entry.fee * 1000n) / BigInt(entry.vsize) >= peer.feeFilterReceived;
    if (this.#sendMempool.delete(peer.id)) {
      for (const entry of pool.entries()) {
        const id = wtxid ? entry.tx.wtxidHex : entry.txid;
        peer.txToAnnounce.delete(id);
        if (!passesFilter(entry)) continue;
        peer.knownTransactions.add(id);
        items.push({ type, hash: hexToHash(id) });
      }
    }
    peer.lastInvSequence = pool.sequence;
    // Parents before children: the pool's entry order keeps them so.
    const queued = [...peer.txToAnnounce]
      .map((id) => (wtxid ? pool.getByWtxid(id) : pool.get(id)))
      .filter((e): e is MempoolEntry => e !== undefined)
      .sort((a, b) => a.sequence - b.sequence);
    const limit = INVENTORY_BROADCAST_TARGET + Math.floor(peer.txToAnnounce.size / 1000) * 5;
    let sent = 0;
    for (const entry of queued) {
      if (sent >= limit) break;
      const id = wtxid ? entry.tx.wtxidHex : entry.txid;
      peer.txToAnnounce.delete(id);
      if (peer.knownTransactions.has(id) || !passesFilter(entry)) continue;
      peer.knownTransactions.add(id);
      items.push({ type, hash: hexToHash(id) });
      sent++;
    }
    // Ids no longer in the pool are dropped.
    for (const id of peer.txToAnnounce) if (!(wtxid ? pool.hasWtxid(id) : pool.get(id))) peer.txToAnnounce.delete(id);
    for (let i = 0; i < items.length; i += 50_000) peer.send('inv', encodeInventory(items.slice(i, i + 50_000)));
  }

  peerDisconnected(peer: Peer): void {
    this.#sendMempool.delete(peer.id);
    this.requests.disconnectedPeer(peer.id);
    this.orphanage.erasePeer(peer.id);
    this.tick();
  }

  /** A block connected: transactions it confirmed need not be fetched (Core clears rejects per block). */
  blockConnected(): void {
    // Core resets its recent-rejects filter when the tip changes: a rejection may not hold any more.
    this.#recentRejects.clear();
    this.#recentRejectsReconsiderable.clear();
  }
}

function poolBytes(mempool: NodeMempool): number {
  let bytes = 0;
  for (const e of mempool.pool.entries()) bytes += e.vsize;
  return bytes;
}
