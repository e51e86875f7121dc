/**
 * One import of a block file by a real daemon, the harness of issue 10: tsbtcd or bitcoind
 * started with `-loadblock=FILE` (or, for `make bench-ibd`, `-connect=PEER` to sync the
 * same chain over P2P) in a fresh data directory, timed from spawn until `getblockcount`
 * (JSON-RPC with the cookie, polled every 50 ms) reaches the file's tip.
 * Then, outside the timing: peak RSS (VmHWM from /proc), the tip hash, gettxoutsetinfo,
 * and what debug.log says about which blocks had their scripts checked; then RPC `stop`
 * and the wait for the process to exit. The data directory is removed in every case.
 *
 * Both daemons get the same options (tsbtcd accepts Core's): regtest, the same -par and
 * -assumevalid, Core's regtest consistency checks off (-checkblockindex=0 -checkmempool=0),
 * no P2P but the -connect peer (-listen=0, -connect=0 for imports), no wallet, the RPC server
 * on a free loopback port.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, TSBTCD } from '../test/integration/daemon-harness.js';
import { CookieRpc, isUnreachable, RpcError } from './cookie-rpc.js';
import { processTree, treePeakRss, type TreePeakRss } from './process-rss.js';

export type DaemonKind = 'tsbtcd' | 'bitcoind';

export interface LoadblockImportOptions {
  daemon: DaemonKind;
  /** The daemon's executable; bin/tsbtcd of this checkout when left out for tsbtcd. */
  executable?: string;
  /** The block file to -loadblock; or, with `connect`, none: the blocks come over P2P. */
  file?: string;
  /** Sync over P2P from this peer (-connect=ADDRESS) instead of importing a file. */
  connect?: string;
  /** The height getblockcount must reach: the last block of the file. */
  tipHeight: number;
  /** -assumevalid: a block hash, or null for -assumevalid=0 (every script checked). */
  assumeValid: string | null;
  par: number;
  /** Further options (e.g. -debug=bench), after the common ones. */
  extraArgs?: readonly string[];
  /** Give up on the import after this long (default 30 minutes). */
  timeoutMs?: number;
  /** Called about every minute while importing, with the last getblockcount answer. */
  progress?: (height: number, seconds: number) => void;
}

/** A change of script checking logged by the daemon (Core v31's "Enabling/Disabling script verification at block #N"). */
export interface ScriptCheckChange {
  height: number;
  checked: boolean;
  reason?: string;
}

export interface LoadblockImportResult {
  daemon: DaemonKind;
  seconds: number;
  /** When the first getblockcount was answered (start-up done, RPC up), and the height it said. */
  firstAnswer: { seconds: number; height: number };
  tipHeight: number;
  tipHash: string;
  /** gettxoutsetinfo with hash_serialized_3 at the tip. */
  utxo: { hash: string; txouts: number; totalAmount: number };
  /** Peak RSS at the tip, before the comparison calls: the daemon process and its process tree. */
  rss: TreePeakRss;
  /** The script-checking changes debug.log records, in order; empty when the daemon logs none. */
  scriptChecks: ScriptCheckChange[];
}

