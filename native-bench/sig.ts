/**
 * `make bench-sig`: signature verifications per second, ECDSA and BIP340 Schnorr, all in
 * one run:
 *
 * - C floor: libsecp256k1 from a C program (dist/native/sig-floor, native-bench/sig-floor.c),
 *   one thread, the ceiling of any binding of the same library;
 * - native per call: the libsecp256k1 addon through the SignatureBackend interface, one
 *   Node-API call per signature, and its ratio to the floor (target >= 0.85);
 * - native batch: 32 signatures packed into one buffer and checked in one addon call;
 * - noble: @noble/secp256k1 through the same interface, for reference;
 * - pool(t): full input verification through the ScriptCheckPool with t worker threads
 *   on the native backend, on real signed P2WPKH (ECDSA) and P2TR key-path (Schnorr)
 *   spends: message encoding, transaction parsing, sighash and script execution included;
 * - bare(N): native per-call verify in N plain worker threads at once, no pool: what the
 *   machine gives N independent threads at that moment.
 *
 * Beside the wall-time scaling pool(N) / (N x pool(1)), the summary gives the pool's CPU
 * efficiency: inputs per CPU second (all threads) at N workers over the same at 1. Where
 * other work holds the cores, wall time cannot show scaling (bare(N) shows how much the
 * machine gave); the CPU ratio still shows what the pool's parallel overhead costs.
 *
 * The machine is shared and its speed drifts by tens of percent over seconds. The
 * single-thread rows (floor, native, batch, noble) are per second of CPU time the process
 * got, so a rate does not depend on how much of a core other work left it; the pool and
 * bare rows are wall time (they are about using N cores). Every figure is measured once
 * per round, rounds alternate the rows, and each ratio is taken
 * within a round between figures measured next to each other. The summary gives the
 * median of each row and of each round's ratios.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, loadNativeBackend } from '../src/script/index.js';
import { ScriptCheckPool, type ScriptCheckJob } from '../workers/index.js';
import { signedSpend, spendKey, type SpendKind } from '../test/support/spends.js';
import { fmt, opsPerCpuSecond, pad, warmUp } from './measure.js';
import { rawVerifier, SAMPLES, type SigKind, type SigPath } from './sig-samples.js';

const ROUNDS = 5;
const RAW_MS = 800;
const NOBLE_MS = 400;
/** Wall time aimed at for each pool measurement. */
const POOL_SECONDS = 1.2;
const WARM_UP_MS = 400;
/** Signed transactions per kind (2 inputs each); pool runs repeat them to the size they need. */
const BASE_TXS = 64;
const KINDS: readonly SigKind[] = ['ecdsa', 'schnorr'];
const SPEND_KIND: Record<SigKind, SpendKind> = { ecdsa: 'p2wpkh', schnorr: 'p2tr' };
const BARE_WORKER_FILE = fileURLToPath(new URL('./sig-bare-worker.js', import.meta.url));
const FLOOR_PROGRAM = fileURLToPath(new URL('../native/sig-floor', import.meta.url));

const threadsAvailable = availableParallelism();
const threadCounts: number[] = [];
for (let t = 1; t <= threadsAvailable; t = threadsAvailable <= 8 ? t + 1 : t * 2) threadCounts.push(t);
if (threadCounts[threadCounts.length - 1] !== threadsAvailable) threadCounts.push(threadsAvailable);

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

/** Inputs per second of CPU time the whole process (main thread and workers) used in the last poolRate. */
let lastPoolCpuRate = 0;

/** Inputs per wall second; also sets lastPoolCpuRate. */
async function poolRate(pool: ScriptCheckPool, jobs: readonly ScriptCheckJob[]): Promise<number> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await pool.verify(jobs);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (!result.ok) throw new Error(`benchmark spend failed to verify: ${JSON.stringify(result)}`);
  lastPoolCpuRate = result.checked / ((used.user + used.system) / 1e6);
  return result.checked / seconds;
}

/** The C floor's single-thread rates, each kind timed for `ms`. */
function floorRates(ms: number): Record<SigKind, number> {
  const out = execFileSync(FLOOR_PROGRAM, [String(ms)], { encoding: 'utf8' });
  return JSON.parse(out) as Record<SigKind, number>;
}

/** The summed rate of `threads` plain worker threads verifying at the same time. */
async function bareRate(kind: SigKind, path: SigPath, threads: number): Promise<number> {
  const rates = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(BARE_WORKER_FILE, { workerData: { kind, path, ms: POOL_SECONDS * 1000, warmUpMs: WARM_UP_MS } });
          worker.once('message', (rate: number) => void worker.terminate().then(() => resolve(rate)));
          worker.once('error', reject);
        }),
    ),
  );
  return rates.reduce((a, b) => a + b, 0);
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

