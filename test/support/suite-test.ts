/**
 * Runs a vector suite as node:test cases, once per signature backend (native libsecp256k1
 * and the noble reference), each failing with the suite's first failures listed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SIGNATURE_BACKEND_CHOICES } from '../../src/script/index.js';
import { runUnderBackend } from './backend-runs.js';
import type { VectorSuite } from './vectors.js';

export function testSuite(suite: VectorSuite): void {
  for (const backend of SIGNATURE_BACKEND_CHOICES) {
    test(`${suite.file} vectors (${backend} backend)`, (t) => {
      const result = runUnderBackend(backend, () => suite.run());
      t.diagnostic(`${suite.file} (${backend}): ${result.passed} passed, ${result.failed} failed`);
      assert.ok(result.passed > 0, `${suite.file}: no vector ran`);
      assert.equal(result.failed, 0, `${suite.file} (${backend}): ${result.failed} failed:\n${result.failures.join('\n')}`);
    });
  }
}
