/**
 * Runs real tsbtcd processes for the daemon tests: a fresh temporary data directory and
 * free ports per daemon, the cookie polled as harnesses do, JSON-RPC over real HTTP, and
 * cleanup (process killed, directory removed) even when a test fails. A daemon can also
 * be (re)started on an existing data directory with other options (restart,
 * -reindex-chainstate, -loadblock), stopped through RPC, or killed with SIGKILL.
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

/**
 * Ports for test nodes come from below the kernel's ephemeral range (32768+ here): a port
 * the kernel handed out there can be taken at any moment as the local end of some
 * process's outgoing connection, and a node binding it then fails (or binds ::1 only and
 * refuses 127.0.0.1), which CI saw. As Core's functional tests do, each test process
 * starts at its own place (from its pid) and counts up, checking the port is free now.
 */
const PORT_MIN = 12_000;
const PORT_SPAN = 20_000;
const PORTS_PER_PROCESS = 200;
let nextPortOffset = ((process.pid * 7919) % (PORT_SPAN / PORTS_PER_PROCESS)) * PORTS_PER_PROCESS;

function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRNOTAVAIL' || err.code === 'EAFNOSUPPORT'));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * Ports handed out to this process, each claimed by a file named after it (created only if
 * absent) holding our pid: two test processes whose ranges meet never hand out the same port,
 * even one that is free between a node's stop and its restart. A claim whose process is gone
 * (a test process killed) is taken over. The claims go when this process exits.
 */
const PORT_CLAIMS = path.join(os.tmpdir(), 'tsbtcd-test-ports');
const claimed: string[] = [];
process.on('exit', () => {
  for (const file of claimed) fs.rmSync(file, { force: true });
});

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function claimPort(port: number): boolean {
  fs.mkdirSync(PORT_CLAIMS, { recursive: true });
  const file = path.join(PORT_CLAIMS, String(port));
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(fs.readFileSync(file, 'utf8'));
    if (!Number.isInteger(holder) || holder <= 0 || processAlive(holder)) return false;
    fs.writeFileSync(file, String(process.pid));
  }
  claimed.push(file);
  return true;
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < PORT_SPAN; tries++) {
    const port = PORT_MIN + (nextPortOffset++ % PORT_SPAN);
    if ((await portIsFree(port, '127.0.0.1')) && (await portIsFree(port, '::1')) && claimPort(port)) return port;
  }
  throw new Error('no free port for a test node');
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

/** The chains the harness knows the network folder of. */
export type HarnessChain = 'regtest' | 'main' | 'signet';

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
  /** Keep automatic outbound connections from the address manager (the harness adds -connect=0 otherwise). */
  readonly automaticOutbound?: boolean;
  /** The P2P port (-port), a free one by default so parallel nodes do not collide on 18444. */
  readonly p2pPort?: number;
  /**
   * Start on this existing data directory instead of a new one. The caller owns it:
   * cleanup() leaves it in place (restart() hands ownership on instead).
   */
  readonly datadir?: string;
  /** The chain: -regtest or -signet is passed, 'main' passes none (its data directory root is the network folder); default 'regtest'. */
  readonly chain?: HarnessChain;
  /** How long start-up may take until RPC answers (default 15 s; a reindex of a long chain needs more). */
  readonly readyTimeoutMs?: number;
  /** Keep tsbtcd's own number of HTTP front-ends (one per core) instead of the harness's one. */
  readonly defaultFrontends?: boolean;
}

/** What restart() may change; the data directory and the chain stay. */
export type RestartOptions = Pick<DaemonOptions, 'args' | 'port' | 'p2pPort' | 'automaticOutbound' | 'waitReady' | 'readyTimeoutMs' | 'defaultFrontends'>;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The error a call gets when the daemon died under it (SIGKILL) or is not listening yet. */
export function isConnectionError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || (err as Error | undefined)?.message === 'socket hang up';
}

export class Daemon {
  stdout = '';
  stderr = '';
  readonly exited: Promise<ExitInfo>;

  private constructor(
    readonly proc: ChildProcess,
    readonly datadir: string,
    readonly port: number,
    readonly chain: HarnessChain,
    /** Whether cleanup() removes the data directory. */
    private ownsDatadir: boolean,
    /** The P2P port the node listens on (unless the test's own options chose otherwise). */
    readonly p2pPort: number,
  ) {
    proc.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
    live.add(this);
  }

  /** Starts a daemon on a new temporary data directory, or on `opts.datadir`. */
  static async start(opts: DaemonOptions = {}): Promise<Daemon> {
    return Daemon.launch(opts, opts.datadir === undefined);
  }

