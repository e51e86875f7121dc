/**
 * Mainnet heights 0–255 replayed into a UTXO set, and every non-coinbase input (7 P2PK
 * spends, the first ever signatures) verified through the worker pool and inline, on each
 * signature backend (native libsecp256k1, noble).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ScriptError, SIGNATURE_BACKEND_CHOICES, VerifyFlags } from '../../src/script/index.js';
import { blockJobs, ScriptCheckPool, verifyJobsInline, type ScriptCheckJob } from '../../workers/index.js';
import { runUnderBackend } from '../support/backend-runs.js';
import { loadMainnet0To255 } from '../support/mainnet.js';
import { flipScriptSigSignature, withInput } from '../support/mutate.js';

/** Core's flags for every pre-BIP66 block (see block-verify.test.ts). */
const FLAGS = VerifyFlags.P2SH | VerifyFlags.WITNESS | VerifyFlags.TAPROOT;
const SPENDING_HEIGHTS = [170, 181, 182, 183, 187, 221, 248];

let jobs: ScriptCheckJob[];
/** Where each job came from, for messages. */
let origins: { height: number; txIndex: number }[];

before(() => {
  jobs = [];
  origins = [];
  loadMainnet0To255().forEach(({ block, spentOutputs }, height) => {
    blockJobs(block.transactions, spentOutputs, FLAGS).forEach((job, txIndex) => {
      if (txIndex === 0) return;
      jobs.push(job);
      origins.push({ height, txIndex });
    });
  });
});

test('blocks 0-255 spend 7 inputs, in the blocks the vector README lists', () => {
  assert.equal(jobs.reduce((n, job) => n + job.tx.inputs.length, 0), 7);
  assert.deepEqual([...new Set(origins.map((o) => o.height))], SPENDING_HEIGHTS);
});

for (const backend of SIGNATURE_BACKEND_CHOICES) {
  describe(`blocks 0-255 on the ${backend} signature backend`, () => {
    let pool: ScriptCheckPool;
    before(() => {
      pool = new ScriptCheckPool({ threads: 2, signatureBackend: backend });
    });
    after(() => pool.close());

    test('every input of blocks 0-255 verifies through the pool and inline', async () => {
      assert.deepEqual(await pool.verify(jobs), { ok: true, checked: 7, signaturesVerified: 7, signatureCacheHits: 0 });
      assert.deepEqual(runUnderBackend(backend, () => verifyJobsInline(jobs)), { ok: true, checked: 7, signaturesVerified: 7, signatureCacheHits: 0 });
    });

    test('a flipped signature byte is rejected naming that input, by the pool and inline alike', async () => {
      for (const target of [0, jobs.length - 1]) {
        const mutated = jobs.slice();
        const job = mutated[target]!;
        const inputIndex = job.tx.inputs.length - 1;
        mutated[target] = {
          ...job,
          tx: withInput(job.tx, inputIndex, (input) => ({ ...input, scriptSig: flipScriptSigSignature(input.scriptSig) })),
        };
        const expected = { ok: false, reason: 'script', txIndex: target, inputIndex, error: ScriptError.EVAL_FALSE };
        assert.deepEqual(await pool.verify(mutated), expected, `height ${origins[target]!.height}`);
        assert.deepEqual(runUnderBackend(backend, () => verifyJobsInline(mutated)), expected);
      }
    });
  });
}
