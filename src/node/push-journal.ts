/**
 * The numbered events of WebSocket push (-websocket): one counter for the node's run, the
 * last events kept so a client that reconnects (to a restarted front-end too) resumes
 * after the last number it saw, and the hand-over to every front-end. The run's epoch
 * tells clients when numbering started over (a node restart).
 */
import { randomBytes } from 'node:crypto';
import type { PushEvent } from '../ipc/index.js';

/** Events kept for resuming: at a few hundred bytes each, some tens of megabytes. */
export const PUSH_BACKLOG = 100_000;

export class PushJournal {
  readonly epoch = randomBytes(8).toString('hex');
  private nextSeq = 1;
  private readonly kept: PushEvent[] = [];
  /** Events numbered since the last flush, sent to the front-ends together. */
  private pending: PushEvent[] = [];
  private flushScheduled = false;

  constructor(
    private readonly send: (events: readonly PushEvent[]) => void,
    private readonly capacity = PUSH_BACKLOG,
  ) {}

  /** Numbers an event; `body` is its JSON fields after "seq" and "topic". */
  add(topic: string, body: Record<string, unknown>): void {
    const seq = this.nextSeq++;
    const name = topic.startsWith('address:') ? 'address' : topic;
    const event: PushEvent = { seq, topic, json: JSON.stringify({ seq, topic: name, ...body }) };
    this.kept.push(event);
    // Trimmed in steps, not per event: a shift per event is quadratic at capacity.
    if (this.kept.length > this.capacity * 1.25) this.kept.splice(0, this.kept.length - this.capacity);
    this.pending.push(event);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // One IPC message per burst (a block's events), sent once the burst is numbered.
      queueMicrotask(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const events = this.pending;
    this.pending = [];
    if (events.length > 0) this.send(events);
  }

  /** What a starting front-end gets: the run's epoch and every kept event. */
  backlog(): { epoch: string; backlog: readonly PushEvent[] } {
    return { epoch: this.epoch, backlog: this.kept.slice(-this.capacity) };
  }
}
