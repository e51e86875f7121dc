/**
 * Which inbound peer to drop for a newcomer when the inbound slots are full (Core's
 * SelectNodeToEvict): protect peers that are hard for an attacker to imitate — a few of
 * each network group, the lowest pings, those that recently gave us transactions or
 * blocks, and the longest-connected half — then evict the youngest peer of the network
 * group with the most connections. Discouraged peers go first. None left: refuse the
 * newcomer instead.
 */
import type { Peer } from './peer.js';

/** Removes the k "best" candidates by `better` (descending): they are protected. */
function protect(candidates: Peer[], k: number, better: (a: Peer, b: Peer) => number, eligible: (p: Peer) => boolean = () => true): Peer[] {
  const sorted = [...candidates].sort(better);
  const protectedSet = new Set(sorted.filter(eligible).slice(0, k));
  return candidates.filter((p) => !protectedSet.has(p));
}

export function selectPeerToEvict(peers: readonly Peer[], isDiscouraged: (peer: Peer) => boolean): Peer | undefined {
  let candidates = peers.filter((p) => p.inbound && !p.hasPermission('noban') && p.disconnectReason === undefined);
  // Four by network group (Core orders by a keyed hash of it: an arbitrary but fixed choice).
  candidates = protect(candidates, 4, (a, b) => (a.netGroup < b.netGroup ? -1 : a.netGroup > b.netGroup ? 1 : a.id - b.id));
  // Eight with the lowest minimum ping.
  candidates = protect(candidates, 8, (a, b) => (a.minPingTime ?? Infinity) - (b.minPingTime ?? Infinity));
  // Four that most recently sent us a new transaction.
  candidates = protect(candidates, 4, (a, b) => b.lastTransactionTime - a.lastTransactionTime);
  // Up to eight block-relay-only peers that most recently sent a block.
  candidates = protect(candidates, 8, (a, b) => b.lastBlockTime - a.lastBlockTime, (p) => !p.relayTransactions);
  // Four that most recently sent us a new block.
  candidates = protect(candidates, 4, (a, b) => b.lastBlockTime - a.lastBlockTime);
  // Half of the rest by longest uptime.
  candidates = protect(candidates, Math.floor(candidates.length / 2), (a, b) => a.connectedAt - b.connectedAt || a.id - b.id);
  if (candidates.length === 0) return undefined;
  const discouraged = candidates.filter(isDiscouraged);
  if (discouraged.length > 0) candidates = discouraged;
  // The network group with the most connections (ties: the one with the youngest peer) loses its youngest.
  const groups = new Map<string, Peer[]>();
  for (const p of candidates) {
    const g = p.netGroup;
    const list = groups.get(g) ?? [];
    list.push(p);
    groups.set(g, list);
  }
  let chosen: Peer[] | undefined;
  for (const list of groups.values()) {
    const youngest = Math.max(...list.map((p) => p.connectedAt));
    if (!chosen || list.length > chosen.length || (list.length === chosen.length && youngest > Math.max(...chosen.map((p) => p.connectedAt)))) chosen = list;
  }
  return chosen!.reduce((a, b) => (b.connectedAt > a.connectedAt || (b.connectedAt === a.connectedAt && b.id > a.id) ? b : a));
}
