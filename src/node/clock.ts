/**
 * The node's notion of "now": wall-clock seconds unless a mock time is set (-mocktime at
 * start, setmocktime later; 0 turns it off). Logging shows the mock time beside real
 * timestamps, as Core does.
 */
export class NodeClock {
  private mock = 0;

  constructor(mocktime = 0) {
    this.setMockTime(mocktime);
  }

  /** Seconds since the epoch, 0 when not mocked. */
  get mocktime(): number {
    return this.mock;
  }

  setMockTime(seconds: number): void {
    if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError(`mock time must be a non-negative integer, not ${seconds}`);
    this.mock = seconds;
  }

  /** Node time in seconds (mockable). */
  now(): number {
    return this.mock !== 0 ? this.mock : Math.floor(Date.now() / 1000);
  }

  /** Node time in milliseconds (mockable: the mock second itself while mocked, as Core's GetTime<ms>). */
  nowMs(): number {
    return this.mock !== 0 ? this.mock * 1000 : Date.now();
  }
}
