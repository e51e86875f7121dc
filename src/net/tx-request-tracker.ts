/**
 * Which announced transaction to ask which peer for, and when (Core's TxRequestTracker,
 * txrequest.cpp). Every (peer, transaction) announcement is tracked until the transaction
 * arrives or is given up on, in one of five states: waiting for its request time
 * (CANDIDATE_DELAYED), ready (CANDIDATE_READY), the one chosen for its transaction
 * (CANDIDATE_BEST), asked for and awaiting an answer (REQUESTED), or answered / timed out
 * (COMPLETED). Per transaction at most one announcement is chosen or requested at a time:
 * the ready one of highest priority, preferred peers first, then by a keyed hash of
 * (transaction, peer) so that no peer can make itself the one asked by announcing first.
 * A transaction's announcements all go once none of them is left uncompleted.
 *
 * Per-peer totals count announcements in every state, as Core's Count(peer) does: the
 * caller bounds each peer's share of memory with them (MAX_PEER_TX_ANNOUNCEMENTS).
 */
import { randomBytes } from 'node:crypto';
import { hexToHash, sipHash24, sipKeyFromBytes } from '../primitives/index.js';

export type AnnouncementState = 'delayed' | 'ready' | 'best' | 'requested' | 'completed';

interface Announcement {
  readonly txhash: string;
  readonly peer: number;
  readonly isWtxid: boolean;
  readonly priority: bigint;
  /** Order of arrival (requests go out in it). */
  readonly sequence: number;
  state: AnnouncementState;
  /** Milliseconds: the request time while a candidate, the expiry while requested. */
  time: number;
  /** Which time-queue entry is current for this announcement (older ones are skipped). */
  queued: number;
  removed: boolean;
}

interface PeerTotals {
  total: number;
  requested: number;
  completed: number;
  readonly announcements: Map<string, Announcement>;
  /** Its CANDIDATE_BEST announcements: what may be requested from it now. */
  readonly best: Set<Announcement>;
}

/** A transaction to request: its hash (hex) and whether it is a wtxid. */
export interface RequestableTx {
  readonly txhash: string;
  readonly isWtxid: boolean;
}

export class TxRequestTracker {
  readonly #byTx = new Map<string, Map<number, Announcement>>();
  readonly #byPeer = new Map<number, PeerTotals>();
  /** Min-heap by time of the announcements waiting for a time to pass (delayed and requested). */
  readonly #queue: { time: number; ann: Announcement; queued: number }[] = [];
  readonly #priorityKey = sipKeyFromBytes(randomBytes(16));
  #sequence = 0;
  #size = 0;
  #lastNow = -Infinity;

