/**
 * Long polls on the chain tip (waitfornewblock, waitforblock, waitforblockheight): the
 * latest tip, and callers parked until a condition on it holds, a timeout passes, or the
 * process shuts down. Fed by tip events: in front-ends from the coordinator's IPC pushes,
 * in the coordinator from the chainstate.
 */
export interface TipRef {
  readonly hash: string;
  readonly height: number;
}

interface Waiter {
  done: (tip: TipRef) => boolean;
  resolve: (tip: TipRef | null) => void;
  timer: NodeJS.Timeout | undefined;
}

export class TipWaiters {
  private tip: TipRef | null;
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(initial: TipRef | null = null) {
    this.tip = initial;
  }

  current(): TipRef | null {
    return this.tip;
  }

  update(tip: TipRef): void {
    this.tip = tip;
    for (const w of [...this.waiters]) if (w.done(tip)) this.finish(w);
  }

  /** Resolves with the tip once `done` holds, else with the current tip after `timeoutMs` (0: never) or at close. */
  waitUntil(done: (tip: TipRef) => boolean, timeoutMs: number): Promise<TipRef | null> {
    if (this.closed || (this.tip && done(this.tip))) return Promise.resolve(this.tip);
    return new Promise((resolve) => {
      const waiter: Waiter = { done, resolve, timer: undefined };
      if (timeoutMs > 0) waiter.timer = setTimeout(() => this.finish(waiter), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private finish(w: Waiter): void {
    if (!this.waiters.delete(w)) return;
    clearTimeout(w.timer);
    w.resolve(this.tip);
  }

  /** Shutdown: every parked call returns the current tip now, as Core's do. */
  close(): void {
    this.closed = true;
    for (const w of [...this.waiters]) this.finish(w);
  }
}
