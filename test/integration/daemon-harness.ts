/**
 * Runs real tsbtcd processes for the daemon tests: a fresh temporary data directory and
 * free ports per daemon, the cookie polled as harnesses do, JSON-RPC over real HTTP, and
 * cleanup (process killed, directory removed) even when a test fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** bin/tsbtcd of this checkout (tests run from dist/test/integration). */
export const TSBTCD = fileURLToPath(new URL('../../../bin/tsbtcd', import.meta.url));

const live = new Set<Daemon>();
process.on('exit', () => {
  for (const d of live) d.proc.kill('SIGKILL');
});

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tsbtcd-test-'));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export interface HttpResult {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** Raw header lines in order, for exact checks. */
  readonly rawHeaders: string[];
  readonly body: string;
  readonly ms: number;
}

export function httpRequest(
  port: number,
  opts: { method?: string; path?: string; body?: string; auth?: string; headers?: Record<string, string>; host?: string },
): Promise<HttpResult> {
  const started = Date.now();
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth !== undefined) headers['Authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: opts.host ?? '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: Date.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error('HTTP request timed out')));
    req.end(opts.body);
  });
}

export interface DaemonOptions {
  /** Extra command-line options (after -regtest -datadir -rpcport -printtoconsole=0). */
  readonly args?: readonly string[];
  /** bitcoin.conf text written into the data directory before start. */
  readonly conf?: string;
  /** Further files (name → text) written into the data directory before start. */
  readonly files?: Readonly<Record<string, string>>;
  /** Leave out -regtest and -rpcport (the config file chooses them). */
  readonly bare?: boolean;
  /** Wait for the cookie and the end of warm-up (default true). */
  readonly waitReady?: boolean;
  readonly port?: number;
}

export class Daemon {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly proc: ChildProcess,
    readonly datadir: string,
    readonly port: number,
  ) {
    proc.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
    live.add(this);
  }

  /** Starts a daemon on a new temporary data directory. */
  static async start(opts: DaemonOptions = {}): Promise<Daemon> {
    const datadir = tempDir();
    const port = opts.port ?? (await freePort());
    if (opts.conf !== undefined) fs.writeFileSync(path.join(datadir, 'bitcoin.conf'), opts.conf);
    for (const [name, text] of Object.entries(opts.files ?? {})) fs.writeFileSync(path.join(datadir, name), text);
    const base = opts.bare ? [`-datadir=${datadir}`] : ['-regtest', `-datadir=${datadir}`, `-rpcport=${port}`, '-printtoconsole=0'];
    const proc = spawn(TSBTCD, [...base, ...(opts.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    const d = new Daemon(proc, datadir, port);
    try {
      if (opts.waitReady ?? true) await d.waitReady();
    } catch (err) {
      // The caller never gets the daemon to clean up: do it here.
      await d.cleanup();
      throw err;
    }
    return d;
  }

  get netdir(): string {
    return path.join(this.datadir, 'regtest');
  }

  get cookiePath(): string {
    return path.join(this.netdir, '.cookie');
  }

  cookie(): string {
    return fs.readFileSync(this.cookiePath, 'utf8');
  }

  debugLog(): string {
    return fs.readFileSync(path.join(this.netdir, 'debug.log'), 'utf8');
  }

  async waitCookie(): Promise<string> {
    return waitFor('the cookie', () => (fs.existsSync(this.cookiePath) ? this.cookie() : undefined));
  }

  /** Polls like a harness: cookie, then calls until the answer is not -28 (any HTTP answer counts). */
  async waitReady(): Promise<void> {
    await this.waitCookie();
    await waitFor('the end of warm-up', async () => {
      if (this.proc.exitCode !== null) throw new Error(`tsbtcd exited with ${this.proc.exitCode}: ${this.stderr}`);
      const r = await this.rpc('uptime');
      return (r.json as { error?: { code?: number } } | undefined)?.error?.code === -28 ? undefined : true;
    });
  }

  /** A JSON-RPC 1.1 call with the cookie; `json` is the parsed reply. */
  async rpc(method: string, params: unknown = [], extra: { auth?: string; path?: string } = {}): Promise<HttpResult & { json: any }> {
    const r = await this.post(JSON.stringify({ method, params, id: 1 }), extra);
    return { ...r, json: r.body === '' ? undefined : JSON.parse(r.body) };
  }

  post(body: string, extra: { auth?: string; path?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
    return httpRequest(this.port, { body, auth: extra.auth ?? this.cookie(), path: extra.path ?? '/', headers: extra.headers ?? {} });
  }

  /** The front-end pids from debug.log's latest "HTTP front-ends started" or restart lines. */
  frontendPids(): number[] {
    const m = [...this.debugLog().matchAll(/HTTP front-ends started: \d+ \(pids ([\d, ]+)\)/g)].at(-1);
    return m ? m[1]!.split(', ').map(Number) : [];
  }

  async stopWithSignal(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.proc.kill(signal);
    return this.exited;
  }

  /** Kills the process if still running and removes the data directory. */
  async cleanup(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGKILL');
      await this.exited;
    }
    live.delete(this);
    fs.rmSync(this.datadir, { recursive: true, force: true });
  }
}

/** Runs tsbtcd to completion (for start-up errors): exit code, stdout, stderr. */
export function runToExit(args: readonly string[], timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(TSBTCD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`tsbtcd ${args.join(' ')} did not exit`));
    }, timeoutMs);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