console.log(`signature verification on node ${process.version}, ${threadsAvailable} threads available, ${ROUNDS} interleaved rounds`);
console.log(`native backend: ${loadNativeBackend().name}, C floor: ${FLOOR_PROGRAM}`);
console.log('pool rows verify whole inputs (task message, tx parse, sighash, script) of 2-input P2WPKH / P2TR key-path transactions');

const paths: readonly SigPath[] = ['native', 'native-batch', 'noble'];
const verifiers = new Map(paths.map((path) => [path, { ecdsa: rawVerifier('ecdsa', path), schnorr: rawVerifier('schnorr', path) }]));
const rate = (path: SigPath, kind: SigKind, ms: number): number => {
  const v = verifiers.get(path)![kind];
  return opsPerCpuSecond(v.verify, ms) * v.perCall;
};
for (const path of paths) for (const kind of KINDS) warmUp(verifiers.get(path)![kind].verify, WARM_UP_MS);
const base = { ecdsa: baseJobs(SPEND_KIND.ecdsa), schnorr: baseJobs(SPEND_KIND.schnorr) };
const pools = threadCounts.map((threads) => new ScriptCheckPool({ threads, signatureBackend: 'native' }));

type Row = Record<SigKind, number[]>;
const newRow = (): Row => ({ ecdsa: [], schnorr: [] });
const floor = newRow();
const perCall = newRow();
const batch = newRow();
const nobleRow = newRow();
/** Per round: the mean of the per-call rates measured just before and just after pool(N). */
const perCallAround = newRow();
const bare = newRow();
const pooled = new Map<number, Row>(threadCounts.map((t) => [t, newRow()]));
const widestRate = pooled.get(threadsAvailable)!;
const singleRate = pooled.get(1)!;
/** Per round: inputs per CPU second at N workers and at 1. */
const widestCpu = newRow();
const singleCpu = newRow();

try {
  // First rates size the pool runs, and one pass warms every pool thread up.
  const firstRate = { ecdsa: rate('native', 'ecdsa', RAW_MS), schnorr: rate('native', 'schnorr', RAW_MS) };
  const poolJobs = new Map<number, Record<SigKind, ScriptCheckJob[]>>();
  for (const pool of pools) {
    // Whole inputs cost about twice a bare verify: half the raw rate sizes the runs.
    const sized = (kind: SigKind, seconds: number) => repeatToInputs(base[kind], Math.ceil((firstRate[kind] / 2) * pool.threads * seconds));
    poolJobs.set(pool.threads, { ecdsa: sized('ecdsa', POOL_SECONDS), schnorr: sized('schnorr', POOL_SECONDS) });
    for (const kind of KINDS) await poolRate(pool, sized(kind, 2 * (WARM_UP_MS / 1000)));
  }
  const widest = pools[pools.length - 1]!;
  for (let round = 0; round < ROUNDS; round++) {
    const f = floorRates(RAW_MS);
    for (const kind of KINDS) {
      floor[kind].push(f[kind]);
      // Per call right before and right after pool(N): the round's pool ratio divides by their mean.
      const before = rate('native', kind, RAW_MS);
      widestRate[kind].push(await poolRate(widest, poolJobs.get(widest.threads)![kind]));
      widestCpu[kind].push(lastPoolCpuRate);
      const after = rate('native', kind, RAW_MS);
      perCall[kind].push(before, after);
      perCallAround[kind].push((before + after) / 2);
      for (const pool of pools.slice(0, -1)) {
        pooled.get(pool.threads)![kind].push(await poolRate(pool, poolJobs.get(pool.threads)![kind]));
        if (pool.threads === 1) singleCpu[kind].push(lastPoolCpuRate);
      }
      batch[kind].push(rate('native-batch', kind, RAW_MS));
      nobleRow[kind].push(rate('noble', kind, NOBLE_MS));
      bare[kind].push(await bareRate(kind, 'native', threadsAvailable));
    }
  }
} finally {
  await Promise.all(pools.map((pool) => pool.close()));
}

const n = threadsAvailable;
const med = (row: Row) => ({ ecdsa: median(row.ecdsa), schnorr: median(row.schnorr) });
const floorMed = med(floor);
const header = (label: string) => `${label.padEnd(40)} ${pad('ECDSA/s', 10)} ${pad('vs floor', 9)} ${pad('Schnorr/s', 10)} ${pad('vs floor', 9)}`;
const line = (label: string, row: Row, threads = 1) => {
  const m = med(row);
  const ratio = (kind: SigKind) => (m[kind] / (threads * floorMed[kind])).toFixed(2) + 'x';
  return `${label.padEnd(40)} ${pad(fmt(m.ecdsa), 10)} ${pad(ratio('ecdsa'), 9)} ${pad(fmt(m.schnorr), 10)} ${pad(ratio('schnorr'), 9)}`;
};

