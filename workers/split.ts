/**
 * Cuts a job list into tasks. A Piscina task costs ~23 µs of messaging, so one input per
 * task is slower than no pool, while a signature check costs ~2.5 ms, so a task of 16
 * inputs already makes messaging negligible.
 *
 * Task sizes shrink towards the end (guided scheduling, as Core's CCheckQueue sizes its
 * batches from what is left): each task takes 1/(threads × tasksPerThread) of the inputs
 * not yet planned. Equal tasks leave one thread idle for up to a whole task at the end
 * whenever the other was slowed down (a shared core, a GC pause); shrinking tasks bound
 * that tail by the floor. A transaction with more inputs than a task holds is split by
 * input subsets; each part carries the whole transaction and all its spent outputs, which
 * taproot sighashes need.
 */

export interface SplitOptions {
  readonly threads: number;
  /** Floor on inputs per task, so messaging stays negligible. */
  readonly minInputsPerTask: number;
  /** Ceiling on inputs per task, so a failure is found without waiting on huge tasks. */
  readonly maxInputsPerTask: number;
  /** Each task takes 1/(threads × tasksPerThread) of the inputs still to plan. */
  readonly tasksPerThread: number;
}

export const DEFAULT_SPLIT: Omit<SplitOptions, 'threads'> = {
  minInputsPerTask: 16,
  maxInputsPerTask: 256,
  tasksPerThread: 2,
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

/** Inputs of the next task when `remainingInputs` are still to plan (guided: a shrinking share). */
export function nextTaskSize(remainingInputs: number, options: SplitOptions): number {
  const share = Math.ceil(remainingInputs / (Math.max(1, options.threads) * options.tasksPerThread));
  return Math.max(1, Math.min(options.maxInputsPerTask, Math.max(options.minInputsPerTask, share)));
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
  let remaining = 0;
  for (const list of inputs) remaining += list.length;
  let size = nextTaskSize(remaining, options);
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
      remaining -= take;
      if (count === size) {
        tasks.push({ items, inputCount: count });
        items = [];
        count = 0;
        size = nextTaskSize(remaining, options);
      }
    }
  }
  if (count > 0) tasks.push({ items, inputCount: count });
  return tasks;
}
