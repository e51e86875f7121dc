/**
 * Which outbound peer to let go when we have more than we aim for (Core's
 * EvictExtraOutboundPeers). Extra connections are made on purpose: a full-relay one when
 * our tip may be stale, a block-relay-only one every few minutes once synced, to learn of
 * blocks a set of eclipsing peers might hide. Afterwards the least useful peer goes:
 *
 * - block-relay-only: the youngest, unless it gave us a block more recently than the
 *   second youngest, which then goes instead;
 * - full-relay: of the unprotected peers that are not our only full-relay or manual
 *   connection to their network, the one whose last announcement of a new block is
 *   oldest, the youngest among equals.
 *
 * Neither is dropped while a block is in flight from it or before MINIMUM_CONNECT_TIME
 * has passed since it connected (on the node's clock). Dropping an extra full-relay peer
 * means the extra connection did its job: no further one is tried until a stale tip is
 * seen again.
 */
import type { NetLog } from './peer-manager.js';
import type { Peer } from './peer.js';

/** Core's MINIMUM_CONNECT_TIME, seconds. */
export const MINIMUM_CONNECT_TIME_S = 30;

export interface ExtraOutboundContext {
  readonly log: NetLog;
  /** The connected peers. */
  peers(): Iterable<Peer>;
  /** Seconds (mockable). */
  readonly now: number;
  /** Core's m_max_outbound_full_relay and m_max_outbound_block_relay. */
  readonly maxFullRelay: number;
  readonly maxBlockRelay: number;
  /** Core's MultipleManualOrFullOutboundConns: more than one manual or full-relay connection on this peer's network. */
  multipleManualOrFullOutbound(peer: Peer): boolean;
  disconnect(peer: Peer, reason: string): void;
  /** Core's SetTryNewOutboundPeer. */
  setTryNewOutboundPeer(flag: boolean): void;
}

/** Core's NodeFullyConnected: the peers ForEachNode visits. */
function fullyConnected(ctx: ExtraOutboundContext): Peer[] {
  return [...ctx.peers()].filter((p) => p.successfullyConnected && p.disconnectReason === undefined).sort((a, b) => a.id - b.id);
}

/** Core's GetExtraFullOutboundCount and GetExtraBlockRelayCount. */
export function extraOutboundCounts(peers: Iterable<Peer>, maxFullRelay: number, maxBlockRelay: number): { fullRelay: number; blockRelay: number } {
  let full = 0;
  let block = 0;
  for (const p of peers) {
    if (!p.successfullyConnected || p.disconnectReason !== undefined) continue;
    if (p.connectionType === 'outbound-full-relay') full++;
    else if (p.connectionType === 'block-relay-only') block++;
  }
  return { fullRelay: Math.max(full - maxFullRelay, 0), blockRelay: Math.max(block - maxBlockRelay, 0) };
}

export function evictExtraOutboundPeers(ctx: ExtraOutboundContext): void {
  const peers = fullyConnected(ctx);
  const extra = extraOutboundCounts(peers, ctx.maxFullRelay, ctx.maxBlockRelay);
  if (extra.blockRelay > 0) evictExtraBlockRelay(ctx, peers);
  if (extra.fullRelay > 0) evictExtraFullRelay(ctx, peers);
}

function evictExtraBlockRelay(ctx: ExtraOutboundContext, peers: readonly Peer[]): void {
  // A higher id is a more recent connection.
  let youngest: Peer | undefined;
  let nextYoungest: Peer | undefined;
  for (const p of peers) {
    if (p.connectionType !== 'block-relay-only') continue;
    if (!youngest || p.id > youngest.id) {
      nextYoungest = youngest;
      youngest = p;
    }
  }
  if (!youngest) return;
  // The newest one gave us a block more recently: it stays, the second youngest goes.
  const chosen = nextYoungest && youngest.lastBlockTime > nextYoungest.lastBlockTime ? nextYoungest : youngest;
  if (ctx.now - chosen.connectedAt >= MINIMUM_CONNECT_TIME_S && chosen.blocksInFlight.length === 0) {
    ctx.log.debug('net', `disconnecting extra block-relay-only peer=${chosen.id} (last block received at time ${chosen.lastBlockTime})`);
    ctx.disconnect(chosen, 'extra block-relay-only peer');
  } else {
    ctx.log.debug('net', `keeping block-relay-only peer=${chosen.id} chosen for eviction (connect time: ${chosen.connectedAt}, blocks_in_flight: ${chosen.blocksInFlight.length})`);
  }
}

function evictExtraFullRelay(ctx: ExtraOutboundContext, peers: readonly Peer[]): void {
  let worst: Peer | undefined;
  for (const p of peers) {
    if (p.connectionType !== 'outbound-full-relay' || p.chainSync.protect) continue;
    // Our only connection of this kind to a network is kept.
    if (!ctx.multipleManualOrFullOutbound(p)) continue;
    if (!worst || p.lastBlockAnnouncement < worst.lastBlockAnnouncement || (p.lastBlockAnnouncement === worst.lastBlockAnnouncement && p.id > worst.id)) worst = p;
  }
  if (!worst) return;
  if (ctx.now - worst.connectedAt > MINIMUM_CONNECT_TIME_S && worst.blocksInFlight.length === 0) {
    ctx.log.debug('net', `disconnecting extra outbound peer=${worst.id} (last block announcement received at time ${worst.lastBlockAnnouncement})`);
    ctx.disconnect(worst, 'extra outbound peer');
    // An extra peer was made and one let go: no more extra ones until the tip looks stale again.
    ctx.setTryNewOutboundPeer(false);
  } else {
    ctx.log.debug('net', `keeping outbound peer=${worst.id} chosen for eviction (connect time: ${worst.connectedAt}, blocks_in_flight: ${worst.blocksInFlight.length})`);
  }
}