console.log(`\nmedian over rounds of each row: 1-thread rows per CPU second, pool and bare rows per wall second ("vs floor" against ${n} x the floor)`);
console.log(header('path'));
console.log(line('C floor (libsecp256k1), 1 thread', floor));
console.log(line('native per call, 1 thread', perCall));
console.log(line(`native batch (${SAMPLES} per call), 1 thread`, batch));
console.log(line('noble (reference), 1 thread', nobleRow));
for (const [threads, row] of pooled) console.log(line(`pool native, ${threads} worker${threads === 1 ? '' : 's'} (full inputs)`, row, threads));
console.log(line(`bare native per call, ${n} plain threads`, bare, n));

console.log(`\nper round: native per call / floor, batch / floor, pool(${n}) / (${n} x pool(1)), pool(${n}) / (${n} x per call around it), pool CPU efficiency, bare(${n}) / (${n} x per call)`);
const ratios = { perCall: newRow(), batch: newRow(), scaling: newRow(), vsRaw: newRow(), cpu: newRow() };
for (let round = 0; round < ROUNDS; round++) {
  const cells = KINDS.map((kind) => {
    const r = {
      perCall: perCallAround[kind][round]! / floor[kind][round]!,
      batch: batch[kind][round]! / floor[kind][round]!,
      scaling: widestRate[kind][round]! / (n * singleRate[kind][round]!),
      vsRaw: widestRate[kind][round]! / (n * perCallAround[kind][round]!),
      cpu: widestCpu[kind][round]! / singleCpu[kind][round]!,
    };
    for (const key of Object.keys(r) as (keyof typeof r)[]) ratios[key][kind].push(r[key]);
    const bareRatio = bare[kind][round]! / (n * perCallAround[kind][round]!);
    return `${kind} ${r.perCall.toFixed(2)} ${r.batch.toFixed(2)} ${r.scaling.toFixed(2)} ${r.vsRaw.toFixed(2)} cpu ${r.cpu.toFixed(2)} (bare ${bareRatio.toFixed(2)})`;
  });
  console.log(`round ${round + 1}: ${cells.join(', ')}`);
}
const summary = (label: string, row: Row) => console.log(`${label.padEnd(52)} ECDSA ${median(row.ecdsa).toFixed(2)}, Schnorr ${median(row.schnorr).toFixed(2)}`);
console.log(`\nmedian of ${ROUNDS} rounds (targets: native / floor >= 0.85, pool(${n}) / (${n} x single) >= 0.85)`);
summary('native per call / C floor:', ratios.perCall);
summary('native batch / C floor:', ratios.batch);
summary(`pool(${n}) / (${n} x pool(1)), native:`, ratios.scaling);
summary(`pool(${n}) / (${n} x native per call), whole inputs:`, ratios.vsRaw);
summary(`pool CPU efficiency, per CPU s at ${n} / at 1:`, ratios.cpu);
summary(`bare(${n}) / (${n} x per call): the machine's share:`, { ecdsa: bare.ecdsa.map((b, i) => b / (n * perCallAround.ecdsa[i]!)), schnorr: bare.schnorr.map((b, i) => b / (n * perCallAround.schnorr[i]!)) });

// The block target, in the same run as the floor: `tsbtcd-bench verify-block` on
// mainnet block 277647 (732 inputs, nearly all P2PKH ECDSA) with every thread, as a user
// runs it, against N x the floor's single-thread ECDSA rate (target >= 0.5).
const VERIFY_BLOCK = fileURLToPath(new URL('../../bin/tsbtcd-bench', import.meta.url));
const VECTORS = fileURLToPath(new URL('../../test/vectors/data/', import.meta.url));
const verifyBlock = JSON.parse(
  execFileSync(process.execPath, [VERIFY_BLOCK, 'verify-block', '--block', `${VECTORS}block277647.hex`, '--prevouts', `${VECTORS}block277647-prevouts.json`, '--par', String(n)], { encoding: 'utf8' }),
) as { inputsPerSecond: number; workers: number; signatureBackend: string };
console.log(
  `\nverify-block 277647 (--par ${verifyBlock.workers}, ${verifyBlock.signatureBackend}): ${fmt(verifyBlock.inputsPerSecond)} inputs/s = ` +
    `${(verifyBlock.inputsPerSecond / (n * floorMed.ecdsa)).toFixed(2)} x (${n} x C floor ECDSA ${fmt(floorMed.ecdsa)}/s) (target >= 0.5)`,
);
