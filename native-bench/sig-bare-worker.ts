/**
 * A plain worker thread (no Piscina, no messages while it runs) that times raw verifies
 * for `ms` and posts the rate: run on every core at once, it shows what the machine gives
 * to N independent threads at that moment, the ceiling the pool row is read against.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { opsPerSecond, warmUp } from './measure.js';
import { rawVerifier, type SigKind, type SigPath } from './sig-samples.js';

const { kind, path, ms, warmUpMs } = workerData as { kind: SigKind; path: SigPath; ms: number; warmUpMs: number };
const { verify, perCall } = rawVerifier(kind, path);
warmUp(verify, warmUpMs);
parentPort!.postMessage(opsPerSecond(verify, ms) * perCall);
