/** Runs a vector suite as a node:test case that fails with the suite's first failures listed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VectorSuite } from './vectors.js';

export function testSuite(suite: VectorSuite): void {
  test(`${suite.file} vectors`, (t) => {
    const result = suite.run();
    t.diagnostic(`${suite.file}: ${result.passed} passed, ${result.failed} failed`);
    assert.ok(result.passed > 0, `${suite.file}: no vector ran`);
    assert.equal(result.failed, 0, `${suite.file}: ${result.failed} failed:\n${result.failures.join('\n')}`);
  });
}
