/**
 * Timing helpers shared by the benchmarks: operations per second over a minimum wall time,
 * after a warm-up so JIT tiers and lazy tables are not charged to the first run, and the
 * best of several runs, because a shared machine only ever makes a run slower.
 */

/** Calls `fn` for `ms` without measuring, so the measured runs see optimized code. */
export function warmUp(fn: () => void, ms: number): void {
  const end = performance.now() + ms;
  do fn();
  while (performance.now() < end);
}

/** Calls `fn` in growing batches until `minMs` has elapsed; returns calls per second. */
export function opsPerSecond(fn: () => void, minMs: number): number {
  let batch = 1;
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    elapsed = performance.now() - start;
    if (batch < 1 << 20) batch *= 2;
  }
  return (calls * 1000) / elapsed;
}

/** The best of `runs` measurements. */
export async function bestOf(runs: number, measure: () => number | Promise<number>): Promise<number> {
  let best = 0;
  for (let i = 0; i < runs; i++) best = Math.max(best, await measure());
  return best;
}

/** Fixed-width number formatting for table cells. */
export function fmt(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function pad(text: string, width: number): string {
  return text.length >= width ? text : ' '.repeat(width - text.length) + text;
}

/**
 * Like opsPerSecond, but per second of this process's CPU time rather than wall time: on
 * a machine shared with other work, a single-threaded rate that only counts the time this
 * process actually ran, so two such rates measured at different moments compare. Only
 * meaningful while no other thread of the process is busy.
 */
export function opsPerCpuSecond(fn: () => void, minMs: number): number {
  const cpuMs = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let batch = 1;
  let calls = 0;
  const start = cpuMs();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < batch; i++) fn();
    calls += batch;
    elapsed = cpuMs() - start;
    if (batch < 1 << 20) batch *= 2;
  }
  return (calls * 1000) / elapsed;
}