const POLL_MS = 50;
const PROGRESS_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The script-checking changes in a debug.log, as Core v31 words them. */
export function scriptCheckChanges(log: string): ScriptCheckChange[] {
  const changes: ScriptCheckChange[] = [];
  for (const m of log.matchAll(/(Enabling|Disabling) script verification at block #(\d+) \([0-9a-f]{64}\)(?:: (.*?))?\.$/gm)) {
    changes.push({ height: Number(m[2]), checked: m[1] === 'Enabling', ...(m[3] ? { reason: m[3] } : {}) });
  }
  return changes;
}

function commonArgs(datadir: string, port: number, o: LoadblockImportOptions): string[] {
  return [
    '-regtest',
    `-datadir=${datadir}`,
    ...(o.connect !== undefined ? [`-connect=${o.connect}`] : [`-loadblock=${o.file}`, '-connect=0']),
    `-par=${o.par}`,
    `-assumevalid=${o.assumeValid ?? '0'}`,
    '-checkblockindex=0',
    '-checkmempool=0',
    '-listen=0',
    '-disablewallet',
    '-server=1',
    `-rpcport=${port}`,
    '-printtoconsole=0',
    ...(o.extraArgs ?? []),
  ];
}

export async function loadblockImport(o: LoadblockImportOptions): Promise<LoadblockImportResult> {
  const executable = o.executable ?? (o.daemon === 'tsbtcd' ? TSBTCD : undefined);
  if (!executable) throw new Error(`no executable given for ${o.daemon}`);
  const datadir = mkdtempSync(join(tmpdir(), `bench-loadblock-${o.daemon}-`));
  const netdir = join(datadir, 'regtest');
  const port = await freePort();
  const rpc = new CookieRpc(port, join(netdir, '.cookie'));
  const debugLog = () => {
    try {
      return readFileSync(join(netdir, 'debug.log'), 'utf8');
    } catch {
      return '';
    }
  };

  const started = performance.now();
  const child = spawn(executable, commonArgs(datadir, port, o), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<void>((resolve) => child.on('exit', (code, signal) => ((exit = { code, signal }), resolve())));
  // Read through a call: the exit event sets `exit` while this function awaits.
  const exitStatus = () => exit;
  const spawnFailed = new Promise<never>((_, reject) => child.on('error', reject));
  spawnFailed.catch(() => undefined);
  const died = () => new Error(`${o.daemon} exited (${exitStatus()?.code ?? exitStatus()?.signal}) before reaching height ${o.tipHeight}: ${stderr.trim() || debugLog().trim().split('\n').slice(-5).join('\n')}`);

  try {
    // Timed: spawn until getblockcount answers the tip height.
    const deadline = started + (o.timeoutMs ?? 30 * 60_000);
    let lastProgress = started;
    let height = -1;
    let firstAnswer: LoadblockImportResult['firstAnswer'] | undefined;
    for (;;) {
      if (exitStatus()) throw died();
      try {
        height = await Promise.race([rpc.call<number>('getblockcount', [], 10_000), spawnFailed]);
        firstAnswer ??= { seconds: (performance.now() - started) / 1000, height };
      } catch (err) {
        // Not up yet: no cookie, no listener, or still warming up (-28).
        if (!isUnreachable(err) && !(err instanceof RpcError && err.code === -28)) throw err;
      }
      if (height >= o.tipHeight) break;
      const now = performance.now();
      if (now > deadline) throw new Error(`${o.daemon} did not reach height ${o.tipHeight} within ${((o.timeoutMs ?? 0) / 1000).toFixed(0)} s (at ${height})`);
      if (o.progress && now - lastProgress >= PROGRESS_MS) {
        lastProgress = now;
        o.progress(height, (now - started) / 1000);
      }
      await sleep(POLL_MS);
    }
    const seconds = (performance.now() - started) / 1000;

    const rss = treePeakRss(child.pid!);
    const tipHash = await rpc.call<string>('getbestblockhash');
    const info = await rpc.call<{ height: number; bestblock: string; txouts: number; hash_serialized_3: string; total_amount: number }>('gettxoutsetinfo', ['hash_serialized_3']);
    if (info.height !== height || info.bestblock !== tipHash) throw new Error(`${o.daemon}: gettxoutsetinfo is at ${info.height} ${info.bestblock}, the tip at ${height} ${tipHash}`);
    const scriptChecks = scriptCheckChanges(debugLog());

    try {
      await rpc.call('stop');
    } catch (err) {
      if (!isUnreachable(err)) throw err; // a daemon may close the connection as it stops
    }
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 300_000)))]);
    clearTimeout(timer);
    if (!stopped) throw new Error(`${o.daemon} did not exit within 300 s of stop`);
    if (exitStatus()?.code !== 0) throw new Error(`${o.daemon} stopped with ${exitStatus()?.code ?? exitStatus()?.signal}: ${stderr.trim()}`);
    return { daemon: o.daemon, seconds, firstAnswer: firstAnswer!, tipHeight: height, tipHash, utxo: { hash: info.hash_serialized_3, txouts: info.txouts, totalAmount: info.total_amount }, rss, scriptChecks };
  } finally {
    if (!exitStatus() && child.pid !== undefined) {
      // Failed half-way: the daemon and any processes it started go, so nothing outlives the run.
      for (const pid of processTree(child.pid).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await exited;
    }
    rmSync(datadir, { recursive: true, force: true });
  }
}
