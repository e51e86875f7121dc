/**
 * `make differential-sig [SIGS=200000]`: the native and noble signature backends on every
 * edge case plus SIGS random signatures (valid, high S, lax DER, hybrid and uncompressed
 * keys, wrong messages and keys, garbage r/s/R/keys, tweaks >= n), split over one worker
 * thread per core because noble checks only a few hundred per second per core. Prints
 * the count, the differences (the run fails on any) and the time.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadNativeBackend, nobleBackend } from '../../src/script/index.js';
import { compareBackends, edgeCases, type DifferentialResult } from '../support/signature-cases.js';

const total = Number(process.argv[2] ?? 200_000);
if (!Number.isInteger(total) || total < 0) throw new Error(`the signature count must be a whole number, got ${process.argv[2]}`);
const threads = availableParallelism();
const WORKER_FILE = fileURLToPath(new URL('./signatures-worker.js', import.meta.url));
const started = performance.now();

const edges = compareBackends(edgeCases(), loadNativeBackend(), nobleBackend);
const parts = await Promise.all(
  Array.from({ length: threads }, (_, i) => {
    const start = Math.floor((total * i) / threads);
    const end = Math.floor((total * (i + 1)) / threads);
    return new Promise<DifferentialResult>((resolve, reject) => {
      const worker = new Worker(WORKER_FILE, { workerData: { start, end } });
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  }),
);
const seconds = (performance.now() - started) / 1000;
const all = [edges, ...parts];
const checked = all.reduce((n, r) => n + r.checked, 0);
const differences = all.flatMap((r) => r.differences);
const verdicts: Record<string, number> = {};
for (const r of all) for (const [v, n] of Object.entries(r.verdicts)) verdicts[v] = (verdicts[v] ?? 0) + n;
console.log(`${checked} signature checks (${edges.checked} edge cases + ${total} random) on ${threads} threads in ${seconds.toFixed(1)} s`);
console.log(`verdicts: ${JSON.stringify(verdicts)}`);
console.log(`differences between ${loadNativeBackend().name} and ${nobleBackend.name}: ${differences.length}`);
for (const d of differences.slice(0, 20)) console.log(`  ${d}`);
process.exitCode = differences.length === 0 ? 0 : 1;
