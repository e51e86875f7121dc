/**
 * tsbtcd and the reference bitcoind behind one face that restarts on the same data
 * directory (with other options), for the mempool persistence tests: calls fail with
 * Core's { code, message }, and the debug log and network directory are at hand.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor } from './daemon-harness.js';

export interface RpcFailure {
  readonly code: number;
  readonly message: string;
}

export interface RestartableNode {
  readonly name: 'tsbtcd' | 'bitcoind';
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** The call's error, or a failed assertion when it succeeds. */
  failure(method: string, params?: unknown[]): Promise<RpcFailure>;
  readonly netdir: string;
  log(): string;
  /** A clean stop, then (after `whileStopped`) a start on the same data directory with `args`. */
  restart(args?: readonly string[], whileStopped?: () => void): Promise<void>;
  /** SIGKILL, then a start with `args` (tsbtcd only: Core's pool after a crash is not comparable). */
  crashRestart(args?: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export async function tsbtcdNode(args: readonly string[] = []): Promise<RestartableNode> {
  let daemon = await Daemon.start({ args: ['-par=1', ...args] });
  const call = async <T>(method: string, params: unknown[] = []): Promise<{ result?: T; error?: RpcFailure }> => {
    const r = await daemon.rpc(method, params);
    return r.json.error ? { error: { code: r.json.error.code, message: r.json.error.message } } : { result: r.json.result as T };
  };
  return {
    name: 'tsbtcd',
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      const r = await call<T>(method, params);
      if (r.error) throw new Error(`tsbtcd ${method}: ${r.error.code} ${r.error.message}`);
      return r.result as T;
    },
    async failure(method: string, params: unknown[] = []): Promise<RpcFailure> {
      const r = await call(method, params);
      if (!r.error) throw new Error(`tsbtcd ${method} succeeded: ${JSON.stringify(r.result)}`);
      return r.error;
    },
    get netdir() {
      return daemon.netdir;
    },
    log: () => daemon.debugLog(),
    async restart(next: readonly string[] = [], whileStopped?: () => void) {
      const exit = await daemon.stop();
      if (exit.code !== 0) throw new Error(`tsbtcd exited with ${JSON.stringify(exit)}: ${daemon.stderr}`);
      whileStopped?.();
      daemon = await daemon.restart({ args: ['-par=1', ...next] });
    },
    async crashRestart(next: readonly string[] = []) {
      await daemon.kill();
      daemon = await daemon.restart({ args: ['-par=1', ...next] });
    },
    close: () => daemon.cleanup(),
  };
}

export async function bitcoindNode(executable: string, args: readonly string[] = []): Promise<RestartableNode> {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-mempool-core-'));
  const base = ['-connect=0', '-disablewallet'];
  // Core loads mempool.dat after RPC is up: wait for getmempoolinfo's `loaded`.
  const start = async (more: readonly string[]): Promise<BitcoindProcess> => {
    const started = await BitcoindProcess.start(executable, [...base, ...more], dir);
    await waitFor('bitcoind mempool loaded', async () => ((await started.call<{ loaded: boolean }>('getmempoolinfo')).loaded ? true : undefined), 30_000);
    return started;
  };
  let node = await start(args);
  return {
    name: 'bitcoind',
    call: <T>(method: string, params: unknown[] = []) => node.call<T>(method, params),
    async failure(method: string, params: unknown[] = []): Promise<RpcFailure> {
      try {
        const result = await node.call(method, params);
        throw new Error(`bitcoind ${method} succeeded: ${JSON.stringify(result)}`);
      } catch (err) {
        const { code, message } = err as { code?: number; message: string };
        if (code === undefined) throw err;
        return { code, message: message.replace(/^.*?: error -?\d+: /, '') };
      }
    },
    netdir: join(dir, 'regtest'),
    log: () => readFileSync(join(dir, 'regtest', 'debug.log'), 'utf8'),
    async restart(next: readonly string[] = [], whileStopped?: () => void) {
      await node.stop();
      whileStopped?.();
      node = await start(next);
    },
    crashRestart() {
      throw new Error('bitcoind is only restarted cleanly here');
    },
    async close() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
