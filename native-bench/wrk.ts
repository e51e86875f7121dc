/**
 * wrk and the bare uWS.js baselines for the HTTP benchmarks: running wrk (pinned with
 * taskset when given CPUs) and reading its throughput, p50/p99 latency and errors, and
 * starting hello-world or skeleton servers (http-skeleton.ts) sharing a port. http.ts and
 * http-rest.ts use these.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../test/integration/daemon-harness.js';

const HELLO = fileURLToPath(new URL('./http-hello.js', import.meta.url));
const SKELETON = fileURLToPath(new URL('./http-skeleton.js', import.meta.url));

/** http-skeleton.ts's modes, each adding one step to the one before. */
export const SKELETON_MODES = ['body', 'peer', 'json', 'request'] as const;
export type SkeletonMode = (typeof SKELETON_MODES)[number];
/** The `result` every JSON skeleton answers: a block hash's length of zeros. */
export const SKELETON_RESULT = '0'.repeat(64);
export const run = promisify(execFile);

export interface WrkResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Non-2xx replies and socket errors (connect, read, write, timeout). */
  readonly errors: string[];
}

/** wrk's latency figures ("512.00us", "1.20ms", "2.01s") in milliseconds. */
export function wrkMillis(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`wrk latency ${text}?`);
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
}

export function parseWrkOutput(out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1];
  const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1];
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  if (!Number.isFinite(rps) || p50 === undefined || p99 === undefined) throw new Error(`cannot read wrk's output:\n${out}`);
  const errors: string[] = [];
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) errors.push(`${non2xx[1]} non-2xx replies`);
  const socket = /Socket errors: (.*)/.exec(out);
  if (socket) errors.push(`socket errors: ${socket[1]}`);
  return { rps, p50: wrkMillis(p50), p99: wrkMillis(p99), requests, errors };
}

/** One wrk run of `seconds` against `url` (GET, or what `script` sets), `connections` keep-alive connections. */
export async function runWrk(opts: { url: string; seconds: number; connections: number; threads: number; cpus?: string; script?: string; timeout?: string }): Promise<WrkResult> {
  const args = [`-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', '--timeout', opts.timeout ?? '60s'];
  if (opts.script !== undefined) args.push('-s', opts.script);
  args.push(opts.url);
  const [cmd, argv] = opts.cpus === undefined ? ['wrk', args] : ['taskset', ['-c', opts.cpus, 'wrk', ...args]];
  return parseWrkOutput((await run(cmd, argv, { maxBuffer: 1 << 20 })).stdout);
}

/** `count` hello-world processes sharing a port, pinned to `cpus`. */
export function startHello(count: number, cpus: string | undefined): Promise<{ port: number; procs: ChildProcess[] }> {
  return startServers(HELLO, [], count, cpus);
}

/** `count` skeleton servers of `mode` sharing a port, pinned to `cpus`. */
export function startSkeleton(mode: SkeletonMode, count: number, cpus: string | undefined): Promise<{ port: number; procs: ChildProcess[] }> {
  return startServers(SKELETON, [mode], count, cpus);
}

async function startServers(script: string, extra: readonly string[], count: number, cpus: string | undefined): Promise<{ port: number; procs: ChildProcess[] }> {
  const port = await freePort();
  const procs: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const argv = [process.execPath, script, String(port), ...extra];
    const proc = cpus === undefined ? spawn(argv[0]!, argv.slice(1)) : spawn('taskset', ['-c', cpus, ...argv]);
    procs.push(proc);
    let stderr = '';
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.once('data', () => resolve());
      proc.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${stderr}`)));
    });
  }
  return { port, procs };
}

/** The CPU split of the HTTP benchmarks: the first half of the cores for the server, the rest for wrk. */
export async function cpuSplit(cores: number): Promise<{ serverCores: number; serverCpus?: string; wrkCpus?: string; wrkThreads: number }> {
  const hasTaskset = await run('taskset', ['-V']).then(
    () => true,
    () => false,
  );
  const serverCores = Math.max(1, Math.floor(cores / 2));
  const range = (from: number, to: number) => (from === to - 1 ? `${from}` : `${from}-${to - 1}`);
  const pinned = hasTaskset && cores > 1;
  return {
    serverCores,
    ...(pinned ? { serverCpus: range(0, serverCores), wrkCpus: range(serverCores, cores) } : {}),
    wrkThreads: Math.max(1, cores - serverCores),
  };
}
