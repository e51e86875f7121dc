/**
 * Whether our outbound peers keep up with our chain (Core's ChainSyncTimeoutState,
 * ConsiderEviction and the tail of UpdatePeerStateForReceivedHeaders). An automatic
 * outbound peer (full-relay or block-relay-only, never manual) whose best known block has
 * less work than our tip gets CHAIN_SYNC_TIMEOUT to show a chain with as much work as our
 * tip had then; past it, one getheaders gives it HEADERS_RESPONSE_TIME more, and a peer
 * still behind after that is disconnected. The first MAX_OUTBOUND_PEERS_TO_PROTECT
 * full-relay peers that showed a chain with at least our tip's work are protected for the
 * whole connection, so a slow moment of ours cannot cost us every good peer at once.
 * Timeouts run on the node's clock, so setmocktime moves them as it moves Core's.
 */
import type { BlockIndexEntry } from '../chain/index.js';
import type { NetLog } from './peer-manager.js';
import type { Peer } from './peer.js';

/** Core's CHAIN_SYNC_TIMEOUT and HEADERS_RESPONSE_TIME, in seconds. */
export const CHAIN_SYNC_TIMEOUT_S = 20 * 60;
export const HEADERS_RESPONSE_TIME_S = 2 * 60;
/** Core's MAX_OUTBOUND_PEERS_TO_PROTECT_FROM_DISCONNECT. */
export const MAX_OUTBOUND_PEERS_TO_PROTECT_FROM_DISCONNECT = 4;

/** Core's CNodeState::ChainSyncTimeoutState. */
export interface ChainSyncTimeoutState {
  /** Seconds on the node's clock when the peer must have caught up; 0: no timeout set. */
  timeout: number;
  /** Our tip when the timeout was set: the work the peer's chain must reach. */
  workHeader: BlockIndexEntry | undefined;
  /** The getheaders of the last chance went out. */
  sentGetheaders: boolean;
  /** Never disconnected for a slow or short chain (nor evicted as an extra peer). */
  protect: boolean;
}

export interface ChainSyncContext {
  readonly log: NetLog;
  /** Our active chain's tip. */
  tip(): BlockIndexEntry;
  /** Seconds (mockable). */
  now(): number;
  isInitialBlockDownload(): boolean;
  readonly minimumChainWork: bigint;
  /** Core's MaybeSendGetHeaders: a getheaders from this block's locator unless one is in flight. */
  maybeSendGetHeaders(peer: Peer, from: BlockIndexEntry | undefined): void;
  disconnect(peer: Peer, reason: string): void;
}

/** Core's IsOutboundOrBlockRelayConn: the connections subject to the chain-sync timeout. */
function isOutboundOrBlockRelay(peer: Peer): boolean {
  return peer.connectionType === 'outbound-full-relay' || peer.connectionType === 'block-relay-only';
}

export class ChainSyncTimeouts {
  /** Core's m_outbound_peers_with_protect_from_disconnect. */
  #protectedCount = 0;

  constructor(private readonly ctx: ChainSyncContext) {}

  get protectedCount(): number {
    return this.#protectedCount;
  }

  /**
   * Core's UpdatePeerStateForReceivedHeaders after UpdateBlockAvailability: the time of a
   * new announcement with more work than our tip; in initial download, an outbound peer
   * whose whole headers chain lacks the minimum work is dropped; a full-relay outbound
   * peer showing our tip's work is protected while protection slots remain.
   */
  headersReceived(peer: Peer, last: BlockIndexEntry, receivedNewHeader: boolean, mayHaveMoreHeaders: boolean): void {
    const tip = this.ctx.tip();
    if (receivedNewHeader && last.chainWork > tip.chainWork) peer.lastBlockAnnouncement = this.ctx.now();
    const best = peer.bestKnownBlock;
    if (this.ctx.isInitialBlockDownload() && !mayHaveMoreHeaders && best && best.chainWork < this.ctx.minimumChainWork && isOutboundOrBlockRelay(peer)) {
      this.ctx.log.info(`outbound peer headers chain has insufficient work, disconnecting peer=${peer.id}`);
      this.ctx.disconnect(peer, 'outbound peer headers chain has insufficient work');
    }
    if (peer.disconnectReason !== undefined || peer.connectionType !== 'outbound-full-relay' || !best) return;
    if (this.#protectedCount < MAX_OUTBOUND_PEERS_TO_PROTECT_FROM_DISCONNECT && best.chainWork >= tip.chainWork && !peer.chainSync.protect) {
      this.ctx.log.debug('net', `Protecting outbound peer=${peer.id} from eviction`);
      peer.chainSync.protect = true;
      this.#protectedCount++;
    }
  }

  /** A header announced in a compact block (Core's CMPCTBLOCK handling): only the announcement time. */
  compactHeaderReceived(peer: Peer, entry: BlockIndexEntry, receivedNewHeader: boolean): void {
    if (receivedNewHeader && entry.chainWork > this.ctx.tip().chainWork) peer.lastBlockAnnouncement = this.ctx.now();
  }

  /** Core's ConsiderEviction, run for every peer in each SendMessages round. */
  consider(peer: Peer): void {
    const state = peer.chainSync;
    if (state.protect || !isOutboundOrBlockRelay(peer) || !peer.syncStarted) return;
    const tip = this.ctx.tip();
    const now = this.ctx.now();
    const best = peer.bestKnownBlock;
    if (best && best.chainWork >= tip.chainWork) {
      // It has shown a chain with our tip's work: no timeout.
      if (state.timeout !== 0) {
        state.timeout = 0;
        state.workHeader = undefined;
        state.sentGetheaders = false;
      }
    } else if (state.timeout === 0 || (state.workHeader && best && best.chainWork >= state.workHeader.chainWork)) {
      // Behind, noticed now, or caught up with the tip we measured it against but not with
      // our current one: it gets a new timeout against our current tip.
      state.timeout = now + CHAIN_SYNC_TIMEOUT_S;
      state.workHeader = tip;
      state.sentGetheaders = false;
    } else if (state.timeout > 0 && now > state.timeout) {
      if (state.sentGetheaders) {
        this.ctx.log.info(`Outbound peer has old chain, best known block = ${best ? best.hashHex : '<none>'}, disconnecting peer=${peer.id}`);
        this.ctx.disconnect(peer, 'outbound peer has old chain');
      } else {
        // One last chance: ask for headers from just before the block it must reach.
        const work = state.workHeader!;
        this.ctx.maybeSendGetHeaders(peer, work.prev);
        this.ctx.log.debug('net', `sending getheaders to outbound peer=${peer.id} to verify chain work (current best known block:${best ? best.hashHex : '<none>'}, benchmark blockhash: ${work.hashHex})`);
        state.sentGetheaders = true;
        state.timeout = now + HEADERS_RESPONSE_TIME_S;
      }
    }
  }

  /** Core's FinalizeNode: a protected peer's slot is free again. */
  peerDisconnected(peer: Peer): void {
    if (peer.chainSync.protect) this.#protectedCount--;
  }
}
