/**
 * A reference bitcoind v31.0 on regtest for interop tests: a temporary data directory,
 * free RPC and P2P ports (P2P bound to 127.0.0.1), Core's regtest consistency checks off,
 * RPC through the cookie. stop() ends it and removes the directory.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CookieRpc, isUnreachable } from '../../native-bench/cookie-rpc.js';
import { freePort, runProgramToExit, runToExit, tempDir, waitFor } from './daemon-harness.js';

export class BitcoindProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly datadir: string,
    readonly rpc: CookieRpc,
    readonly p2pPort: number,
    private readonly ownsDir: boolean,
  ) {}

  static async start(executable: string, args: readonly string[] = [], datadir?: string): Promise<BitcoindProcess> {
    const dir = datadir ?? tempDir();
    const [rpcPort, p2pPort] = [await freePort(), await freePort()];
    const child = spawn(
      executable,
      ['-regtest', `-datadir=${dir}`, `-rpcport=${rpcPort}`, `-port=${p2pPort}`, `-bind=127.0.0.1:${p2pPort}`, '-printtoconsole=0', '-checkblockindex=0', '-checkmempool=0', ...args],
      { stdio: 'ignore' },
    );
    const rpc = new CookieRpc(rpcPort, join(dir, 'regtest', '.cookie'));
    const node = new BitcoindProcess(child, dir, rpc, p2pPort, datadir === undefined);
    await waitFor(
      'bitcoind RPC',
      async () => {
        try {
          return (await rpc.call<number>('getblockcount')) >= 0 ? true : undefined;
        } catch (err) {
          if (isUnreachable(err) || (err as { code?: number }).code === -28) return undefined;
          throw err;
        }
      },
      60_000,
    );
    return node;
  }

  call<T = any>(method: string, params: unknown[] = []): Promise<T> {
    return this.rpc.call<T>(method, params);
  }

  get p2pAddress(): string {
    return `127.0.0.1:${this.p2pPort}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      try {
        await this.rpc.call('stop', [], 10_000);
      } catch {
        this.child.kill('SIGKILL');
      }
      await exited;
    }
    if (this.ownsDir) rmSync(this.datadir, { recursive: true, force: true });
  }
}

/** Runs bitcoind to completion (for start-up errors) in a temporary data directory: exit code and stderr. */
export async function runBitcoindToExit(executable: string, args: readonly string[], timeoutMs = 30_000): Promise<{ code: number | null; stderr: string }> {
  const dir = tempDir();
  try {
    const { code, stderr } = await runProgramToExit(executable, [`-datadir=${dir}`, `-rpcport=${await freePort()}`, '-printtoconsole=0', '-connect=0', '-listen=0', ...args], timeoutMs);
    return { code, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts tsbtcd and the reference bitcoind with each set of bad options and asserts both
 * refuse to start the same way: exit code 1 from bitcoind, and tsbtcd's code and stderr
 * equal to bitcoind's.
 */
export async function assertSameStartupRefusals(bitcoind: string, argSets: readonly (readonly string[])[]): Promise<void> {
  for (const args of argSets) {
    const want = await runBitcoindToExit(bitcoind, args);
    const dir = tempDir();
    try {
      const got = await runToExit([`-datadir=${dir}`, '-printtoconsole=0', '-connect=0', '-listen=0', ...args]);
      assert.equal(want.code, 1, args.join(' '));
      assert.deepEqual({ code: got.code, stderr: got.stderr }, want, args.join(' '));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
