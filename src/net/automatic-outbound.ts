/**
 * Which automatic outbound connection to open next (the choice in Core's
 * ThreadOpenConnections): full-relay until MAX_OUTBOUND_FULL_RELAY, then block-relay-only
 * until MAX_BLOCK_RELAY_ONLY; then one extra full-relay connection while the stale-tip
 * check asks for it; then, once enabled after initial sync, an extra block-relay-only
 * connection every EXTRA_BLOCK_RELAY_ONLY_PEER_INTERVAL on average; then a feeler every
 * FEELER_INTERVAL on average; then an extra full-relay connection to a network without one
 * every EXTRA_NETWORK_PEER_INTERVAL on average. All automatic connections share Core's outbound semaphore
 * (full-relay + block-relay-only + feeler slots): an extra connection needs the slot a
 * feeler would use, so there is at most one at a time. The timers run on the node's clock
 * (Core's GetTime), so setmocktime moves them.
 */
import { poissonDelayMs } from './fee-filter.js';
import type { ConnectionType } from './peer.js';

/** Core's MAX_OUTBOUND_FULL_RELAY_CONNECTIONS, MAX_BLOCK_RELAY_ONLY_CONNECTIONS, MAX_FEELER_CONNECTIONS. */
export const MAX_OUTBOUND_FULL_RELAY = 8;
export const MAX_BLOCK_RELAY_ONLY = 2;
export const MAX_FEELER = 1;
/** Core's semOutbound size (m_max_automatic_outbound with the default -maxconnections). */
export const MAX_AUTOMATIC_OUTBOUND = MAX_OUTBOUND_FULL_RELAY + MAX_BLOCK_RELAY_ONLY + MAX_FEELER;
/** Core's FEELER_INTERVAL and EXTRA_BLOCK_RELAY_ONLY_PEER_INTERVAL, ms. */
export const FEELER_INTERVAL_MS = 2 * 60 * 1000;
export const EXTRA_BLOCK_RELAY_ONLY_PEER_INTERVAL_MS = 5 * 60 * 1000;
/** Core's EXTRA_NETWORK_PEER_INTERVAL, ms. */
export const EXTRA_NETWORK_PEER_INTERVAL_MS = 5 * 60 * 1000;

/** The connection to open: its type, and for a network-specific extra one, the network to take it from. */
export interface AutomaticChoice<N> {
  readonly type: ConnectionType;
  readonly preferredNetwork?: N;
}

/** The automatic outbound connections there are (or are being opened), by type. */
export interface AutomaticOutboundCounts {
  readonly fullRelay: number;
  readonly blockRelay: number;
  /** Connections holding an outbound slot: full-relay, block-relay-only, feeler and addr-fetch. */
  readonly slotsInUse: number;
}

export class AutomaticOutboundSchedule {
  /** Core's m_try_another_outbound_peer (set by the stale-tip check). */
  #tryNewOutboundPeer = false;
  /** Core's m_start_extra_block_relay_peers. */
  #extraBlockRelayStarted = false;
  #nextFeelerAt: number;
  #nextExtraBlockRelayAt: number;
  #nextExtraNetworkPeerAt: number;

  constructor(
    nowMs: number,
    private readonly log: (message: string) => void,
  ) {
    this.#nextFeelerAt = nowMs + poissonDelayMs(FEELER_INTERVAL_MS);
    this.#nextExtraBlockRelayAt = nowMs + poissonDelayMs(EXTRA_BLOCK_RELAY_ONLY_PEER_INTERVAL_MS);
    this.#nextExtraNetworkPeerAt = nowMs + poissonDelayMs(EXTRA_NETWORK_PEER_INTERVAL_MS);
  }

  get tryNewOutboundPeer(): boolean {
    return this.#tryNewOutboundPeer;
  }

  /** Core's SetTryNewOutboundPeer. */
  setTryNewOutboundPeer(flag: boolean): void {
    this.#tryNewOutboundPeer = flag;
    this.log(`setting try another outbound peer=${flag ? 'true' : 'false'}`);
  }

  /** Core's StartExtraBlockRelayPeers. */
  startExtraBlockRelayPeers(): void {
    this.log('enabling extra block-relay-only peers');
    this.#extraBlockRelayStarted = true;
  }

  /**
   * The connection to open now, if any; a feeler or an extra connection resets its timer.
   * Last in Core's order, with every full-relay slot taken: an extra full-relay connection
   * to a reachable network none of our full-relay or manual peers is on, as
   * `pickPreferredNetwork` (Core's MaybePickPreferredNetwork) names one.
   */
  next<N>(counts: AutomaticOutboundCounts, nowMs: number, pickPreferredNetwork: () => N | undefined = () => undefined): AutomaticChoice<N> | undefined {
    // Core waits for a free outbound slot before choosing.
    if (counts.slotsInUse >= MAX_AUTOMATIC_OUTBOUND) return undefined;
    if (counts.fullRelay < MAX_OUTBOUND_FULL_RELAY) return { type: 'outbound-full-relay' };
    if (counts.blockRelay < MAX_BLOCK_RELAY_ONLY) return { type: 'block-relay-only' };
    if (this.#tryNewOutboundPeer) return { type: 'outbound-full-relay' };
    if (nowMs > this.#nextExtraBlockRelayAt && this.#extraBlockRelayStarted) {
      this.#nextExtraBlockRelayAt = nowMs + poissonDelayMs(EXTRA_BLOCK_RELAY_ONLY_PEER_INTERVAL_MS);
      return { type: 'block-relay-only' };
    }
    if (nowMs > this.#nextFeelerAt) {
      this.#nextFeelerAt = nowMs + poissonDelayMs(FEELER_INTERVAL_MS);
      return { type: 'feeler' };
    }
    if (counts.fullRelay === MAX_OUTBOUND_FULL_RELAY && nowMs > this.#nextExtraNetworkPeerAt) {
      const preferredNetwork = pickPreferredNetwork();
      if (preferredNetwork !== undefined) {
        this.#nextExtraNetworkPeerAt = nowMs + poissonDelayMs(EXTRA_NETWORK_PEER_INTERVAL_MS);
        return { type: 'outbound-full-relay', preferredNetwork };
      }
    }
    return undefined;
  }
}