  private static async launch(opts: DaemonOptions, ownsDatadir: boolean): Promise<Daemon> {
    const datadir = opts.datadir ?? tempDir();
    const chain = opts.chain ?? 'regtest';
    const port = opts.port ?? (await freePort());
    if (opts.conf !== undefined) fs.writeFileSync(path.join(datadir, 'bitcoin.conf'), opts.conf);
    for (const [name, text] of Object.entries(opts.files ?? {})) fs.writeFileSync(path.join(datadir, name), text);
    // A daemon killed with SIGKILL leaves its cookie behind; polling it would authenticate
    // with the dead node's secret. The new node writes its own (Core removes it at a clean stop).
    fs.rmSync(path.join(netdirOf(datadir, chain), '.cookie'), { force: true });
    const chainArgs = chain === 'main' ? [] : [`-${chain}`];
    const p2pPort = opts.p2pPort ?? (await freePort());
    const base = opts.bare ? [`-datadir=${datadir}`] : [...chainArgs, `-datadir=${datadir}`, `-rpcport=${port}`, '-printtoconsole=0'];
    // P2P placement and -connect=0 go on the command line in bare mode too (two bare nodes
    // must not both listen on 18444), unless the test's options or files choose them.
    const configText = [opts.conf ?? '', ...Object.values(opts.files ?? {})].join('\n');
    const choosesPort = (opts.args ?? []).some((a) => /^-(port|bind|whitebind|listen|nolisten)\b/.test(a)) || /^\s*(no)?(port|bind|whitebind|listen)\s*=/m.test(configText);
    if (!choosesPort) base.push(`-port=${p2pPort}`, '-bind=127.0.0.1');
    // No automatic outbound connections unless a test asks: addresses peers announce must
    // never make a test node dial out of this machine.
    if (!opts.automaticOutbound && !(opts.args ?? []).some((a) => /^-(no)?connect\b/.test(a)) && !/^\s*(no)?connect\s*=/m.test(configText)) base.push('-connect=0');
    // One HTTP front-end unless the test chooses (-rpcfrontends, or tsbtcd's default of one per
    // core): each further one is a process that loads its modules at every start (about a third
    // of a CPU-second), and the suite starts hundreds of nodes on two cores. Tests of several
    // front-ends, and of the default, choose theirs.
    const choosesFrontends = opts.defaultFrontends || (opts.args ?? []).some((a) => /^-(no)?rpcfrontends\b/.test(a)) || /^\s*(no)?rpcfrontends\s*=/m.test(configText);
    if (!opts.bare && !choosesFrontends) base.push('-rpcfrontends=1');
    // A node that hangs can be asked where it is (SIGUSR2 writes a diagnostic report): see waitExit.
    const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --report-on-signal --report-signal=SIGUSR2 --report-directory=${path.join(datadir, 'reports')}`.trim() };
    fs.mkdirSync(path.join(datadir, 'reports'), { recursive: true });
    const proc = spawn(TSBTCD, [...base, ...(opts.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const d = new Daemon(proc, datadir, port, chain, ownsDatadir, p2pPort);
    try {
      if (opts.waitReady ?? true) await d.waitReady(opts.readyTimeoutMs);
    } catch (err) {
      // The caller never gets the daemon to clean up: do it here.
      await d.cleanup();
      throw err;
    }
    return d;
  }

  /**
   * Starts a new process on this daemon's data directory (same chain) once this one has
   * exited: after stop(), kill() or -stopatheight. The new daemon takes over this one's
   * ownership of the directory, so cleaning up the newest one is enough.
   */
  async restart(opts: RestartOptions = {}): Promise<Daemon> {
    if (this.running) throw new Error('restart() needs the previous process to have exited');
    await this.exited;
    const owns = this.ownsDatadir;
    this.ownsDatadir = false;
    live.delete(this);
    try {
      return await Daemon.launch({ p2pPort: this.p2pPort, ...opts, datadir: this.datadir, chain: this.chain }, owns);
    } catch (err) {
      // launch() cleaned up the failed process but kept the directory: it is ours again.
      this.ownsDatadir = owns;
      throw err;
    }
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  get netdir(): string {
    return netdirOf(this.datadir, this.chain);
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

  /**
   * For a node that does not exit: Node's diagnostic report (asked for with SIGUSR2), its
   * JavaScript stack and active handles, as text for the failure message.
   */
  async diagnosticReport(): Promise<string> {
    const dir = path.join(this.datadir, 'reports');
    try {
      if (!this.running) return '';
      this.proc.kill('SIGUSR2');
      for (let i = 0; i < 50 && !(fs.existsSync(dir) && fs.readdirSync(dir).length > 0); i++) await sleep(100);
      const file = fs.readdirSync(dir).sort().pop();
      if (!file) return 'no diagnostic report was written';
      const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { javascriptStack?: { message?: string; stack?: string[] }; libuv?: { type: string; is_active: boolean }[] };
      const handles = (report.libuv ?? []).filter((h) => h.is_active).map((h) => h.type);
      return `JavaScript stack at the report: ${report.javascriptStack?.message ?? ''}\n${(report.javascriptStack?.stack ?? []).join('\n')}\nactive handles: ${handles.join(', ')}`;
    } catch (err) {
      return `no diagnostic report: ${(err as Error).message}`;
    }
  }

  /** The last lines of debug.log, for a failure message ('' when there is none yet). */
  debugLogTail(lines: number): string {
    try {
      return this.debugLog().split('\n').slice(-lines - 1).join('\n');
    } catch {
      return '';
    }
  }

  async waitCookie(): Promise<string> {
    return waitFor('the cookie', () => (fs.existsSync(this.cookiePath) ? this.cookie() : undefined));
  }

  /** Polls like a harness: cookie, then calls until the answer is not -28 (any HTTP answer counts). */
  async waitReady(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await waitFor(
      'the cookie',
      () => {
        if (!this.running) throw new Error(`tsbtcd exited with ${this.proc.exitCode ?? this.proc.signalCode}: ${this.stderr}`);
        return fs.existsSync(this.cookiePath) ? true : undefined;
      },
      timeoutMs,
    );
    await waitFor(
      'the end of warm-up',
      async () => {
        if (!this.running) throw new Error(`tsbtcd exited with ${this.proc.exitCode ?? this.proc.signalCode}: ${this.stderr}`);
        const r = await this.rpc('uptime');
        return (r.json as { error?: { code?: number } } | undefined)?.error?.code === -28 ? undefined : true;
      },
      Math.max(1, deadline - Date.now()),
    );
  }

  /** A call whose result is wanted: throws with the method and Core's error when it fails. */
  async call<T = any>(method: string, params: unknown = []): Promise<T> {
    const r = await this.rpc(method, params);
    const json = r.json as { result?: T; error?: { code: number; message: string } | null } | undefined;
    if (!json || (json.error !== null && json.error !== undefined)) {
      throw new Error(`${method} failed (HTTP ${r.status}): ${json?.error ? `${json.error.code} ${json.error.message}` : r.body}`);
    }
    return json.result as T;
  }

  /** RPC stop, then waits for the process to exit by itself (code 0 expected by callers). */
  async stop(timeoutMs = 30_000): Promise<ExitInfo> {
    if (!this.running) return this.exited;
    try {
      await this.rpc('stop');
    } catch (err) {
      // The node may close the connection as it stops; the exit code tells how it went.
      if (!isConnectionError(err)) throw err;
    }
    return this.waitExit(timeoutMs);
  }

  /** Waits for the process to exit by itself (RPC stop, -stopatheight), bounded. */
  async waitExit(timeoutMs = 30_000): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.diagnosticReport().then((report) =>
          reject(new Error(`tsbtcd (pid ${this.proc.pid}) did not exit within ${timeoutMs} ms; debug.log ends:\n${this.debugLogTail(40)}\n${report}`)),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * SIGKILL, as a crash or power loss: the node gets no chance to flush. Waits for the
   * process and for its HTTP front-ends, which exit once their pipe to it closes (any
   * still there after a few seconds are killed too, so the next start finds the port free).
   */
  async kill(): Promise<ExitInfo> {
    const frontends = this.safeFrontendPids();
    if (this.running) this.proc.kill('SIGKILL');
    const exit = await this.exited;
    const deadline = Date.now() + 5000;
    for (const pid of frontends) {
      while (pidAlive(pid) && Date.now() < deadline) await sleep(20);
      if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    return exit;
  }

  private safeFrontendPids(): number[] {
    try {
      return this.frontendPids();
    } catch {
      return []; // no debug.log yet: killed before the front-ends started
    }
  }

  /** A JSON-RPC 1.1 call with the cookie; `json` is the parsed reply. */
  async rpc(method: string, params: unknown = [], extra: { auth?: string; path?: string } = {}): Promise<HttpResult & { json: any }> {
    const r = await this.post(JSON.stringify({ method, params, id: 1 }), extra);
    return { ...r, json: r.body === '' ? undefined : JSON.parse(r.body) };
  }

  post(body: string, extra: { auth?: string; path?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
    return httpRequest(this.port, { body, auth: extra.auth ?? this.cookie(), path: extra.path ?? '/', headers: extra.headers ?? {} });
  }

  /**
   * The live front-end pids: debug.log's latest "HTTP front-ends started" line (pids in
   * front-end index order), with each later "HTTP front-end <i> restarted (pid <p>)" applied.
   */
  frontendPids(): number[] {
    const log = this.debugLog();
    const started = [...log.matchAll(/HTTP front-ends started: \d+ \(pids ([\d, ]+)\)/g)].at(-1);
    if (!started) return [];
    const pids = started[1]!.split(', ').map(Number);
    for (const restart of log.slice(started.index! + started[0].length).matchAll(/HTTP front-end (\d+) restarted \(pid (\d+)\)/g)) {
      pids[Number(restart[1])] = Number(restart[2]);
    }
    return pids;
  }

  async stopWithSignal(signal: NodeJS.Signals = 'SIGTERM'): Promise<ExitInfo> {
    this.proc.kill(signal);
    return this.exited;
  }

  /** Kills the process if still running and removes the data directory when this daemon owns it. */
  async cleanup(): Promise<void> {
    if (this.running) await this.kill();
    live.delete(this);
    if (this.ownsDatadir) fs.rmSync(this.datadir, { recursive: true, force: true });
  }
}

function netdirOf(datadir: string, chain: HarnessChain): string {
  return chain === 'main' ? datadir : path.join(datadir, chain);
}

/** Whether a process with this pid exists (signal 0). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copies the persistent chain state of a stopped daemon (`blocks/` and `chainstate/` of its
 * network folder, as harnesses copy a data directory) into a new temporary data directory.
 */
export function copyChainData(from: Daemon, chain: HarnessChain = from.chain): string {
  if (from.running) throw new Error('copy the chain state of a stopped daemon only');
  const datadir = tempDir();
  for (const part of ['blocks', 'chainstate']) {
    const source = path.join(from.netdir, part);
    if (fs.existsSync(source)) fs.cpSync(source, path.join(netdirOf(datadir, chain), part), { recursive: true });
  }
  return datadir;
}

/** Core's block-file framing: magic ‖ LE32 size ‖ block, one record per block. */
export function frameBlocks(magic: Uint8Array, blocks: readonly Uint8Array[]): Buffer {
  const parts: Buffer[] = [];
  for (const block of blocks) {
    const head = Buffer.alloc(8);
    Buffer.from(magic).copy(head, 0);
    head.writeUInt32LE(block.length, 4);
    parts.push(head, Buffer.from(block));
  }
  return Buffer.concat(parts);
}

/** Network magic (pchMessageStart) of the chains the harness runs. */
export const MESSAGE_START: Readonly<Record<HarnessChain, Uint8Array>> = {
  main: Uint8Array.of(0xf9, 0xbe, 0xb4, 0xd9),
  regtest: Uint8Array.of(0xfa, 0xbf, 0xb5, 0xda),
  // The default signet's (a -signetchallenge gives another).
  signet: Uint8Array.of(0x0a, 0x03, 0xcf, 0x40),
};

/** Runs a program to completion (for start-up errors): exit code, stdout, stderr. */
export function runProgramToExit(executable: string, args: readonly string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${executable} ${args.join(' ')} did not exit`));
    }, timeoutMs);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs tsbtcd to completion (for start-up errors): exit code, stdout, stderr. */
export function runToExit(args: readonly string[], timeoutMs = 15_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProgramToExit(TSBTCD, args, timeoutMs);
}

/** A wallet's RPC endpoint (`/wallet/<name>`) of a node: the result, or an Error "<method>: <code> <message>" carrying the code. */
export type WalletCaller = (method: string, params?: unknown[]) => Promise<any>;

/** Calls on `/wallet/<name>`, or on the node's root endpoint without a name. */
export function walletCaller(node: Daemon, name?: string): WalletCaller {
  return async (method, params = []) => {
    const r = await node.rpc(method, params, name === undefined ? {} : { path: `/wallet/${encodeURIComponent(name)}` });
    const json = r.json as { result?: unknown; error?: { code: number; message: string } | null };
    if (json.error) throw Object.assign(new Error(`${method}: ${json.error.code} ${json.error.message}`), { code: json.error.code });
    return json.result;
  };
}
