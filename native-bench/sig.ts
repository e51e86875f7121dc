/**
 * `make bench-sig`: signature verifications per second, ECDSA and BIP340 Schnorr.
 *
 * - raw: @noble/secp256k1 verify on this thread (ECDSA with prehash:false, lowS:false, as
 *   the consensus backend calls it), the ceiling of one core;
 * - pool(t): full input verification through the ScriptCheckPool with t worker threads,
 *   on real signed P2WPKH (ECDSA) and P2TR key-path (Schnorr) spends: message encoding,
 *   transaction parsing, sighash and script execution included.
 *
 * The last line compares pool(N) with N times the raw single-thread rate: how much of the
 * machine the pool turns into verified inputs.
 */
import { availableParallelism } from 'node:os';
import * as noble from '@noble/secp256k1';
import { MANDATORY_SCRIPT_VERIFY_FLAGS } from '../src/script/index.js';
import { sha256 } from '../src/primitives/index.js';
import { ScriptCheckPool, type ScriptCheckJob } from '../workers/index.js';
import { secretFromSeed, signedSpend, spendKey, type SpendKind } from '../test/support/spends.js';
import { bestOf, fmt, opsPerSecond, pad, warmUp } from './measure.js';

const RAW_MS = 800;
/** Wall time aimed at for each pool measurement. */
const POOL_SECONDS = 1.2;
/** Measurements per figure; the best is kept (interference only ever slows a run down). */
const RUNS = 3;
const WARM_UP_MS = 400;
/** Signed transactions per kind (2 inputs each); pool runs repeat them to the size they need. */
const BASE_TXS = 64;
const SAMPLES = 32;

const threadsAvailable = availableParallelism();
const threadCounts: number[] = [];
for (let t = 1; t <= threadsAvailable; t = threadsAvailable <= 8 ? t + 1 : t * 2) threadCounts.push(t);
if (threadCounts[threadCounts.length - 1] !== threadsAvailable) threadCounts.push(threadsAvailable);

async function rawEcdsaRate(): Promise<number> {
  const samples = Array.from({ length: SAMPLES }, (_, i) => {
    const secret = secretFromSeed(i);
    const digest = sha256(Uint8Array.of(i));
    return { sig: noble.sign(digest, secret, { prehash: false }), digest, key: noble.getPublicKey(secret, true) };
  });
  let i = 0;
  const verify = (): void => {
    const s = samples[i++ % SAMPLES]!;
    if (!noble.verify(s.sig, s.digest, s.key, { prehash: false, lowS: false })) throw new Error('sample signature failed');
  };
  warmUp(verify, WARM_UP_MS);
  return bestOf(RUNS, () => opsPerSecond(verify, RAW_MS));
}

async function rawSchnorrRate(): Promise<number> {
  const samples = Array.from({ length: SAMPLES }, (_, i) => {
    const secret = secretFromSeed(i);
    const message = sha256(Uint8Array.of(i));
    return { sig: noble.schnorr.sign(message, secret, new Uint8Array(32)), message, key: noble.schnorr.getPublicKey(secret) };
  });
  let i = 0;
  const verify = (): void => {
    const s = samples[i++ % SAMPLES]!;
    if (!noble.schnorr.verify(s.sig, s.message, s.key)) throw new Error('sample signature failed');
  };
  warmUp(verify, WARM_UP_MS);
  return bestOf(RUNS, () => opsPerSecond(verify, RAW_MS));
}

/** BASE_TXS transactions of two inputs of one kind, each with its own keys. */
function baseJobs(kind: SpendKind): ScriptCheckJob[] {
  return Array.from({ length: BASE_TXS }, (_, t) => {
    const keys = [spendKey(kind, 2 * t), spendKey(kind, 2 * t + 1)];
    const spend = signedSpend(keys, [40_000n + BigInt(t), 50_000n], t);
    return { tx: spend.tx, spentOutputs: spend.spentOutputs, flags: MANDATORY_SCRIPT_VERIFY_FLAGS };
  });
}

function repeatToInputs(base: readonly ScriptCheckJob[], inputs: number): ScriptCheckJob[] {
  const jobs: ScriptCheckJob[] = [];
  for (let n = 0; n < inputs; n += 2) jobs.push(base[(n / 2) % base.length]!);
  return jobs;
}

async function timedVerify(pool: ScriptCheckPool, jobs: readonly ScriptCheckJob[]): Promise<number> {
  const started = performance.now();
  const result = await pool.verify(jobs);
  const seconds = (performance.now() - started) / 1000;
  if (!result.ok) throw new Error(`benchmark spend failed to verify: ${JSON.stringify(result)}`);
  return result.checked / seconds;
}

/** Inputs per second through the pool; the first pass over the base set warms every worker up. */
async function poolRate(pool: ScriptCheckPool, base: readonly ScriptCheckJob[], rawRate: number): Promise<number> {
  await timedVerify(pool, repeatToInputs(base, Math.max(base.length * 2, Math.ceil((rawRate * pool.threads * WARM_UP_MS) / 1000))));
  const jobs = repeatToInputs(base, Math.max(base.length * 2, Math.ceil(rawRate * pool.threads * POOL_SECONDS)));
  return bestOf(RUNS, () => timedVerify(pool, jobs));
}

console.log(`signature verification on node ${process.version}, ${threadsAvailable} threads available, best of ${RUNS} runs`);
console.log('pool rows verify whole inputs (task message, tx parse, sighash, script) of 2-input P2WPKH / P2TR key-path transactions');
// Raw rates are measured before and after the pool runs and the best kept, so a slow
// patch on this machine's shared cores does not skew the ratio either way.
const raw = { ecdsa: await rawEcdsaRate(), schnorr: await rawSchnorrRate() };
const jobs = { ecdsa: baseJobs('p2wpkh'), schnorr: baseJobs('p2tr') };

const rows: [string, number, number][] = [];
const poolRates = new Map<number, { ecdsa: number; schnorr: number }>();
for (const threads of threadCounts) {
  const pool = new ScriptCheckPool({ threads });
  try {
    const rates = { ecdsa: await poolRate(pool, jobs.ecdsa, raw.ecdsa), schnorr: await poolRate(pool, jobs.schnorr, raw.schnorr) };
    poolRates.set(threads, rates);
    rows.push([`pool, ${threads} worker${threads === 1 ? '' : 's'} (full inputs)`, rates.ecdsa, rates.schnorr]);
  } finally {
    await pool.close();
  }
}

raw.ecdsa = Math.max(raw.ecdsa, await rawEcdsaRate());
raw.schnorr = Math.max(raw.schnorr, await rawSchnorrRate());
rows.unshift(['raw noble verify, 1 thread', raw.ecdsa, raw.schnorr]);

console.log(`${'path'.padEnd(34)} ${pad('ECDSA/s', 10)} ${pad('vs raw', 8)} ${pad('Schnorr/s', 10)} ${pad('vs raw', 8)}`);
for (const [label, ecdsa, schnorr] of rows) {
  console.log(
    `${label.padEnd(34)} ${pad(fmt(ecdsa), 10)} ${pad((ecdsa / raw.ecdsa).toFixed(2) + 'x', 8)} ${pad(fmt(schnorr), 10)} ${pad((schnorr / raw.schnorr).toFixed(2) + 'x', 8)}`,
  );
}
const top = poolRates.get(threadsAvailable)!;
const n = threadsAvailable;
console.log(`pool(${n})/(${n}×raw) ECDSA: ${(top.ecdsa / (n * raw.ecdsa)).toFixed(2)}, Schnorr: ${(top.schnorr / (n * raw.schnorr)).toFixed(2)}`);
