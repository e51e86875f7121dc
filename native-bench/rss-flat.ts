/**
 * `make soak`'s rule for memory that stays flat under steady load: over a run of
 * `seconds`, a process's RSS samples are flat when the mean over the last third is at most
 * 10% above the mean over the second third, and the means of the four sixths of the last
 * two thirds do not rise at every step (a steady climb under the 10% is growth too).
 */
import { fmt } from './measure.js';

export const MiB = 1024 * 1024;

export interface RssPoint {
  /** Milliseconds since the run began. */
  readonly at: number;
  readonly rss: number;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** Why the samples are not flat, or undefined when they are. */
export function notFlat(samples: readonly RssPoint[], seconds: number): string | undefined {
  // The last slice takes the sample at the very end too.
  const within = (from: number, to: number) => samples.filter((s) => s.at >= from * seconds * 1000 && (to >= 1 || s.at < to * seconds * 1000)).map((s) => s.rss);
  const second = within(1 / 3, 2 / 3);
  const sixths = [2, 3, 4, 5].map((k) => within(k / 6, (k + 1) / 6));
  const last = within(2 / 3, 1);
  if (second.length === 0 || last.length === 0 || sixths.some((s) => s.length === 0)) return 'too few samples';
  const problems: string[] = [];
  if (mean(last) > 1.1 * mean(second)) problems.push(`last third's mean ${fmt(mean(last) / MiB, 1)} MiB > 110% of the second third's ${fmt(mean(second) / MiB, 1)} MiB`);
  const means = sixths.map(mean);
  if (means.every((m, i) => i === 0 || m > means[i - 1]!)) problems.push(`rising at every sixth: ${means.map((m) => fmt(m / MiB, 1)).join(' → ')} MiB`);
  return problems.length === 0 ? undefined : problems.join('; ');
}
