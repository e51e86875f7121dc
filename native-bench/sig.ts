/**
 * `make bench-sig`: signature verifications per second, ECDSA and BIP340 Schnorr.
 *
 * - raw: @noble/secp256k1 verify on this thread, the ceiling of one core;
 * - pool(t): full input verification through the ScriptCheckPool with t worker threads,
 *   on real signed P2WPKH (ECDSA) and P2TR key-path (Schnorr) spends: message encoding,
 *   transaction parsing, sighash and script execution included;
 * - bare(N): raw verify in N plain worker threads at once, no pool: what the machine gives
 *   N independent threads at that moment, for reading the pool row against.
 *
 * The machine is shared and its speed drifts by tens of percent over seconds, so every
 * figure is measured once per round, rounds alternate the rows, and the ratio
 * pool(N) / (N × raw) is computed within each round against the mean of raw runs taken
 * right before and right after pool(N). The summary gives each round's ratio and their
 * median.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MANDATORY_SCRIPT_VERIFY_FLAGS } from '../src/script/index.js';
import { ScriptCheckPool, type ScriptCheckJob } from '../workers/index.js';
import { signedSpend, spendKey, type SpendKind } from '../test/support/spends.js';
import { fmt, opsPerSecond, pad, warmUp } from './measure.js';
import { rawVerifier, type SigKind } from './sig-samples.js';

const ROUNDS = 7;
const RAW_MS = 800;
/** Wall time aimed at for each pool measurement. */
const POOL_SECONDS = 1.2;
const WARM_UP_MS = 400;
/** Signed transactions per kind (2 inputs each); pool runs repeat them to the size they need. */
const BASE_TXS = 64;
const KINDS: readonly SigKind[] = ['ecdsa', 'schnorr'];
const SPEND_KIND: Record<SigKind, SpendKind> = { ecdsa: 'p2wpkh', schnorr: 'p2tr' };
const BARE_WORKER_FILE = fileURLToPath(new URL('./sig-bare-worker.js', import.meta.url));

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

async function poolRate(pool: ScriptCheckPool, jobs: readonly ScriptCheckJob[]): Promise<number> {
  const started = performance.now();
  const result = await pool.verify(jobs);
  const seconds = (performance.now() - started) / 1000;
  if (!result.ok) throw new Error(`benchmark spend failed to verify: ${JSON.stringify(result)}`);
  return result.checked / seconds;
}

/** The summed rate of `threads` plain worker threads verifying at the same time. */
async function bareRate(kind: SigKind, threads: number): Promise<number> {
  const rates = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(BARE_WORKER_FILE, { workerData: { kind, ms: POOL_SECONDS * 1000, warmUpMs: WARM_UP_MS } });
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
console.log('pool rows verify whole inputs (task message, tx parse, sighash, script) of 2-input P2WPKH / P2TR key-path transactions');

const verifiers = { ecdsa: rawVerifier('ecdsa'), schnorr: rawVerifier('schnorr') };
for (const kind of KINDS) warmUp(verifiers[kind], WARM_UP_MS);
const base = { ecdsa: baseJobs(SPEND_KIND.ecdsa), schnorr: baseJobs(SPEND_KIND.schnorr) };
const pools = threadCounts.map((threads) => new ScriptCheckPool({ threads }));

type Row = Record<SigKind, number[]>;
const newRow = (): Row => ({ ecdsa: [], schnorr: [] });
const raw = newRow();
/** Per round: the mean of the raw rates measured just before and just after pool(N). */
const rawAround = newRow();
const bare = newRow();
const pooled = new Map<number, Row>(threadCounts.map((t) => [t, newRow()]));
const widestRate = pooled.get(threadsAvailable)!;

try {
  // First rates size the pool runs, and one pass warms every pool thread up.
  const firstRaw = { ecdsa: opsPerSecond(verifiers.ecdsa, RAW_MS), schnorr: opsPerSecond(verifiers.schnorr, RAW_MS) };
  const poolJobs = new Map<number, Record<SigKind, ScriptCheckJob[]>>();
  for (const pool of pools) {
    const sized = (kind: SigKind) => repeatToInputs(base[kind], Math.ceil(firstRaw[kind] * pool.threads * POOL_SECONDS));
    const jobs = { ecdsa: sized('ecdsa'), schnorr: sized('schnorr') };
    poolJobs.set(pool.threads, jobs);
    for (const kind of KINDS) await poolRate(pool, repeatToInputs(base[kind], Math.ceil((firstRaw[kind] * pool.threads * WARM_UP_MS) / 1000)));
  }
  const widest = pools[pools.length - 1]!;
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of KINDS) {
      // Raw right before and right after pool(N): the round's ratio divides by their mean.
      const before = opsPerSecond(verifiers[kind], RAW_MS);
      widestRate[kind].push(await poolRate(widest, poolJobs.get(widest.threads)![kind]));
      const after = opsPerSecond(verifiers[kind], RAW_MS);
      raw[kind].push(before, after);
      rawAround[kind].push((before + after) / 2);
      for (const pool of pools.slice(0, -1)) pooled.get(pool.threads)![kind].push(await poolRate(pool, poolJobs.get(pool.threads)![kind]));
      bare[kind].push(await bareRate(kind, threadsAvailable));
    }
  }
} finally {
  await Promise.all(pools.map((pool) => pool.close()));
}

const n = threadsAvailable;
const header = (label: string) => `${label.padEnd(34)} ${pad('ECDSA/s', 10)} ${pad('vs raw', 8)} ${pad('Schnorr/s', 10)} ${pad('vs raw', 8)}`;
const line = (label: string, ecdsa: number, schnorr: number, rawE: number, rawS: number) =>
  `${label.padEnd(34)} ${pad(fmt(ecdsa), 10)} ${pad((ecdsa / rawE).toFixed(2) + 'x', 8)} ${pad(fmt(schnorr), 10)} ${pad((schnorr / rawS).toFixed(2) + 'x', 8)}`;

console.log('\nmedian over rounds of each row');
console.log(header('path'));
const med = (row: Row) => ({ ecdsa: median(row.ecdsa), schnorr: median(row.schnorr) });
const rawMed = med(raw);
console.log(line('raw noble verify, 1 thread', rawMed.ecdsa, rawMed.schnorr, rawMed.ecdsa, rawMed.schnorr));
for (const [threads, row] of pooled) {
  const m = med(row);
  console.log(line(`pool, ${threads} worker${threads === 1 ? '' : 's'} (full inputs)`, m.ecdsa, m.schnorr, rawMed.ecdsa, rawMed.schnorr));
}
const bareMed = med(bare);
console.log(line(`bare raw verify, ${n} plain threads`, bareMed.ecdsa, bareMed.schnorr, rawMed.ecdsa, rawMed.schnorr));

console.log(`\nper round: pool(${n}) / (${n} × raw around it), and bare(${n}) / (${n} × raw) for the machine's own scaling`);
const ratios: Row = newRow();
for (let round = 0; round < ROUNDS; round++) {
  const cells = KINDS.map((kind) => {
    const ratio = widestRate[kind][round]! / (n * rawAround[kind][round]!);
    ratios[kind].push(ratio);
    return `${kind} ${ratio.toFixed(2)} (bare ${(bare[kind][round]! / (n * rawAround[kind][round]!)).toFixed(2)})`;
  });
  console.log(`round ${round + 1}: ${cells.join(', ')}`);
}
console.log(`pool(${n})/(${n}×raw), median of ${ROUNDS} rounds: ECDSA ${median(ratios.ecdsa).toFixed(2)}, Schnorr ${median(ratios.schnorr).toFixed(2)}`);
