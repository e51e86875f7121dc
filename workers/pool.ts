/**
 * The script-check pool: fans a block's (or a batch's) inputs out to Piscina worker
 * threads and resolves to the first failing input in job order, or ok.
 *
 * Tasks are submitted through a window of QUEUED_PER_THREAD per thread, and Piscina posts
 * that many to each worker's port at once: a worker takes its next task from its own port,
 * without waiting for the main thread, which is busy with the next block's rules while the
 * workers check this one's scripts (pipelined connects). With one task per worker the
 * workers idled for as long as the main thread ran without yielding. Once a failure is known nothing more is submitted, so an invalid block stops
 * costing CPU without aborting running tasks (Piscina aborts them by killing the thread).
 * Tasks below the failing one are still awaited, so the verdict is always the first
 * failure in job order, whatever the thread timing.
 *
 * A task that never yields a verdict (its worker died, the message was refused, or it
 * timed out) becomes a `worker` failure: the pool never hangs on a lost task and Piscina
 * replaces the dead thread. Such a failure is not a consensus verdict: the caller must not
 * mark the block invalid on it. If every thread is gone for good (Piscina stops replacing
 * workers that fail while starting), running and later checks reject with
 * ScriptCheckPoolBrokenError instead of waiting on a queue no thread will drain.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Transaction, TxOut } from '../src/primitives/index.js';
import { chosenSignatureBackend, ScriptError, type SignatureBackendChoice, type SignatureCache } from '../src/script/index.js';
import { blockJobs, resolveJobInputs } from './jobs.js';
import { encodeTask, type TaskItem, type TaskOptions } from './message.js';
import { DEFAULT_SPLIT, planTasks, type SplitOptions, type TaskPlan } from './split.js';
import {
  ScriptCheckPoolBrokenError,
  ScriptCheckPoolClosedError,
  READ_SIGNATURE_CACHE,
  type ScriptCheckCaching,
  type ScriptCheckFailure,
  type ScriptCheckJob,
  type ScriptCheckResult,
} from './types.js';

/** Tasks posted to each worker ahead of the one it runs (see the module comment). */
const QUEUED_PER_THREAD = 4;

/** The compiled worker beside this module (dist/workers/verify-worker.js). */
export const VERIFY_WORKER_FILE = fileURLToPath(new URL('./verify-worker.js', import.meta.url));

export interface ScriptCheckPoolOptions {
  /** Worker threads; default os.availableParallelism(). */
  threads?: number;
  /** Overrides of the task sizing (see split.ts). */
  split?: Partial<Omit<SplitOptions, 'threads'>>;
  /**
   * Milliseconds after submission before a task counts as lost (a `worker` failure) and
   * its thread is terminated. Default none: script execution is bounded by consensus
   * limits, and a slow but valid block must not be reported as failed.
   */
  taskTimeoutMs?: number;
  /** A substitute worker module, for tests that need a worker to crash. */
  workerFile?: string;
  /** Core's signature cache, shared with every thread (its table must be a SharedArrayBuffer). */
  signatureCache?: SignatureCache;
  /**
   * The signature backend every worker thread loads (default: the one chosen on this
   * thread, chosenSignatureBackend()). Threads are separate isolates, so it travels in
   * Piscina's workerData; a worker that cannot load it fails to start.
   */
  signatureBackend?: SignatureBackendChoice;
}

/** What verify-worker.ts reads from Piscina.workerData. */
export interface VerifyWorkerData {
  readonly signatureBackend: SignatureBackendChoice;
  /** The signature cache's table, shared with the coordinator and the other threads. */
  readonly signatureCache?: SharedArrayBuffer;
}

function isResult(value: unknown): value is ScriptCheckResult {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

function lostTask(plan: TaskPlan, why: string): ScriptCheckFailure {
  const first = plan.items[0]!;
  const last = plan.items[plan.items.length - 1]!;
  return {
    ok: false,
    reason: 'worker',
    txIndex: first.txIndex,
    inputIndex: first.inputs[0]!,
    error: ScriptError.UNKNOWN_ERROR,
    detail: `task for jobs ${first.txIndex}..${last.txIndex} (${plan.inputCount} inputs) lost: ${why}`,
  };
}

/** The key of the message a Piscina worker posts once its module is loaded (piscina/dist/common.js READY). */
const PISCINA_READY = '_WORKER_READY';
/** How long close() waits for threads still loading their module. */
const CLOSE_READY_WAIT_MS = 10_000;

/** Resolves when `worker` has loaded its task module (or exited). */
function workerLoaded(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      if (typeof message === 'object' && message !== null && PISCINA_READY in message) done();
    };
    const done = (): void => {
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    worker.on('message', onMessage);
    worker.once('exit', done);
  });
}

