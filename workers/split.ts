/**
 * Cuts a job list into tasks. A Piscina task costs ~23 µs of messaging, so one input per
 * task is slower than no pool; tasks of 64–256 inputs let 2 workers reach 1.93–1.99× one
 * thread (DESIGN.md, Dependencies). Tasks are sized so every thread gets several (the
 * last ones finish together) but never fewer inputs than the floor that amortises
 * messaging. A transaction with more inputs than a task holds is split by input subsets;
 * each part carries the whole transaction and all its spent outputs, which taproot
 * sighashes need.
 */

export interface SplitOptions {
  readonly threads: number;
  /** Floor on inputs per task, so messaging stays negligible. */
  readonly minInputsPerTask: number;
  /** Ceiling on inputs per task, so a failure is found without waiting on huge tasks. */
  readonly maxInputsPerTask: number;
  /** Tasks aimed at per thread, so uneven tasks still finish close together. */
  readonly tasksPerThread: number;
}

export const DEFAULT_SPLIT: Omit<SplitOptions, 'threads'> = {
  minInputsPerTask: 32,
  maxInputsPerTask: 256,
  tasksPerThread: 4,
};

export interface PlannedItem {
  readonly txIndex: number;
  readonly inputs: readonly number[];
  /** True when `inputs` is every input of the transaction (encoded as ALL_INPUTS). */
  readonly whole: boolean;
}

export interface TaskPlan {
  readonly items: readonly PlannedItem[];
  readonly inputCount: number;
}

export function inputsPerTask(totalInputs: number, options: SplitOptions): number {
  const spread = Math.ceil(totalInputs / (Math.max(1, options.threads) * options.tasksPerThread));
  return Math.max(1, Math.min(options.maxInputsPerTask, Math.max(options.minInputsPerTask, spread)));
}

/**
 * Plans tasks over jobs in order. `inputs[i]` is the inputs to check of job i and
 * `inputCounts[i]` the number of inputs of its transaction. Jobs with nothing to check
 * (coinbases) are skipped. Order is kept: concatenating the tasks' items gives back every
 * (job, input) pair in job order, which is what makes "first failure" well defined.
 */
export function planTasks(
  inputs: readonly (readonly number[])[],
  inputCounts: readonly number[],
  options: SplitOptions,
): TaskPlan[] {
  let total = 0;
  for (const list of inputs) total += list.length;
  const size = inputsPerTask(total, options);
  const tasks: TaskPlan[] = [];
  let items: PlannedItem[] = [];
  let count = 0;
  for (let txIndex = 0; txIndex < inputs.length; txIndex++) {
    const list = inputs[txIndex]!;
    let offset = 0;
    while (offset < list.length) {
      const take = Math.min(list.length - offset, size - count);
      const part = offset === 0 && take === list.length ? list : list.slice(offset, offset + take);
      items.push({ txIndex, inputs: part, whole: part.length === inputCounts[txIndex] });
      offset += take;
      count += take;
      if (count === size) {
        tasks.push({ items, inputCount: count });
        items = [];
        count = 0;
      }
    }
  }
  if (count > 0) tasks.push({ items, inputCount: count });
  return tasks;
}
