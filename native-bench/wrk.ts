/**
 * wrk for the HTTP benchmarks (`make bench-http`, `make soak`): running it (pinned with
 * taskset when given CPUs), its Lua scripts, reading its throughput, p50/p99 latency and
 * errors, and the CPU split between the servers and wrk.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

export const run = promisify(execFile);

/** Fails with how to install wrk when it is missing (the Makefile targets install it). */
export async function requireWrk(target: string): Promise<void> {
  try {
    await run('wrk', ['--version']);
  } catch (err) {
    // wrk --version prints its version and exits 1.
    if (/wrk/.test((err as { stdout?: string }).stdout ?? '')) return;
    throw new Error(`wrk is not installed (apt-get install wrk; ${target} installs it)`);
  }
}

/** A Lua long string holding `text` verbatim: the first level of `=` whose closing bracket is not in it (nor ends it). */
export function luaString(text: string): string {
  let level = '';
  while (`${text}]`.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

/** Writes a wrk script POSTing `body` (JSON) with `auth` ("user:password") as Basic credentials. */
export function writePostScript(file: string, body: string, auth: string): void {
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = ${luaString(body)}`,
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.headers["Authorization"] = "Basic ${Buffer.from(auth).toString('base64')}"`,
  ];
  writeFileSync(file, lines.join('\n') + '\n');
}

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
