/**
 * One scenario, two nodes: a tsbtcd process or the reference bitcoind v31.0, both on
 * regtest in a temporary data directory, driven through the same calls (RPC, the debug
 * log, the P2P port), so a test can run a scripted-peer scenario against each and expect
 * the same answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor } from './daemon-harness.js';

export interface NodeUnderTest {
  readonly name: 'tsbtcd' | 'bitcoind';
  readonly p2pPort: number;
  /** The process id (for resource checks). */
  readonly pid: number | undefined;
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** The debug log so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface NodeOptions {
  readonly args?: readonly string[];
  /** Automatic outbound connections from the address manager (tsbtcd's harness turns them off otherwise). */
  readonly automaticOutbound?: boolean;
}

export async function startTsbtcd(options: NodeOptions = {}): Promise<NodeUnderTest> {
  const daemon = await Daemon.start({ args: options.args ?? [], automaticOutbound: options.automaticOutbound ?? false });
  return {
    name: 'tsbtcd',
    p2pPort: daemon.p2pPort,
    pid: daemon.proc.pid,
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      const r = await daemon.rpc(method, params);
      if (r.json?.error) throw Object.assign(new Error(`${method}: ${r.json.error.message}`), { code: r.json.error.code });
      return r.json.result as T;
    },
    log: () => daemon.debugLog(),
    stop: () => daemon.cleanup(),
  };
}

export async function startBitcoind(path: string, options: NodeOptions = {}): Promise<NodeUnderTest> {
  // bitcoind makes automatic connections unless told not to.
  const args = [...(options.automaticOutbound ? [] : ['-connect=0']), '-disablewallet', ...(options.args ?? [])];
  const node = await BitcoindProcess.start(path, args);
  return {
    name: 'bitcoind',
    p2pPort: node.p2pPort,
    pid: node.child.pid,
    call: (method, params = []) => node.call(method, params),
    log: () => readFileSync(join(node.datadir, 'regtest', 'debug.log'), 'utf8'),
    stop: () => node.stop(),
  };
}

/** Waits until the debug log matches, and returns the match. */
export function waitForLog(node: NodeUnderTest, pattern: RegExp, what: string, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  return waitFor(`${node.name}: ${what}`, () => node.log().match(pattern) ?? undefined, timeoutMs);
}

/** The node's peers as getpeerinfo shows them. */
export function peerInfo(node: NodeUnderTest): Promise<any[]> {
  return node.call<any[]>('getpeerinfo');
}

export type Starter = (options: NodeOptions) => Promise<NodeUnderTest>;

const reference = referenceBitcoind();

/** The nodes a scenario runs on, by name: tsbtcd, and the reference bitcoind (undefined when it is missing). */
export const NODE_STARTERS: readonly [string, Starter | undefined][] = [
  ['tsbtcd', startTsbtcd],
  ['bitcoind', 'path' in reference ? (options) => startBitcoind(reference.path, options) : undefined],
];

/** A test's `skip` for a node: false when it can start, else the one line saying why the reference is missing. */
export function skipUnless(start: Starter | undefined): false | string {
  return start ? false : (reference as { missing: string }).missing;
}

/** Cleanups run after the file's tests, last registered first. */
export function cleanupsAfterTests(): (() => unknown)[] {
  const cleanups: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  return cleanups;
}
