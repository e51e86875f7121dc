/**
 * The periodic outbound-peer check (Core's CheckForStaleTipAndEvictPeers, scheduled every
 * EXTRA_PEER_CHECK_INTERVAL): extra outbound peers are evicted; every STALE_CHECK_INTERVAL
 * the tip is examined, and one that may be stale (no new block connected for three block
 * intervals, none in flight: Core's TipMayBeStale) lets the connection manager open one
 * extra full-relay connection; and once we are close to the tip, extra block-relay-only
 * connections start. Times are on the node's clock, so setmocktime moves them as in Core;
 * the 45-second schedule itself is wall-clock (mockscheduler moves it).
 */
import { evictExtraOutboundPeers, type ExtraOutboundContext } from './extra-outbound-eviction.js';
import type { NetLog } from './peer-manager.js';

/** Core's EXTRA_PEER_CHECK_INTERVAL (ms, wall clock) and STALE_CHECK_INTERVAL (s, node clock). */
export const EXTRA_PEER_CHECK_INTERVAL_MS = 45_000;
export const STALE_CHECK_INTERVAL_S = 10 * 60;

/** What the connection manager offers the check (Core's CConnman calls in it). */
export interface OutboundConnectionControl {
  /** Core's GetNetworkActive and GetUseAddrmanOutgoing. */
  networkActive(): boolean;
  readonly automaticOutbound: boolean;
  tryNewOutboundPeer(): boolean;
  setTryNewOutboundPeer(flag: boolean): void;
  startExtraBlockRelayPeers(): void;
}

export interface StaleTipCheckContext extends Omit<ExtraOutboundContext, 'now' | 'setTryNewOutboundPeer'> {
  readonly log: NetLog;
  /** Seconds (mockable). */
  now(): number;
  /** Consensus target spacing, seconds. */
  readonly targetSpacing: number;
  /** Blocks requested and not yet received (Core's mapBlocksInFlight). */
  blocksInFlight(): number;
  /** -reindex or -loadblock import in progress (Core's LoadingBlocks). */
  loadingBlocks(): boolean;
  /** Core's CanDirectFetch: our tip is less than 20 block intervals old. */
  canDirectFetch(): boolean;
  readonly connections: OutboundConnectionControl;
}

export class StaleTipCheck {
  /** Seconds: when a block was last connected (Core's m_last_tip_update); 0 until first seen. */
  lastTipUpdate = 0;
  /** Seconds: the next stale-tip examination (Core's m_stale_tip_check_time). */
  #staleTipCheckTime = 0;
  /** Core's m_initial_sync_finished: extra block-relay-only peers were turned on. */
  #initialSyncFinished = false;

  constructor(private readonly ctx: StaleTipCheckContext) {}

  /** Core's BlockConnected part: the tip moved. */
  blockConnected(): void {
    this.lastTipUpdate = this.ctx.now();
  }

  /** Core's TipMayBeStale. */
  tipMayBeStale(): boolean {
    const now = this.ctx.now();
    if (this.lastTipUpdate === 0) this.lastTipUpdate = now;
    return this.lastTipUpdate < now - this.ctx.targetSpacing * 3 && this.ctx.blocksInFlight() === 0;
  }

  /** Core's CheckForStaleTipAndEvictPeers. */
  run(): void {
    const ctx = this.ctx;
    const now = ctx.now();
    const connections = ctx.connections;
    evictExtraOutboundPeers({
      log: ctx.log,
      peers: () => ctx.peers(),
      now,
      maxFullRelay: ctx.maxFullRelay,
      maxBlockRelay: ctx.maxBlockRelay,
      multipleManualOrFullOutbound: (peer) => ctx.multipleManualOrFullOutbound(peer),
      disconnect: (peer, reason) => ctx.disconnect(peer, reason),
      setTryNewOutboundPeer: (flag) => connections.setTryNewOutboundPeer(flag),
    });
    if (now > this.#staleTipCheckTime) {
      if (!ctx.loadingBlocks() && connections.networkActive() && connections.automaticOutbound && this.tipMayBeStale()) {
        ctx.log.info(`Potential stale tip detected, will try using extra outbound peer (last tip update: ${now - this.lastTipUpdate} seconds ago)`);
        connections.setTryNewOutboundPeer(true);
      } else if (connections.tryNewOutboundPeer()) {
        connections.setTryNewOutboundPeer(false);
      }
      this.#staleTipCheckTime = now + STALE_CHECK_INTERVAL_S;
    }
    if (!this.#initialSyncFinished && ctx.canDirectFetch()) {
      connections.startExtraBlockRelayPeers();
      this.#initialSyncFinished = true;
    }
  }
}