export class ScriptCheckPool {
  readonly threads: number;
  readonly #piscina: Piscina<ArrayBuffer, unknown>;
  /** Every initial thread has loaded the worker module. */
  readonly #loaded: Promise<void>;
  readonly #split: SplitOptions;
  readonly #taskTimeoutMs: number | undefined;
  #closed = false;
  #lastPoolError: Error | undefined;
  #broken: ScriptCheckPoolBrokenError | undefined;
  /** Fail callbacks of the verify calls in progress, so a dead pool can end them. */
  readonly #running = new Set<(err: Error) => void>();

  constructor(options: ScriptCheckPoolOptions = {}) {
    const threads = options.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`a script check pool needs at least one thread, got ${threads}; use verifyJobsInline for none`);
    }
    this.threads = threads;
    this.#split = { ...DEFAULT_SPLIT, ...options.split, threads };
    this.#taskTimeoutMs = options.taskTimeoutMs;
    const table = options.signatureCache?.set.buffer;
    if (table !== undefined && !(table instanceof SharedArrayBuffer)) throw new TypeError('the signature cache of a pool must live in a SharedArrayBuffer');
    const signatureBackend = options.signatureBackend ?? chosenSignatureBackend();
    const workerData: VerifyWorkerData = table ? { signatureBackend, signatureCache: table } : { signatureBackend };
    this.#piscina = new Piscina<ArrayBuffer, unknown>({
      filename: options.workerFile ?? VERIFY_WORKER_FILE,
      workerData,
      minThreads: threads,
      maxThreads: threads,
      // Tasks run one after another in a worker; more than one posted lets it go on to the
      // next without a round trip through the (possibly busy) main thread.
      concurrentTasksPerWorker: QUEUED_PER_THREAD,
    });
    // Piscina emits 'error' for failures no task owns (a worker dying while idle). Unhandled,
    // an EventEmitter 'error' would kill the node; tasks that were running are rejected anyway.
    this.#piscina.on('error', (err: Error) => {
      this.#lastPoolError = err;
    });
    // Piscina replaces a lost worker right after destroying it; look once that has had its chance.
    this.#piscina.on('workerDestroy', () => setImmediate(() => this.#checkAlive()));
    // Piscina starts the threads here; their ready messages come later, so listening now misses none.
    this.#loaded = Promise.all(this.#piscina.threads.map(workerLoaded)).then(() => undefined);
  }

  #checkAlive(): void {
    if (this.#closed || this.#broken || this.#piscina.threads.length > 0) return;
    const cause = this.#lastPoolError ? `: ${this.#lastPoolError.message}` : '';
    this.#broken = new ScriptCheckPoolBrokenError(`every script check worker exited and none could be restarted${cause}`);
    for (const fail of this.#running) fail(this.#broken);
  }

  /** The last pool-level error (a worker dying while idle), for diagnostics. */
  get lastPoolError(): Error | undefined {
    return this.#lastPoolError;
  }

  /** Verifies the inputs of every job; a malformed job rejects with ScriptCheckJobError. */
  async verify(jobs: readonly ScriptCheckJob[], caching: ScriptCheckCaching = READ_SIGNATURE_CACHE): Promise<ScriptCheckResult> {
    if (this.#closed) throw new ScriptCheckPoolClosedError();
    if (this.#broken) throw this.#broken;
    const inputs = jobs.map((job, txIndex) => resolveJobInputs(job, txIndex));
    const plans = planTasks(
      inputs,
      jobs.map((job) => job.tx.inputs.length),
      this.#split,
    );
    if (plans.length === 0) return { ok: true, checked: 0, signaturesVerified: 0, signatureCacheHits: 0 };
    return this.#run(jobs, plans, { storeSignatures: caching.storeSignatures });
  }

  /**
   * Verifies every non-coinbase input of a block's transactions; `spentOutputs[i]` lists
   * the outputs spent by transaction i. Verdicts name block transaction indexes.
   */
  verifyBlock(
    transactions: readonly Transaction[],
    spentOutputs: readonly (readonly TxOut[])[],
    flags: number,
  ): Promise<ScriptCheckResult> {
    return this.verify(blockJobs(transactions, spentOutputs, flags));
  }

  /** Waits for running tasks, then stops the threads. Later calls to verify reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A thread terminated while it still loads its module (Node >= 20.19 loads it through a
    // synchronous require of an ES module) aborts the whole process with a V8 fatal error
    // ("Module::IsGraphAsync must be used on an instantiated module"), so a node stopped
    // right after it started must let its threads finish loading first.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#loaded, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_READY_WAIT_MS)))]);
    clearTimeout(timer);
    // A broken pool may hold queued tasks no thread will run: waiting for them would only time out.
    if (this.#broken) await this.#piscina.destroy();
    else await this.#piscina.close();
  }

  #encode(jobs: readonly ScriptCheckJob[], plan: TaskPlan, options: TaskOptions): ArrayBuffer {
    const items: TaskItem[] = plan.items.map((item) => {
      const job = jobs[item.txIndex]!;
      return {
        txIndex: item.txIndex,
        flags: job.flags,
        txBytes: job.tx.toBytes(),
        spentOutputs: job.spentOutputs,
        inputs: item.whole ? null : item.inputs,
      };
    });
    return encodeTask(items, options);
  }

  #submit(buffer: ArrayBuffer): Promise<unknown> {
    const signal = this.#taskTimeoutMs === undefined ? null : AbortSignal.timeout(this.#taskTimeoutMs);
    return this.#piscina.run(buffer, { transferList: [buffer], signal });
  }

  #run(jobs: readonly ScriptCheckJob[], plans: readonly TaskPlan[], options: TaskOptions): Promise<ScriptCheckResult> {
    const window = this.threads * QUEUED_PER_THREAD;
    const outcomes: (ScriptCheckResult | undefined)[] = new Array(plans.length);
    let next = 0;
    let inFlight = 0;
    let settledPrefix = 0;
    let checked = 0;
    let signaturesVerified = 0;
    let signatureCacheHits = 0;
    let failureSeen = false;
    let done = false;

    return new Promise<ScriptCheckResult>((resolve, reject) => {
      const settle = (result: ScriptCheckResult | Error): void => {
        if (done) return;
        done = true;
        this.#running.delete(settle);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      this.#running.add(settle);

      const onOutcome = (index: number, outcome: ScriptCheckResult): void => {
        inFlight--;
        outcomes[index] = outcome;
        if (!outcome.ok) failureSeen = true;
        // Walk the completed prefix: the first failure in it is the first failure overall,
        // because every task before it has finished.
        while (settledPrefix < plans.length && outcomes[settledPrefix] !== undefined) {
          const result = outcomes[settledPrefix]!;
          if (!result.ok) return settle(result);
          checked += result.checked;
          signaturesVerified += result.signaturesVerified;
          signatureCacheHits += result.signatureCacheHits;
          settledPrefix++;
        }
        if (settledPrefix === plans.length) return settle({ ok: true, checked, signaturesVerified, signatureCacheHits });
        pump();
      };

      const pump = (): void => {
        while (!done && !failureSeen && inFlight < window && next < plans.length) {
          if (this.#closed) return settle(new ScriptCheckPoolClosedError());
          const index = next++;
          const plan = plans[index]!;
          let buffer: ArrayBuffer;
          try {
            buffer = this.#encode(jobs, plan, options);
          } catch (err) {
            return settle(err instanceof Error ? err : new Error(String(err)));
          }
          inFlight++;
          this.#submit(buffer).then(
            (value) => onOutcome(index, isResult(value) ? value : lostTask(plan, 'worker replied with something that is not a verdict')),
            (err: unknown) => onOutcome(index, lostTask(plan, err instanceof Error ? `${err.name}: ${err.message}` : String(err))),
          );
        }
      };

      pump();
    });
  }
}
