/** One worker of `make differential-sig`: compares both backends on random cases [start, end). */
import { parentPort, workerData } from 'node:worker_threads';
import { loadNativeBackend, nobleBackend } from '../../src/script/index.js';
import { compareBackends, randomCases } from '../support/signature-cases.js';

const { start, end } = workerData as { start: number; end: number };
parentPort!.postMessage(compareBackends(randomCases(start, end), loadNativeBackend(), nobleBackend));
