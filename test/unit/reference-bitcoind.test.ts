/**
 * The plumbing that lets tests compare with the reference bitcoind: under `make test` with
 * ../shared beside the checkout (CI) the binary named by BITCOIND really runs and is v31.0;
 * in a clone on its own the test skips with one line instead of failing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { referenceBitcoind } from '../support/bitcoind.js';

test('the reference bitcoind runs and is v31.0, or the test says why it is absent', (t) => {
  const bitcoind = referenceBitcoind(t);
  if (!bitcoind) return;
  const version = execFileSync(bitcoind, ['-version'], { encoding: 'utf8', timeout: 30_000 });
  assert.match(version.split('\n')[0] ?? '', /^Bitcoin Core daemon version v31\.0/);
});
