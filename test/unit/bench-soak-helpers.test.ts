import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notFlat, type RssPoint } from '../../native-bench/rss-flat.js';
import { luaString } from '../../native-bench/wrk.js';

const MiB = 1024 * 1024;
/** One sample every 5 s over 120 s, RSS from `rss(t)` in MiB (t in seconds). */
const series = (rss: (t: number) => number): RssPoint[] => Array.from({ length: 25 }, (_, i) => ({ at: i * 5000, rss: rss(i * 5) * MiB }));

test('soak RSS: a level series with noise is flat', () => {
  assert.equal(notFlat(series((t) => 200 + ((t * 7) % 5)), 120), undefined);
});

test('soak RSS: a last third more than 10% above the second third is not flat', () => {
  assert.match(notFlat(series((t) => (t < 80 ? 200 : 230)), 120) ?? '', /last third's mean/);
});

test('soak RSS: a climb that rises at every sixth is not flat, even under 10%', () => {
  const problem = notFlat(series((t) => 200 + t / 10), 120);
  assert.match(problem ?? '', /rising at every sixth/);
  assert.doesNotMatch(problem ?? '', /last third/);
});

test('soak RSS: a rise during warm-up (first third) then level is flat', () => {
  assert.equal(notFlat(series((t) => (t < 30 ? 100 + t : 200)), 120), undefined);
});

test('soak RSS: too few samples is reported, not judged flat', () => {
  assert.equal(notFlat([{ at: 0, rss: MiB }], 120), 'too few samples');
});

test('wrk scripts: Lua long strings hold any text verbatim', () => {
  assert.equal(luaString('{"a":1}'), '[[{"a":1}]]');
  assert.equal(luaString('x]]y'), '[=[x]]y]=]');
  assert.equal(luaString('x]]y]=]z'), '[==[x]]y]=]z]==]');
  // A closing bracket at the end would close the string early.
  assert.equal(luaString('a]'), '[=[a]]=]');
});