  /** Core's ReceivedInv: a new announcement, requestable from `reqtime` (ms) on; a repeat is ignored. */
  receivedInv(peer: number, txhash: string, isWtxid: boolean, preferred: boolean, reqtime: number): void {
    let anns = this.#byTx.get(txhash);
    if (anns?.has(peer)) return;
    if (!anns) this.#byTx.set(txhash, (anns = new Map()));
    const ann: Announcement = { txhash, peer, isWtxid, priority: this.#priority(txhash, peer, preferred), sequence: this.#sequence++, state: 'delayed', time: reqtime, queued: 0, removed: false };
    anns.set(peer, ann);
    const totals = this.#totals(peer);
    totals.total++;
    totals.announcements.set(txhash, ann);
    this.#size++;
    this.#enqueue(ann);
  }

  /** Core's GetRequestable: moves the clock to `now` (ms), then the peer's chosen announcements, oldest first. */
  getRequestable(peer: number, now: number, expired?: (peer: number, tx: RequestableTx) => void): RequestableTx[] {
    this.#setTimePoint(now, expired);
    const best = this.#byPeer.get(peer)?.best;
    if (!best || best.size === 0) return [];
    return [...best].sort((a, b) => a.sequence - b.sequence).map((a) => ({ txhash: a.txhash, isWtxid: a.isWtxid }));
  }

  /** Core's RequestedTx: the peer was asked; the request expires at `expiry` (ms). */
  requestedTx(peer: number, txhash: string, expiry: number): void {
    const anns = this.#byTx.get(txhash);
    const ann = anns?.get(peer);
    if (!anns || !ann) return;
    if (ann.state !== 'best') {
      if (ann.state !== 'delayed' && ann.state !== 'ready') return;
      // Only one announcement per transaction may be chosen or requested.
      for (const other of anns.values()) {
        if (other.state === 'best') this.#setState(other, 'ready');
        else if (other.state === 'requested') this.#setState(other, 'completed');
      }
    }
    this.#setState(ann, 'requested');
    ann.time = expiry;
    this.#enqueue(ann);
  }

  /** Core's ReceivedResponse: the peer answered (the transaction or notfound). */
  receivedResponse(peer: number, txhash: string): void {
    const ann = this.#byTx.get(txhash)?.get(peer);
    if (ann) this.#makeCompleted(ann);
  }

  /** Core's ForgetTxHash: the transaction arrived or is not wanted; all its announcements go. */
  forgetTxHash(txhash: string): void {
    const anns = this.#byTx.get(txhash);
    if (!anns) return;
    for (const ann of [...anns.values()]) this.#erase(ann);
  }

  /** Core's DisconnectedPeer: the peer's announcements go, others are chosen in their place. */
  disconnectedPeer(peer: number): void {
    const totals = this.#byPeer.get(peer);
    if (!totals) return;
    for (const ann of [...totals.announcements.values()]) {
      if (ann.removed) continue;
      if (this.#makeCompleted(ann)) this.#erase(ann);
    }
  }

  /** Core's Count: the peer's announcements in any state. */
  count(peer: number): number {
    return this.#byPeer.get(peer)?.total ?? 0;
  }

  /** Core's CountInFlight: the peer's requests awaiting an answer. */
  countInFlight(peer: number): number {
    return this.#byPeer.get(peer)?.requested ?? 0;
  }

  /** Core's CountCandidates: announcements neither requested nor completed. */
  countCandidates(peer: number): number {
    const t = this.#byPeer.get(peer);
    return t ? t.total - t.requested - t.completed : 0;
  }

  /** Core's Size: announcements tracked over all peers. */
  get size(): number {
    return this.#size;
  }

  /** The peer's announcement of this transaction, if tracked (for the caller's bookkeeping and tests). */
  stateOf(peer: number, txhash: string): AnnouncementState | undefined {
    return this.#byTx.get(txhash)?.get(peer)?.state;
  }

  // ------------------------------------------------------------------ internals

  #priority(txhash: string, peer: number, preferred: boolean): bigint {
    const data = new Uint8Array(40);
    data.set(hexToHash(txhash));
    new DataView(data.buffer).setBigUint64(32, BigInt(peer), true);
    return (sipHash24(this.#priorityKey, data) >> 1n) | (preferred ? 1n << 63n : 0n);
  }

  #totals(peer: number): PeerTotals {
    let t = this.#byPeer.get(peer);
    if (!t) this.#byPeer.set(peer, (t = { total: 0, requested: 0, completed: 0, announcements: new Map(), best: new Set() }));
    return t;
  }

  #setState(ann: Announcement, state: AnnouncementState): void {
    const t = this.#byPeer.get(ann.peer)!;
    if (ann.state === 'requested') t.requested--;
    else if (ann.state === 'completed') t.completed--;
    else if (ann.state === 'best') t.best.delete(ann);
    ann.state = state;
    if (state === 'requested') t.requested++;
    else if (state === 'completed') t.completed++;
    else if (state === 'best') t.best.add(ann);
  }

  #erase(ann: Announcement): void {
    if (ann.removed) return;
    this.#setState(ann, 'delayed');
    ann.removed = true;
    const anns = this.#byTx.get(ann.txhash)!;
    anns.delete(ann.peer);
    if (anns.size === 0) this.#byTx.delete(ann.txhash);
    const t = this.#byPeer.get(ann.peer)!;
    t.announcements.delete(ann.txhash);
    if (--t.total === 0) this.#byPeer.delete(ann.peer);
    this.#size--;
  }

