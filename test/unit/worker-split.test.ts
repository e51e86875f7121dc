import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SPLIT, nextTaskSize, planTasks, type SplitOptions, type TaskPlan } from '../../workers/split.js';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Every (tx, input) pair the plans cover, in plan order. */
function pairs(plans: readonly TaskPlan[]): string[] {
  return plans.flatMap((plan) => plan.items.flatMap((item) => item.inputs.map((i) => `${item.txIndex}:${i}`)));
}

test('a task takes a share of what is left, within the floor and ceiling', () => {
  const two: SplitOptions = { ...DEFAULT_SPLIT, threads: 2 };
  assert.equal(nextTaskSize(7, two), DEFAULT_SPLIT.minInputsPerTask);
  assert.equal(nextTaskSize(732, two), Math.ceil(732 / (2 * DEFAULT_SPLIT.tasksPerThread)));
  assert.equal(nextTaskSize(100_000, two), DEFAULT_SPLIT.maxInputsPerTask);
});

test('task sizes shrink towards the end, so threads finish together', () => {
  const two: SplitOptions = { ...DEFAULT_SPLIT, threads: 2 };
  const plans = planTasks([range(960)], [960], two);
  const sizes = plans.map((plan) => plan.inputCount);
  assert.equal(sizes.reduce((a, b) => a + b, 0), 960);
  assert.equal(sizes[0], 240);
  for (let i = 1; i < sizes.length; i++) assert.ok(sizes[i]! <= sizes[i - 1]!, `task ${i} (${sizes[i]}) grew after ${sizes[i - 1]}`);
  // The last tasks are at the floor: the tail a slowed thread can leave is one small task.
  assert.ok(sizes[sizes.length - 2]! <= DEFAULT_SPLIT.minInputsPerTask);
  // Each task took its share of what was left when it was planned.
  let left = 960;
  for (const size of sizes.slice(0, -1)) {
    assert.equal(size, nextTaskSize(left, two));
    left -= size;
  }
});

test('plans cover every input once, in job order, skipping jobs with nothing to check', () => {
  const inputs = [[], range(3), range(300), [], [2, 5], range(40)];
  const counts = [1, 3, 300, 2, 6, 40];
  // One thread and one task per thread would want a single task: the ceiling of 64 cuts it up.
  const options: SplitOptions = { threads: 1, minInputsPerTask: 32, maxInputsPerTask: 64, tasksPerThread: 1 };
  const plans = planTasks(inputs, counts, options);
  const expected = inputs.flatMap((list, tx) => list.map((i) => `${tx}:${i}`));
  assert.deepEqual(pairs(plans), expected);
  for (const plan of plans) {
    assert.ok(plan.inputCount <= 64);
    assert.equal(plan.inputCount, plan.items.reduce((n, item) => n + item.inputs.length, 0));
  }
  // All but the last task are full.
  for (const plan of plans.slice(0, -1)) assert.equal(plan.inputCount, 64);
});

test('a transaction larger than a task is split into input subsets; whole ones are marked', () => {
  const plans = planTasks([range(5), range(200), [1, 2]], [5, 200, 4], { threads: 1, minInputsPerTask: 64, maxInputsPerTask: 64, tasksPerThread: 1 });
  const items = plans.flatMap((plan) => plan.items);
  assert.deepEqual(
    items.map((item) => [item.txIndex, item.inputs.length, item.whole]),
    [
      [0, 5, true],
      [1, 59, false],
      [1, 64, false],
      [1, 64, false],
      [1, 13, false],
      [2, 2, false],
    ],
  );
});

test('nothing to check gives no tasks', () => {
  assert.deepEqual(planTasks([[], []], [1, 1], { ...DEFAULT_SPLIT, threads: 4 }), []);
});
