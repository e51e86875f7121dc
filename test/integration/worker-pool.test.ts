/**
 * The pool on self-signed segwit v0 and taproot spends: amounts are committed to by their
 * signatures, the first failure in job order is the one reported whatever the thread
 * timing, misuse is a typed error, and a worker that throws, exits or hangs becomes a
 * `worker` failure while the pool keeps working.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, STANDARD_SCRIPT_VERIFY_FLAGS, ScriptError } from '../../src/script/index.js';
import {
  ScriptCheckJobError,
  ScriptCheckPool,
  ScriptCheckPoolBrokenError,
  ScriptCheckPoolClosedError,
  verifyJobsInline,
  type ScriptCheckFailure,
  type ScriptCheckJob,
} from '../../workers/index.js';
import { FAULT_EXIT, FAULT_GARBAGE, FAULT_HANG, FAULT_THROW } from '../support/faulty-worker.js';
import { withInput } from '../support/mutate.js';
import { signedSpend, spendKey, type SignedSpend } from '../support/spends.js';

const FLAGS = MANDATORY_SCRIPT_VERIFY_FLAGS;
const wpkh = (seed: number) => spendKey('p2wpkh', seed);
const tr = (seed: number) => spendKey('p2tr', seed);

const mixed = signedSpend([wpkh(1), wpkh(2), tr(3)], [50_000n, 60_000n, 70_000n], 1);
const taprootPair = signedSpend([tr(4), tr(5)], [80_000n, 90_000n], 2);
const single = signedSpend([wpkh(6)], [100_000n], 3);

const job = (spend: SignedSpend, flags = FLAGS): ScriptCheckJob => ({ tx: spend.tx, spentOutputs: spend.spentOutputs, flags });

function withAmount(spend: SignedSpend, inputIndex: number, delta: bigint): SignedSpend {
  const spentOutputs = spend.spentOutputs.map((out, i) => (i === inputIndex ? { ...out, value: out.value + delta } : out));
  return { tx: spend.tx, spentOutputs };
}

const pools: ScriptCheckPool[] = [];
function newPool(options: ConstructorParameters<typeof ScriptCheckPool>[0] = {}): ScriptCheckPool {
  const pool = new ScriptCheckPool({ threads: 2, ...options });
  pools.push(pool);
  return pool;
}
after(() => Promise.all(pools.map((p) => p.close())));

test('self-signed P2WPKH and P2TR key-path spends verify with mandatory and standard flags', async () => {
  const pool = newPool();
  const jobs = [job(single), job(mixed), job(taprootPair)];
  assert.deepEqual(await pool.verify(jobs), { ok: true, checked: 6, signaturesVerified: 6, signatureCacheHits: 0 });
  assert.deepEqual(await pool.verify(jobs.map((j) => ({ ...j, flags: STANDARD_SCRIPT_VERIFY_FLAGS }))), { ok: true, checked: 6, signaturesVerified: 6, signatureCacheHits: 0 });
  assert.deepEqual(verifyJobsInline(jobs), { ok: true, checked: 6, signaturesVerified: 6, signatureCacheHits: 0 });
});

test('a changed amount fails the segwit v0 input that spends it', async () => {
  const pool = newPool();
  const jobs = [job(single), job(withAmount(mixed, 1, 1n)), job(taprootPair)];
  const expected = { ok: false, reason: 'script', txIndex: 1, inputIndex: 1, error: ScriptError.EVAL_FALSE };
  assert.deepEqual(await pool.verify(jobs), expected);
  assert.deepEqual(verifyJobsInline(jobs), expected);
});

test('a changed amount fails every taproot input of the transaction: BIP341 commits to all spent amounts', async () => {
  const pool = newPool();
  const jobs = [job(single), job(mixed), job(withAmount(taprootPair, 1, -1n))];
  // Input 0 spends an unchanged output, yet its signature covers input 1's amount too.
  assert.deepEqual(await pool.verify(jobs), { ok: false, reason: 'script', txIndex: 2, inputIndex: 0, error: ScriptError.SCHNORR_SIG });
  const onlySecond = jobs.map((j, i) => (i === 2 ? { ...j, inputs: [1] } : j));
  assert.deepEqual(await pool.verify(onlySecond), { ok: false, reason: 'script', txIndex: 2, inputIndex: 1, error: ScriptError.SCHNORR_SIG });
  // The P2WPKH inputs of the mixed transaction commit to their own amounts only: changing another input's leaves them valid.
  const mixedJobs = [{ ...job(withAmount(mixed, 2, 5n)), inputs: [0, 1] }];
  assert.deepEqual(await pool.verify(mixedJobs), { ok: true, checked: 2, signaturesVerified: 2, signatureCacheHits: 0 });
});

test('the first failure in job order is reported, however the tasks are spread', async () => {
  // One input per task, four threads' worth of window: failures at jobs 3 and 9 race, job 3 must win.
  const pool = newPool({ split: { minInputsPerTask: 1, maxInputsPerTask: 1 } });
  const jobs: ScriptCheckJob[] = Array.from({ length: 12 }, (_, i) => job(i === 3 || i === 9 ? withAmount(single, 0, 7n) : single));
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(await pool.verify(jobs), { ok: false, reason: 'script', txIndex: 3, inputIndex: 0, error: ScriptError.EVAL_FALSE });
  }
});

test('a transaction split across tasks names the failing input by its own index', async () => {
  const many = signedSpend(Array.from({ length: 9 }, (_, i) => (i % 3 === 2 ? tr(10 + i) : wpkh(10 + i))), Array.from({ length: 9 }, (_, i) => 10_000n + BigInt(i)), 4);
  const pool = newPool({ split: { minInputsPerTask: 2, maxInputsPerTask: 2 } });
  assert.deepEqual(await pool.verify([job(single), job(many)]), { ok: true, checked: 10, signaturesVerified: 10, signatureCacheHits: 0 });
  const broken = { ...many, tx: withInput(many.tx, 7, (input) => ({ ...input, witness: [input.witness[0]!.slice(0, 70), input.witness[1]!] })) };
  const result = await pool.verify([job(single), job(broken)]);
  assert.equal(result.ok, false);
  assert.deepEqual(result.ok ? null : [result.reason, result.txIndex, result.inputIndex], ['script', 1, 7]);
});

test('coinbase-only and empty job lists verify nothing', async () => {
  const pool = newPool();
  assert.deepEqual(await pool.verify([]), { ok: true, checked: 0, signaturesVerified: 0, signatureCacheHits: 0 });
  assert.deepEqual(await pool.verify([{ ...job(single), inputs: [] }]), { ok: true, checked: 0, signaturesVerified: 0, signatureCacheHits: 0 });
});

test('malformed jobs and use after close are typed errors', async () => {
  const pool = newPool();
  await assert.rejects(pool.verify([job(single), { ...job(mixed), spentOutputs: mixed.spentOutputs.slice(1) }]), ScriptCheckJobError);
  await assert.rejects(pool.verify([{ ...job(mixed), inputs: [2, 1] }]), ScriptCheckJobError);
  await assert.rejects(pool.verify([{ ...job(mixed), inputs: [3] }]), ScriptCheckJobError);
  assert.throws(() => verifyJobsInline([{ ...job(mixed), flags: -1 }]), ScriptCheckJobError);
  await pool.close();
  await assert.rejects(pool.verify([job(single)]), ScriptCheckPoolClosedError);
});

const faultyWorker = fileURLToPath(new URL('../support/faulty-worker.js', import.meta.url));

test('a worker that throws, exits, hangs or replies garbage becomes a worker failure, and the pool keeps working', async () => {
  const pool = newPool({ workerFile: faultyWorker, taskTimeoutMs: 2000 });
  const cases: [number, RegExp][] = [
    [FAULT_THROW, /deliberate worker fault/],
    [FAULT_EXIT, /exited with code: 3/],
    [FAULT_HANG, /abort/i],
    [FAULT_GARBAGE, /not a verdict/],
  ];
  for (const [fault, detail] of cases) {
    const result = await pool.verify([job(single), job(mixed, FLAGS | fault)]);
    assert.equal(result.ok, false);
    if (result.ok) continue;
    // Both jobs fit in one task, so the lost task is named by its first transaction and input.
    assert.deepEqual([result.reason, result.txIndex, result.inputIndex, result.error], ['worker', 0, 0, ScriptError.UNKNOWN_ERROR]);
    assert.match(result.detail ?? '', detail);
    assert.deepEqual(await pool.verify([job(single), job(mixed)]), { ok: true, checked: 4, signaturesVerified: 4, signatureCacheHits: 0 }, 'the pool recovers');
  }
});

test('a pool whose workers cannot start reports it instead of queueing forever', async () => {
  const pool = newPool({ workerFile: fileURLToPath(new URL('../support/no-such-worker.js', import.meta.url)) });
  // Piscina retries a worker once it has started the first ones, so a call or two may see
  // their task lost before the pool is declared broken; every call must settle either way.
  let calls = 0;
  let broken: unknown;
  while (broken === undefined && calls < 10) {
    calls++;
    try {
      const result = await pool.verify([job(single)]);
      assert.equal((result as ScriptCheckFailure).reason, 'worker');
    } catch (err) {
      broken = err;
    }
  }
  assert.ok(broken instanceof ScriptCheckPoolBrokenError, `broken after ${calls} calls: ${String(broken)}`);
  assert.match(broken.message, /no-such-worker/);
  await assert.rejects(pool.verify([job(single)]), ScriptCheckPoolBrokenError);
  await pool.close();
});
