/**
 * A pool worker that cannot load the signature backend the pool names fails loudly: its
 * tasks come back as `worker` failures (not consensus verdicts) naming the cause, rather
 * than being verified with another backend.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VerifyFlags, type SignatureBackendChoice } from '../../src/script/index.js';
import { blockJobs, ScriptCheckPool } from '../../workers/index.js';
import { loadMainnet0To255 } from '../support/mainnet.js';

test('a pool told to use an unknown signature backend verifies nothing and says why', async () => {
  const pool = new ScriptCheckPool({ threads: 1, signatureBackend: 'bogus' as SignatureBackendChoice });
  try {
    const jobs = loadMainnet0To255().flatMap(({ block, spentOutputs }) => blockJobs(block.transactions, spentOutputs, VerifyFlags.P2SH).slice(1));
    const result = await pool.verify(jobs);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.reason === 'worker', JSON.stringify(result));
    assert.match(result.detail ?? '', /unknown signature backend "bogus"/);
  } finally {
    await pool.close();
  }
});