  /** The announcement of this transaction that is chosen or requested, if any. */
  #selected(anns: Map<number, Announcement>): Announcement | undefined {
    for (const a of anns.values()) if (a.state === 'best' || a.state === 'requested') return a;
    return undefined;
  }

  /** Core's PromoteCandidateReady. */
  #promoteReady(ann: Announcement): void {
    this.#setState(ann, 'ready');
    const selected = this.#selected(this.#byTx.get(ann.txhash)!);
    if (!selected) {
      this.#setState(ann, 'best');
    } else if (selected.state === 'best' && ann.priority > selected.priority) {
      this.#setState(selected, 'ready');
      this.#setState(ann, 'best');
    }
  }

  /** Core's ChangeAndReselect: to delayed or completed; if it was the chosen one, the best ready one takes over. */
  #changeAndReselect(ann: Announcement, state: 'delayed' | 'completed'): void {
    if (ann.state === 'best' || ann.state === 'requested') {
      let next: Announcement | undefined;
      for (const a of this.#byTx.get(ann.txhash)!.values()) {
        if (a.state === 'ready' && (!next || a.priority > next.priority)) next = a;
      }
      if (next) this.#setState(next, 'best');
    }
    this.#setState(ann, state);
  }

  /** Core's MakeCompleted: false when that was the transaction's last uncompleted announcement (all of them went). */
  #makeCompleted(ann: Announcement): boolean {
    if (ann.state === 'completed') return true;
    const anns = this.#byTx.get(ann.txhash)!;
    let othersOpen = false;
    for (const a of anns.values()) {
      if (a !== ann && a.state !== 'completed') {
        othersOpen = true;
        break;
      }
    }
    if (!othersOpen) {
      for (const a of [...anns.values()]) this.#erase(a);
      return false;
    }
    this.#changeAndReselect(ann, 'completed');
    return true;
  }

  /** Core's SetTimePoint: due candidates become ready, expired requests completed; a clock set back delays again. */
  #setTimePoint(now: number, expired?: (peer: number, tx: RequestableTx) => void): void {
    for (;;) {
      const top = this.#queue[0];
      if (!top || top.time > now) break;
      this.#pop();
      const ann = top.ann;
      if (ann.removed || ann.queued !== top.queued) continue;
      if (ann.state === 'delayed') {
        this.#promoteReady(ann);
      } else if (ann.state === 'requested') {
        expired?.(ann.peer, { txhash: ann.txhash, isWtxid: ann.isWtxid });
        this.#makeCompleted(ann);
      }
    }
    if (now < this.#lastNow) {
      // Mock time moved back: candidates whose time is now in the future wait again.
      for (const anns of [...this.#byTx.values()]) {
        for (const ann of [...anns.values()]) {
          if ((ann.state === 'ready' || ann.state === 'best') && ann.time > now) {
            this.#changeAndReselect(ann, 'delayed');
            this.#enqueue(ann);
          }
        }
      }
    }
    this.#lastNow = now;
  }

  #enqueue(ann: Announcement): void {
    ann.queued++;
    const q = this.#queue;
    q.push({ time: ann.time, ann, queued: ann.queued });
    for (let i = q.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (q[parent]!.time <= q[i]!.time) break;
      [q[parent], q[i]] = [q[i]!, q[parent]!];
      i = parent;
    }
    // Entries of announcements that moved on pile up: rebuild once they dominate.
    if (q.length > 64 && q.length > 4 * this.#size) this.#compact();
  }

  #pop(): void {
    const q = this.#queue;
    const last = q.pop()!;
    if (q.length === 0) return;
    q[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < q.length && q[l]!.time < q[m]!.time) m = l;
      if (r < q.length && q[r]!.time < q[m]!.time) m = r;
      if (m === i) break;
      [q[m], q[i]] = [q[i]!, q[m]!];
      i = m;
    }
  }

  #compact(): void {
    const live = this.#queue.filter((e) => !e.ann.removed && e.ann.queued === e.queued && (e.ann.state === 'delayed' || e.ann.state === 'requested'));
    this.#queue.length = 0;
    live.sort((a, b) => a.time - b.time);
    // A sorted array is a valid min-heap.
    for (const e of live) this.#queue.push(e);
  }
}
