/**
 * Core's CScheduler for the coordinator's periodic tasks (the wallets' resend check among
 * them): each task runs every `intervalMs` of wall-clock time, one run at a time.
 * mockscheduler (regtest) brings every task forward by the given seconds, and those then
 * due run at once, as Core's MockForward wakes its scheduler thread.
 */

/** How often the scheduler looks for due tasks; a task's own interval is at least this. */
const TICK_MS = 1000;

interface ScheduledTask {
  readonly intervalMs: number;
  dueAtMs: number;
  running: boolean;
  readonly run: () => void | Promise<void>;
}

export class NodeScheduler {
  readonly #tasks: ScheduledTask[] = [];
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Runs `run` every `intervalMs`, the first time one interval from now (Core's scheduleEvery). */
  every(intervalMs: number, run: () => void | Promise<void>): void {
    if (this.#stopped) return;
    this.#tasks.push({ intervalMs, dueAtMs: Date.now() + intervalMs, running: false, run });
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#runDue(), TICK_MS);
      this.#timer.unref();
    }
  }

  /** Core's MockForward: every task falls due `seconds` earlier; those now due run at once. */
  mockForward(seconds: number): void {
    for (const task of this.#tasks) task.dueAtMs -= seconds * 1000;
    this.#runDue();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #runDue(): void {
    const now = Date.now();
    for (const task of this.#tasks) {
      if (this.#stopped || task.running || task.dueAtMs > now) continue;
      task.dueAtMs = now + task.intervalMs;
      task.running = true;
      void (async () => {
        try {
          await task.run();
        } catch (err) {
          this.onError(err);
        } finally {
          task.running = false;
        }
      })();
    }
  }
}
